// The fake server end to end over node-redis.
import { createClient as createClientV5 } from 'redis5';
import { describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../src/index.js';
import { attempt, rawExchange, withServer } from './helpers.js';

describe('FakeRedisServer', () => {
  it('listens on 127.0.0.1 with a free port and a redis:// URL', async () => {
    const server = await FakeRedisServer.start();
    try {
      expect(server.port).toBeGreaterThan(0);
      expect(server.port).not.toBe(6379);
      expect(server.url).toBe(`redis://127.0.0.1:${server.port}`);
    } finally {
      await server.close();
      await server.close();
    }
  });

  it('speaks RESP3 after HELLO 3: maps, doubles, nulls; RESP2 before', async () => {
    await withServer({}, async (server) => {
      const resp2 = await rawExchange(server.port, '*3\r\n$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n', /\r\n$/);
      expect(resp2).toBe("-ERR wrong number of arguments for 'hset' command\r\n");
      const script = ['HSET h f v', 'ZADD z 1.5 m', 'HELLO 3', 'HGETALL h', 'ZSCORE z m', 'GET missing', 'XREAD STREAMS nokey 0']
        .map((line) => `${line}\r\n`)
        .join('');
      const out = await rawExchange(server.port, script, /_\r\n_\r\n$/);
      expect(out).toContain('%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n');
      expect(out).toContain('$5\r\nproto\r\n:3\r\n');
      expect(out.endsWith('%1\r\n$1\r\nf\r\n$1\r\nv\r\n,1.5\r\n_\r\n_\r\n')).toBe(true);
    });
  });

  it('node-redis v5 (RESP2) and v6 (RESP3) both work unmodified, including binary replies', async () => {
    await withServer({}, async (server, open) => {
      const v6 = await open();
      const v5 = createClientV5({ url: server.url });
      v5.on('error', () => {});
      await v5.connect();
      try {
        await v6.hSet('h', { a: '1', b: '2' });
        expect(await v5.hGetAll('h')).toEqual({ a: '1', b: '2' });
        expect(await v6.hGetAll('h')).toEqual({ a: '1', b: '2' });
        await v6.zAdd('z', [{ score: 2.5, value: 'x' }]);
        expect(await v5.zScore('z', 'x')).toBe(2.5);
        expect(await v6.zRangeWithScores('z', 0, -1)).toEqual([{ value: 'x', score: 2.5 }]);
        expect(await v5.sendCommand(['XREAD', 'STREAMS', 'none', '0'])).toBeNull();
        const info = await v6.sendCommand(['CLIENT', 'INFO']);
        expect(String(info)).toContain('resp=3');
        expect(String(info)).toContain('lib-name= '); // 7.0 has no CLIENT SETINFO
      } finally {
        v5.destroy();
      }
    });
  });

  it('MULTI/EXEC, WATCH aborts on a concurrent write, EXECABORT on a queuing error', async () => {
    await withServer({}, async (_server, open) => {
      const a = await open();
      const b = await open();
      expect(await a.multi().set('k', '1').incr('k').get('k').exec()).toEqual(['OK', 2, '2']);
      await a.watch('k');
      await b.set('k', 'changed');
      // EXEC answers nil for a transaction a watched key aborted; node-redis rejects with WatchError.
      await expect(a.multi().set('k', 'mine').exec()).rejects.toThrow('One (or more) of the watched keys has been changed');
      expect(await a.get('k')).toBe('changed');
      await a.sendCommand(['MULTI']);
      expect(await attempt(a, ['NOSUCH'])).toMatchObject({ error: expect.stringMatching(/^ERR unknown command/) });
      expect(await attempt(a, ['EXEC'])).toEqual({ error: 'EXECABORT Transaction discarded because of previous errors.' });
    });
  });

  it('a blocking XREADGROUP is woken by an XADD from another client; pipelined commands wait behind it', async () => {
    await withServer({}, async (_server, open) => {
      const reader = await open();
      const writer = await open();
      await writer.sendCommand(['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']);
      const read = reader.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '10', 'BLOCK', '0', 'STREAMS', 's', '>']);
      const behind = reader.ping();
      await new Promise((resolve) => setTimeout(resolve, 30));
      const id = await writer.sendCommand(['XADD', 's', '*', 'f', 'v']);
      expect(await read).toEqual({ s: [[id, ['f', 'v']]] });
      expect(await behind).toBe('PONG');
      expect(await writer.sendCommand(['XPENDING', 's', 'g'])).toEqual([1, id, id, [['c', '1']]]);
    });
  });

  it('XREAD BLOCK with $ waits for entries added after the call', async () => {
    await withServer({}, async (_server, open) => {
      const reader = await open();
      const writer = await open();
      await writer.sendCommand(['XADD', 's', '1-1', 'f', 'old']);
      const read = reader.sendCommand(['XREAD', 'BLOCK', '2000', 'STREAMS', 's', '$']);
      await new Promise((resolve) => setTimeout(resolve, 30));
      await writer.sendCommand(['XADD', 's', '2-1', 'f', 'new']);
      expect(await read).toEqual({ s: [['2-1', ['f', 'new']]] });
    });
  });

  it('SCAN walks every key with MATCH and TYPE; KEYS, SELECT and FLUSHALL', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      for (let i = 0; i < 25; i++) await client.set(`k${i}`, 'v');
      await client.hSet('h1', 'f', 'v');
      const seen: string[] = [];
      for await (const keys of client.scanIterator({ MATCH: 'k*', COUNT: 7 })) seen.push(...keys);
      expect(seen.sort()).toEqual(Array.from({ length: 25 }, (_, i) => `k${i}`).sort());
      expect(await client.sendCommand(['SCAN', '0', 'TYPE', 'hash', 'COUNT', '100'])).toEqual(['0', ['h1']]);
      expect((await client.keys('*')).length).toBe(26);
      await client.select(1);
      expect(await client.get('k1')).toBeNull();
      await client.select(0);
      await client.flushAll();
      expect(await client.dbSize()).toBe(0);
    });
  });

  it('CLIENT SETNAME/GETNAME/ID; CLIENT SETINFO only from 7.2; disconnectAll keeps data', async () => {
    await withServer({ version: '7.2' }, async (server, open) => {
      const client = await open();
      await client.clientSetName('worker-1');
      expect(await client.clientGetName()).toBe('worker-1');
      expect(typeof (await client.clientId())).toBe('number');
      expect(String(await client.sendCommand(['CLIENT', 'INFO']))).toContain('lib-name=node-redis');
      expect(await client.sendCommand(['CLIENT', 'SETINFO', 'LIB-NAME', 'x'])).toBe('OK');
      await client.set('k', 'v');
      expect(server.connectionCount).toBe(1);
      server.disconnectAll();
      const again = await open();
      expect(await again.get('k')).toBe('v');
    });
    await withServer({ version: '7.0' }, async (_server, open) => {
      const client = await open();
      expect(await attempt(client, ['CLIENT', 'SETINFO', 'LIB-NAME', 'x'])).toEqual({ error: "ERR unknown subcommand 'SETINFO'. Try CLIENT HELP." });
    });
  });

  it('TIME, INFO sections, PING and unknown command errors', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const [seconds, micros] = (await client.sendCommand(['TIME'])) as [string, string];
      expect(Math.abs(Number(seconds) - Date.now() / 1000)).toBeLessThan(5);
      expect(Number(micros)).toBeLessThan(1_000_000);
      const info = String(await client.sendCommand(['INFO', 'server']));
      expect(info).toMatch(/^# Server\r\nredis_version:7\.0\.15\r\n/);
      expect(info).not.toContain('# Keyspace');
      expect(await attempt(client, ['NOPE'])).toEqual({ error: "ERR unknown command 'NOPE', with args beginning with: " });
    });
  });

  it('a bug in a command handler becomes an error reply; the server and its Lua VM keep working', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      const table = (server as unknown as { engine: { table: Map<string, { handler: unknown }> } }).engine.table;
      const echo = table.get('echo')!;
      const original = echo.handler;
      echo.handler = () => {
        throw new TypeError('boom');
      };
      try {
        expect(await attempt(client, ['ECHO', 'x'])).toEqual({ error: 'ERR internal error in the fake server: boom' });
        expect(await attempt(client, ['EVAL', "return redis.call('ECHO', 'x')", '0'])).toMatchObject({
          error: expect.stringContaining('internal error in the fake server: boom'),
        });
      } finally {
        echo.handler = original;
      }
      expect(await client.sendCommand(['EVAL', "return redis.call('ECHO', 'ok')", '0'])).toBe('ok');
      expect(await client.ping()).toBe('PONG');
    });
  });
});
