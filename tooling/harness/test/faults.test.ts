// Tests of the fault machinery model-based suites use: RESP framing, the proxy's lost requests and replies, server restarts with AOF, shrinking, the server clock.
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerClock, shrinkFailing, startRedisServer, startTcpProxy, timeReplyMs, type RedisServerHandle } from '../src/index.js';
import { respRequestAt, respValueEnd } from '../src/resp.js';

const b = (text: string) => Buffer.from(text, 'latin1');

describe('RESP framing', () => {
  it.each([
    ['+OK\r\n', 5],
    ['-ERR no\r\n', 9],
    [':12\r\n', 5],
    ['$3\r\nabc\r\n', 9],
    ['$-1\r\n', 5],
    ['*-1\r\n', 5],
    ['*2\r\n$1\r\na\r\n:1\r\n', 15],
    ['%1\r\n+k\r\n*1\r\n_\r\n', 15],
    ['|1\r\n+a\r\n+b\r\n:7\r\n', 16],
    ['>2\r\n+x\r\n+y\r\n', 12],
    ['=7\r\ntxt:abc\r\n', 13],
    [',1.5\r\n', 6],
  ])('finds where %j ends', (text, end) => {
    expect(respValueEnd(b(text), 0)).toBe(end);
    // Every proper prefix is incomplete.
    for (let cut = 0; cut < end; cut++) expect(respValueEnd(b(text).subarray(0, cut), 0)).toBe(-1);
  });

  it('keeps binary bulk strings whole, CRLF bytes inside included, and reads a request’s arguments', () => {
    const payload = Buffer.from([0x0d, 0x0a, 0x00, 0xff, 0x2a]);
    const request = Buffer.concat([b('*3\r\n$4\r\nXADD\r\n$1\r\nk\r\n$5\r\n'), payload, b('\r\n'), b('*1\r\n$4\r\nPING\r\n')]);
    const first = respRequestAt(request, 0)!;
    expect(first.args.map((a) => a.toString('latin1'))).toEqual(['XADD', 'k', payload.toString('latin1')]);
    expect(respRequestAt(request, first.end)!.args.map(String)).toEqual(['PING']);
    expect(respRequestAt(request.subarray(0, first.end - 1), 0)).toBeUndefined();
    expect(respRequestAt(b('PING hello\r\n'), 0)!.args.map(String)).toEqual(['PING', 'hello']);
    expect(() => respValueEnd(b('?x\r\n'), 0)).toThrow(/not RESP/);
  });
});

describe('lost requests and replies through the proxy, and restarts', () => {
  let server: RedisServerHandle;
  beforeAll(async () => {
    server = await startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always'] });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
  });

  async function connect(url: string, resp: 2 | 3) {
    const client = createClient({ url, RESP: resp });
    client.on('error', () => {});
    await client.connect();
    return client;
  }

  it.each([2, 3] as const)(
    'RESP%i: a dropped request never runs, a dropped reply ran; both reset the connection, and the commands around them pass',
    async (resp) => {
      const proxy = await startTcpProxy(server.port, { resp: true });
      const client = await connect(proxy.url, resp);
      const direct = await connect(server.url, 3);
      try {
        const key = `proxy-${resp}-${Date.now()}`;
        const isIncr = (args: readonly Buffer[]) => args[0]?.toString().toUpperCase() === 'INCR';
        // A request lost: the client's INCR fails, the counter is untouched; a PING written before it is answered.
        const requestLost = proxy.dropNext({ direction: 'request', match: isIncr }, 5000);
        const [ping, incr] = await Promise.allSettled([client.ping(), client.incr(key)]);
        expect(await requestLost).toMatchObject({ outcome: 'dropped', command: `INCR ${key}` });
        expect(ping).toEqual({ status: 'fulfilled', value: 'PONG' });
        expect(incr.status).toBe('rejected');
        expect(await direct.get(key)).toBeNull();
        // A reply lost: the client's INCR fails, the counter moved; the next commands work after the reconnect.
        const replyLost = proxy.dropNext({ direction: 'reply', match: isIncr }, 5000);
        const lost = await client.incr(key).then(
          () => 'answered',
          (e: Error) => e.constructor.name,
        );
        expect(await replyLost).toMatchObject({ outcome: 'dropped' });
        expect(lost).not.toBe('answered');
        expect(await direct.get(key)).toBe('1');
        expect(await client.incr(key)).toBe(2);
        expect(proxy.accepted).toBe(3);
        // Nothing matches: the loss is withdrawn after its timeout and traffic is untouched.
        expect(await proxy.dropNext({ direction: 'reply', match: () => false }, 50)).toEqual({ outcome: 'timeout' });
        expect(await client.get(key)).toBe('2');
      } finally {
        client.destroy();
        direct.destroy();
        await proxy.close();
      }
    },
    20_000,
  );

  it('refuses a loss without RESP mode or while another is armed', async () => {
    const raw = await startTcpProxy(server.port);
    const resp = await startTcpProxy(server.port, { resp: true });
    try {
      expect(() => raw.dropNext({ direction: 'request', match: () => true }, 10)).toThrow(/resp: true/);
      const first = resp.dropNext({ direction: 'request', match: () => false }, 50);
      expect(() => resp.dropNext({ direction: 'request', match: () => true }, 10)).toThrow(/still armed/);
      expect(await first).toEqual({ outcome: 'timeout' });
    } finally {
      await raw.close();
      await resp.close();
    }
  });

  it('restart: SIGKILL and a new process on the same port that reloads the AOF; a client reconnects by itself', async () => {
    const client = await connect(server.url, 3);
    try {
      await client.set('kept', 'yes');
      await client.xAdd('stream', '*', { f: 'v' });
      const pid = server.pid;
      await server.restart();
      expect(server.pid).not.toBe(pid);
      const check = await connect(server.url, 3);
      expect({ kept: await check.get('kept'), length: await check.xLen('stream') }).toEqual({ kept: 'yes', length: 1 });
      check.destroy();
      // The old connection died with the process; node-redis reconnects and the client works again.
      let answer: string | undefined;
      for (let i = 0; i < 100 && answer === undefined; i++) {
        answer = (await client.get('kept').catch(() => undefined)) ?? undefined;
        if (answer === undefined) await new Promise((r) => setTimeout(r, 50));
      }
      expect(answer).toBe('yes');
    } finally {
      client.destroy();
    }
  }, 30_000);
});

describe('shrinkFailing', () => {
  it('keeps the fewest items that still fail, in order', () => {
    const items = Array.from({ length: 40 }, (_, i) => i);
    const fails = (list: readonly number[]) => list.includes(7) && list.includes(31) && list.includes(12);
    expect(shrinkFailing(items, fails)).toEqual([7, 12, 31]);
    expect(shrinkFailing([5], () => true)).toEqual([5]);
    expect(() => shrinkFailing(items, () => false)).toThrow(/does not fail/);
  });

  it('is 1-minimal for a check that depends on order and count', () => {
    // Fails when at least two 'a' come before a 'b'.
    const items = 'xaxxbaxbaxxbxa'.split('');
    const fails = (list: readonly string[]) => {
      let as = 0;
      for (const c of list) {
        if (c === 'a') as++;
        if (c === 'b' && as >= 2) return true;
      }
      return false;
    };
    const shrunk = shrinkFailing(items, fails);
    expect(shrunk.join('')).toBe('aab');
    for (let i = 0; i < shrunk.length; i++) expect(fails(shrunk.filter((_, j) => j !== i))).toBe(false);
  });
});

describe('ServerClock', () => {
  it('reads TIME replies to the microsecond and keeps the latest reading as its floor', () => {
    expect(timeReplyMs(['1700000000', '123456'])).toBe(1_700_000_000_123.456);
    expect(() => timeReplyMs('nope')).toThrow(/not a TIME reply/);
    const clock = new ServerClock();
    expect(clock.floorMs).toBe(0);
    clock.observe(2000);
    clock.observe(1500); // an older reading (sent earlier, answered later) never lowers the floor
    expect(clock.floorMs).toBe(2000);
    expect(clock.estimateMs()).toBeGreaterThanOrEqual(2000);
  });
});
