// Terminal and JSON output of the CLI: escapes, tables, durations, records.
import type { DeadLetterRecord, History, HistoryPoint, Job, Overview, PendingEntry, QueueMessage, Resource } from '../api.js';
import { describeBytes } from '../payload.js';

/**
 * What a terminal must never receive raw from data: C0 controls (ANSI escapes start with ESC), DEL,
 * C1 controls (0x9b is a one-byte CSI) and the bidirectional-text controls that reorder a line.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escapeControl(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/** One value for a terminal: every control character (newlines too) shown as an escape. */
export function safe(s: string): string {
  return s.replace(CONTROL, escapeControl);
}

/** Human output for a terminal: control characters escaped, the lines it is made of kept. */
export function terminalText(s: string): string {
  return s.replace(CONTROL_BUT_NEWLINE, escapeControl);
}

/** What JSON.stringify leaves raw inside strings that a terminal would still act on. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** A JSON document whose text holds no control character raw (C1 and bidi controls become `\u` escapes: the same value). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(JSON_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const all = [header, ...rows.map((r) => r.map(safe))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

export function duration(ms: number): string {
  if (ms < 0) return '-';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${Math.floor((ms % 60_000) / 1000)}s`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h${Math.floor((ms % 3_600_000) / 60_000)}m`;
  return `${Math.floor(ms / 86_400_000)}d${Math.floor((ms % 86_400_000) / 3_600_000)}h`;
}

/** A page's table and, when there are any, the flags that read the next and the previous page. */
export function pageText(body: string, next: string | undefined, previous?: string): string {
  return body + (next ? `\nnext page: --cursor ${next}` : '') + (previous ? `\nprevious page: --before ${previous}` : '');
}

/** A pending entry's idle column: a released one says so instead of an idle time of weeks. */
export function pendingIdle(p: PendingEntry): string {
  return p.released ? 'released, claimable now' : duration(p.idleMs);
}

/** A number of things in words: `1 dead letter`, `3 dead letters`. */
export const things = (n: number, noun: string) => `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;

/** What a retry or delete job did, in plain words. */
export function jobReport(job: Job): string {
  const verb = job.action === 'retry' ? 'Retried' : 'Deleted';
  const parts: string[] = [];
  if (job.state === 'cancelled')
    parts.push(
      `Cancelled${job.cancelledBy ? ` by ${job.cancelledBy}` : ''}: ${verb.toLowerCase()} ${things(job.done, 'dead letter')} first; the records it did not reach are still there.`,
    );
  else if (job.state === 'interrupted')
    parts.push(
      `Interrupted (its process stopped): ${verb.toLowerCase()} ${things(job.done, 'dead letter')} first; resume it with \`respire jobs resume ${job.id}\`.`,
    );
  else if (job.state === 'failed') parts.push(`Failed (${job.error ?? 'unknown error'}): ${verb.toLowerCase()} ${things(job.done, 'dead letter')} first.`);
  else if (job.done + job.failed + job.missing === 0) parts.push(`No dead letters to ${job.action === 'retry' ? 'retry' : 'delete'}.`);
  else parts.push(`${verb} ${things(job.done, 'dead letter')}.`);
  if (job.failed > 0) parts.push(`${things(job.failed, 'record')} left in place: not records Respire wrote, so they cannot go back.`);
  if (job.missing > 0) parts.push(`${things(job.missing, 'record')} already gone (retried or deleted meanwhile).`);
  parts.push(`(job ${job.id})`);
  return parts.join(' ');
}

/** Jobs as a table. */
export function jobsTable(jobs: readonly Job[]): string {
  return table(
    ['JOB', 'STATE', 'ACTION', 'RESOURCE', 'DONE', 'FAILED', 'MISSING', 'TOTAL', 'BY', 'STARTED'],
    jobs.map((j) => [
      j.id,
      j.state,
      j.action,
      j.resource,
      String(j.done),
      String(j.failed),
      String(j.missing),
      String(j.total),
      j.actor,
      new Date(j.createdMs).toISOString(),
    ]),
  );
}

/** A delayed send that no receive has met yet: `ready` in the admin API, but not receivable before `dueMs`. */
export const waitsForDue = (m: QueueMessage, nowMs: number): boolean => m.state === 'ready' && m.dueMs !== null && m.dueMs > nowMs;

/**
 * A queue message's state in words. A delayed send reads `delayed until <time>` both while it is
 * still `ready` (no receive has met it) and once a receive has parked it (`delayed`, delivery count 0).
 */
export function messageState(m: QueueMessage, nowMs: number): string {
  const until = (ms: number) => `delayed until ${new Date(ms).toISOString()} (${ms > nowMs ? `in ${duration(ms - nowMs)}` : `due ${duration(nowMs - ms)} ago`}`;
  if (waitsForDue(m, nowMs)) return `${until(m.dueMs!)}; a delayed send, not yet delivered)`;
  if (m.state === 'ready') return 'ready (not yet delivered)';
  if (m.state === 'delivered') return 'delivered, not completed (deadline not found)';
  if (m.state === 'delayed' && m.untilMs !== null) return `${until(m.untilMs)}${m.deliveryCount === 0 ? '; a delayed send, not yet delivered' : ''})`;
  const when = m.untilMs === null ? '' : m.due ? ` (due ${duration(nowMs - m.untilMs)} ago)` : ` for ${duration(m.untilMs - nowMs)}`;
  return `${m.state}${when}`;
}

const rateText = (n: number | null) => (n === null ? '-' : n < 10 ? n.toFixed(2) : n.toFixed(0));
const gauge = (n: number | null) => (n === null ? '-' : String(n));

/** History as one table per series: rates per second and backlogs. */
export function renderHistory(h: History): string {
  if (!h.kept) return '(this stream can have no history: no history key shares its slot)';
  if (h.samples === 0) return '(no samples: history is recorded by a sampler — `respire history record`, or a dashboard with history on)';
  const parts = [
    `${h.samples} samples${h.truncated ? ' (the newest 10,000)' : ''}, ${new Date(h.fromMs!).toISOString()} to ${new Date(h.toMs!).toISOString()}`,
  ];
  for (const s of h.series) {
    const title = s.kind === 'queue' ? 'QUEUE' : s.kind === 'stream' ? 'STREAM' : `GROUP ${s.name}`;
    const rows = s.points.map((p: HistoryPoint) => [
      new Date(p.atMs).toISOString(),
      rateText(p.sent),
      rateText(p.delivered),
      rateText(p.acknowledged),
      rateText(p.deadLettered),
      gauge(p.lag),
      gauge(p.pending),
      p.oldestAgeMs === null ? '-' : duration(p.oldestAgeMs),
      gauge(p.deadLetters),
    ]);
    parts.push(
      `${title} (rates per second)\n${table(['TIME', 'SENT', 'DELIVERED', 'ACKED', 'DEAD-LETTERED', 'LAG', 'PENDING', 'OLDEST', 'DEAD LETTERS'], rows)}`,
    );
  }
  return parts.join('\n\n');
}

/** A name that names nothing, and the nearest that exist. */
export interface Missing {
  readonly kind: 'queue' | 'stream';
  readonly name: string;
  readonly known: readonly string[];
}

/** `status` in a terminal; `streamsNamed`: whether --stream named any worker stream; `missing`: names given that name nothing. */
export function renderOverview(o: Overview, streamsNamed = true, missing: readonly Missing[] = []): string {
  const parts: string[] = [];
  parts.push(
    'QUEUES\n' +
      table(
        ['QUEUE', 'LENGTH', 'READY', 'IN FLIGHT', 'DUE', 'DEAD LETTERS'],
        o.queues.map((q) => [
          q.exists ? label(q.resource) : `${label(q.resource)} (missing)`,
          String(q.length),
          q.ready === null ? 'unknown' : String(q.ready),
          String(q.inFlight),
          String(q.due),
          String(q.deadLetters),
        ]),
      ),
  );
  const rows: string[][] = [];
  for (const s of o.streams) {
    const dead = s.deadLetters === null ? '-' : String(s.deadLetters);
    if (s.groups.length === 0)
      rows.push([s.exists ? label(s.resource) : `${label(s.resource)} (missing)`, String(s.length), s.exists ? '-' : '(no stream)', '-', '-', '-', dead]);
    for (const g of s.groups)
      rows.push([label(s.resource), String(s.length), g.name, g.lag === null ? 'unknown' : String(g.lag), String(g.pending), String(g.consumers), dead]);
  }
  parts.push(
    'STREAMS\n' +
      (streamsNamed || rows.length > 0
        ? table(['STREAM', 'LENGTH', 'GROUP', 'LAG', 'PENDING', 'CONSUMERS', 'DEAD LETTERS'], rows)
        : '(none named: worker streams are configured, not discovered; name them with --stream KEY [--dead-letter-stream KEY])'),
  );
  if (o.unavailable.length > 0) {
    parts.push(
      'UNAVAILABLE (the server refused their status)\n' +
        table(
          ['RESOURCE', 'ERROR', 'MESSAGE'],
          o.unavailable.map((u) => [label(u.resource), u.code, u.message]),
        ),
    );
  }
  if (missing.length > 0) {
    parts.push(
      'NOT FOUND (nothing under these names; nearest that exist)\n' +
        table(
          ['KIND', 'NAME', 'NEAREST'],
          missing.map((m) => [m.kind, m.name, m.known.join(', ') || '-']),
        ),
    );
  }
  if (o.discoveryTruncated) parts.push('(queue discovery stopped at its page limit: more queues may exist)');
  return parts.join('\n\n');
}

function label(r: Resource): string {
  return r.kind === 'queue' ? `${r.keyPrefix}${r.name}` : r.label;
}

function preview(fields: readonly (readonly [Buffer, Buffer])[]): string {
  const short = (b: Buffer, maxBytes: number) => {
    const view = describeBytes(b, { maxBytes });
    return view.kind === 'json' ? b.toString('utf8') : view.text;
  };
  const text = fields.map(([f, v]) => `${short(f, 40)}=${short(v, 60)}`).join(' ');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** The reason of every queue dead letter (its record has no reason field). */
const QUEUE_REASON = 'delivery limit';

/** A grouped queue's dead letter as a table row: ID, group, source ID, deliveries, payload preview. */
export function groupedRecordRow(r: DeadLetterRecord): string[] {
  if (r.kind === 'queue') return [r.id, r.group ?? '-', r.sourceId, String(r.deliveryCount), preview([[Buffer.from('payload'), r.payload]])];
  return [r.id, '(foreign)', '-', '-', preview(r.fields)];
}

export function recordRow(r: DeadLetterRecord): string[] {
  if (r.kind === 'worker')
    return [r.id, 'worker', r.sourceId, String(r.attempt), r.exceptionType ? `${r.reason} (${r.exceptionType})` : r.reason, preview(r.fields)];
  // A queue dead letter is always a move at the delivery limit (the queue README): the dashboard's wording.
  if (r.kind === 'queue') return [r.id, 'queue', r.sourceId, String(r.deliveryCount), QUEUE_REASON, preview([[Buffer.from('payload'), r.payload]])];
  return [r.id, 'foreign', '-', '-', '-', preview(r.fields)];
}

function bytesJson(b: Buffer, full: boolean, maxBytes = 4096) {
  const view = describeBytes(b, { maxBytes });
  return { kind: view.kind, text: view.text, truncated: view.truncated, totalBytes: view.totalBytes, ...(full ? { base64: b.toString('base64') } : {}) };
}

export function recordJson(r: DeadLetterRecord, full: boolean, maxBytes?: number) {
  const fields = (list: readonly (readonly [Buffer, Buffer])[]) =>
    list.map(([f, v]) => ({ field: bytesJson(f, full, maxBytes), value: bytesJson(v, full, maxBytes) }));
  if (r.kind === 'queue')
    return {
      kind: r.kind,
      id: r.id,
      sourceId: r.sourceId,
      deliveryCount: r.deliveryCount,
      ...(r.group === undefined ? {} : { group: r.group }),
      payload: bytesJson(r.payload, full, maxBytes),
    };
  if (r.kind === 'worker') {
    return {
      kind: r.kind,
      id: r.id,
      sourceId: r.sourceId,
      group: r.group,
      attempt: r.attempt,
      reason: r.reason,
      exceptionType: r.exceptionType,
      fields: fields(r.fields),
    };
  }
  return { kind: r.kind, id: r.id, fields: fields(r.fields) };
}

export function renderRecord(r: DeadLetterRecord, maxBytes: number): string {
  const lines = [`id: ${r.id}`, `kind: ${r.kind}`];
  const value = (b: Buffer) => {
    const v = describeBytes(b, { maxBytes });
    return `[${v.kind}, ${v.totalBytes} bytes${v.truncated ? `, first ${maxBytes} shown` : ''}]\n${v.text
      .split('\n')
      .map((l) => `    ${safe(l)}`)
      .join('\n')}`;
  };
  if (r.kind === 'queue')
    lines.push(
      `source id: ${safe(r.sourceId)}`,
      ...(r.group === undefined ? [] : [`group: ${safe(r.group)}`]),
      `delivery count: ${r.deliveryCount}`,
      `reason: ${QUEUE_REASON}`,
      `payload: ${value(r.payload)}`,
    );
  else {
    if (r.kind === 'worker')
      lines.push(
        `source id: ${safe(r.sourceId)}`,
        `group: ${safe(r.group)}`,
        `attempt: ${r.attempt}`,
        `reason: ${safe(r.reason)}`,
        `exception type: ${safe(r.exceptionType) || '-'}`,
      );
    lines.push('fields:');
    for (const [f, v] of r.fields) lines.push(`  ${safe(describeBytes(f, { maxBytes: 256 }).text)}: ${value(v)}`);
  }
  return lines.join('\n');
}
