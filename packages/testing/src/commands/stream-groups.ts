import { CommandError, OK, fail, mapOf, type Reply } from '../reply.js';
import { ConsumerGroup, Stream, compareIds, formatId, nextId, parseId, type PendingEntry, type StreamId } from '../stream-model.js';
import {
  deleteWithPolicy,
  entryReply,
  groupOrFail,
  noGroup,
  noGroupForKey,
  parsePolicy,
  streamAt,
  streamCommand,
} from './stream-common.js';
import { parseIdsBlock } from './streams.js';
import { container, is, keyRange, parseInteger, type CommandContext, type CommandSpec } from './types.js';

const KEY_MUST_EXIST =
  'ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.';

function groupStartId(stream: Stream | undefined, text: string): StreamId {
  if (text === '$') return stream?.lastId ?? { ms: 0, seq: 0 };
  return parseId(text, 0, true);
}

function parseEntriesRead(ctx: CommandContext, i: number): number | null | undefined {
  if (i >= ctx.args.length) return undefined;
  if (!ctx.model.streamLag || !is(ctx.args[i], 'ENTRIESREAD') || ctx.args[i + 1] === undefined) fail();
  const n = parseInteger(ctx.args[i + 1]!);
  if (n < 0 && n !== -1) throw new CommandError('ERR value for ENTRIESREAD must be positive or -1');
  return n === -1 ? null : n;
}

/** Idle time of a PEL entry; an unowned (XNACKed) entry reports -1. */
function idleOf(entry: PendingEntry, now: number): number {
  return entry.nacked ? -1 : Math.max(0, Math.floor(now - entry.deliveryTimeMs));
}

const xgroup = container('xgroup', -2, {
  create: streamCommand('xgroup|create', -5, true, (ctx) => {
    const [, , key, name, idText] = ctx.args as [string, string, string, string, string];
    let mkstream = false;
    let i = 5;
    if (is(ctx.args[i], 'MKSTREAM')) {
      mkstream = true;
      i++;
    }
    const entriesRead = parseEntriesRead(ctx, i);
    let stream = streamAt(ctx.db, key);
    const id = groupStartId(stream, idText);
    if (!stream) {
      if (!mkstream) throw new CommandError(KEY_MUST_EXIST);
      stream = ctx.db.getOrCreate(key, 'stream', () => new Stream());
    }
    if (stream.groups.has(name)) throw new CommandError('BUSYGROUP Consumer Group name already exists');
    stream.groups.set(name, new ConsumerGroup(name, id, entriesRead ?? null));
    ctx.db.touch(key);
    return OK;
  }, { keys: keyRange(2), categories: ['slow'] }),
  setid: streamCommand('xgroup|setid', -5, true, (ctx) => {
    const [, , key, name, idText] = ctx.args as [string, string, string, string, string];
    const entriesRead = parseEntriesRead(ctx, 5);
    const stream = streamAt(ctx.db, key);
    if (!stream) throw new CommandError(KEY_MUST_EXIST);
    const group = stream.groups.get(name);
    if (!group) throw new CommandError(noGroupForKey(key, name));
    group.lastId = groupStartId(stream, idText);
    group.entriesRead = entriesRead ?? null;
    return OK;
  }, { keys: keyRange(2), categories: ['slow'] }),
  destroy: streamCommand('xgroup|destroy', 4, true, (ctx) => {
    const [, , key, name] = ctx.args as [string, string, string, string];
    const stream = streamAt(ctx.db, key);
    if (!stream) throw new CommandError(KEY_MUST_EXIST);
    const existed = stream.groups.delete(name);
    if (existed) ctx.db.touch(key);
    return existed ? 1 : 0;
  }, { keys: keyRange(2), categories: ['slow'] }),
  createconsumer: streamCommand('xgroup|createconsumer', 5, true, (ctx) => {
    const [, , key, name, consumer] = ctx.args as [string, string, string, string, string];
    const stream = streamAt(ctx.db, key);
    if (!stream) throw new CommandError(KEY_MUST_EXIST);
    const group = stream.groups.get(name);
    if (!group) throw new CommandError(noGroupForKey(key, name));
    if (group.consumers.has(consumer)) return 0;
    group.consumer(consumer, ctx.nowMs(), true);
    return 1;
  }, { keys: keyRange(2), categories: ['slow'] }),
  delconsumer: streamCommand('xgroup|delconsumer', 5, true, (ctx) => {
    const [, , key, name, consumer] = ctx.args as [string, string, string, string, string];
    const stream = streamAt(ctx.db, key);
    if (!stream) throw new CommandError(KEY_MUST_EXIST);
    const group = stream.groups.get(name);
    if (!group) throw new CommandError(noGroupForKey(key, name));
    if (!group.consumers.has(consumer)) return 0;
    let pending = 0;
    for (const [id, entry] of group.pel) {
      if (entry.consumer === consumer) {
        group.pel.delete(id);
        pending++;
      }
    }
    group.consumers.delete(consumer);
    return pending;
  }, { keys: keyRange(2), categories: ['slow'] }),
}, ['stream', 'slow']);

function infoStream(ctx: CommandContext): Reply {
  const key = ctx.args[2]!;
  const stream = streamAt(ctx.db, key);
  if (!stream) throw new CommandError('ERR no such key');
  const nodes = new Set(stream.entries.map((e) => e.node)).size;
  const head: Reply[] = ['length', stream.length, 'radix-tree-keys', nodes, 'radix-tree-nodes', nodes + 1, 'last-generated-id', formatId(stream.lastId)];
  if (ctx.model.streamLag) {
    head.push('max-deleted-entry-id', formatId(stream.maxDeletedId), 'entries-added', stream.entriesAdded, 'recorded-first-entry-id', formatId(stream.firstId));
  }
  if (is(ctx.args[3], 'FULL')) {
    let count = 10;
    if (ctx.args.length > 4) {
      if (!is(ctx.args[4], 'COUNT') || ctx.args[5] === undefined) fail();
      count = parseInteger(ctx.args[5]);
    }
    const limit = count === 0 ? undefined : count;
    const groups = [...stream.groups.values()].map((g) => {
      const pel = g.pendingSorted();
      const fields: Reply[] = ['name', g.name, 'last-delivered-id', formatId(g.lastId)];
      if (ctx.model.streamLag) fields.push('entries-read', g.entriesRead, 'lag', stream.lag(g));
      fields.push(
        'pel-count', pel.length,
        'pending', pel.slice(0, limit).map((p) => [p.key, p.consumer, Math.floor(p.deliveryTimeMs), p.deliveryCount]),
        'consumers', [...g.consumers.values()].map((c) => {
          const own = pel.filter((p) => p.consumer === c.name);
          const cf: Reply[] = ['name', c.name, 'seen-time', Math.floor(c.seenTimeMs)];
          if (ctx.model.consumerInactive) cf.push('active-time', Math.floor(c.activeTimeMs));
          cf.push('pel-count', own.length, 'pending', own.slice(0, limit).map((p) => [p.key, Math.floor(p.deliveryTimeMs), p.deliveryCount]));
          return mapOf(...cf);
        }),
      );
      return mapOf(...fields);
    });
    return mapOf(...head, 'entries', stream.entries.slice(0, limit).map(entryReply), 'groups', groups);
  }
  if (ctx.args.length > 3) fail();
  const first = stream.entries[0];
  const last = stream.entries[stream.length - 1];
  return mapOf(...head, 'groups', stream.groups.size, 'first-entry', first ? entryReply(first) : null, 'last-entry', last ? entryReply(last) : null);
}

const xinfo = container('xinfo', -2, {
  stream: streamCommand('xinfo|stream', -3, false, infoStream, { keys: keyRange(2), categories: ['slow'] }),
  groups: streamCommand('xinfo|groups', 3, false, (ctx) => {
    const stream = streamAt(ctx.db, ctx.args[2]!);
    if (!stream) throw new CommandError('ERR no such key');
    return [...stream.groups.values()].map((g) => {
      const fields: Reply[] = ['name', g.name, 'consumers', g.consumers.size, 'pending', g.pel.size, 'last-delivered-id', formatId(g.lastId)];
      if (ctx.model.streamLag) fields.push('entries-read', g.entriesRead, 'lag', stream.lag(g));
      return mapOf(...fields);
    });
  }, { keys: keyRange(2), categories: ['slow'] }),
  consumers: streamCommand('xinfo|consumers', 4, false, (ctx) => {
    const [, , key, name] = ctx.args as [string, string, string, string];
    const stream = streamAt(ctx.db, key);
    if (!stream) throw new CommandError('ERR no such key');
    const group = stream.groups.get(name);
    if (!group) throw new CommandError(noGroupForKey(key, name));
    const now = ctx.nowMs();
    return [...group.consumers.values()].map((c) => {
      const fields: Reply[] = ['name', c.name, 'pending', group.pendingOf(c.name), 'idle', Math.max(0, Math.floor(now - c.seenTimeMs))];
      if (ctx.model.consumerInactive) fields.push('inactive', c.activeTimeMs < 0 ? -1 : Math.max(0, Math.floor(now - c.activeTimeMs)));
      return mapOf(...fields);
    });
  }, { keys: keyRange(2), categories: ['slow'] }),
}, ['stream', 'slow']);

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
  let force = false, justId = false;
  for (; i < ctx.args.length; i++) {
    const option = ctx.args[i]!.toUpperCase();
    if (option === 'FORCE') force = true;
    else if (option === 'JUSTID') justId = true;
    else if (option === 'IDLE' && ctx.args[i + 1] !== undefined) deliveryTime = now - parseInteger(ctx.args[++i]!, 'ERR Invalid IDLE option argument for XCLAIM');
    else if (option === 'TIME' && ctx.args[i + 1] !== undefined) deliveryTime = parseInteger(ctx.args[++i]!, 'ERR Invalid TIME option argument for XCLAIM');
    else if (option === 'RETRYCOUNT' && ctx.args[i + 1] !== undefined) retryCount = parseInteger(ctx.args[++i]!, 'ERR Invalid RETRYCOUNT option argument for XCLAIM');
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
export const FATAL_DELIVERY_COUNT = 2 ** 53 - 1;

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

export const streamGroupCommands: CommandSpec[] = [
  xgroup,
  xinfo,
  streamCommand('xpending', -3, false, xpending),
  streamCommand('xclaim', -6, true, xclaim),
  streamCommand('xautoclaim', -6, true, xautoclaim),
  streamCommand('xack', -4, true, xack),
  streamCommand('xackdel', -6, true, xackdel, { available: (m) => m.xackdel }),
  streamCommand('xnack', -7, true, xnack, { available: (m) => m.xnack }),
];
