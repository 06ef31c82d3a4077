// The fake server's RESP parser and reply encoder.
import { describe, expect, it } from 'vitest';
import { DoubleReply, ErrorReply, MapReply, NULL_ARRAY, SetReply, StatusReply, VerbatimReply } from '../src/reply.js';
import { ProtocolError, ReplyEncoder, RespParser, formatDouble17g, formatDoubleShortest } from '../src/resp.js';

describe('RESP parser', () => {
  it('parses pipelined commands split at any byte, binary-safe', () => {
    const bytes = Buffer.concat([Buffer.from('*2\r\n$3\r\nGET\r\n$3\r\n'), Buffer.from([0, 13, 10]), Buffer.from('\r\n*1\r\n$4\r\nPING\r\n')]);
    for (let split = 1; split < bytes.length; split++) {
      const parser = new RespParser();
      const commands = [...parser.push(bytes.subarray(0, split)), ...parser.push(bytes.subarray(split))];
      expect(commands).toEqual([['GET', '\u0000\r\n'], ['PING']]);
    }
  });

  it('parses inline commands with quotes', () => {
    expect(new RespParser().push(Buffer.from('SET k "a b\\n"\r\nPING\n'))).toEqual([['SET', 'k', 'a b\n'], ['PING']]);
  });

  it('rejects a malformed bulk header', () => {
    expect(() => new RespParser().push(Buffer.from('*1\r\n+PING\r\n'))).toThrow(ProtocolError);
  });
});

describe('reply encoder', () => {
  const encoder = new ReplyEncoder(formatDouble17g);
  const both = (reply: Parameters<ReplyEncoder['encode']>[0]) => [encoder.encode(reply, 2).toString('latin1'), encoder.encode(reply, 3).toString('latin1')];

  it('writes each type for RESP2 and RESP3', () => {
    expect(both('ab')).toEqual(['$2\r\nab\r\n', '$2\r\nab\r\n']);
    expect(both(-7)).toEqual([':-7\r\n', ':-7\r\n']);
    expect(both(null)).toEqual(['$-1\r\n', '_\r\n']);
    expect(both(NULL_ARRAY)).toEqual(['*-1\r\n', '_\r\n']);
    expect(both(new StatusReply('OK'))).toEqual(['+OK\r\n', '+OK\r\n']);
    expect(both(new ErrorReply('ERR a\r\nb'))).toEqual(['-ERR a b\r\n', '-ERR a b\r\n']);
    expect(both(new MapReply([['k', 1]]))).toEqual(['*2\r\n$1\r\nk\r\n:1\r\n', '%1\r\n$1\r\nk\r\n:1\r\n']);
    expect(both(new SetReply(['m']))).toEqual(['*1\r\n$1\r\nm\r\n', '~1\r\n$1\r\nm\r\n']);
    expect(both(new DoubleReply(1.5))).toEqual(['$3\r\n1.5\r\n', ',1.5\r\n']);
    expect(both(new DoubleReply(-Infinity))).toEqual(['$4\r\n-inf\r\n', ',-inf\r\n']);
    expect(both(new VerbatimReply('x'))).toEqual(['$1\r\nx\r\n', '=5\r\ntxt:x\r\n']);
    expect(both([1, [null]])).toEqual(['*2\r\n:1\r\n*1\r\n$-1\r\n', '*2\r\n:1\r\n*1\r\n_\r\n']);
  });

  it('formats doubles as %.17g (6.2/7.0) or shortest (7.2+)', () => {
    expect([0.1, 1.1, 3, 1e21, 1796020824030].map(formatDouble17g)).toEqual(['0.10000000000000001', '1.1000000000000001', '3', '1e+21', '1796020824030']);
    expect([0.1, 1.1, 3, 1e21].map(formatDoubleShortest)).toEqual(['0.1', '1.1', '3', '1e+21']);
  });
});
