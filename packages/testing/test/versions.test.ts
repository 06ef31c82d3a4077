// The fake server's version models.
import { commandTarget, runScript, scripts } from '@respire/core-scripts/internal';
import { describe, expect, it } from 'vitest';
import { REDIS_VERSIONS, type FakeRedisServerOptions } from '../src/index.js';
import { attempt, withServer } from './helpers.js';

/** A stream `s` with group `g`, entries 1-1..3-1 delivered to `alice`, and 2-1 deleted. */
async function deletedPending(client: { sendCommand(args: string[]): Promise<unknown> }): Promise<void> {
  for (const id of ['1-1', '2-1', '3-1']) await client.sendCommand(['XADD', 's', id, 'f', id]);
  await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0']);
  await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>']);
  await client.sendCommand(['XDEL', 's', '2-1']);
}

describe('version models', () => {
  it('reports each modelled version in INFO, HELLO and Lua', async () => {
    const expected: Record<string, string> = {
      '6.2': '6.2.14',
      '7.0': '7.0.15',
      '7.2': '7.2.6',
      '8.2': '8.2.2',
      '8.4': '8.4.0',
      '8.6': '8.6.3',
      '8.8': '8.8.0',
    };
    for (const version of REDIS_VERSIONS) {
      await withServer({ version }, async (server, open) => {
        const client = await open();
        expect(await client.info('server')).toContain(`redis_version:${expected[version]}`);
        expect(server.model.version).toBe(expected[version]);
        const lua = await client.sendCommand(['EVAL', 'return {tostring(redis.REDIS_VERSION), tostring(redis.REDIS_VERSION_NUM)}', '0']);
        if (version === '6.2') expect(lua).toEqual(['nil', 'nil']);
        else {
          const [major, minor, patch] = expected[version]!.split('.').map(Number) as [number, number, number];
          expect(lua).toEqual([expected[version], String(major * 65536 + minor * 256 + patch)]);
        }
      });
    }
  });

  it('Valkey: INFO names valkey, Lua pins REDIS_VERSION to 7.2.4 and sets SERVER_NAME', async () => {
    await withServer({ flavour: 'valkey' }, async (_server, open) => {
      const client = await open();
      const info = await client.info('server');
      expect(info).toContain('server_name:valkey');
      expect(info).toContain('valkey_version:9.1.2');
      expect(info).toContain('redis_version:7.2.4');
      expect(
        await client.sendCommand(['EVAL', 'return {redis.REDIS_VERSION, redis.SERVER_NAME, redis.VALKEY_VERSION, server.REDIS_VERSION_NUM}', '0']),
      ).toEqual(['7.2.4', 'valkey', '9.1.2', 0x070204]);
      expect(await attempt(client, ['XACKDEL', 's', 'g', 'IDS', '1', '1-1'])).toEqual({
        error: "ERR unknown command 'XACKDEL', with args beginning with: 's' 'g' 'IDS' '1' '1-1' ",
      });
      expect(await attempt(client, ['XADD', 's', 'IDMP', 'p', 'i', '*', 'f', 'v'])).toEqual({
        error: 'ERR Invalid stream ID specified as stream command argument',
      });
      expect(await attempt(client, ['XREADGROUP', 'GROUP', 'g', 'c', 'CLAIM', '10', 'STREAMS', 's', '>'])).toEqual({ error: 'ERR syntax error' });
    });
  });

  it('6.2: XAUTOCLAIM returns nil for deleted entries, keeps them pending, and has no third element', async () => {
    await withServer({ version: '6.2' }, async (_server, open) => {
      const client = await open();
      await deletedPending(client);
      expect(await client.sendCommand(['XAUTOCLAIM', 's', 'g', 'bob', '0', '0'])).toEqual(['0-0', [['1-1', ['f', '1-1']], null, ['3-1', ['f', '3-1']]]]);
      expect(await client.sendCommand(['XPENDING', 's', 'g'])).toEqual([3, '1-1', '3-1', [['bob', '3']]]);
      expect(await client.sendCommand(['XCLAIM', 's', 'g', 'carol', '0', '2-1'])).toEqual([]);
      expect(await attempt(client, ['EVAL_RO', 'return 1', '0'])).toMatchObject({ error: expect.stringContaining('unknown command `EVAL_RO`') });
      expect(await client.sendCommand(['EVAL', 'return type(redis.acl_check_cmd)', '0'])).toBe('nil');
    });
  });

  it('7.0+: XAUTOCLAIM lists deleted IDs and purges them from the PEL', async () => {
    await withServer({ version: '7.0' }, async (_server, open) => {
      const client = await open();
      await deletedPending(client);
      expect(await client.sendCommand(['XAUTOCLAIM', 's', 'g', 'bob', '0', '0'])).toEqual([
        '0-0',
        [
          ['1-1', ['f', '1-1']],
          ['3-1', ['f', '3-1']],
        ],
        ['2-1'],
      ]);
      expect(await client.sendCommand(['XPENDING', 's', 'g'])).toEqual([2, '1-1', '3-1', [['bob', '2']]]);
    });
  });

  it('consumer registration on empty reads: not on 7.0, yes on 7.2+ and Valkey', async () => {
    const consumersAfterEmptyRead = async (options: FakeRedisServerOptions) =>
      withServer(options, async (_server, open) => {
        const client = await open();
        await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']);
        expect(await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>'])).toBeNull();
        return ((await client.sendCommand(['XINFO', 'CONSUMERS', 's', 'g'])) as unknown[]).length;
      });
    expect(await consumersAfterEmptyRead({ version: '7.0' })).toBe(0);
    expect(await consumersAfterEmptyRead({ version: '6.2' })).toBe(0);
    expect(await consumersAfterEmptyRead({ version: '7.2' })).toBe(1);
    expect(await consumersAfterEmptyRead({ flavour: 'valkey' })).toBe(1);
  });

  it('XINFO CONSUMERS reports inactive from 7.2 and lag from 7.0', async () => {
    for (const [version, fields] of [
      ['7.0', ['name', 'pending', 'idle']],
      ['7.2', ['name', 'pending', 'idle', 'inactive']],
    ] as const) {
      await withServer({ version }, async (_server, open) => {
        const client = await open();
        await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0', 'MKSTREAM']);
        await client.sendCommand(['XGROUP', 'CREATECONSUMER', 's', 'g', 'c']);
        const [consumer] = (await client.sendCommand(['XINFO', 'CONSUMERS', 's', 'g'])) as Array<Record<string, unknown>>;
        expect(Object.keys(consumer!)).toEqual(fields);
      });
    }
    await withServer({ version: '6.2' }, async (_server, open) => {
      const client = await open();
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0', 'MKSTREAM']);
      const [group] = (await client.sendCommand(['XINFO', 'GROUPS', 's'])) as Array<Record<string, unknown>>;
      expect(Object.keys(group!)).toEqual(['name', 'consumers', 'pending', 'last-delivered-id']);
    });
  });

  it('8.2: XACKDEL and XDELEX with KEEPREF, DELREF and ACKED; unknown before 8.2', async () => {
    await withServer({ version: '8.2' }, async (_server, open) => {
      const client = await open();
      for (const id of ['1-1', '2-1', '3-1']) await client.sendCommand(['XADD', 's', id, 'f', 'v']);
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g1', '0']);
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g2', '0']);
      await client.sendCommand(['XREADGROUP', 'GROUP', 'g1', 'c', 'STREAMS', 's', '>']);
      // g2 has not read anything yet: ACKED keeps the entry and answers 2.
      expect(await client.sendCommand(['XACKDEL', 's', 'g1', 'ACKED', 'IDS', '2', '1-1', '9-9'])).toEqual([2, -1]);
      expect(await client.sendCommand(['XLEN', 's'])).toBe(3);
      expect(await client.sendCommand(['XACKDEL', 's', 'g1', 'IDS', '1', '2-1'])).toEqual([1]);
      expect(await client.sendCommand(['XLEN', 's'])).toBe(2);
      expect(await client.sendCommand(['XACKDEL', 's', 'nogroup', 'IDS', '1', '3-1'])).toEqual([-1]);
      expect(await client.sendCommand(['XACKDEL', 'nokey', 'g1', 'IDS', '1', '3-1'])).toEqual([-1]);
      await client.sendCommand(['XREADGROUP', 'GROUP', 'g2', 'c', 'STREAMS', 's', '>']);
      expect(await client.sendCommand(['XDELEX', 's', 'DELREF', 'IDS', '2', '3-1', '7-7'])).toEqual([1, -1]);
      expect(await client.sendCommand(['XPENDING', 's', 'g2'])).toEqual([1, '1-1', '1-1', [['c', '1']]]);
      expect(await client.sendCommand(['XDELEX', 's', 'ACKED', 'IDS', '1', '1-1'])).toEqual([2]);
      expect(await attempt(client, ['XACKDEL', 's', 'g1', 'IDS', '2', '1-1'])).toEqual({
        error: 'ERR The `numids` parameter must match the number of arguments',
      });
    });
    await withServer({ version: '8.0' as never }, async () => undefined).catch((error: Error) => expect(error).toBeInstanceOf(RangeError));
    await withServer({ version: '7.2' }, async (_server, open) => {
      const client = await open();
      expect(await attempt(client, ['XACKDEL', 's', 'g', 'IDS', '1', '1-1'])).toMatchObject({ error: expect.stringMatching(/^ERR unknown command 'XACKDEL'/) });
      expect(await attempt(client, ['XDELEX', 's', 'IDS', '1', '1-1'])).toMatchObject({ error: expect.stringMatching(/^ERR unknown command 'XDELEX'/) });
    });
  });

  it('queue-ack uses XACKDEL on 8.2 and XACK + XDEL on 7.0 and Valkey', async () => {
    for (const [options, expected] of [
      [{ version: '8.2' }, ['XACKDEL']],
      [{ version: '7.0' }, ['XACK', 'XDEL']],
      [{ flavour: 'valkey' }, ['XACK', 'XDEL']],
    ] as const) {
      await withServer(options, async (server, open) => {
        const client = await open();
        const target = commandTarget(client);
        const keys = ['{q}:s', '{q}:d', '{q}:dl'];
        await runScript(target, scripts.queueSend, ['{q}:s', '{q}:dedup'], ['payload', '60000']);
        const reply = (await runScript(target, scripts.queueReceive, keys, ['60000', '10', '5', 'TTTTTTTTTTTTTTTT', 'respire'])) as unknown[];
        const id = String(reply[1]);
        const receipt = '1.TTTTTTTTTTTTTTTT.1'; // <count>.<token>.<position>
        server.commandLog.clear();
        expect(await runScript(target, scripts.queueAck, keys.slice(0, 2), ['respire', id, receipt])).toEqual([1]);
        const used = server.commandLog.names('script').filter((name) => name.startsWith('XACK') || name === 'XDEL');
        expect(used).toEqual(expected);
        expect(await client.xLen('{q}:s')).toBe(0);
      });
    }
  });

  it('8.4: XREADGROUP CLAIM returns idle pending entries first with idle time and delivery count', async () => {
    await withServer({ version: '8.4', clock: { mode: 'virtual', startMs: 1_000_000 } }, async (server, open) => {
      const client = await open();
      await client.sendCommand(['XADD', 's', '1-1', 'f', 'a']);
      await client.sendCommand(['XADD', 's', '2-1', 'f', 'b']);
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0']);
      await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'alice', 'COUNT', '1', 'STREAMS', 's', '>']);
      server.clock.advance(5000);
      const reply = await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'bob', 'CLAIM', '1000', 'STREAMS', 's', '>']);
      expect(reply).toEqual({
        s: [
          ['1-1', ['f', 'a'], 5000, 1],
          ['2-1', ['f', 'b'], 0, 0],
        ],
      });
      expect(await client.sendCommand(['XPENDING', 's', 'g', '-', '+', '10'])).toEqual([
        ['1-1', 'bob', 0, 2],
        ['2-1', 'bob', 0, 1],
      ]);
    });
    await withServer({ version: '8.2' }, async (_server, open) => {
      const client = await open();
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0', 'MKSTREAM']);
      expect(await attempt(client, ['XREADGROUP', 'GROUP', 'g', 'c', 'CLAIM', '10', 'STREAMS', 's', '>'])).toEqual({ error: 'ERR syntax error' });
    });
  });

  it('8.6: XADD IDMP returns the original ID for a repeat within the window, even after deletion', async () => {
    await withServer({ version: '8.6', clock: { mode: 'virtual' } }, async (server, open) => {
      const client = await open();
      const first = await client.sendCommand(['XADD', 's', 'IDMP', 'producer', 'msg-1', '*', 'f', 'v']);
      server.clock.advance(1);
      expect(await client.sendCommand(['XADD', 's', 'IDMP', 'producer', 'msg-1', '*', 'f', 'other'])).toBe(first);
      await client.sendCommand(['XDEL', 's', String(first)]);
      expect(await client.sendCommand(['XADD', 's', 'IDMP', 'producer', 'msg-1', '*', 'f', 'v'])).toBe(first);
      server.clock.advance(100_001);
      expect(await client.sendCommand(['XADD', 's', 'IDMP', 'producer', 'msg-1', '*', 'f', 'v'])).not.toBe(first);
      const auto = await client.sendCommand(['XADD', 's', 'IDMPAUTO', 'p2', '*', 'f', 'same']);
      expect(await client.sendCommand(['XADD', 's', 'IDMPAUTO', 'p2', '*', 'f', 'same'])).toBe(auto);
      expect(await client.sendCommand(['XCFGSET', 's', 'IDMP-DURATION', '5'])).toBe('OK');
      expect(await client.sendCommand(['XADD', 's', 'IDMPAUTO', 'p2', '*', 'f', 'same'])).not.toBe(auto);
    });
    await withServer({ version: '8.4' }, async (_server, open) => {
      const client = await open();
      expect(await attempt(client, ['XADD', 's', 'IDMP', 'p', 'i', '*', 'f', 'v'])).toEqual({
        error: 'ERR Invalid stream ID specified as stream command argument',
      });
    });
  });

  it('8.8: XNACK leaves the entry pending and unowned, claimable at once, with the delivery count per mode', async () => {
    await withServer({ version: '8.8', clock: { mode: 'virtual' } }, async (_server, open) => {
      const client = await open();
      for (const id of ['1-1', '2-1', '3-1']) await client.sendCommand(['XADD', 's', id, 'f', id]);
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0']);
      await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'alice', 'STREAMS', 's', '>']);
      expect(await client.sendCommand(['XNACK', 's', 'g', 'SILENT', 'IDS', '1', '2-1'])).toBe(1);
      expect(await client.sendCommand(['XNACK', 's', 'g', 'FAIL', 'IDS', '1', '3-1', 'RETRYCOUNT', '7'])).toBe(1);
      expect(await client.sendCommand(['XPENDING', 's', 'g', '-', '+', '10'])).toEqual([
        ['1-1', 'alice', 0, 1],
        ['2-1', '', -1, 0],
        ['3-1', '', -1, 7],
      ]);
      // Unowned entries are claimable at once (min-idle ignored) and come first.
      expect(await client.sendCommand(['XAUTOCLAIM', 's', 'g', 'bob', '3600000', '0', 'JUSTID'])).toEqual(['0-0', ['2-1', '3-1'], []]);
    });
    await withServer({ version: '8.6' }, async (_server, open) => {
      const client = await open();
      expect(await attempt(client, ['XNACK', 's', 'g', 'FAIL', 'IDS', '1', '1-1'])).toMatchObject({
        error: expect.stringMatching(/^ERR unknown command 'XNACK'/),
      });
    });
  });

  it('6.2 and 7.0 write doubles with %.17g, 7.2+ with the shortest form', async () => {
    for (const [version, expected] of [
      ['7.0', '1.1000000000000001'],
      ['7.2', '1.1'],
      ['6.2', '1.1000000000000001'],
    ] as const) {
      await withServer({ version }, async (_server, open) => {
        const client = await open();
        await client.zAdd('z', { score: 1.1, value: 'm' });
        expect(await client.sendCommand(['EVAL', "return redis.call('ZSCORE', 'z', 'm')", '0'])).toBe(expected);
      });
    }
  });

  it('unknown-command errors use backticks on 6.2 and quotes on 7.0+', async () => {
    await withServer({ version: '6.2' }, async (_server, open) => {
      expect(await attempt(await open(), ['FOO', 'a'])).toEqual({ error: 'ERR unknown command `FOO`, with args beginning with: `a`, ' });
    });
    await withServer({ version: '7.0' }, async (_server, open) => {
      expect(await attempt(await open(), ['FOO', 'a'])).toEqual({ error: "ERR unknown command 'FOO', with args beginning with: 'a' " });
    });
  });
});
