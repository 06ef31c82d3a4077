// List commands of the fake server, with Redis 7.0's replies, argument checks and their order.
import type { KeyAccess } from '../acl.js';
import { CommandError, NULL_ARRAY, OK, fail, type Reply } from '../reply.js';
import { command, is, keyRange, parseInteger, type CommandContext, type CommandFlag, type CommandSpec } from './types.js';

/** A list command: one key at position 1; flags and categories as Redis 7.0's COMMAND INFO gives them. */
const list = (name: string, arity: number, flags: readonly CommandFlag[], handler: CommandSpec['handler'], keyAccess?: KeyAccess): CommandSpec =>
  command({
    name,
    arity,
    flags,
    categories: [flags.includes('write') ? 'write' : 'read', 'list', flags.includes('fast') ? 'fast' : 'slow'],
    keys: keyRange(1),
    ...(keyAccess && { keyAccess }),
    handler,
  });

/** LPOP and RPOP read what they delete (key spec RW ACCESS DELETE): an ACL user needs both permissions. */
const readWrite: KeyAccess = { read: true, write: true };

/** Parses a count that must not be negative; a non-integer gets the same `message`, as Redis answers both. */
function nonNegative(text: string, message: string): number {
  const value = parseInteger(text, message);
  if (value < 0) throw new CommandError(message);
  return value;
}

/**
 * Resolves LRANGE/LTRIM `start`/`end` (inclusive, negative from the tail) against a list of
 * `length` elements: `[from, to]` inclusive and in bounds, or undefined when the range is empty.
 */
function clampRange(start: number, end: number, length: number): [number, number] | undefined {
  let from = start < 0 ? length + start : start;
  let to = end < 0 ? length + end : end;
  if (from < 0) from = 0;
  if (from > to || from >= length) return undefined;
  if (to >= length) to = length - 1;
  return [from, to];
}

/** LPUSH/RPUSH/LPUSHX/RPUSHX: the list's length after the push; 0 for a missing key with X. */
function push(ctx: CommandContext, head: boolean, onlyExisting: boolean): Reply {
  const key = ctx.args[1]!;
  const values = ctx.args.slice(2);
  const found = ctx.db.get(key, 'list');
  if (!found && onlyExisting) return 0;
  const items = found ?? ctx.db.getOrCreate(key, 'list', () => []);
  if (head) {
    // Each value goes to the head in turn, so `LPUSH k a b` leaves `b a`; shifted by hand, as a
    // spread of many thousand arguments could overflow the JS stack.
    const n = values.length;
    const old = items.length;
    items.length = old + n;
    for (let i = old - 1; i >= 0; i--) items[i + n] = items[i]!;
    for (let i = 0; i < n; i++) items[i] = values[n - 1 - i]!;
  } else {
    for (const value of values) items.push(value);
  }
  ctx.db.touch(key);
  return items.length;
}

/**
 * LPOP/RPOP key [count]: one element (nil for a missing key) or, with a count, an array of up to
 * `count` elements (the null array for a missing key, empty for count 0).
 */
function pop(ctx: CommandContext, head: boolean): Reply {
  const name = head ? 'lpop' : 'rpop';
  if (ctx.args.length > 3) throw new CommandError(`ERR wrong number of arguments for '${name}' command`);
  const withCount = ctx.args.length === 3;
  // The count is checked before the key, so a bad count wins over WRONGTYPE.
  const count = withCount ? nonNegative(ctx.args[2]!, 'ERR value is out of range, must be positive') : 1;
  const key = ctx.args[1]!;
  const items = ctx.db.get(key, 'list');
  if (!items) return withCount ? NULL_ARRAY : null;
  if (count === 0) return [];
  const n = Math.min(count, items.length);
  const popped = head ? items.splice(0, n) : items.splice(items.length - n, n).reverse();
  if (items.length === 0) ctx.db.delete(key);
  else ctx.db.touch(key);
  return withCount ? popped : popped[0]!;
}

/** LREM key count element: removes up to |count| matches from the head (positive count) or the tail (negative), all for 0. */
function remove(ctx: CommandContext): Reply {
  const count = parseInteger(ctx.args[2]!);
  const [key, element] = [ctx.args[1]!, ctx.args[3]!];
  const items = ctx.db.get(key, 'list');
  if (!items) return 0;
  const limit = count === 0 ? Infinity : Math.abs(count);
  let removed = 0;
  if (count >= 0) {
    let kept = 0;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (removed < limit && item === element) removed++;
      else items[kept++] = item;
    }
    items.length = kept;
  } else {
    for (let i = items.length - 1; i >= 0 && removed < limit; i--) {
      if (items[i] === element) {
        items.splice(i, 1);
        removed++;
      }
    }
  }
  if (items.length === 0) ctx.db.delete(key);
  else if (removed > 0) ctx.db.touch(key);
  return removed;
}

/**
 * LPOS key element [RANK rank] [COUNT n] [MAXLEN len]: the index of the rank-th match (from the
 * tail for a negative rank), or with COUNT an array of up to n indexes (all for 0), looking at no
 * more than MAXLEN elements (0: all). Options are checked before the key.
 */
function position(ctx: CommandContext): Reply {
  let rank = 1;
  let count: number | undefined;
  let maxlen = 0;
  for (let i = 3; i < ctx.args.length; i++) {
    const option = ctx.args[i]!;
    const value = ctx.args[i + 1];
    if (value === undefined) fail();
    if (is(option, 'RANK')) {
      rank = parseInteger(value);
      if (rank === 0) {
        throw new CommandError(
          "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list",
        );
      }
      // Redis 7.0 negates LONG_MIN into itself, so that rank finds the first match from the tail.
      if (value === '-9223372036854775808') rank = -1;
    } else if (is(option, 'COUNT')) count = nonNegative(value, "ERR COUNT can't be negative");
    else if (is(option, 'MAXLEN')) maxlen = nonNegative(value, "ERR MAXLEN can't be negative");
    else fail();
    i++;
  }
  const items = ctx.db.get(ctx.args[1]!, 'list');
  if (!items) return count === undefined ? null : [];
  const element = ctx.args[2]!;
  const fromTail = rank < 0;
  const skip = Math.abs(rank);
  const length = items.length;
  const found: number[] = [];
  let matches = 0;
  for (let seen = 0; seen < length && (maxlen === 0 || seen < maxlen); seen++) {
    const index = fromTail ? length - 1 - seen : seen;
    if (items[index] !== element || ++matches < skip) continue;
    if (count === undefined) return index;
    found.push(index);
    if (count !== 0 && found.length >= count) break;
  }
  return count === undefined ? null : found;
}

export const listCommands: CommandSpec[] = [
  list('rpush', -3, ['write', 'denyoom', 'fast'], (ctx) => push(ctx, false, false)),
  list('lpush', -3, ['write', 'denyoom', 'fast'], (ctx) => push(ctx, true, false)),
  list('rpushx', -3, ['write', 'denyoom', 'fast'], (ctx) => push(ctx, false, true)),
  list('lpushx', -3, ['write', 'denyoom', 'fast'], (ctx) => push(ctx, true, true)),
  list('lpop', -2, ['write', 'fast'], (ctx) => pop(ctx, true), readWrite),
  list('rpop', -2, ['write', 'fast'], (ctx) => pop(ctx, false), readWrite),
  // LLEN reads no element (key spec RO without ACCESS): any key pattern that matches allows it.
  list('llen', 2, ['readonly', 'fast'], (ctx) => ctx.db.get(ctx.args[1]!, 'list')?.length ?? 0, { read: false, write: false }),
  // LINDEX looks the key up before it parses the index: a missing key answers nil to any index.
  list('lindex', 3, ['readonly'], (ctx) => {
    const items = ctx.db.get(ctx.args[1]!, 'list');
    if (!items) return null;
    const index = parseInteger(ctx.args[2]!);
    return items[index < 0 ? items.length + index : index] ?? null;
  }),
  list('lrange', 4, ['readonly'], (ctx) => {
    const [start, end] = [parseInteger(ctx.args[2]!), parseInteger(ctx.args[3]!)];
    const items = ctx.db.get(ctx.args[1]!, 'list');
    const range = items && clampRange(start, end, items.length);
    return range ? items.slice(range[0], range[1] + 1) : [];
  }),
  list('lrem', 4, ['write'], remove),
  // LTRIM keeps [start, end]; a range that selects nothing deletes the key. Always OK, also for a missing key.
  list('ltrim', 4, ['write'], (ctx) => {
    const [start, end] = [parseInteger(ctx.args[2]!), parseInteger(ctx.args[3]!)];
    const key = ctx.args[1]!;
    const items = ctx.db.get(key, 'list');
    if (!items) return OK;
    const range = clampRange(start, end, items.length);
    if (!range) {
      ctx.db.delete(key);
      return OK;
    }
    items.splice(range[1] + 1);
    items.splice(0, range[0]);
    ctx.db.touch(key);
    return OK;
  }),
  // LSET looks the key up first: a missing key is `ERR no such key` whatever the index.
  list('lset', 4, ['write', 'denyoom'], (ctx) => {
    const key = ctx.args[1]!;
    const items = ctx.db.get(key, 'list');
    if (!items) throw new CommandError('ERR no such key');
    const index = parseInteger(ctx.args[2]!);
    const at = index < 0 ? items.length + index : index;
    if (at < 0 || at >= items.length) throw new CommandError('ERR index out of range');
    items[at] = ctx.args[3]!;
    ctx.db.touch(key);
    return OK;
  }),
  list('lpos', -3, ['readonly'], position),
];
