// Sorted-set commands of the fake server.
import { globMatch } from '../keyspace.js';
import { CommandError, DoubleReply, fail, type Reply } from '../reply.js';
import { SortedSet, type ZMember } from '../zset-model.js';
import { scanOptions } from './scan-options.js';
import { command, is, keyRange, parseFloatArg, parseInteger, type CommandContext, type CommandSpec } from './types.js';

interface ScoreBound {
  value: number;
  exclusive: boolean;
}

function parseBound(text: string): ScoreBound {
  const exclusive = text.startsWith('(');
  const value = parseFloatArg(exclusive ? text.slice(1) : text, 'ERR min or max is not a float');
  if (Number.isNaN(value)) throw new CommandError('ERR min or max is not a float');
  return { value, exclusive };
}

function parseLex(text: string): { value: string | null; exclusive: boolean; sign: -1 | 0 | 1 } {
  if (text === '-') return { value: null, exclusive: false, sign: -1 };
  if (text === '+') return { value: null, exclusive: false, sign: 1 };
  if (text.startsWith('(') || text.startsWith('[')) return { value: text.slice(1), exclusive: text.startsWith('('), sign: 0 };
  throw new CommandError('ERR min or max not valid string range item');
}

/** RESP3 shapes apply only to clients that sent HELLO 3, never inside scripts. */
export function resp3(ctx: CommandContext): boolean {
  return !ctx.inScript && ctx.client.resp === 3;
}

function withScores(ctx: CommandContext, members: readonly ZMember[], scores: boolean): Reply {
  if (!scores) return members.map((m) => m.member);
  if (resp3(ctx)) return members.map((m) => [m.member, new DoubleReply(m.score)]);
  return members.flatMap((m) => [m.member, new DoubleReply(m.score)]);
}

interface RangeRequest {
  by: 'rank' | 'score' | 'lex';
  rev: boolean;
  min: string;
  max: string;
  offset: number;
  count: number;
  scores: boolean;
}

function range(ctx: CommandContext, key: string, request: RangeRequest): Reply {
  const set = ctx.db.get(key, 'zset');
  let members: ZMember[];
  if (request.by === 'rank') {
    const start = parseInteger(request.min);
    const stop = parseInteger(request.max);
    if (!set) return [];
    const size = set.size;
    let from = start < 0 ? size + start : start;
    let to = stop < 0 ? size + stop : stop;
    if (from < 0) from = 0;
    if (to >= size) to = size - 1;
    if (from > to || from >= size) return [];
    if (request.rev) {
      const all = [...set.all()].reverse();
      members = all.slice(from, to + 1);
    } else members = set.byRank(from, to);
  } else if (request.by === 'score') {
    const lo = parseBound(request.rev ? request.max : request.min);
    const hi = parseBound(request.rev ? request.min : request.max);
    if (!set) return [];
    // Forward ranges stop after the LIMIT window instead of collecting every match.
    const limit = !request.rev && request.offset >= 0 && request.count >= 0 ? request.offset + request.count : Infinity;
    members = set.byScore(lo.value, lo.exclusive, hi.value, hi.exclusive, limit);
    if (request.rev) members.reverse();
  } else {
    const lo = parseLex(request.rev ? request.max : request.min);
    const hi = parseLex(request.rev ? request.min : request.max);
    if (!set) return [];
    if (lo.sign === 1 || hi.sign === -1) members = [];
    else members = set.byLex(lo.value, lo.exclusive, hi.value, hi.exclusive);
    if (request.rev) members.reverse();
  }
  if (request.by !== 'rank') {
    if (request.offset < 0) return [];
    members = request.count < 0 ? members.slice(request.offset) : members.slice(request.offset, request.offset + request.count);
  }
  return withScores(ctx, members, request.scores);
}

function parseLimitAndScores(
  options: readonly string[],
  allowScores: boolean,
  allowLimit: boolean,
): { offset: number; count: number; scores: boolean; limit: boolean } {
  let offset = 0,
    count = -1,
    scores = false,
    limit = false;
  for (let i = 0; i < options.length; i++) {
    if (allowScores && is(options[i], 'WITHSCORES')) scores = true;
    else if (allowLimit && is(options[i], 'LIMIT') && i + 2 < options.length) {
      offset = parseInteger(options[i + 1]!);
      count = parseInteger(options[i + 2]!);
      limit = true;
      i += 2;
    } else fail();
  }
  return { offset, count, scores, limit };
}

const zset = (name: string, arity: number, write: boolean, handler: CommandSpec['handler'], fast = true): CommandSpec =>
  command({
    name,
    arity,
    flags: write ? ['write', ...(fast ? (['fast'] as const) : [])] : ['readonly', ...(fast ? (['fast'] as const) : [])],
    categories: ['sortedset', write ? 'write' : 'read', fast ? 'fast' : 'slow'],
    keys: keyRange(1),
    handler,
  });

function removeIfEmpty(ctx: CommandContext, key: string, set: SortedSet): void {
  if (set.size === 0) ctx.db.delete(key);
  else ctx.db.touch(key);
}

export const zsetCommands: CommandSpec[] = [
  zset('zadd', -4, true, (ctx): Reply => {
    const key = ctx.args[1]!;
    let i = 2;
    let nx = false,
      xx = false,
      gt = false,
      lt = false,
      ch = false,
      incr = false;
    for (; i < ctx.args.length; i++) {
      const option = ctx.args[i]!.toUpperCase();
      if (option === 'NX') nx = true;
      else if (option === 'XX') xx = true;
      else if (option === 'GT') gt = true;
      else if (option === 'LT') lt = true;
      else if (option === 'CH') ch = true;
      else if (option === 'INCR') incr = true;
      else break;
    }
    const rest = ctx.args.slice(i);
    if (rest.length === 0 || rest.length % 2 !== 0) fail();
    if (nx && xx) throw new CommandError('ERR XX and NX options at the same time are not compatible');
    if ((gt && nx) || (lt && nx) || (gt && lt)) throw new CommandError('ERR GT, LT, and/or NX options at the same time are not compatible');
    if (incr && rest.length > 2) throw new CommandError('ERR INCR option supports a single increment-element pair');
    const pairs: Array<[number, string]> = [];
    for (let j = 0; j < rest.length; j += 2) pairs.push([parseFloatArg(rest[j]!), rest[j + 1]!]);
    const existing = ctx.db.get(key, 'zset');
    if (!existing && xx) return incr ? null : 0;
    const set = existing ?? ctx.db.getOrCreate(key, 'zset', () => new SortedSet());
    let added = 0,
      changed = 0;
    let incrResult: number | null = null;
    for (const [score, member] of pairs) {
      const old = set.score(member);
      const next = incr ? (old ?? 0) + score : score;
      if (Number.isNaN(next)) throw new CommandError('ERR resulting score is not a number (NaN)');
      if (old === undefined) {
        if (xx) continue;
        set.set(member, next);
        added++;
        incrResult = next;
      } else {
        if (nx || (gt && next <= old) || (lt && next >= old)) {
          if (incr) incrResult = null;
          continue;
        }
        if (next !== old) {
          set.set(member, next);
          changed++;
        }
        incrResult = next;
      }
    }
    if (set.size === 0) ctx.db.delete(key);
    else ctx.db.touch(key);
    if (incr) return incrResult === null ? null : new DoubleReply(incrResult);
    return ch ? added + changed : added;
  }),
  zset('zincrby', 4, true, (ctx) => {
    const set = ctx.db.getOrCreate(ctx.args[1]!, 'zset', () => new SortedSet());
    const next = (set.score(ctx.args[3]!) ?? 0) + parseFloatArg(ctx.args[2]!);
    if (Number.isNaN(next)) throw new CommandError('ERR resulting score is not a number (NaN)');
    set.set(ctx.args[3]!, next);
    ctx.db.touch(ctx.args[1]!);
    return new DoubleReply(next);
  }),
  zset('zrem', -3, true, (ctx) => {
    const key = ctx.args[1]!;
    const set = ctx.db.get(key, 'zset');
    if (!set) return 0;
    let removed = 0;
    for (const member of ctx.args.slice(2)) if (set.delete(member)) removed++;
    if (removed) removeIfEmpty(ctx, key, set);
    return removed;
  }),
  zset(
    'zremrangebyscore',
    4,
    true,
    (ctx) => {
      const key = ctx.args[1]!;
      const lo = parseBound(ctx.args[2]!);
      const hi = parseBound(ctx.args[3]!);
      const set = ctx.db.get(key, 'zset');
      if (!set) return 0;
      const doomed = set.byScore(lo.value, lo.exclusive, hi.value, hi.exclusive);
      for (const m of doomed) set.delete(m.member);
      if (doomed.length) removeIfEmpty(ctx, key, set);
      return doomed.length;
    },
    false,
  ),
  zset('zscore', 3, false, (ctx) => {
    const score = ctx.db.get(ctx.args[1]!, 'zset')?.score(ctx.args[2]!);
    return score === undefined ? null : new DoubleReply(score);
  }),
  zset('zmscore', -3, false, (ctx) => {
    const set = ctx.db.get(ctx.args[1]!, 'zset');
    return ctx.args.slice(2).map((m) => {
      const score = set?.score(m);
      return score === undefined ? null : new DoubleReply(score);
    });
  }),
  zset('zcard', 2, false, (ctx) => ctx.db.get(ctx.args[1]!, 'zset')?.size ?? 0),
  // ZSCAN key cursor [MATCH pattern] [COUNT n]: the cursor is a rank; members and scores flat, scores as bulk strings (RESP2 and RESP3 alike).
  zset(
    'zscan',
    -3,
    false,
    (ctx) => {
      const { cursor, pattern, count } = scanOptions(ctx.args[2]!, ctx.args.slice(3), false);
      const set = ctx.db.get(ctx.args[1]!, 'zset');
      if (!set || cursor >= set.size) return ['0', []];
      const page = set.byRank(cursor, Math.min(set.size, cursor + count) - 1);
      const next = cursor + page.length >= set.size ? 0 : cursor + page.length;
      const found = page.filter((m) => pattern === undefined || globMatch(pattern, m.member));
      return [String(next), found.flatMap((m) => [m.member, ctx.model.formatDouble(m.score)])];
    },
    false,
  ),
  zset('zcount', 4, false, (ctx) => {
    const lo = parseBound(ctx.args[2]!);
    const hi = parseBound(ctx.args[3]!);
    return ctx.db.get(ctx.args[1]!, 'zset')?.byScore(lo.value, lo.exclusive, hi.value, hi.exclusive).length ?? 0;
  }),
  zset('zrank', 3, false, (ctx) => ctx.db.get(ctx.args[1]!, 'zset')?.rank(ctx.args[2]!) ?? null),
  zset('zrevrank', 3, false, (ctx) => {
    const set = ctx.db.get(ctx.args[1]!, 'zset');
    const rank = set?.rank(ctx.args[2]!);
    return set && rank !== undefined ? set.size - 1 - rank : null;
  }),
  zset(
    'zrange',
    -4,
    false,
    (ctx) => {
      const [, key, min, max] = ctx.args as [string, string, string, string];
      let by: RangeRequest['by'] = 'rank';
      let rev = false;
      const rest: string[] = [];
      for (const option of ctx.args.slice(4)) {
        if (is(option, 'BYSCORE')) by = 'score';
        else if (is(option, 'BYLEX')) by = 'lex';
        else if (is(option, 'REV')) rev = true;
        else rest.push(option);
      }
      const parsed = parseLimitAndScores(rest, true, true);
      if (parsed.limit && by === 'rank') throw new CommandError('ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX');
      if (parsed.scores && by === 'lex') throw new CommandError('ERR syntax error, WITHSCORES not supported in combination with BYLEX');
      return range(ctx, key, { by, rev, min, max, ...parsed });
    },
    false,
  ),
  zset(
    'zrangebyscore',
    -4,
    false,
    (ctx) => {
      const parsed = parseLimitAndScores(ctx.args.slice(4), true, true);
      return range(ctx, ctx.args[1]!, { by: 'score', rev: false, min: ctx.args[2]!, max: ctx.args[3]!, ...parsed });
    },
    false,
  ),
  zset(
    'zrevrangebyscore',
    -4,
    false,
    (ctx) => {
      const parsed = parseLimitAndScores(ctx.args.slice(4), true, true);
      return range(ctx, ctx.args[1]!, { by: 'score', rev: true, min: ctx.args[2]!, max: ctx.args[3]!, ...parsed });
    },
    false,
  ),
  zset(
    'zrevrange',
    -4,
    false,
    (ctx) => {
      const parsed = parseLimitAndScores(ctx.args.slice(4), true, false);
      return range(ctx, ctx.args[1]!, { by: 'rank', rev: true, min: ctx.args[2]!, max: ctx.args[3]!, ...parsed });
    },
    false,
  ),
  zset('zpopmin', -2, true, (ctx) => {
    const key = ctx.args[1]!;
    const count = ctx.args[2] === undefined ? 1 : parseInteger(ctx.args[2]);
    if (count < 0) throw new CommandError('ERR value is out of range, must be positive');
    const set = ctx.db.get(key, 'zset');
    if (!set) return [];
    const popped = set.byRank(0, count - 1);
    for (const m of popped) set.delete(m.member);
    if (popped.length) removeIfEmpty(ctx, key, set);
    if (resp3(ctx) && ctx.args[2] !== undefined) return popped.map((m) => [m.member, new DoubleReply(m.score)]);
    return popped.flatMap((m) => [m.member, new DoubleReply(m.score)]);
  }),
];
