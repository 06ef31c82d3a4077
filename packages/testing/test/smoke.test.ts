import { createClient } from 'redis';
import { createClient as createClient5 } from 'redis5';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../src/index.js';

describe('smoke', () => {
  let server: FakeRedisServer;
  beforeAll(async () => {
    server = await FakeRedisServer.start();
  });
  afterAll(async () => {
    await server.close();
  });
  it('v6 connects', async () => {
    const client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    await client.set('a', '1');
    expect(await client.get('a')).toBe('1');
    expect(await client.sendCommand(['EVAL', "return {1, 'x', redis.call('GET', KEYS[1]), 65536*65536, tostring(3), 2.7}", '1', 'a'])).toEqual([1, 'x', '1', 4294967296, '3', 2]);
    client.destroy();
  });
  it('v5 connects', async () => {
    const client = createClient5({ url: server.url });
    client.on('error', () => {});
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    expect(await client.hGetAll('nope')).toEqual({});
    client.destroy();
  });
});
