// The kill -9 chaos test's model: what each entry should do, and the checks of what the run observed against the worker's contract.
import type { SeededRandom, Violation } from '@respire/harness';
import type { ChaosKind, ChaosMode, LogEvent } from './chaos-worker.js';

/** An entry the test appended, and the behaviour its fields ask of the handler (chaos-worker.ts). */
export interface PlannedEntry {
  readonly id: string;
  readonly kind: ChaosKind;
  readonly mode: ChaosMode;
  /** `flaky`: fails on attempts 1..failUntil. */
  readonly failUntil: number;
  readonly workMs: number;
  /** The entry's fields as written, name and value alternating. */
  readonly fields: readonly Buffer[];
}

/** A record of a worker process's log stream (chaos-worker.ts `LogEvent`). */
export interface LogRecord {
  /** The server's clock when it was written: the millisecond part of its stream ID. */
  readonly atMs: number;
  readonly event: LogEvent;
  readonly id: string;
  /** The delivery count. */
  readonly n: number;
  /** The process `<slot>.<generation>`. */
  readonly p: string;
  /** `end`: the outcome. */
  readonly o?: string;
}

/** A record of the dead-letter stream, its five metadata pairs read apart. */
export interface DeadLetterRecord {
  /** The server's clock when it was appended: the millisecond part of its stream ID. */
  readonly atMs: number;
  readonly sourceId: string;
  readonly group: string;
  readonly attempt: number;
  readonly reason: string;
  readonly exceptionType: string;
  /** The pairs after the five metadata pairs, name and value alternating. */
  readonly fields: readonly Buffer[];
}

/** An entry a killed process's consumer still had pending right after the kill, at delivery count `count`. */
export interface Orphan {
  readonly id: string;
  readonly consumer: string;
  readonly count: number;
  /** When it stopped being pending to `consumer` at `count` (claimed by another, or replayed), in ms after the kill; undefined if never. */
  recoveredAfterMs?: number;
}

/** A SIGKILL, and what its process's consumers still had pending right after it. */
export interface KillRecord {
  readonly process: string;
  /** The server's clock just after the process exited (for histories). */
  readonly serverMs: number;
  readonly orphans: readonly Orphan[];
}

/** The behaviour mix: most entries succeed; a few fail for a while, always, or ask to be dead-lettered. */
const KINDS: readonly (readonly [ChaosKind, number])[] = [
  ['ok', 86],
  ['flaky', 6],
  ['poison', 3],
  ['explicit', 5],
];
const MODES: readonly ChaosMode[] = ['nack', 'throw', 'unknown'];

/** Draws one entry's behaviour and fields. `flaky` entries fail 1..deliveryLimit times (at the limit: dead-lettered). */
export function planEntry(random: SeededRandom, seq: number, deliveryLimit: number): Omit<PlannedEntry, 'id'> {
  const kind = random.weighted(KINDS);
  const mode = random.pick(MODES);
  const failUntil = kind === 'flaky' ? random.int(1, deliveryLimit) : 0;
  // Mostly quick handlers; some take tens of milliseconds, a few hundreds (a batch behind one waits).
  const workMs = random.weighted([
    [random.int(0, 2), 90],
    [random.int(10, 50), 8],
    [random.int(100, 400), 2],
  ] as const);
  const blob = Buffer.from(Array.from({ length: random.int(0, 48) }, () => random.int(0, 255)));
  const fields = ['seq', String(seq), 'kind', kind, 'mode', mode, 'failUntil', String(failUntil), 'workMs', String(workMs)].map((s) => Buffer.from(s));
  return { kind, mode, failUntil, workMs, fields: [...fields, Buffer.from('blob'), blob] };
}

/** True when the handler fails this entry at `attempt`. */
function failsAt(entry: PlannedEntry, attempt: number): boolean {
  return entry.kind === 'poison' || (entry.kind === 'flaky' && attempt <= entry.failUntil);
}

/** True when the contract says the entry ends dead-lettered however the run goes (the handler never succeeds within the limit). */
export function mustDeadLetter(entry: PlannedEntry, deliveryLimit: number): boolean {
  return entry.kind === 'explicit' || failsAt(entry, deliveryLimit);
}

/** The failure reason and exception type a dead-letter record of a failure on the final attempt carries. */
function failureRecord(entry: PlannedEntry): { reason: string; exceptionType: string } {
  if (entry.mode === 'nack') return { reason: 'nack', exceptionType: '' };
  return { reason: 'processing-failed', exceptionType: entry.mode === 'throw' ? 'ChaosHandlerError' : '' };
}

/** What one run observed. */
export interface Observations {
  readonly entries: readonly PlannedEntry[];
  readonly log: readonly LogRecord[];
  readonly deadLetters: readonly DeadLetterRecord[];
  readonly kills: readonly KillRecord[];
  readonly group: string;
  readonly deliveryLimit: number;
  /** The longest a killed consumer's entry may stay with it (ms after the kill). */
  readonly recoveryBoundMs: number;
}

/** What the checks found, and the run's figures. */
export interface CheckResult {
  readonly violations: Violation[];
  /** Entries whose work was done (or dead-lettered) more than once, and the extra completions. */
  readonly duplicateEntries: number;
  readonly extraCompletions: number;
  /** Deliveries (start records), and stale completions the fence refused (end outcome `stale`). */
  readonly deliveries: number;
  readonly stale: number;
  readonly deadLettersByReason: Readonly<Record<string, number>>;
  /** Per orphan of a kill delivered again: ms from the kill until it left the killed consumer. */
  readonly recoveryMs: readonly number[];
  /** Orphans whose last batch, written before the kill, completed them: no delivery followed. */
  readonly completedByKilled: number;
}

const CONFIRMED = new Set(['ack', 'dead-letter', 'deleted']);

/**
 * Checks a run against the worker's contract (README "Results", "Delivery limits and dead
 * letters", "Fenced completion"):
 * - completed: every entry's work was done, or it was dead-lettered, at least once;
 * - work only where the handler succeeds: at an attempt where the entry does not fail, never past
 *   the delivery limit;
 * - dead letters only where the contract says: at most one record per entry, for an entry that
 *   asked for it (`explicit`), failed its final attempt (`nack` / `processing-failed`, at exactly
 *   the limit, with the right exception type), or was abandoned at the limit (`delivery-limit`,
 *   past it); each with the entry's own fields, in order; and every entry that never succeeds
 *   within the limit is dead-lettered;
 * - one confirmed completion per entry: at most one delivery reports ack, dead-letter or deleted,
 *   an ack only after that delivery's own work, a dead-letter only for the delivery the record
 *   names;
 * - completed only by its newest delivery: a completion commits only while the entry is pending to
 *   that consumer at that delivery count (the fence), and once committed no later delivery can
 *   exist; so a confirmed completion of attempt n beside a delivery of a later attempt is a stale
 *   completion the fence accepted (another owner, or the same consumer name at a later count);
 * - recovery: every entry a killed process left pending leaves its consumer (claimed by another,
 *   replayed under the same name, or completed by the batch it wrote before the kill) within the bound.
 */
export function checkRun(run: Observations): CheckResult {
  const { entries, deliveryLimit: limit } = run;
  const violations: Violation[] = [];
  const byId = new Map(entries.map((e) => [e.id, e]));
  const logOf = groupBy(run.log, (r) => r.id);
  const lettersOf = groupBy(run.deadLetters, (r) => r.sourceId);
  // A violation is dated by the last record about its entry (server clock): when it had shown.
  const fail = (rule: string, entry: PlannedEntry | undefined, what: string) => {
    if (entry === undefined) return void violations.push({ rule, detail: what });
    const times = [idMs(entry.id), ...(logOf.get(entry.id) ?? []).map((r) => r.atMs), ...(lettersOf.get(entry.id) ?? []).map((r) => r.atMs)];
    violations.push({ rule, detail: `${what}; ${history(entry, run)}`, atMs: Math.max(...times) });
  };
  const deadLettersByReason: Record<string, number> = {};
  let duplicateEntries = 0;
  let extraCompletions = 0;

  for (const record of run.deadLetters) {
    deadLettersByReason[record.reason] = (deadLettersByReason[record.reason] ?? 0) + 1;
    if (!byId.has(record.sourceId))
      fail('dead letters only where the contract says', undefined, `a record names ${record.sourceId}, which the test never appended`);
  }
  for (const entry of entries) {
    const log = logOf.get(entry.id) ?? [];
    const work = log.filter((r) => r.event === 'work');
    const letters = lettersOf.get(entry.id) ?? [];
    const completions = work.length + letters.length;
    if (completions === 0) fail('completed at least once', entry, 'neither its work was done nor was it dead-lettered');
    if (completions > 1) {
      duplicateEntries++;
      extraCompletions += completions - 1;
    }
    for (const w of work) {
      if (failsAt(entry, w.n) || entry.kind === 'explicit')
        fail('work only where the handler succeeds', entry, `work recorded at attempt ${w.n}, where the handler does not succeed`);
      else if (w.n > limit) fail('work only where the handler succeeds', entry, `the handler ran at attempt ${w.n}, past the delivery limit ${limit}`);
    }
    if (letters.length > 1) fail('dead letters only where the contract says', entry, `dead-lettered ${letters.length} times`);
    for (const letter of letters) {
      const why = deadLetterProblem(entry, letter, run.group, limit);
      if (why !== undefined) fail('dead letters only where the contract says', entry, why);
    }
    if (letters.length === 0 && mustDeadLetter(entry, limit))
      fail('dead letters only where the contract says', entry, 'it never succeeds within the limit, yet it was not dead-lettered');
    const confirmed = log.filter((r) => r.event === 'end' && CONFIRMED.has(r.o ?? ''));
    if (confirmed.length > 1) {
      fail(
        'one confirmed completion per entry',
        entry,
        `${confirmed.length} deliveries reported a completion (${confirmed.map((r) => `${r.o} at attempt ${r.n}`).join(', ')})`,
      );
    }
    for (const end of confirmed) {
      // A committed completion takes the entry out of the PEL, after which nobody can claim it: a
      // newer delivery proves this one was already stale when its completion was accepted.
      const newer = log.find((r) => r.event === 'start' && r.n > end.n);
      if (newer !== undefined) {
        fail(
          'completed only by its newest delivery',
          entry,
          `attempt ${end.n} reported ${end.o}, though attempt ${newer.n} had already been delivered (to ${newer.p})`,
        );
      }
      if (end.o === 'ack' && !work.some((w) => w.n === end.n && w.p === end.p)) {
        fail('one confirmed completion per entry', entry, `attempt ${end.n} reported ack without its own work`);
      }
      if (end.o === 'dead-letter' && !letters.some((l) => l.attempt === end.n)) {
        fail('one confirmed completion per entry', entry, `attempt ${end.n} reported dead-letter, but no record names that attempt`);
      }
    }
  }

  const recoveryMs: number[] = [];
  let completedByKilled = 0;
  for (const kill of run.kills) {
    for (const orphan of kill.orphans) {
      const entry = byId.get(orphan.id);
      const after = orphan.recoveredAfterMs;
      if (after === undefined)
        fail(
          'recovered after a kill',
          entry,
          `left pending to ${orphan.consumer} at attempt ${orphan.count} by killed process ${kill.process}, never recovered`,
        );
      else if (after > run.recoveryBoundMs)
        fail(`recovered within ${run.recoveryBoundMs} ms`, entry, `recovered ${Math.round(after)} ms after ${kill.process} was killed`);
      // Gone from the killed consumer with no later delivery: the killed process's last batch (written before the kill) completed it.
      const redelivered = (logOf.get(orphan.id) ?? []).some((r) => r.event === 'start' && r.n > orphan.count);
      if (after !== undefined && redelivered) recoveryMs.push(after);
      else if (after !== undefined) completedByKilled++;
    }
  }

  const deliveries = run.log.filter((r) => r.event === 'start').length;
  const stale = run.log.filter((r) => r.event === 'end' && r.o === 'stale').length;
  return { violations, duplicateEntries, extraCompletions, deliveries, stale, deadLettersByReason, recoveryMs, completedByKilled };
}

/** Why a dead-letter record is not one the contract allows for this entry, or undefined when it is. */
function deadLetterProblem(entry: PlannedEntry, letter: DeadLetterRecord, group: string, limit: number): string | undefined {
  const at = `record (${letter.reason}, attempt ${letter.attempt}, exception type '${letter.exceptionType}')`;
  if (letter.group !== group) return `${at} names group '${letter.group}'`;
  if (!sameFields(letter.fields, entry.fields)) return `${at} does not carry the entry's fields unchanged and in order`;
  switch (letter.reason) {
    case 'delivery-limit':
      return letter.attempt > limit && letter.exceptionType === '' ? undefined : `${at}: an abandoned final attempt is dead-lettered past the limit ${limit}`;
    case 'explicit':
      return entry.kind === 'explicit' && letter.attempt <= limit && letter.exceptionType === ''
        ? undefined
        : `${at}: only an entry whose handler returns dead-letter`;
    case 'nack':
    case 'processing-failed': {
      const expected = failureRecord(entry);
      if (!failsAt(entry, limit)) return `${at}: the handler does not fail this entry at the limit ${limit}`;
      if (letter.attempt !== limit) return `${at}: a failure is dead-lettered on the final attempt, ${limit}`;
      if (letter.reason !== expected.reason || letter.exceptionType !== expected.exceptionType) {
        return `${at}: expected reason ${expected.reason}, exception type '${expected.exceptionType}'`;
      }
      return undefined;
    }
    default:
      return `${at}: unknown reason`;
  }
}

/** The millisecond part of a stream entry ID: the server's clock when it was added. */
export const idMs = (id: unknown): number => Number(String(id).split('-')[0]);

function sameFields(a: readonly Buffer[], b: readonly Buffer[]): boolean {
  return a.length === b.length && a.every((value, i) => value.equals(b[i]!));
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

/** An entry's story for a violation: its behaviour, then its log records and dead-letter records, in server-time order. */
export function history(entry: PlannedEntry, run: Pick<Observations, 'log' | 'deadLetters' | 'kills'>): string {
  const behaviour =
    entry.kind === 'flaky' ? `flaky (${entry.mode} on attempts 1..${entry.failUntil})` : entry.kind === 'poison' ? `poison (${entry.mode})` : entry.kind;
  const events = run.log.filter((r) => r.id === entry.id).map((r) => ({ atMs: r.atMs, text: `${r.event}${r.o ? ` ${r.o}` : ''} #${r.n} by ${r.p}` }));
  for (const kill of run.kills) if (kill.orphans.some((o) => o.id === entry.id)) events.push({ atMs: kill.serverMs, text: `${kill.process} killed` });
  const sorted = events.sort((a, b) => a.atMs - b.atMs);
  const t0 = sorted[0]?.atMs ?? 0;
  const shown = sorted.slice(0, 16).map((e) => `+${e.atMs - t0}ms ${e.text}`);
  if (sorted.length > 16) shown.push(`... ${sorted.length - 16} more`);
  const letters = run.deadLetters.filter((l) => l.sourceId === entry.id).map((l) => `${l.reason} at attempt ${l.attempt}`);
  return `entry ${entry.id}, ${behaviour}, ${entry.workMs} ms: ${shown.join(', ') || 'no log records'}${letters.length ? `; dead-lettered: ${letters.join(', ')}` : ''}`;
}
