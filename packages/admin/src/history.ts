// History: samples of every resource kept in Redis (bounded by age), recorded by a sampler, read back as rates and backlogs.
import type { History, HistoryOptions, HistoryPoint, HistoryRecordResult, HistorySeries, Resource, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { RespireValidationError, infoField, isRespireError, keySlot, missingOrThrow, parseEntries, text } from './redis.js';
import { mapLimited } from './status.js';
import { toCount, toOptions } from './validate.js';

/** How history is kept (`RespireAdminOptions.history`). */
export interface HistorySettings {
  /** Samples older than this are trimmed (XADD ... MINID ~), ms. @defaultValue 86_400_000 (24 hours) */
  readonly retentionMs?: number;
  /** Consumer groups of one stream sampled at most (XINFO GROUPS order), 1..1000. @defaultValue 64 */
  readonly maxGroups?: number;
}

export const DEFAULT_RETENTION_MS = 86_400_000;
/** Resources sampled at a time by one recording. */
const RECORD_CONCURRENCY = 8;
/** Samples one read returns at most (each XRANGE carries COUNT). */
const MAX_SAMPLES = 10_000;

/** The checked settings. */
export function historySettings(value: unknown): Required<HistorySettings> {
  const o = toOptions('history', value as HistorySettings | undefined, ['retentionMs', 'maxGroups']);
  return {
    retentionMs: toCount('history.retentionMs', o.retentionMs, DEFAULT_RETENTION_MS, 60_000, 30 * DEFAULT_RETENTION_MS),
    maxGroups: toCount('history.maxGroups', o.maxGroups, 64, 1, 1000),
  };
}

/**
 * The keys of a resource's history and of the counters its producers and consumers may keep,
 * both in the resource's slot: `…{respire-queue:<name>}:history` / `:counters` for a queue;
 * `<stream>:respire-history` / `:respire-counters` for a worker stream (or
 * `{<stream>}:respire-…` when the stream key has no hash tag). Undefined for a stream key no
 * suffix keeps in its slot (a `{` without a closing `}`): such a stream has no history.
 */
export function historyKeys(r: Resource): { history: string; counters: string } | undefined {
  if (r.kind === 'queue') {
    const base = r.keys.stream.slice(0, -'stream'.length);
    return { history: `${base}history`, counters: `${base}counters` };
  }
  const slot = keySlot(r.stream);
  for (const base of [`${r.stream}:respire-`, `{${r.stream}}:respire-`]) {
    if (keySlot(`${base}history`) === slot) return { history: `${base}history`, counters: `${base}counters` };
  }
  return undefined;
}

/**
 * Records one sample of every resource (one script each, at most 8 at a time), unless one of the
 * last `minIntervalMs` exists: several dashboards sampling the same resources then keep one
 * sample per interval between them. A resource whose sample fails (an ACL refusal, a key of
 * another type) is reported in `failed`; the others are still recorded.
 */
export async function recordHistory(
  ctx: AdminContext,
  settings: Required<HistorySettings>,
  options?: { readonly minIntervalMs?: number },
): Promise<HistoryRecordResult> {
  const o = toOptions('options', options, ['minIntervalMs']);
  const minIntervalMs = toCount('minIntervalMs', o.minIntervalMs, 0, 0, 2_147_483_647);
  const { resources } = await ctx.resources.list();
  const out = { recorded: 0, skipped: 0, failed: [] as { id: ResourceId; code: string; message: string }[] };
  await mapLimited(resources, RECORD_CONCURRENCY, async (r) => {
    try {
      const recorded = await sample(ctx, r, settings, minIntervalMs);
      if (recorded === undefined) out.failed.push({ id: r.id, code: 'UNSUPPORTED', message: "no history key shares this stream key's slot" });
      else if (recorded) out.recorded++;
      else out.skipped++;
    } catch (error) {
      if (!isRespireError(error) || error.code === 'TRANSPORT_FAILED') throw error;
      out.failed.push({ id: r.id, code: error.code, message: error.message });
    }
  });
  return out;
}

/** One resource's sample: true recorded, false skipped (a recent one exists), undefined when it has no history key. */
async function sample(ctx: AdminContext, r: Resource, settings: Required<HistorySettings>, minIntervalMs: number): Promise<boolean | undefined> {
  const keys = historyKeys(r);
  if (!keys) return undefined;
  const common = { minIntervalMs, retentionMs: settings.retentionMs, maxGroups: settings.maxGroups };
  const op = 'RespireAdmin recordHistory';
  let reply: { readonly status: 'recorded' | 'skipped' };
  if (r.kind === 'queue') {
    reply = await ctx.redis.script(
      'historyQueue',
      { stream: r.keys.stream, deadlines: r.keys.deadlines, deadLetter: r.keys.deadLetter, ...keys, ...common },
      op,
    );
  } else {
    const dead = r.deadLetterStream;
    const sameSlot = dead !== undefined && keySlot(dead) === keySlot(r.stream);
    // A dead-letter stream in another slot is read here, just before the sample.
    const apart = dead !== undefined && !sameSlot ? await deadLetterFacts(ctx, dead, op) : { added: '', length: '' };
    reply = await ctx.redis.script(
      'historyStream',
      {
        stream: r.stream,
        deadLetter: sameSlot ? dead : keys.history,
        ...keys,
        ...common,
        hasDeadLetter: sameSlot ? '1' : '0',
        deadLetterAdded: apart.added,
        deadLetterLength: apart.length,
      },
      op,
    );
  }
  return reply.status === 'recorded';
}

/** Entries added and length of a stream ('' and '0' when it does not exist). */
async function deadLetterFacts(ctx: AdminContext, key: string, op: string): Promise<{ added: string; length: string }> {
  const reply = await ctx.redis.trySend(key, ['XINFO', 'STREAM', key], op);
  if (reply === null || typeof reply !== 'object' || 'error' in reply) {
    if (reply && typeof reply === 'object' && 'error' in reply) missingOrThrow(reply, null, op);
    return { added: '', length: '0' };
  }
  return { added: text(infoField(reply, 'entries-added')), length: text(infoField(reply, 'length')) };
}

/** One sample as read back: its time and fields. */
interface Sample {
  readonly atMs: number;
  readonly f: ReadonlyMap<string, string>;
}

/** A resource's history between two times, as rates (per second) and gauges per series. */
export async function history(ctx: AdminContext, id: ResourceId, options?: HistoryOptions): Promise<History> {
  const o = toOptions('options', options, ['sinceMs', 'untilMs', 'maxPoints']);
  const sinceMs = o.sinceMs === undefined ? undefined : toCount('sinceMs', o.sinceMs, 0, 0, Number.MAX_SAFE_INTEGER);
  const untilMs = o.untilMs === undefined ? undefined : toCount('untilMs', o.untilMs, 0, 0, Number.MAX_SAFE_INTEGER);
  const maxPoints = toCount('maxPoints', o.maxPoints, 500, 2, MAX_SAMPLES);
  if (sinceMs !== undefined && untilMs !== undefined && sinceMs > untilMs) throw new RespireValidationError('untilMs', 'must not be before sinceMs');
  const r = await ctx.resources.get(id);
  const keys = historyKeys(r);
  if (!keys) return { resource: r, kept: false, samples: 0, truncated: false, series: [] };
  const start = sinceMs === undefined ? '-' : `${sinceMs}-0`;
  const end = untilMs === undefined ? '+' : `${untilMs}-18446744073709551615`;
  // The newest samples of the range, at most MAX_SAMPLES of them.
  const reply = await ctx.redis.send(keys.history, ['XREVRANGE', keys.history, end, start, 'COUNT', String(MAX_SAMPLES + 1)], 'RespireAdmin history');
  const entries = parseEntries(reply);
  const truncated = entries.length > MAX_SAMPLES;
  const samples: Sample[] = entries
    .slice(0, MAX_SAMPLES)
    .reverse()
    .map((e) => ({ atMs: Number(e.id.split('-')[0]), f: new Map(e.fields.map(([k, v]) => [k.toString('utf8'), v.toString('utf8')])) }));
  // Counters only grow, so the rate between two kept samples is the mean rate over the samples left out.
  const step = Math.max(1, Math.ceil(samples.length / maxPoints));
  const kept = samples.filter((_, i) => (samples.length - 1 - i) % step === 0);
  return {
    resource: r,
    kept: true,
    samples: samples.length,
    truncated,
    ...(samples.length > 0 ? { fromMs: samples[0]!.atMs, toMs: samples[samples.length - 1]!.atMs } : {}),
    series: r.kind === 'queue' ? [queueSeries(kept)] : streamSeries(kept),
  };
}

/** A number field of a sample; null when absent or ''. */
function num(s: Sample, name: string): number | null {
  const v = s.f.get(name);
  return v === undefined || v === '' ? null : Number(v);
}

/** The seven parts of a group field: read|pending|lag|lastDeliveredMs|oldestPendingMs|firstWaitingMs|consumers. */
function groupOf(s: Sample, name: string): (number | null)[] | undefined {
  const v = s.f.get(`g:${name}`);
  return v?.split('|').map((x) => (x === '' ? null : Number(x)));
}

/** Per second between two counter readings; null when either is unknown or the counter went back (a reset). */
function rate(a: number | null, b: number | null, seconds: number): number | null {
  if (a === null || b === null || b < a || seconds <= 0) return null;
  return (b - a) / seconds;
}

/** A counter from the counters hash when both samples have it, else the derived one. */
function counter(prev: Sample, cur: Sample, name: string, seconds: number, derived: () => number | null): number | null {
  const a = num(prev, `c.${name}`);
  const b = num(cur, `c.${name}`);
  return a !== null && b !== null ? rate(a, b, seconds) : derived();
}

const ageOf = (atMs: number, ...oldest: (number | null | undefined)[]): number | null => {
  const known = oldest.filter((x): x is number => x !== null && x !== undefined && x > 0);
  return known.length === 0 ? null : Math.max(0, atMs - Math.min(...known));
};

function queueSeries(samples: readonly Sample[]): HistorySeries {
  const points = samples.map((cur, i): HistoryPoint => {
    const prev = samples[i - 1];
    const g = groupOf(cur, 'respire');
    const base = {
      atMs: cur.atMs,
      lag: g ? (g[2] ?? null) : num(cur, 'length'),
      pending: num(cur, 'inFlight'),
      oldestAgeMs: ageOf(cur.atMs, num(cur, 'oldest')),
      deadLetters: num(cur, 'dlLength'),
      consumers: g ? (g[6] ?? null) : null,
    };
    if (!prev) return { ...base, sent: null, delivered: null, acknowledged: null, deadLettered: null };
    const seconds = (cur.atMs - prev.atMs) / 1000;
    // Entries the private group read: 0 before it exists, null when the server cannot tell.
    const readOf = (x: Sample) => {
      const group = groupOf(x, 'respire');
      return group ? (group[0] ?? null) : 0;
    };
    const read = rate(readOf(prev), readOf(cur), seconds);
    const deadLettered = counter(prev, cur, 'deadLettered', seconds, () => rate(num(prev, 'dlAdded'), num(cur, 'dlAdded'), seconds));
    const inFlight = (num(cur, 'inFlight') ?? 0) - (num(prev, 'inFlight') ?? 0);
    return {
      ...base,
      sent: rate(num(prev, 'added'), num(cur, 'added'), seconds),
      delivered: counter(prev, cur, 'delivered', seconds, () => read),
      // First deliveries leave in flight by an ack or a move to the dead letters.
      acknowledged: counter(prev, cur, 'acknowledged', seconds, () =>
        read === null || deadLettered === null ? null : Math.max(0, read - inFlight / seconds - deadLettered),
      ),
      deadLettered,
    };
  });
  return { kind: 'queue', name: '', points };
}

function streamSeries(samples: readonly Sample[]): HistorySeries[] {
  const names: string[] = [];
  for (const s of samples) for (const key of s.f.keys()) if (key.startsWith('g:') && !names.includes(key.slice(2))) names.push(key.slice(2));
  const stream: HistorySeries = {
    kind: 'stream',
    name: '',
    points: samples.map((cur, i) => {
      const prev = samples[i - 1];
      const seconds = prev ? (cur.atMs - prev.atMs) / 1000 : 0;
      return {
        atMs: cur.atMs,
        sent: prev ? rate(num(prev, 'added'), num(cur, 'added'), seconds) : null,
        delivered: null,
        acknowledged: null,
        deadLettered: prev ? counter(prev, cur, 'deadLettered', seconds, () => rate(num(prev, 'dlAdded'), num(cur, 'dlAdded'), seconds)) : null,
        lag: null,
        pending: null,
        oldestAgeMs: null,
        deadLetters: num(cur, 'dlLength'),
        consumers: null,
      };
    }),
  };
  const groups = names.map((name): HistorySeries => ({
    kind: 'group',
    name,
    points: samples
      .map((cur, i) => ({ cur, prev: samples[i - 1], g: groupOf(cur, name) }))
      .filter(({ g }) => g !== undefined)
      .map(({ cur, prev, g }) => {
        const p = prev ? groupOf(prev, name) : undefined;
        const seconds = prev ? (cur.atMs - prev.atMs) / 1000 : 0;
        const read = p ? rate(p[0] ?? null, g![0] ?? null, seconds) : null;
        const pendingDelta = p && g![1] !== null && p[1] !== null ? (g![1]! - p[1]!) / seconds : null;
        return {
          atMs: cur.atMs,
          sent: prev && p ? rate(num(prev, 'added'), num(cur, 'added'), seconds) : null,
          delivered: read,
          // Entries read leave the PEL by an ack (a dead letter is acknowledged too).
          acknowledged: read === null || pendingDelta === null ? null : Math.max(0, read - pendingDelta),
          deadLettered: null,
          lag: g![2] ?? null,
          pending: g![1] ?? null,
          oldestAgeMs: ageOf(cur.atMs, g![4], g![5]),
          deadLetters: null,
          consumers: g![6] ?? null,
        };
      }),
  }));
  return [stream, ...groups];
}
