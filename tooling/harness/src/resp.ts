// RESP framing for the test proxy: where each request and reply ends in a byte stream, and a request's arguments.

/** The end offset of the RESP line that starts at `at` (just past its CRLF), or -1 when incomplete. */
function lineEnd(buffer: Buffer, at: number): number {
  const cr = buffer.indexOf('\r\n', at);
  return cr < 0 ? -1 : cr + 2;
}

/** The number on a RESP header line (`$12`, `*3`, `%2`) that starts at `at`. */
function headerNumber(buffer: Buffer, at: number, end: number): number {
  return Number(buffer.toString('latin1', at + 1, end - 2));
}

/**
 * The end offset of the RESP2 or RESP3 value that starts at `at`, or -1 when the buffer does not
 * hold all of it yet. Attributes (`|`) count as part of the value that follows them.
 * @throws Error on a byte that starts no RESP type (the stream is not RESP).
 */
export function respValueEnd(buffer: Buffer, at: number): number {
  if (at >= buffer.length) return -1;
  const end = lineEnd(buffer, at);
  if (end < 0) return -1;
  const type = String.fromCharCode(buffer[at]!);
  switch (type) {
    case '+':
    case '-':
    case ':':
    case '_':
    case ',':
    case '#':
    case '(':
      return end;
    case '$':
    case '!':
    case '=': {
      const length = headerNumber(buffer, at, end);
      if (length < 0) return end;
      return end + length + 2 <= buffer.length ? end + length + 2 : -1;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      const count = headerNumber(buffer, at, end);
      const elements = type === '%' || type === '|' ? count * 2 : Math.max(count, 0);
      let next = end;
      for (let i = 0; i < elements; i++) {
        next = respValueEnd(buffer, next);
        if (next < 0) return -1;
      }
      return type === '|' ? respValueEnd(buffer, next) : next;
    }
    default:
      throw new Error(`not RESP: a value starts with byte ${buffer[at]}`);
  }
}

/** One complete request: its arguments (a RESP array of bulk strings, or an inline command) and where it ends. */
export interface RespRequest {
  readonly args: readonly Buffer[];
  readonly end: number;
}

/** The request that starts at `at`, or undefined when the buffer does not hold all of it yet. */
export function respRequestAt(buffer: Buffer, at: number): RespRequest | undefined {
  const inline = buffer[at] !== 0x2a; /* '*' */
  const end = inline ? lineEnd(buffer, at) : respValueEnd(buffer, at);
  if (end < 0) return undefined;
  if (inline) {
    const words = buffer
      .toString('latin1', at, end - 2)
      .trim()
      .split(/\s+/);
    return { args: words.filter((w) => w !== '').map((w) => Buffer.from(w, 'latin1')), end };
  }
  const args: Buffer[] = [];
  let next = lineEnd(buffer, at);
  const count = headerNumber(buffer, at, next);
  for (let i = 0; i < count; i++) {
    const header = lineEnd(buffer, next);
    const length = headerNumber(buffer, next, header);
    args.push(buffer.subarray(header, header + Math.max(length, 0)));
    next = respValueEnd(buffer, next);
  }
  return { args, end };
}

/** True for a RESP3 push (`>`), which answers no request. */
export const isPush = (buffer: Buffer, at: number): boolean => buffer[at] === 0x3e; /* '>' */
