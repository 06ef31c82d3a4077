// Cluster slots computed locally, and a queue's key namespace.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isRespireError } from '@respire/core-scripts';
import { assertSameSlot, keySlot, queueKeys } from '@respire/core-scripts/internal';
import { crc16, hashTagOf } from '../src/slots.js';

describe('Cluster slots computed locally', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('clusterUrls')[0] });
    await client.connect();
  });
  afterAll(() => client.destroy());

  it('matches the CRC16/XMODEM check value', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
  });

  it('agrees with CLUSTER KEYSLOT for random keys, hash tags, empty tags and binary bytes', async () => {
    const keys = [
      'foo',
      '{user1000}.following',
      'a{}b',
      '{}{x}',
      'x{y',
      'x}y{z}',
      '{respire-queue:orders}:stream',
      'tenant:{respire-queue:q}:deadlines',
      'é{ü}',
      ...Array.from({ length: 200 }, () => randomBytes(8).toString('base64')),
    ];
    for (const key of keys) {
      expect(keySlot(key), key).toBe(Number(await client.sendCommand(['CLUSTER', 'KEYSLOT', key])));
    }
  });

  it('takes the hash tag between the first { and the next }', () => {
    expect(Buffer.from(hashTagOf('a{b}c{d}')).toString()).toBe('b');
    expect(Buffer.from(hashTagOf('a{}b{c}')).toString()).toBe('a{}b{c}');
  });
});

describe('queue key namespace', () => {
  it('puts every key under the hash tag {respire-queue:<name>} after the prefix', () => {
    const keys = queueKeys('orders', 'app:');
    expect(keys.stream).toBe('app:{respire-queue:orders}:stream');
    expect(keys.deadLetter).toBe('app:{respire-queue:orders}:dead-letter');
    expect(new Set([keys.stream, keys.deadlines, keys.deadLetter]).size).toBe(3);
    for (const key of [keys.deadlines, keys.deadLetter, `${keys.deduplicationPrefix}any{thing}`]) {
      expect(keySlot(key)).toBe(keySlot(keys.stream));
    }
  });

  it('keeps one slot when the prefix has a hash tag of its own, or an unclosed brace', () => {
    for (const prefix of ['{tenant}:', 'x{', '}{']) {
      const keys = queueKeys('orders', prefix);
      expect(keySlot(keys.deadLetter)).toBe(keySlot(keys.stream));
    }
  });

  it('rejects keys that are not distinct or not in one slot', () => {
    expect(() => assertSameSlot({ a: '{x}1', b: '{x}1' })).toThrow(/same key/);
    let error: unknown;
    try {
      assertSameSlot({ source: '{orders}:events', destination: '{other}:dead' });
    } catch (e) {
      error = e;
    }
    expect(isRespireError(error, 'CROSS_SLOT')).toBe(true);
    expect((error as Error).message).toMatch(/slot/);
  });
});
