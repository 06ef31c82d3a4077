// Keyspace commands of the fake server (DEL, EXISTS, TYPE, EXPIRE, SCAN, ...).
import { globMatch } from '../keyspace.js';
import { CommandError, OK, StatusReply, fail, type Reply } from '../reply.js';
import { scanOptions } from './scan-options.js';
import { command, is, keyRange, parseInteger, type CommandContext, type CommandSpec } from './types.js';

function expireCommand(name: string, unitMs: number, absolute: boolean): CommandSpec {
  return command({
    name,
    arity: -3,
    flags: ['write', 'fast'],
    categories: ['keyspace', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => {
      const [, key, amountText] = ctx.args as [string, string, string];
      const amount = parseInteger(amountText);
      let nx = false,
        xx = false,
        gt = false,
        lt = false;
      for (const option of ctx.args.slice(3)) {
        if (!ctx.model.redis7) fail();
        if (is(option, 'NX')) nx = true;
        else if (is(option, 'XX')) xx = true;
        else if (is(option, 'GT')) gt = true;
        else if (is(option, 'LT')) lt = true;
        else throw new CommandError(`ERR Unsupported option ${option}`);
      }
      if (nx && (xx || gt || lt)) throw new CommandError('ERR NX and XX, GT or LT options at the same time are not compatible');
      if (gt && lt) throw new CommandError('ERR GT and LT options at the same time are not compatible');
      // Redis refuses a time whose milliseconds overflow a 64-bit integer, before it looks at the key.
      const baseMs = absolute ? 0 : ctx.nowMs();
      if (Math.abs(amount) > 2 ** 63 / unitMs || amount * unitMs > 2 ** 63 - baseMs) {
        throw new CommandError(`ERR invalid expire time in '${name}' command`);
      }
      if (!ctx.db.has(key)) return 0;
      const atMs = baseMs + amount * unitMs;
      const current = ctx.db.expiresAt(key);
      if (nx && current !== undefined) return 0;
      if (xx && current === undefined) return 0;
      if (gt && (current === undefined || atMs <= current)) return 0;
      if (lt && current !== undefined && atMs >= current) return 0;
      ctx.db.setExpiry(key, atMs);
      return 1;
    },
  });
}

function ttlCommand(name: string, unitMs: number): CommandSpec {
  return command({
    name,
    arity: 2,
    flags: ['readonly', 'fast'],
    categories: ['keyspace', 'read', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => {
      const key = ctx.args[1]!;
      if (!ctx.db.has(key)) return -2;
      const at = ctx.db.expiresAt(key);
      if (at === undefined) return -1;
      const left = Math.max(0, at - ctx.nowMs());
      return unitMs === 1 ? Math.floor(left) : Math.floor((left + 500) / 1000);
    },
  });
}

function scan(ctx: CommandContext, cursorText: string, options: readonly string[]): Reply {
  const { cursor, pattern, count, type } = scanOptions(cursorText, options, true);
  const keys = ctx.db.keys().sort();
  const page = keys.slice(cursor, cursor + count);
  const next = cursor + page.length >= keys.length ? 0 : cursor + page.length;
  const found = page.filter((k) => (pattern === undefined || globMatch(pattern, k)) && (type === undefined || ctx.db.lookup(k)?.type === type));
  return [String(next), found];
}

export const keyCommands: CommandSpec[] = [
  command({
    name: 'del',
    arity: -2,
    flags: ['write'],
    categories: ['keyspace', 'write', 'slow'],
    keys: keyRange(1, -1),
    handler: (ctx) => ctx.args.slice(1).reduce((n, key) => n + (ctx.db.delete(key) ? 1 : 0), 0),
  }),
  command({
    name: 'unlink',
    arity: -2,
    flags: ['write', 'fast'],
    categories: ['keyspace', 'write', 'fast'],
    keys: keyRange(1, -1),
    handler: (ctx) => ctx.args.slice(1).reduce((n, key) => n + (ctx.db.delete(key) ? 1 : 0), 0),
  }),
  command({
    name: 'exists',
    arity: -2,
    flags: ['readonly', 'fast'],
    categories: ['keyspace', 'read', 'fast'],
    keys: keyRange(1, -1),
    handler: (ctx) => ctx.args.slice(1).reduce((n, key) => n + (ctx.db.has(key) ? 1 : 0), 0),
  }),
  command({
    name: 'type',
    arity: 2,
    flags: ['readonly', 'fast'],
    categories: ['keyspace', 'read', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => new StatusReply(ctx.db.lookup(ctx.args[1]!)?.type ?? 'none'),
  }),
  ttlCommand('ttl', 1000),
  ttlCommand('pttl', 1),
  expireCommand('expire', 1000, false),
  expireCommand('pexpire', 1, false),
  expireCommand('expireat', 1000, true),
  expireCommand('pexpireat', 1, true),
  command({
    name: 'persist',
    arity: 2,
    flags: ['write', 'fast'],
    categories: ['keyspace', 'write', 'fast'],
    keys: keyRange(1),
    handler: (ctx) => {
      const key = ctx.args[1]!;
      if (!ctx.db.has(key) || ctx.db.expiresAt(key) === undefined) return 0;
      ctx.db.setExpiry(key, undefined);
      return 1;
    },
  }),
  command({
    name: 'keys',
    arity: 2,
    flags: ['readonly'],
    categories: ['keyspace', 'read', 'slow', 'dangerous'],
    handler: (ctx) => ctx.db.keys().filter((k) => globMatch(ctx.args[1]!, k)),
  }),
  command({
    name: 'scan',
    arity: -2,
    flags: ['readonly'],
    categories: ['keyspace', 'read', 'slow'],
    handler: (ctx) => scan(ctx, ctx.args[1]!, ctx.args.slice(2)),
  }),
  command({
    name: 'dbsize',
    arity: 1,
    flags: ['readonly', 'fast'],
    categories: ['keyspace', 'read', 'fast'],
    handler: (ctx) => ctx.db.size,
  }),
  command({
    name: 'flushall',
    arity: -1,
    flags: ['write'],
    categories: ['keyspace', 'write', 'slow', 'dangerous'],
    handler: (ctx) => {
      ctx.engine.flushAll();
      return OK;
    },
  }),
  command({
    name: 'flushdb',
    arity: -1,
    flags: ['write'],
    categories: ['keyspace', 'write', 'slow', 'dangerous'],
    handler: (ctx) => {
      ctx.db.clear();
      return OK;
    },
  }),
  command({
    name: 'rename',
    arity: 3,
    flags: ['write'],
    categories: ['keyspace', 'write', 'slow'],
    keys: keyRange(1, 2),
    handler: (ctx) => {
      const [, from, to] = ctx.args as [string, string, string];
      const value = ctx.db.lookup(from);
      if (!value) throw new CommandError('ERR no such key');
      const expiry = ctx.db.expiresAt(from);
      ctx.db.delete(from);
      ctx.db.set(to, value);
      ctx.db.setExpiry(to, expiry);
      return OK;
    },
  }),
];
