// Stream reads of the fake server (XREAD, XREADGROUP, blocking and CLAIM).
import { CommandError, MapReply, NULL_ARRAY, fail, type Reply } from '../reply.js';
import { compareIds, parseId, type StreamId } from '../stream-model.js';
import { claimEntry } from './stream-pending.js';
import { entryReply, noGroup, streamAt, streamCommand } from './stream-common.js';
import { is, parseInteger, type BlockRequest, type CommandContext, type HandlerResult } from './types.js';
import { resp3 } from './zsets.js';

interface ReadOptions {
  count: number | undefined;
  blockMs: number | undefined;
  noAck: boolean;
  claimMinIdleMs: number | undefined;
  keys: string[];
  ids: string[];
}

function parseBlock(text: string | undefined): number {
  if (text === undefined) fail();
  if (!/^-?\d+(\.\d+)?$/.test(text)) throw new CommandError('ERR timeout is not an integer or out of range');
  const ms = Math.floor(Number(text));
  if (ms < 0) throw new CommandError('ERR timeout is negative');
  return ms;
}

function parseRead(ctx: CommandContext, start: number, group: boolean): ReadOptions {
  const options: ReadOptions = { count: undefined, blockMs: undefined, noAck: false, claimMinIdleMs: undefined, keys: [], ids: [] };
  const args = ctx.args;
  let i = start;
  for (; i < args.length; i++) {
    const option = args[i]!.toUpperCase();
    if (option === 'COUNT') {
      const n = parseInteger(args[++i] ?? 'x');
      options.count = n <= 0 ? undefined : n;
    } else if (option === 'BLOCK') options.blockMs = parseBlock(args[++i]);
    else if (option === 'NOACK' && group) options.noAck = true;
    else if (option === 'CLAIM' && group && ctx.model.readGroupClaim) {
      options.claimMinIdleMs = parseInteger(args[++i] ?? 'x');
      if (options.claimMinIdleMs < 0) fail();
    } else if (option === 'STREAMS') break;
    else fail();
  }
  // 7.4+ runs a BLOCK read in a script as a nonblocking one (see the attempt below).
  if (options.blockMs !== undefined && ctx.inScript && ctx.model.redis7 && !ctx.model.streams74) {
    throw new CommandError(`ERR ${group ? 'XREADGROUP' : 'XREAD'} command is not allowed with BLOCK option from scripts`);
  }
  const rest = args.slice(i + 1);
  if (i >= args.length || rest.length === 0 || rest.length % 2 !== 0) {
    throw new CommandError(
      group
        ? "ERR Unbalanced 'xreadgroup' list of streams: for each stream key an ID or '>' must be specified."
        : ctx.model.streams74
          ? "ERR Unbalanced 'xread' list of streams: for each stream key an ID, '+', or '$' must be specified."
          : "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
    );
  }
  options.keys = rest.slice(0, rest.length / 2);
  options.ids = rest.slice(rest.length / 2);
  return options;
}

function streamsKeys(args: readonly string[]): number[] {
  const at = args.findIndex((a, i) => i > 0 && is(a, 'STREAMS'));
  if (at < 0) return [];
  const n = Math.floor((args.length - at - 1) / 2);
  return Array.from({ length: n }, (_, i) => at + 1 + i);
}

function shape(ctx: CommandContext, results: Array<[string, Reply[]]>): Reply {
  if (results.length === 0) return NULL_ARRAY;
  if (resp3(ctx)) return new MapReply(results);
  return results.map(([key, entries]) => [key, entries]);
}

function xread(ctx: CommandContext): HandlerResult {
  const options = parseRead(ctx, 1, false);
  const starts: StreamId[] = options.ids.map((text, i) => {
    if (text === '>') throw new CommandError('ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.');
    const stream = streamAt(ctx.db, options.keys[i]!);
    if (text === '$') return stream?.lastId ?? { ms: 0, seq: 0 };
    if (text === '+') {
      const last = stream?.entries[stream.length - 1];
      return last ? { ms: last.id.ms, seq: last.id.seq - 1 } : (stream?.lastId ?? { ms: 0, seq: 0 });
    }
    return parseId(text, 0, true);
  });
  const attempt = (): Reply | undefined => {
    const results: Array<[string, Reply[]]> = [];
    options.keys.forEach((key, i) => {
      const stream = streamAt(ctx.db, key);
      if (!stream) return;
      const start = starts[i]!;
      let index = stream.lowerBound(start);
      if (index < stream.length && compareIds(stream.entries[index]!.id, start) === 0) index++;
      const limit = options.count ?? Infinity;
      const entries: Reply[] = [];
      for (; index < stream.length && entries.length < limit; index++) entries.push(entryReply(stream.entries[index]!));
      if (entries.length) results.push([key, entries]);
    });
    return results.length ? shape(ctx, results) : undefined;
  };
  const now = attempt();
  if (now !== undefined) return now;
  if (options.blockMs === undefined || ctx.inScript) return NULL_ARRAY;
  const request: BlockRequest = { kind: 'block', keys: options.keys, timeoutMs: options.blockMs, retry: attempt, timeout: () => NULL_ARRAY };
  return request;
}

function xreadgroup(ctx: CommandContext): HandlerResult {
  if (!is(ctx.args[1], 'GROUP') || ctx.args[3] === undefined) fail();
  const groupName = ctx.args[2]!;
  const consumerName = ctx.args[3];
  const options = parseRead(ctx, 4, true);
  for (const key of options.keys) {
    if (!streamAt(ctx.db, key)?.groups.has(groupName)) {
      throw new CommandError(`NOGROUP No such key '${key}' or consumer group '${groupName}' in XREADGROUP with GROUP option`);
    }
  }
  const history = options.ids.map((text) => (text === '>' ? undefined : parseId(text, 0, true)));
  const attempt = (final: boolean): Reply | undefined => {
    const now = ctx.nowMs();
    const results: Array<[string, Reply[]]> = [];
    for (let i = 0; i < options.keys.length; i++) {
      const key = options.keys[i]!;
      const stream = streamAt(ctx.db, key);
      const group = stream?.groups.get(groupName);
      if (!stream || !group) throw new CommandError(noGroup(key, groupName) + ' in XREADGROUP with GROUP option');
      const start = history[i];
      let consumer = group.consumers.get(consumerName);
      if (ctx.model.consumersOnEmptyReads || start !== undefined) consumer = group.consumer(consumerName, now, true);
      if (consumer) consumer.seenTimeMs = now;
      if (start !== undefined) {
        // History: this consumer's pending entries after `start`.
        const own = group.pendingSorted().filter((p) => p.consumer === consumerName && compareIds(p.id, start) > 0);
        const limited = options.count ? own.slice(0, options.count) : own;
        const entries = limited.map((p) => {
          const entry = stream.get(p.id);
          if (entry && !options.noAck) {
            p.deliveryTimeMs = now;
            p.deliveryCount++;
          }
          return entry ? entryReply(entry) : [p.key, null];
        });
        results.push([key, entries]);
        continue;
      }
      const entries: Reply[] = [];
      const budget = options.count ?? Infinity;
      if (options.claimMinIdleMs !== undefined) {
        const pel = group.pendingSorted();
        const idle = (p: (typeof pel)[number]) => (p.nacked ? Infinity : now - p.deliveryTimeMs);
        const due = pel
          .filter((p) => (p.nacked || idle(p) >= options.claimMinIdleMs!) && stream.get(p.id))
          .sort((a, b) => idle(b) - idle(a) || compareIds(a.id, b.id));
        for (const p of due) {
          if (entries.length >= budget) break;
          const entry = stream.get(p.id)!;
          const idleMs = p.nacked ? 0 : Math.floor(now - p.deliveryTimeMs);
          const previous = p.deliveryCount;
          claimEntry(group, p, consumerName, now, true);
          entries.push([entry.key, [...entry.fields], idleMs, previous]);
        }
      }
      const after = group.lastId;
      let index = stream.lowerBound(after);
      if (index < stream.length && compareIds(stream.entries[index]!.id, after) === 0) index++;
      for (; index < stream.length && entries.length < budget; index++) {
        const entry = stream.entries[index]!;
        stream.advanceGroup(group, entry.id, ctx.model.streams74);
        if (!options.noAck) {
          const existing = group.pel.get(entry.key);
          if (existing) {
            existing.consumer = consumerName;
            existing.deliveryTimeMs = now;
            existing.deliveryCount = 1;
            existing.nacked = false;
          } else {
            group.pel.set(entry.key, { id: entry.id, key: entry.key, consumer: consumerName, deliveryTimeMs: now, deliveryCount: 1, nacked: false });
          }
        }
        entries.push(options.claimMinIdleMs !== undefined ? [entry.key, [...entry.fields], 0, 0] : entryReply(entry));
      }
      if (entries.length) {
        const c = group.consumer(consumerName, now, true)!;
        c.seenTimeMs = now;
        c.activeTimeMs = now;
        results.push([key, entries]);
        ctx.db.touch(key);
      }
    }
    if (results.length === 0 && !final) return undefined;
    return shape(ctx, results);
  };

  const first = attempt(options.blockMs === undefined || history.some((h) => h !== undefined) || ctx.inScript);
  if (first !== undefined) return first;
  const request: BlockRequest = {
    kind: 'block',
    keys: options.keys,
    timeoutMs: options.blockMs ?? 0,
    retry: () => attempt(false),
    timeout: () => NULL_ARRAY,
  };
  return request;
}

export const streamReadCommands = [
  streamCommand('xread', -4, false, xread, { keys: streamsKeys, flags: ['blocking'], categories: ['slow', 'blocking'] }),
  streamCommand('xreadgroup', -7, true, xreadgroup, { keys: streamsKeys, flags: ['blocking'], categories: ['slow', 'blocking'] }),
];
