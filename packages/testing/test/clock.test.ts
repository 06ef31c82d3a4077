// The fake server's virtual clock.
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../src/index.js';
import { withServer } from './helpers.js';

const START = 1_700_000_000_000;

describe('virtual clock', () => {
  it('TIME follows the clock, to the microsecond', async () => {
    await withServer({ clock: { mode: 'virtual', startMs: START } }, async (server, open) => {
      const client = await open();
      expect(await client.sendCommand(['TIME'])).toEqual([String(START / 1000), '0']);
      server.clock.advance(1500.25);
      expect(await client.sendCommand(['TIME'])).toEqual([String(START / 1000 + 1), '500250']);
    });
  });

  it('expiries (SET PX, PEXPIRE) and TTL follow the clock, with no sleep', async () => {
    await withServer({ clock: { mode: 'virtual', startMs: START } }, async (server, open) => {
      const client = await open();
      await client.set('k', 'v', { PX: 1000 });
      await client.hSet('h', 'f', 'v');
      await client.pExpire('h', 5000);
      server.clock.advance(999);
      expect(await client.get('k')).toBe('v');
      expect(await client.pTTL('k')).toBe(1);
      server.clock.advance(1);
      expect(await client.get('k')).toBeNull();
      expect(await client.ttl('h')).toBe(4);
      server.clock.advance(4000);
      expect(await client.exists('h')).toBe(0);
    });
  });

  it('idle times in XPENDING, XINFO CONSUMERS and XAUTOCLAIM follow the clock', async () => {
    await withServer({ clock: { mode: 'virtual', startMs: START } }, async (server, open) => {
      const client = await open();
      await client.sendCommand(['XADD', 's', '*', 'f', 'v']);
      await client.sendCommand(['XGROUP', 'CREATE', 's', 'g', '0']);
      await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'STREAMS', 's', '>']);
      server.clock.advance(30_000);
      const [[id, consumer, idle, count]] = (await client.sendCommand(['XPENDING', 's', 'g', '-', '+', '1'])) as [[string, string, number, number]];
      expect([id, consumer, idle, count]).toEqual([`${START}-0`, 'c', 30_000, 1]);
      const [info] = (await client.sendCommand(['XINFO', 'CONSUMERS', 's', 'g'])) as Array<Record<string, unknown>>;
      expect(info).toMatchObject({ name: 'c', idle: 30_000 });
      expect(await client.sendCommand(['XAUTOCLAIM', 's', 'g', 'd', '30001', '0', 'JUSTID'])).toEqual(['0-0', [], []]);
      expect(await client.sendCommand(['XAUTOCLAIM', 's', 'g', 'd', '30000', '0', 'JUSTID'])).toEqual(['0-0', [`${START}-0`], []]);
      expect(await client.sendCommand(['XPENDING', 's', 'g', 'IDLE', '1', '-', '+', '10'])).toEqual([]);
    });
  });

  it('stream IDs from * use the clock', async () => {
    await withServer({ clock: { mode: 'virtual', startMs: START } }, async (server, open) => {
      const client = await open();
      expect(await client.sendCommand(['XADD', 's', '*', 'f', 'v'])).toBe(`${START}-0`);
      expect(await client.sendCommand(['XADD', 's', '*', 'f', 'v'])).toBe(`${START}-1`);
      server.clock.advance(5);
      expect(await client.sendCommand(['XADD', 's', '*', 'f', 'v'])).toBe(`${START + 5}-0`);
    });
  });

  it('a blocking read times out when virtual time passes, not wall time', async () => {
    await withServer({ clock: { mode: 'virtual', startMs: START } }, async (server, open) => {
      const reader = await open();
      await reader.sendCommand(['XGROUP', 'CREATE', 's', 'g', '$', 'MKSTREAM']);
      let settled = false;
      const read = reader.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'BLOCK', '5000', 'STREAMS', 's', '>']).finally(() => {
        settled = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      server.clock.advance(4999);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(settled).toBe(false);
      server.clock.advance(1);
      expect(await read).toBeNull();
    });
  });

  it('a real clock can be advanced too (an offset on the wall clock)', () => {
    const clock = new FakeClock();
    const before = clock.nowMs();
    clock.advance(60_000);
    expect(clock.nowMs() - before).toBeGreaterThanOrEqual(60_000);
    expect(() => clock.set(0)).toThrow(/virtual clock/);
    expect(() => clock.advance(-1)).toThrow(RangeError);
  });

  it('a visibility timeout elapses on the virtual clock for the queue scripts', async () => {
    const { commandTarget, runScript, scripts } = await import('@respire/core-scripts/internal');
    await withServer({ clock: { mode: 'virtual', startMs: START } }, async (server, open) => {
      const client = await open();
      const target = commandTarget(client);
      const keys = ['{q}:s', '{q}:d', '{q}:dl'];
      await runScript(target, scripts.queueSend, ['{q}:s', '{q}:x'], ['p', '60000']);
      const receive = () => runScript(target, scripts.queueReceive, keys, ['30000', '10', '5', 'TTTTTTTTTTTTTTTT', 'respire']) as Promise<unknown[]>;
      expect((await receive()).length).toBe(5);
      server.clock.advance(29_999);
      expect(await receive()).toEqual([0]);
      server.clock.advance(1);
      expect(await receive()).toEqual([0, `${START}-0`, 'p', 2, '']);
    });
  });
});
