// List commands answer on the fake server as on the real one.
import { describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../../src/index.js';
import { rawExchange } from '../helpers.js';
import { matchingModel, realUrl, uniquePrefix } from '../support.js';
import { listCases } from './list-cases.js';
import { describeConformance } from './replay.js';

describeConformance('list command conformance: the fake answers as the real server does', listCases);

describe('list replies on the wire', () => {
  // node-redis decodes the null bulk string and the null array alike, so compare the bytes.
  it('a nil element, the null array and the empty array are the ones the real server sends, in RESP2 and RESP3', async () => {
    const fake = await FakeRedisServer.start({ version: matchingModel() });
    try {
      const real = new URL(realUrl());
      for (const hello of ['', 'HELLO 3\r\n']) {
        const p = uniquePrefix('wire');
        const lines = [`RPUSH ${p}l a b`, `LPOP ${p}none`, `LPOP ${p}none 1`, `RPOP ${p}none 0`, `LPOP ${p}l 0`, `RPOP ${p}l 5`, `LINDEX ${p}l 0`];
        lines.push(`LPOS ${p}none a`, `LPOS ${p}none a COUNT 0`, 'PING');
        const payload = `${hello}ECHO start\r\n${lines.map((line) => `${line}\r\n`).join('')}`;
        // The HELLO reply (client ID, mode) differs between servers: compare from the ECHO on.
        const after = (out: string) => out.slice(out.indexOf('$5\r\nstart\r\n'));
        const expected = after(await rawExchange(Number(real.port), payload, /\+PONG\r\n$/, real.hostname));
        expect(after(await rawExchange(fake.port, payload, /\+PONG\r\n$/))).toBe(expected);
        expect(expected).toContain(hello ? '_\r\n' : '*-1\r\n');
      }
    } finally {
      await fake.close();
    }
  });
});
