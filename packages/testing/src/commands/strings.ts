// String commands of the fake server.
import { CommandError, NOT_INTEGER, OK, fail, type Reply } from '../reply.js';
import { command, keyRange, parseInteger, type CommandContext, type CommandSpec } from './types.js';

function incrBy(ctx: CommandContext, key: string, delta: number): Reply {
  const current = ctx.db.get(key, 'string');
  let value = 0;
  if (current !== undefined) {
    if (!/^(0|-?[1-9]\d{0,18})$/.test(current)) throw new CommandError(NOT_INTEGER);
    value = Number(current);
  }
  const next = value + delta;
  if (!Number.isSafeInteger(next)) throw new CommandError('ERR increment or decrement would overflow');
  ctx.db.set(key, { type: 'string', value: String(next) }, true);
  return next;
}

export const stringCommands: CommandSpec[] = [
  command({
    name: 'get',
    arity: 2,
    flags: ['readonly', 'fast'],
    categories: ['string', 'read', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => ctx.db.get(ctx.args[1]!, 'string') ?? null,
  }),
  command({
    name: 'mget',
    arity: -2,
    flags: ['readonly', 'fast'],
    categories: ['string', 'read', 'fast'],
    keys: keyRange(1, -1),
    handler: (ctx) =>
      ctx.args.slice(1).map((key) => {
        const value = ctx.db.lookup(key);
        return value?.type === 'string' ? value.value : null;
      }),
  }),
  command({
    name: 'set',
    arity: -3,
    flags: ['write'],
    categories: ['string', 'write', 'slow'],
    keys: keyRange(1),
    handler: (ctx) => {
      const [, key, value] = ctx.args as [string, string, string];
      let nx = false,
        xx = false,
        get = false,
        keepTtl = false;
      let expiresAtMs: number | undefined;
      let expirySet = false;
      const options = ctx.args.slice(3);
      for (let i = 0; i < options.length; i++) {
        const option = options[i]!.toUpperCase();
        if (option === 'NX' && !xx) nx = true;
        else if (option === 'XX' && !nx) xx = true;
        else if (option === 'GET') get = true;
        else if (option === 'KEEPTTL' && !expirySet) keepTtl = true;
        else if (['EX', 'PX', 'EXAT', 'PXAT'].includes(option) && !expirySet && !keepTtl) {
          const amountText = options[++i];
          if (amountText === undefined) fail();
          const amount = parseInteger(amountText);
          if (amount <= 0) throw new CommandError("ERR invalid expire time in 'set' command");
          expirySet = true;
          const now = ctx.nowMs();
          expiresAtMs = option === 'EX' ? now + amount * 1000 : option === 'PX' ? now + amount : option === 'EXAT' ? amount * 1000 : amount;
        } else fail();
      }
      const old = get ? (ctx.db.get(key, 'string') ?? null) : undefined;
      const exists = ctx.db.has(key);
      if ((nx && exists) || (xx && !exists)) return get ? (old ?? null) : null;
      ctx.db.set(key, { type: 'string', value }, keepTtl);
      if (expiresAtMs !== undefined) ctx.db.setExpiry(key, expiresAtMs);
      return get ? (old ?? null) : OK;
    },
  }),
  command({
    name: 'setnx',
    arity: 3,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => {
      if (ctx.db.has(ctx.args[1]!)) return 0;
      ctx.db.set(ctx.args[1]!, { type: 'string', value: ctx.args[2]! });
      return 1;
    },
  }),
  command({
    name: 'mset',
    arity: -3,
    flags: ['write'],
    categories: ['string', 'write', 'slow'],
    keys: keyRange(1, -1, 2),
    handler: (ctx) => {
      if ((ctx.args.length - 1) % 2 !== 0) throw new CommandError("ERR wrong number of arguments for 'mset' command");
      for (let i = 1; i < ctx.args.length; i += 2) ctx.db.set(ctx.args[i]!, { type: 'string', value: ctx.args[i + 1]! });
      return OK;
    },
  }),
  command({
    name: 'getdel',
    arity: 2,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => {
      const value = ctx.db.get(ctx.args[1]!, 'string');
      if (value === undefined) return null;
      ctx.db.delete(ctx.args[1]!);
      return value;
    },
  }),
  command({
    name: 'strlen',
    arity: 2,
    flags: ['readonly', 'fast'],
    categories: ['string', 'read', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => (ctx.db.get(ctx.args[1]!, 'string') ?? '').length,
  }),
  command({
    name: 'append',
    arity: 3,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => {
      const value = (ctx.db.get(ctx.args[1]!, 'string') ?? '') + ctx.args[2]!;
      ctx.db.set(ctx.args[1]!, { type: 'string', value }, true);
      return value.length;
    },
  }),
  command({
    name: 'incr',
    arity: 2,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => incrBy(ctx, ctx.args[1]!, 1),
  }),
  command({
    name: 'decr',
    arity: 2,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => incrBy(ctx, ctx.args[1]!, -1),
  }),
  command({
    name: 'incrby',
    arity: 3,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => incrBy(ctx, ctx.args[1]!, parseInteger(ctx.args[2]!)),
  }),
  command({
    name: 'decrby',
    arity: 3,
    flags: ['write', 'fast'],
    categories: ['string', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => incrBy(ctx, ctx.args[1]!, -parseInteger(ctx.args[2]!)),
  }),
];
