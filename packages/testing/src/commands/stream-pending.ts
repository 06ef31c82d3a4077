// Pending-entry commands of the fake server (XACK, XPENDING, XCLAIM, XAUTOCLAIM, XNACK, ...).
import { CommandError, fail, type Reply } from '../reply.js';
import { compareIds, formatId, nextId, parseId, type ConsumerGroup, type PendingEntry, type StreamId } from '../stream-model.js';
import { deleteWithPolicy, entryReply, groupOrFail, noGroup, parsePolicy, streamAt, streamCommand } from './stream-common.js';
import { parseIdsBlock } from './streams.js';
import { is, parseInteger, type CommandContext, type CommandSpec } from './types.js';

/** The pending entries lists of consumer groups: XPENDING, XCLAIM, XAUTOCLAIM, XACK, XACKDEL, XNACK. */

/** Idle time of a PEL entry; an unowned (XNACKed) entry reports -1. */
function idleOf(entry: PendingEntry, now: number): number {
  return entry.nacked ? -1 : Math.max(0, Math.floor(now - entry.deliveryTimeMs));
}

function xpending(ctx: CommandContext): Reply {
  const [, key, name] = ctx.args as [string, string, string];
  const rest = ctx.args.slice(3);
  const { group } = groupOrFail(ctx.db, key, name, noGroup(key, name));
  const now = ctx.nowMs();
  if (rest.length === 0) {
    const pel = group.pendingSorted();
    if (pel.length === 0) return [0, null, null, null];
    const counts = new Map<string, number>();
    for (const p of pel) counts.set(p.consumer, (counts.get(p.consumer) ?? 0) + 1);
    return [pel.length, pel[0]!.key, pel[pel.length - 1]!.key, [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([c, n]) => [c, String(n)])];
  }
  let i = 0;
  let minIdle = 0;
  if (is(rest[0], 'IDLE')) {
    if (rest[1] === undefined) fail();
    minIdle = parseInteger(rest[1]);
    i = 2;
  }
  const [startText, endText, countText, consumer] = rest.slice(i);
  if (startText === undefined || endText === undefined || countText === undefined || rest.length - i > 4) fail();
  const exclusiveStart = startText.startsWith('(');
  const exclusiveEnd = endText.startsWith('(');
  let start = parseId(exclusiveStart ? startText.slice(1) : startText, 0);
  let end = parseId(exclusiveEnd ? endText.slice(1) : endText, Number.MAX_SAFE_INTEGER);
  if (exclusiveStart) start = nextId(start) ?? start;
  if (exclusiveEnd) end = { ms: end.ms, seq: end.seq - 1 };
  const count = parseInteger(countText);
  if (count < 0) return [];
  const out: Reply[] = [];
  for (const p of group.pendingSorted()) {
    if (out.length >= count) break;
    if (compareIds(p.id, start) < 0 || compareIds(p.id, end) > 0) continue;
    if (consumer !== undefined && p.consumer !== consumer) continue;
    const idle = idleOf(p, now);
    if (minIdle > 0 && idle < minIdle && !p.nacked) continue;
    out.push([p.key, p.consumer, idle, p.deliveryCount]);
  }
  return out;
}

/** Claims `entry` for `consumer` (XCLAIM/XAUTOCLAIM/XREADGROUP CLAIM bookkeeping). */
export function claimEntry(group: ConsumerGroup, entry: PendingEntry, consumer: string, now: number, increment: boolean): void {
  entry.consumer = consumer;
  entry.deliveryTimeMs = now;
  entry.nacked = false;
  if (increment) entry.deliveryCount++;
  const c = group.consumer(consumer, now, true)!;
  c.activeTimeMs = now;
}

function xclaim(ctx: CommandContext): Reply {
  const [, key, name, consumerName, minIdleText] = ctx.args as [string, string, string, string, string];
  const minIdle = parseInteger(minIdleText, 'ERR Invalid min-idle-time argument for XCLAIM');
  const ids: StreamId[] = [];
  let i = 5;
  for (; i < ctx.args.length; i++) {
    try {
      ids.push(parseId(ctx.args[i]!, 0, true));
    } catch {
      break;
    }
  }
  const now = ctx.nowMs();
  let deliveryTime = now;
  let retryCount: number | undefined;
  let force = false,
    justId = false;
  for (; i < ctx.args.length; i++) {
    const option = ctx.args[i]!.toUpperCase();
    if (option === 'FORCE') force = true;
    else if (option === 'JUSTID') justId = true;
    else if (option === 'IDLE' && ctx.args[i + 1] !== undefined)
      deliveryTime = now - parseInteger(ctx.args[++i]!, 'ERR Invalid IDLE option argument for XCLAIM');
    else if (option === 'TIME' && ctx.args[i + 1] !== undefined) deliveryTime = parseInteger(ctx.args[++i]!, 'ERR Invalid TIME option argument for XCLAIM');
    else if (option === 'RETRYCOUNT' && ctx.args[i + 1] !== undefined)
      retryCount = parseInteger(ctx.args[++i]!, 'ERR Invalid RETRYCOUNT option argument for XCLAIM');
    else if (option === 'LASTID' && ctx.args[i + 1] !== undefined) parseId(ctx.args[++i]!, 0, true);
    else throw new CommandError(`ERR Unrecognized XCLAIM option '${ctx.args[i]}'`);
  }
  const { stream, group } = groupOrFail(ctx.db, key, name, noGroup(key, name));
  const consumer = group.consumer(consumerName, now, true)!;
  consumer.seenTimeMs = now;
  const out: Reply[] = [];
  for (const id of ids) {
    const idKey = formatId(id);
    let pending = group.pel.get(idKey);
    const entry = stream.get(id);
    if (!pending && force && entry) {
      pending = { id, key: idKey, consumer: consumerName, deliveryTimeMs: now, deliveryCount: 0, nacked: false };
      group.pel.set(idKey, pending);
    }
    if (!pending) continue;
    if (!entry && ctx.model.autoClaimDeletes) {
      group.pel.delete(idKey);
      continue;
    }
    if (!pending.nacked && minIdle > 0 && now - pending.deliveryTimeMs < minIdle) continue;
    claimEntry(group, pending, consumerName, deliveryTime, !justId);
    if (retryCount !== undefined) pending.deliveryCount = retryCount;
    if (justId) out.push(idKey);
    else if (entry) out.push(entryReply(entry));
  }
  ctx.db.touch(key);
  return out;
}

function xautoclaim(ctx: CommandContext): Reply {
  const [, key, name, consumerName, minIdleText, startText] = ctx.args as [string, string, string, string, string, string];
  const minIdle = parseInteger(minIdleText, 'ERR Invalid min-idle-time argument for XAUTOCLAIM');
  const start = parseId(startText, 0);
  let count = 100;
  let justId = false;
  for (let i = 6; i < ctx.args.length; i++) {
    if (is(ctx.args[i], 'COUNT') && ctx.args[i + 1] !== undefined) {
      count = parseInteger(ctx.args[++i]!, 'ERR COUNT must be > 0');
      if (count < 1 || count > Number.MAX_SAFE_INTEGER / 10) throw new CommandError('ERR COUNT must be > 0');
    } else if (is(ctx.args[i], 'JUSTID')) justId = true;
    else fail();
  }
  const { stream, group } = groupOrFail(ctx.db, key, name, noGroup(key, name));
  const now = ctx.nowMs();
  const consumer = group.consumer(consumerName, now, true)!;
  consumer.seenTimeMs = now;
  let attempts = count * 10;
  const claimed: Reply[] = [];
  const deleted: Reply[] = [];
  const pel = group.pendingSorted().filter((p) => compareIds(p.id, start) >= 0);
  // 8.8: XNACKed (unowned) entries are claimable at once and come first.
  const ordered = [...pel.filter((p) => p.nacked), ...pel.filter((p) => !p.nacked)];
  let cursor = '0-0';
  let index = 0;
  for (; index < ordered.length && attempts > 0 && claimed.length < count; index++) {
    attempts--;
    const pending = ordered[index]!;
    const entry = stream.get(pending.id);
    if (!entry && ctx.model.autoClaimDeletes) {
      group.pel.delete(pending.key);
      deleted.push(pending.key);
      continue;
    }
    if (!pending.nacked && now - pending.deliveryTimeMs < minIdle) continue;
    claimEntry(group, pending, consumerName, now, !justId);
    if (justId) claimed.push(pending.key);
    else claimed.push(entry ? entryReply(entry) : null);
  }
  if (index < ordered.length) cursor = ordered[index]!.key;
  ctx.db.touch(key);
  return ctx.model.autoClaimDeletes ? [cursor, claimed, deleted] : [cursor, claimed];
}

function xack(ctx: CommandContext): Reply {
  const [, key, name] = ctx.args as [string, string, string];
  const ids = ctx.args.slice(3).map((t) => parseId(t, 0, true));
  const group = streamAt(ctx.db, key)?.groups.get(name);
  if (!group) return 0;
  let acked = 0;
  for (const id of ids) if (group.pel.delete(formatId(id))) acked++;
  return acked;
}

function xackdel(ctx: CommandContext): Reply {
  const [, key, name] = ctx.args as [string, string, string];
  let i = 3;
  const policy = parsePolicy(ctx.args[i], ctx.model) ?? 'KEEPREF';
  if (parsePolicy(ctx.args[i], ctx.model)) i++;
  const { ids } = parseIdsBlock(ctx.args, i);
  const stream = streamAt(ctx.db, key);
  const group = stream?.groups.get(name);
  if (!stream || !group) return ids.map(() => -1);
  const reply = ids.map((id): number => {
    if (!group.pel.delete(formatId(id))) return -1;
    const result = deleteWithPolicy(stream, id, policy);
    return result === 2 ? 2 : 1;
  });
  ctx.db.touch(key);
  return reply;
}

/** The delivery count XNACK FATAL sets: the maximum. */
const FATAL_DELIVERY_COUNT = 2 ** 53 - 1;

function xnack(ctx: CommandContext): Reply {
  const [, key, name, modeText] = ctx.args as [string, string, string, string];
  const mode = modeText.toUpperCase();
  if (mode !== 'SILENT' && mode !== 'FAIL' && mode !== 'FATAL') fail();
  let i = 4;
  if (!is(ctx.args[i], 'IDS')) fail();
  const n = parseInteger(ctx.args[i + 1] ?? '', 'ERR Number of IDs must be a positive integer');
  if (n <= 0) throw new CommandError('ERR Number of IDs must be a positive integer');
  const ids = ctx.args.slice(i + 2, i + 2 + n).map((t) => parseId(t, 0, true));
  if (ids.length !== n) throw new CommandError('ERR The `numids` parameter must match the number of arguments');
  i += 2 + n;
  let retryCount: number | undefined;
  let force = false;
  for (; i < ctx.args.length; i++) {
    if (is(ctx.args[i], 'RETRYCOUNT') && ctx.args[i + 1] !== undefined) retryCount = parseInteger(ctx.args[++i]!);
    else if (is(ctx.args[i], 'FORCE')) force = true;
    else fail();
  }
  const { stream, group } = groupOrFail(ctx.db, key, name, noGroup(key, name));
  const now = ctx.nowMs();
  let nacked = 0;
  for (const id of ids) {
    const idKey = formatId(id);
    let pending = group.pel.get(idKey);
    if (!pending && force && stream.get(id)) {
      pending = { id, key: idKey, consumer: '', deliveryTimeMs: now, deliveryCount: 0, nacked: true };
      group.pel.set(idKey, pending);
    }
    if (!pending) continue;
    pending.consumer = '';
    pending.nacked = true;
    if (mode === 'SILENT') pending.deliveryCount = Math.max(0, pending.deliveryCount - 1);
    else if (mode === 'FATAL') pending.deliveryCount = FATAL_DELIVERY_COUNT;
    if (retryCount !== undefined) pending.deliveryCount = retryCount;
    nacked++;
  }
  ctx.db.touch(key);
  return nacked;
}

export const streamPendingCommands: CommandSpec[] = [
  streamCommand('xpending', -3, false, xpending),
  streamCommand('xclaim', -6, true, xclaim),
  streamCommand('xautoclaim', -6, true, xautoclaim),
  streamCommand('xack', -4, true, xack),
  streamCommand('xackdel', -6, true, xackdel, { available: (m) => m.xackdel }),
  streamCommand('xnack', -7, true, xnack, { available: (m) => m.xnack }),
];
