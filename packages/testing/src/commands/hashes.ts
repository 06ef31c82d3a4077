// Hash commands of the fake server.
import { CommandError, MapReply, OK, type Reply } from '../reply.js';
import { globMatch } from '../keyspace.js';
import { scanOptions } from './scan-options.js';
import { command, keyRange, parseInteger, type CommandSpec } from './types.js';

const hash = (name: string, arity: number, write: boolean, handler: CommandSpec['handler'], fast = true): CommandSpec =>
  command({
    name,
    arity,
    flags: write ? ['write', ...(fast ? (['fast'] as const) : [])] : ['readonly', ...(fast ? (['fast'] as const) : [])],
    categories: ['hash', write ? 'write' : 'read', fast ? 'fast' : 'slow'],
    keys: keyRange(1),
    handler,
  });

export const hashCommands: CommandSpec[] = [
  hash('hset', -4, true, (ctx) => {
    if ((ctx.args.length - 2) % 2 !== 0) throw new CommandError("ERR wrong number of arguments for 'hset' command");
    const key = ctx.args[1]!;
    const map = ctx.db.getOrCreate(key, 'hash', () => new Map());
    let added = 0;
    for (let i = 2; i < ctx.args.length; i += 2) {
      if (!map.has(ctx.args[i]!)) added++;
      map.set(ctx.args[i]!, ctx.args[i + 1]!);
    }
    ctx.db.touch(key);
    return added;
  }),
  hash('hmset', -4, true, (ctx) => {
    if ((ctx.args.length - 2) % 2 !== 0) throw new CommandError("ERR wrong number of arguments for 'hmset' command");
    const map = ctx.db.getOrCreate(ctx.args[1]!, 'hash', () => new Map());
    for (let i = 2; i < ctx.args.length; i += 2) map.set(ctx.args[i]!, ctx.args[i + 1]!);
    ctx.db.touch(ctx.args[1]!);
    return OK;
  }),
  hash('hsetnx', 4, true, (ctx) => {
    const map = ctx.db.getOrCreate(ctx.args[1]!, 'hash', () => new Map());
    if (map.has(ctx.args[2]!)) return 0;
    map.set(ctx.args[2]!, ctx.args[3]!);
    ctx.db.touch(ctx.args[1]!);
    return 1;
  }),
  hash('hget', 3, false, (ctx) => ctx.db.get(ctx.args[1]!, 'hash')?.get(ctx.args[2]!) ?? null),
  hash('hmget', -3, false, (ctx) => {
    const map = ctx.db.get(ctx.args[1]!, 'hash');
    return ctx.args.slice(2).map((field) => map?.get(field) ?? null);
  }),
  hash('hdel', -3, true, (ctx) => {
    const key = ctx.args[1]!;
    const map = ctx.db.get(key, 'hash');
    if (!map) return 0;
    let removed = 0;
    for (const field of ctx.args.slice(2)) if (map.delete(field)) removed++;
    if (map.size === 0) ctx.db.delete(key);
    else if (removed) ctx.db.touch(key);
    return removed;
  }),
  hash(
    'hgetall',
    2,
    false,
    (ctx) => {
      const map = ctx.db.get(ctx.args[1]!, 'hash');
      return new MapReply([...(map ?? new Map<string, string>())].map(([k, v]) => [k, v] as const));
    },
    false,
  ),
  hash('hkeys', 2, false, (ctx) => [...(ctx.db.get(ctx.args[1]!, 'hash')?.keys() ?? [])], false),
  hash('hvals', 2, false, (ctx) => [...(ctx.db.get(ctx.args[1]!, 'hash')?.values() ?? [])], false),
  // HSCAN key cursor [MATCH pattern] [COUNT n]: the cursor is a position in insertion order; fields and values flat.
  hash(
    'hscan',
    -3,
    false,
    (ctx) => {
      const { cursor, pattern, count } = scanOptions(ctx.args[2]!, ctx.args.slice(3), false);
      const map = ctx.db.get(ctx.args[1]!, 'hash');
      if (!map || cursor >= map.size) return ['0', []];
      const page = [...map.entries()].slice(cursor, cursor + count);
      const next = cursor + page.length >= map.size ? 0 : cursor + page.length;
      return [String(next), page.filter(([f]) => pattern === undefined || globMatch(pattern, f)).flat()];
    },
    false,
  ),
  hash('hlen', 2, false, (ctx) => ctx.db.get(ctx.args[1]!, 'hash')?.size ?? 0),
  hash('hexists', 3, false, (ctx) => (ctx.db.get(ctx.args[1]!, 'hash')?.has(ctx.args[2]!) ? 1 : 0)),
  hash('hincrby', 4, true, (ctx): Reply => {
    const key = ctx.args[1]!;
    const map = ctx.db.getOrCreate(key, 'hash', () => new Map());
    const current = map.get(ctx.args[2]!) ?? '0';
    if (!/^(0|-?[1-9]\d{0,18})$/.test(current)) throw new CommandError('ERR hash value is not an integer');
    const next = Number(current) + parseInteger(ctx.args[3]!);
    if (!Number.isSafeInteger(next)) throw new CommandError('ERR increment or decrement would overflow');
    map.set(ctx.args[2]!, String(next));
    ctx.db.touch(key);
    return next;
  }),
];
