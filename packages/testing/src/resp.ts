// RESP2 and RESP3 for the fake server: the request parser and the reply encoder.
import { DoubleReply, ErrorReply, MapReply, NullArrayReply, SetReply, StatusReply, VerbatimReply, type Reply } from './reply.js';

/** Protocol version of a connection: 2 until `HELLO 3`. */
export type RespVersion = 2 | 3;

/** Thrown by {@link RespParser} on malformed input; the server answers it and closes the connection. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

const CR = 13;
const LF = 10;

/**
 * Incremental parser of client requests: RESP arrays of bulk strings and inline commands.
 * Arguments come out as latin1 strings (one char per byte), so they are binary-safe.
 */
export class RespParser {
  private buffer: Buffer = Buffer.alloc(0);

  /** Appends bytes and returns every complete command they finish. */
  push(chunk: Buffer): string[][] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const commands: string[][] = [];
    let offset = 0;
    for (;;) {
      const parsed = this.parseOne(offset);
      if (parsed === undefined) break;
      offset = parsed.next;
      if (parsed.args.length > 0) commands.push(parsed.args);
    }
    this.buffer = offset >= this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(offset);
    return commands;
  }

  private lineEnd(from: number): number {
    const at = this.buffer.indexOf(LF, from);
    return at;
  }

  private parseOne(offset: number): { args: string[]; next: number } | undefined {
    const buf = this.buffer;
    if (offset >= buf.length) return undefined;
    if (buf[offset] !== 0x2a /* * */) {
      const end = this.lineEnd(offset);
      if (end < 0) {
        if (buf.length - offset > 64 * 1024) throw new ProtocolError('ERR Protocol error: too big inline request');
        return undefined;
      }
      const line = buf.toString('latin1', offset, end > offset && buf[end - 1] === CR ? end - 1 : end);
      return { args: splitInline(line), next: end + 1 };
    }
    const headerEnd = this.lineEnd(offset);
    if (headerEnd < 0) return undefined;
    const count = Number(buf.toString('latin1', offset + 1, headerEnd - 1));
    if (!Number.isInteger(count) || count > 1024 * 1024) throw new ProtocolError('ERR Protocol error: invalid multibulk length');
    let pos = headerEnd + 1;
    const args: string[] = [];
    for (let i = 0; i < count; i++) {
      if (pos >= buf.length) return undefined;
      if (buf[pos] !== 0x24 /* $ */) {
        throw new ProtocolError(`ERR Protocol error: expected '$', got '${String.fromCharCode(buf[pos]!)}'`);
      }
      const lenEnd = this.lineEnd(pos);
      if (lenEnd < 0) return undefined;
      const len = Number(buf.toString('latin1', pos + 1, lenEnd - 1));
      if (!Number.isInteger(len) || len < 0 || len > 512 * 1024 * 1024) throw new ProtocolError('ERR Protocol error: invalid bulk length');
      const start = lenEnd + 1;
      if (start + len + 2 > buf.length) return undefined;
      args.push(buf.toString('latin1', start, start + len));
      pos = start + len + 2;
    }
    return { args, next: pos };
  }
}

function splitInline(line: string): string[] {
  const args: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m !== null; m = re.exec(line)) {
    if (m[1] !== undefined) args.push(m[1].replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c));
    else args.push(m[2] ?? m[3] ?? '');
  }
  return args;
}

/** How doubles are written: `%.17g` before Redis 7.2, shortest round-trip form since. */
export type DoubleFormatter = (value: number) => string;

/** Shortest representation that round-trips, as Redis 7.2+ writes doubles. */
export function formatDoubleShortest(value: number): string {
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Number.isNaN(value)) return 'nan';
  return String(value).replace(/e([+-])(\d)$/, 'e$10$2');
}

/** C's `%.17g`, as Redis 6.2 and 7.0 write doubles. */
export function formatDouble17g(value: number): string {
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  if (Number.isNaN(value)) return 'nan';
  return formatG(value, 17);
}

/** C's `%.<precision>g` (no `#` flag): fixed or exponential form, trailing zeros removed. */
export function formatG(value: number, precision: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa, e] = value.toExponential(precision - 1).split('e') as [string, string];
  const exponent = Number(e);
  const strip = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (exponent < -4 || exponent >= precision) {
    return `${strip(mantissa)}e${exponent < 0 ? '-' : '+'}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  return strip(value.toFixed(precision - 1 - exponent));
}

/** Writes replies as RESP2 or RESP3 bytes. */
export class ReplyEncoder {
  constructor(private readonly formatDouble: DoubleFormatter) {}

  encode(reply: Reply, resp: RespVersion): Buffer {
    const parts: string[] = [];
    this.write(reply, resp, parts);
    return Buffer.from(parts.join(''), 'latin1');
  }

  private write(reply: Reply, resp: RespVersion, out: string[]): void {
    if (typeof reply === 'string') {
      out.push(`$${reply.length}\r\n`, reply, '\r\n');
    } else if (typeof reply === 'number') {
      out.push(`:${Math.trunc(reply)}\r\n`);
    } else if (reply === null) {
      out.push(resp === 3 ? '_\r\n' : '$-1\r\n');
    } else if (Array.isArray(reply)) {
      out.push(`*${reply.length}\r\n`);
      for (const item of reply) this.write(item, resp, out);
    } else if (reply instanceof StatusReply) {
      out.push(`+${reply.value}\r\n`);
    } else if (reply instanceof ErrorReply) {
      out.push(`-${reply.message.replace(/[\r\n]+/g, ' ')}\r\n`);
    } else if (reply instanceof MapReply) {
      out.push(resp === 3 ? `%${reply.entries.length}\r\n` : `*${reply.entries.length * 2}\r\n`);
      for (const [k, v] of reply.entries) {
        this.write(k, resp, out);
        this.write(v, resp, out);
      }
    } else if (reply instanceof SetReply) {
      out.push(`${resp === 3 ? '~' : '*'}${reply.items.length}\r\n`);
      for (const item of reply.items) this.write(item, resp, out);
    } else if (reply instanceof DoubleReply) {
      const text = this.formatDouble(reply.value);
      out.push(resp === 3 ? `,${text}\r\n` : `$${text.length}\r\n${text}\r\n`);
    } else if (reply instanceof VerbatimReply) {
      if (resp === 3) out.push(`=${reply.text.length + 4}\r\ntxt:`, reply.text, '\r\n');
      else out.push(`$${reply.text.length}\r\n`, reply.text, '\r\n');
    } else if (reply instanceof NullArrayReply) {
      out.push(resp === 3 ? '_\r\n' : '*-1\r\n');
    }
  }
}
