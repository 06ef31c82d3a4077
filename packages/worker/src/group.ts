// Consumer-group creation, recreation after NOGROUP, and the XINFO GROUPS query behind the gauges.
import { RespireServerError } from '@respire/core-scripts';
import { infoField, replyCode, replyString, safeGet } from '@respire/core-scripts/internal';
import type { ResolvedOptions } from './options.js';
import { retryingTransient } from './retry.js';

/**
 * Consumer-group administration (README "Options": `createGroup`, `groupStart`). Respire never runs XGROUP
 * DELCONSUMER or SETID: only creation, and inspection for the gauges.
 */

const missingGroup = (o: ResolvedOptions, operation: string, cause?: unknown) =>
  new RespireServerError(`${operation}: consumer group '${o.group}' on stream '${o.stream}' does not exist and createGroup is false`, { cause });

/** A stream key of another type fails with RespireKeyTypeError naming the key and both types. */
const streamKey = (o: ResolvedOptions) => ({ key: o.stream, type: 'stream' });

/** True when an XINFO reply says the stream key does not exist. */
const noSuchKey = (error: unknown) => replyCode(error) !== undefined && /no such key/i.test(String(safeGet(error, 'message')));

/**
 * With `createGroup` creates the stream and group (MKSTREAM) at `groupStart`, keeping an existing
 * group (BUSYGROUP); without it requires the group to exist. Transient replies are repeated
 * (retry.ts); `signal` ends that early.
 * @param recreate - true when the group vanished while running (then a missing group is a fault).
 * @throws {@link RespireServerError} when the group is missing and `createGroup` is false.
 * @throws {@link RespireKeyTypeError} when the stream key holds another type (named, with both types).
 */
export async function ensureGroup(o: ResolvedOptions, recreate: boolean, signal?: AbortSignal): Promise<void> {
  const operation = recreate ? 'StreamWorker: recreate consumer group' : 'StreamWorker.start: create consumer group';
  const send = (args: string[], what: string) =>
    retryingTransient(o.logger, what, () => o.target.send(o.stream, args, { operation: what, keyType: streamKey(o) }), signal);
  if (o.createGroup) {
    try {
      await send(['XGROUP', 'CREATE', o.stream, o.group, o.groupStart, 'MKSTREAM'], operation);
    } catch (error) {
      if (replyCode(error) !== 'BUSYGROUP') throw error;
    }
    return;
  }
  if (recreate) throw missingGroup(o, 'StreamWorker.start');
  let groups: unknown;
  try {
    groups = await send(['XINFO', 'GROUPS', o.stream], 'StreamWorker.start: XINFO GROUPS');
  } catch (error) {
    if (noSuchKey(error)) throw missingGroup(o, 'StreamWorker.start');
    throw error;
  }
  const found = Array.isArray(groups) && groups.some((g) => replyString(infoField(g, 'name')) === o.group);
  if (!found) throw missingGroup(o, 'StreamWorker.start');
}

/**
 * A read found the group gone (NOGROUP: group destroyed, or stream deleted): recreates it at
 * `groupStart` when `createGroup`, else faults.
 * @throws {@link RespireServerError} when `createGroup` is false; `cause` is the NOGROUP reply.
 */
export async function recoverMissingGroup(o: ResolvedOptions, error: unknown, signal?: AbortSignal): Promise<void> {
  if (!o.createGroup) throw missingGroup(o, 'StreamWorker read', error);
  await ensureGroup(o, true, signal);
}

/** Runs a group operation; on NOGROUP recreates the group (`createGroup`) and runs it once more, else faults. */
export async function withGroup<R>(o: ResolvedOptions, operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (error) {
    if (replyCode(error) !== 'NOGROUP') throw error;
    await ensureGroup(o, true);
    return await operation();
  }
}

/**
 * XINFO GROUPS on the stream: this group's `lag` (`null` when Redis reports it unknown or is
 * older than 7.0) and `pending`, or `null` when the group or stream is missing. For the gauges.
 */
export async function queryGroup(o: ResolvedOptions): Promise<{ lag: number | null; pending: number } | null> {
  let groups: unknown;
  try {
    groups = await o.target.send(o.stream, ['XINFO', 'GROUPS', o.stream], { timeoutMs: o.metricsPollTimeoutMs, operation: 'StreamWorker gauges' });
  } catch (error) {
    if (noSuchKey(error)) return null;
    throw error;
  }
  if (!Array.isArray(groups)) return null;
  const group = groups.find((g) => replyString(infoField(g, 'name')) === o.group);
  if (group === undefined) return null;
  const lag = infoField(group, 'lag');
  return {
    lag: lag === null || lag === undefined ? null : Number(lag),
    pending: Number(infoField(group, 'pending')),
  };
}
