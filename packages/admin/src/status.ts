// Counts of queues and worker streams, and the overview of every resource.
import type { GroupStatus, Overview, OverviewOptions, QueueResource, QueueStatus, Resource, StreamResource, StreamStatus, UnavailableResource } from './api.js';
import type { AdminContext } from './context.js';
import { groupStatusOf } from './groups.js';
import { RespireValidationError, infoField, isRespireError, missingOrThrow, numberOrNull, text } from './redis.js';
import { toOptions } from './validate.js';

/** The consumer group a ReliableQueue reads through. */
export const QUEUE_GROUP = 'respire';
/** At most this many resources are queried at a time by {@link overview} (their commands pipeline on the client's connection). */
const OVERVIEW_CONCURRENCY = 32;

/**
 * Every resource with its counts, and the server time; at most 32 resources queried at a time. A
 * resource whose status the server refuses is listed in `unavailable`; the others are still shown.
 */
export async function overview(ctx: AdminContext, options?: OverviewOptions): Promise<Overview> {
  const include = toOptions('options', options, ['include']).include;
  if (include !== undefined && typeof include !== 'function') throw new RespireValidationError('include', 'must be a function');
  const listed = await ctx.resources.list();
  const { discoveryTruncated } = listed;
  // The caller's filter (a search, a guard) runs first, for every resource at once: statuses are read only for those it keeps.
  const kept = include ? await Promise.all(listed.resources.map(async (r) => (await include(r)) === true)) : undefined;
  const resources = kept ? listed.resources.filter((_, i) => kept[i]) : listed.resources;
  const serverTimeMs = await ctx.redis.timeMs(resources[0]?.id ?? 'respire', 'RespireAdmin overview');
  const statuses = await mapLimited<Resource, QueueStatus | StreamStatus | UnavailableResource>(resources, OVERVIEW_CONCURRENCY, async (r) => {
    try {
      // On one server its clock, read once, serves every queue's due count; each node of a Cluster reads its own.
      return await (r.kind === 'queue' ? queueStatus(ctx, r, ctx.redis.isCluster ? undefined : serverTimeMs) : streamStatus(ctx, r));
    } catch (error) {
      // A refusal by the server concerns this resource; a transport failure concerns them all.
      if (!isRespireError(error) || error.code === 'TRANSPORT_FAILED') throw error;
      return { resource: r, code: error.code, message: error.message };
    }
  });
  return {
    serverTimeMs,
    queues: statuses.filter((s): s is QueueStatus => 'inFlight' in s),
    streams: statuses.filter((s): s is StreamStatus => 'groups' in s),
    discoveryTruncated,
    unavailable: statuses.filter((s): s is UnavailableResource => 'code' in s),
  };
}

/**
 * A queue's counts from its own metadata: the group's lag, the deadlines set, the dead-letter
 * length. `nowMs`: the server clock when the caller read it already (else TIME, sent with the
 * other reads).
 */
export async function queueStatus(ctx: AdminContext, q: QueueResource, nowMs?: number): Promise<QueueStatus> {
  const op = 'RespireAdmin queueStatus';
  const { redis } = ctx;
  const { stream, deadlines, deadLetter } = q.keys;
  const time = nowMs === undefined ? redis.timeMs(stream, op) : Promise.resolve(nowMs);
  const [length, groups, inFlight, due, dead] = await Promise.all([
    redis.send(stream, ['XLEN', stream], op),
    redis.trySend(stream, ['XINFO', 'GROUPS', stream], op),
    redis.send(stream, ['ZCARD', deadlines], op),
    time.then((now) => redis.send(stream, ['ZCOUNT', deadlines, '-inf', String(now)], op)),
    redis.send(stream, ['XLEN', deadLetter], op),
  ]);
  let ready: number | null = Number(length);
  const streamExists = Array.isArray(groups);
  if (streamExists) {
    const group = groups.find((g) => text(infoField(g, 'name')) === QUEUE_GROUP);
    if (group !== undefined) ready = numberOrNull(infoField(group, 'lag'));
  } else {
    missingOrThrow(groups, null, op);
  }
  return {
    resource: q,
    length: Number(length),
    ready,
    inFlight: Number(inFlight),
    due: Number(due),
    deadLetters: Number(dead),
    exists: streamExists || Number(inFlight) > 0 || Number(dead) > 0,
  };
}

/** A worker stream's length, its groups (XINFO GROUPS) and its dead-letter stream's length. */
export async function streamStatus(ctx: AdminContext, s: StreamResource): Promise<StreamStatus> {
  const op = 'RespireAdmin streamStatus';
  const { redis } = ctx;
  const [length, groups, dead] = await Promise.all([
    redis.send(s.stream, ['XLEN', s.stream], op),
    redis.trySend(s.stream, ['XINFO', 'GROUPS', s.stream], op, true),
    s.deadLetterStream === undefined ? null : redis.send(s.deadLetterStream, ['XLEN', s.deadLetterStream], op),
  ]);
  const exists = Array.isArray(groups);
  if (!exists) missingOrThrow(groups, null, op);
  const list: GroupStatus[] = exists ? (groups as unknown[]).map(groupStatusOf) : [];
  return { resource: s, length: Number(length), exists, groups: list, deadLetters: dead === null ? null : Number(dead) };
}

/** `map` with at most `limit` calls in flight, results in input order. */
export async function mapLimited<T, R>(items: readonly T[], limit: number, map: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await map(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
