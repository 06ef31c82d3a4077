// Stream commands of the fake server (XADD with IDMP, XRANGE, XDEL, XTRIM, XLEN, ...).
import { createHash } from 'node:crypto';
import { CommandError, OK, fail, type Reply } from '../reply.js';
import { Stream, ZERO_ID, compareIds, formatId, generateId, nextId, parseId, previousId, type StreamId } from '../stream-model.js';
import { deleteWithPolicy, entryReply, parsePolicy, parseTrim, streamAt, streamCommand, trim, type RefPolicy, type TrimSpec } from './stream-common.js';
import { is, parseInteger, type CommandContext, type CommandSpec } from './types.js';

function rangeBound(text: string, start: boolean): StreamId | undefined {
  if (text.startsWith('(')) {
    const body = text.slice(1);
    if (body === '-' || body === '+') throw new CommandError(`ERR invalid ${start ? 'start' : 'end'} ID for the interval`);
    const id = parseId(body, start ? 0 : Number.MAX_SAFE_INTEGER, true);
    return start ? nextId(id) : previousId(id);
  }
  return parseId(text, start ? 0 : Number.MAX_SAFE_INTEGER);
}

function xrange(ctx: CommandContext, reverse: boolean): Reply {
  const key = ctx.args[1]!;
  const startText = reverse ? ctx.args[3]! : ctx.args[2]!;
  const endText = reverse ? ctx.args[2]! : ctx.args[3]!;
  const start = rangeBound(startText, true);
  const end = rangeBound(endText, false);
  let count: number | undefined;
  if (ctx.args.length > 4) {
    if (ctx.args.length !== 6 || !is(ctx.args[4], 'COUNT')) fail();
    count = parseInteger(ctx.args[5]!);
    if (count < 0) count = 0;
    if (count === 0) return [];
  }
  const stream = streamAt(ctx.db, key);
  if (!stream || !start || !end) return [];
  return stream.range(start, end, count, reverse).map(entryReply);
}

function idmpId(stream: Stream, producer: string, iid: string, nowMs: number): StreamId | undefined {
  const seen = stream.idmp.get(producer)?.get(iid);
  if (!seen) return undefined;
  if (seen.atMs <= nowMs) {
    stream.idmp.get(producer)!.delete(iid);
    return undefined;
  }
  return seen.id;
}

function xadd(ctx: CommandContext): Reply {
  const args = ctx.args;
  const key = args[1]!;
  let i = 2;
  let noMkStream = false;
  let trimSpec: TrimSpec | undefined;
  let policy: RefPolicy | undefined;
  let idmp: { producer: string; iid: string | undefined } | undefined;
  for (;;) {
    const option = args[i]?.toUpperCase();
    if (option === 'NOMKSTREAM') {
      noMkStream = true;
      i++;
    } else if (option === 'MAXLEN' || option === 'MINID') {
      const parsed = parseTrim(args, i);
      trimSpec = parsed.spec;
      i = parsed.next;
    } else if (parsePolicy(option, ctx.model)) {
      policy = parsePolicy(option, ctx.model);
      i++;
    } else if (ctx.model.idempotentAdd && option === 'IDMP' && args[i + 2] !== undefined) {
      idmp = { producer: args[i + 1]!, iid: args[i + 2]! };
      i += 3;
    } else if (ctx.model.idempotentAdd && option === 'IDMPAUTO' && args[i + 1] !== undefined) {
      idmp = { producer: args[i + 1]!, iid: undefined };
      i += 2;
    } else break;
  }
  const idText = args[i++];
  const fields = args.slice(i);
  if (idText === undefined) throw new CommandError("ERR wrong number of arguments for 'xadd' command");
  // Redis parses the ID before it checks the field count.
  let explicit: StreamId | undefined;
  let explicitMs: number | undefined;
  if (idText !== '*') {
    if (/^\d+-\*$/.test(idText)) explicitMs = Number(idText.slice(0, -2));
    else {
      explicit = parseId(idText, 0, true);
      if (compareIds(explicit, ZERO_ID) === 0) throw new CommandError('ERR The ID specified in XADD must be greater than 0-0');
    }
  }
  if (fields.length === 0 || fields.length % 2 !== 0) throw new CommandError("ERR wrong number of arguments for 'xadd' command");
  const existing = streamAt(ctx.db, key);
  if (!existing && noMkStream) return null;
  const stream = existing ?? ctx.db.getOrCreate(key, 'stream', () => new Stream());
  const now = ctx.nowMs();
  let iid: string | undefined;
  if (idmp) {
    iid =
      idmp.iid ??
      createHash('sha1')
        .update(Buffer.from(fields.join('\u0000'), 'latin1'))
        .digest('hex');
    const original = idmpId(stream, idmp.producer, iid, now);
    if (original) {
      stream.idmpDuplicates++;
      return formatId(original);
    }
  }
  let id: StreamId;
  if (explicit) {
    if (compareIds(explicit, stream.lastId) <= 0) {
      if (!existing) ctx.db.delete(key);
      throw new CommandError('ERR The ID specified in XADD is equal or smaller than the target stream top item');
    }
    id = explicit;
  } else {
    try {
      id = generateId(stream.lastId, now, explicitMs);
    } catch (error) {
      if (!existing) ctx.db.delete(key);
      throw error;
    }
  }
  stream.append(id, fields);
  if (idmp && iid !== undefined) {
    let producer = stream.idmp.get(idmp.producer);
    if (!producer) stream.idmp.set(idmp.producer, (producer = new Map()));
    producer.set(iid, { id, atMs: now + stream.idmpDurationS * 1000 });
    stream.idmpAdded++;
    while (producer.size > stream.idmpMaxSize) producer.delete(producer.keys().next().value!);
  }
  if (trimSpec) trim(stream, trimSpec, policy);
  ctx.db.touch(key);
  return formatId(id);
}

function parseIdsBlock(args: readonly string[], i: number): { ids: StreamId[]; next: number } {
  if (!is(args[i], 'IDS')) fail();
  const count = parseInteger(args[i + 1] ?? '', 'ERR Number of IDs must be a positive integer');
  if (count <= 0) throw new CommandError('ERR Number of IDs must be a positive integer');
  const texts = args.slice(i + 2, i + 2 + count);
  if (texts.length !== count || args.length !== i + 2 + count) {
    throw new CommandError('ERR The `numids` parameter must match the number of arguments');
  }
  return { ids: texts.map((t) => parseId(t, 0, true)), next: i + 2 + count };
}

export { parseIdsBlock };

export const streamCommands: CommandSpec[] = [
  streamCommand('xadd', -5, true, xadd),
  streamCommand('xlen', 2, false, (ctx) => streamAt(ctx.db, ctx.args[1]!)?.length ?? 0),
  streamCommand('xrange', -4, false, (ctx) => xrange(ctx, false), { categories: ['slow'] }),
  streamCommand('xrevrange', -4, false, (ctx) => xrange(ctx, true), { categories: ['slow'] }),
  streamCommand('xdel', -3, true, (ctx) => {
    const key = ctx.args[1]!;
    const ids = ctx.args.slice(2).map((t) => parseId(t, 0, true));
    const stream = streamAt(ctx.db, key);
    if (!stream) return 0;
    let deleted = 0;
    for (const id of ids) if (stream.deleteEntry(id)) deleted++;
    if (deleted) ctx.db.touch(key);
    return deleted;
  }),
  streamCommand(
    'xtrim',
    -4,
    true,
    (ctx) => {
      const key = ctx.args[1]!;
      const option = ctx.args[2]!.toUpperCase();
      if (option !== 'MAXLEN' && option !== 'MINID') fail();
      const { spec, next } = parseTrim(ctx.args, 2);
      let policy: RefPolicy | undefined;
      if (next < ctx.args.length) {
        policy = parsePolicy(ctx.args[next], ctx.model);
        if (!policy || next + 1 !== ctx.args.length) fail();
      }
      const stream = streamAt(ctx.db, key);
      if (!stream) return 0;
      const removed = trim(stream, spec, policy);
      if (removed) ctx.db.touch(key);
      return removed;
    },
    { categories: ['slow'] },
  ),
  streamCommand(
    'xdelex',
    -5,
    true,
    (ctx) => {
      const key = ctx.args[1]!;
      let i = 2;
      const policy = parsePolicy(ctx.args[i], ctx.model) ?? 'KEEPREF';
      if (parsePolicy(ctx.args[i], ctx.model)) i++;
      const { ids } = parseIdsBlock(ctx.args, i);
      const stream = streamAt(ctx.db, key);
      if (!stream) return ids.map(() => -1);
      const reply = ids.map((id) => deleteWithPolicy(stream, id, policy));
      ctx.db.touch(key);
      return reply;
    },
    { available: (m) => m.xackdel },
  ),
  streamCommand(
    'xcfgset',
    -4,
    true,
    (ctx) => {
      const stream = streamAt(ctx.db, ctx.args[1]!);
      if (!stream) throw new CommandError('ERR no such key');
      for (let i = 2; i < ctx.args.length; i += 2) {
        const value = ctx.args[i + 1];
        if (value === undefined) fail();
        const n = parseInteger(value);
        if (is(ctx.args[i], 'IDMP-DURATION')) stream.idmpDurationS = n;
        else if (is(ctx.args[i], 'IDMP-MAXSIZE')) stream.idmpMaxSize = n;
        else fail();
      }
      stream.idmp.clear();
      return OK;
    },
    { available: (m) => m.idempotentAdd },
  ),
  streamCommand('xsetid', -3, true, (ctx) => {
    const stream = streamAt(ctx.db, ctx.args[1]!);
    if (!stream) throw new CommandError('ERR no such key');
    const id = parseId(ctx.args[2]!, 0, true);
    if (stream.length > 0 && compareIds(id, stream.entries[stream.length - 1]!.id) < 0) {
      throw new CommandError('ERR The ID specified in XSETID is smaller than the target stream top item');
    }
    stream.lastId = id;
    return OK;
  }),
];
