// The fake server's reply model, before RESP2 or RESP3 encoding.
/**
 * The reply model: what command handlers return, before encoding for RESP2 or RESP3.
 *
 * Byte strings are JS strings with one char per byte (latin1), so every value stays binary-safe.
 * - `string` → bulk string, `number` → integer, `null` → null bulk (RESP3 null), arrays → arrays;
 * - the classes below cover the other RESP types.
 */

/** A simple string reply (`+OK`). */
export class StatusReply {
  constructor(readonly value: string) {}
}

/** An error reply (`-ERR ...`); `message` includes the error code. */
export class ErrorReply {
  constructor(readonly message: string) {}
}

/** A RESP3 map; flattened into an array under RESP2. */
export class MapReply {
  constructor(readonly entries: ReadonlyArray<readonly [Reply, Reply]>) {}
}

/** A RESP3 set; an array under RESP2. */
export class SetReply {
  constructor(readonly items: readonly Reply[]) {}
}

/** A RESP3 double; a bulk string under RESP2. */
export class DoubleReply {
  constructor(readonly value: number) {}
}

/** A RESP3 verbatim string (INFO); a bulk string under RESP2. */
export class VerbatimReply {
  constructor(readonly text: string) {}
}

/** The null array (`*-1` under RESP2, `_` under RESP3), e.g. a timed-out blocking read. */
export class NullArrayReply {
  static readonly instance = new NullArrayReply();
  private constructor() {}
}

export type Reply = string | number | null | Reply[] | StatusReply | ErrorReply | MapReply | SetReply | DoubleReply | VerbatimReply | NullArrayReply;

export const OK = new StatusReply('OK');
export const QUEUED = new StatusReply('QUEUED');
export const NULL_ARRAY = NullArrayReply.instance;

/** Thrown by command handlers; the engine turns it into an error reply. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

export const WRONGTYPE = 'WRONGTYPE Operation against a key holding the wrong kind of value';
const SYNTAX = 'ERR syntax error';
export const NOT_INTEGER = 'ERR value is not an integer or out of range';

/** Throws `ERR syntax error` (or `message`). */
export function fail(message: string = SYNTAX): never {
  throw new CommandError(message);
}

/** Builds a map reply from alternating keys and values. */
export function mapOf(...pairs: Reply[]): MapReply {
  const entries: Array<[Reply, Reply]> = [];
  for (let i = 0; i + 1 < pairs.length; i += 2) entries.push([pairs[i]!, pairs[i + 1]!]);
  return new MapReply(entries);
}
