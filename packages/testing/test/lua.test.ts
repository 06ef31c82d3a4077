// Lua scripts on the fake server: the script API, conversions and errors.
import { RESP_TYPES } from 'redis';
import { scripts } from '@respire/core-scripts/internal';
import { describe, expect, it } from 'vitest';
import { floatLiterals } from '../src/lua/rewrite.js';
import { attempt, withServer } from './helpers.js';

describe('Lua scripts', () => {
  it('are binary-safe: every byte value goes through KEYS, ARGV, redis.call and the reply', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
      const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const key = Buffer.from([0xff, 0x00, 0x80, 0x0d, 0x0a]);
      const reply = await binary.sendCommand([
        'EVAL',
        "redis.call('SET', KEYS[1], ARGV[1]) return {redis.call('GET', KEYS[1]), #ARGV[1], string.byte(ARGV[1], 256)}",
        '1',
        key,
        bytes,
      ]);
      expect(reply).toEqual([bytes, 256, 255]);
      expect(await binary.sendCommand(['GET', key])).toEqual(bytes);
    });
  });

  it('uses float arithmetic like Lua 5.1: no 32-bit wrap-around', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      expect(
        await client.sendCommand([
          'EVAL',
          "local n = tonumber(ARGV[1]) return {65536 * 65536, n * 1000, tostring(n * 1000), string.format('%.0f', 2^53), 0x7fffffff + 1, #KEYS * 4294967296}",
          '1',
          'k',
          '1796020824030',
        ]),
      ).toEqual([4294967296, 1796020824030000, '1.79602082403e+15', '9007199254740992', 2147483648, 4294967296]);
    });
  });

  it('truncates numbers to integers, false to nil, true to 1, and stops arrays at the first nil', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      expect(await client.sendCommand(['EVAL', "return {3.99, -3.99, true, false, {ok='fine'}, 'x', nil, 'unreached'}", '0'])).toEqual([
        3,
        -3,
        1,
        null,
        'fine',
        'x',
      ]);
      expect(await client.sendCommand(['EVAL', 'return false', '0'])).toBeNull();
    });
  });

  it('TYPE inside a script is a status table { ok = "stream" }', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      await client.sendCommand(['XADD', 's', '*', 'f', 'v']);
      expect(await client.sendCommand(['EVAL', "local t = redis.call('TYPE', KEYS[1]) return {type(t), t.ok}", '1', 's'])).toEqual(['table', 'stream']);
    });
  });

  it('unpacks 2000 values into one call (stack growth)', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const script =
        "local t = {} for i = 1, 2000 do t[i] = tostring(i) end redis.call('ZADD', KEYS[1], unpack(t)) return {redis.call('ZCARD', KEYS[1]), #redis.call('ZRANGE', KEYS[1], 0, -1)}";
      expect(await client.sendCommand(['EVAL', script, '1', 'z'])).toEqual([1000, 1000]);
      expect(await client.sendCommand(['EVAL', 'return {unpack(ARGV)}', '0', ...Array.from({ length: 2000 }, (_, i) => String(i))])).toHaveLength(2000);
    });
  });

  it('runs atomically: concurrent clients never see a half-done script', async () => {
    await withServer({}, async (_server, open) => {
      const writer = await open();
      const reader = await open();
      const script = "for i = 1, 500 do redis.call('INCR', KEYS[1]) end return redis.call('GET', KEYS[1])";
      const reads: Array<Promise<string | null>> = [];
      const runs: Array<Promise<unknown>> = [];
      for (let i = 0; i < 10; i++) {
        runs.push(writer.sendCommand(['EVAL', script, '1', 'n']));
        reads.push(reader.get('n'));
      }
      await Promise.all(runs);
      for (const value of await Promise.all(reads)) expect(Number(value ?? 0) % 500).toBe(0);
    });
  });

  it('redis.pcall returns error tables; redis.call raises them with the script location', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      await client.set('str', 'v');
      expect(await client.sendCommand(['EVAL', "local r = redis.pcall('XLEN', KEYS[1]) return r.err", '1', 'str'])).toBe(
        'WRONGTYPE Operation against a key holding the wrong kind of value',
      );
      const script = "\n\nreturn redis.call('XLEN', KEYS[1])";
      const sha = await client.scriptLoad(script);
      expect(await attempt(client, ['EVALSHA', sha, '1', 'str'])).toEqual({
        error: `WRONGTYPE Operation against a key holding the wrong kind of value script: ${sha}, on @user_script:3.`,
      });
    });
  });

  it('supports redis.sha1hex, redis.log, redis.status_reply, redis.error_reply and redis.setresp(3)', async () => {
    await withServer({}, async (server, open) => {
      const client = await open();
      expect(await client.sendCommand(['EVAL', "return redis.sha1hex('')", '0'])).toBe('da39a3ee5e6b4b0d3255bfef95601890afd80709');
      await client.sendCommand(['EVAL', "redis.log(redis.LOG_WARNING, 'hello', 'world') return 1", '0']);
      expect(server.scriptLog).toEqual([{ level: 3, message: 'hello world' }]);
      expect(await client.sendCommand(['EVAL', "return redis.status_reply('GOOD')", '0'])).toBe('GOOD');
      expect(await attempt(client, ['EVAL', "return redis.error_reply('MY_CODE detail')", '0'])).toEqual({ error: 'MY_CODE detail' });
      await client.hSet('h', { a: '1' });
      expect(await client.sendCommand(['EVAL', "redis.setresp(3) return redis.call('HGETALL', KEYS[1])", '1', 'h'])).toEqual({ a: '1' });
      expect(await client.sendCommand(['EVAL', "redis.setresp(3) local m = redis.call('HGETALL', KEYS[1]) return m.map.a", '1', 'h'])).toBe('1');
      expect(await client.sendCommand(['EVAL', "return redis.call('HGETALL', KEYS[1])", '1', 'h'])).toEqual(['a', '1']);
    });
  });

  it('caches scripts: SCRIPT LOAD, EXISTS, FLUSH and EVALSHA NOSCRIPT', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const sha = await client.scriptLoad('return 42');
      expect(await client.scriptExists([sha, '0'.repeat(40)])).toEqual([1, 0]);
      expect(await client.evalSha(sha)).toBe(42);
      await client.scriptFlush();
      expect(await attempt(client, ['EVALSHA', sha, '0'])).toEqual({ error: 'NOSCRIPT No matching script. Please use EVAL.' });
      expect(await attempt(client, ['EVAL', 'return (', '0'])).toMatchObject({
        error: expect.stringMatching(/^ERR Error compiling script \(new function\): user_script:1:/),
      });
    });
  });

  it('every script in the core-scripts registry (queue and worker) compiles to the same SHA1', async () => {
    await withServer({}, async (_server, open) => {
      const client = await open();
      const all = Object.values(scripts as Record<string, unknown>).filter(
        (s): s is { source: string; sha1: string } => typeof (s as { source?: unknown }).source === 'string',
      );
      expect(all.length).toBeGreaterThanOrEqual(4);
      expect(all.map((s) => (s as unknown as { name: string }).name)).toContain('queue-receive');
      for (const script of all) expect(await client.scriptLoad(script.source)).toBe(script.sha1);
    });
  });

  it('aborts a runaway script after the time limit instead of hanging the test process', async () => {
    await withServer({ scriptTimeLimitMs: 100 }, async (_server, open) => {
      const client = await open();
      expect(await attempt(client, ['EVAL', 'while true do end', '0'])).toMatchObject({ error: expect.stringContaining('ran longer than') });
      expect(await client.ping()).toBe('PONG');
    });
  });

  it('rewrites integer literals to floats but leaves strings, comments and names alone', () => {
    expect(floatLiterals("local a1 = 10 -- 20\nreturn '30' .. [[40]] .. 0x10 .. 1.5 .. 2e3")).toBe(
      "local a1 = 10.0 -- 20\nreturn '30' .. [[40]] .. 16.0 .. 1.5 .. 2e3",
    );
  });
});
