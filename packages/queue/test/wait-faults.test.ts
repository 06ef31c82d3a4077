// The waiting receive's and consume()'s blocking connection under network faults (README "Waiting receive", "Consuming"):
// a frozen socket, a reset, refused or slow connects, stop() during a reconnect. Each call ends within its stated
// deadline, nothing is lost, and every connection it opened is closed, on the server (CLIENT LIST) and at the proxy.
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, startRedisServer, startTcpProxy, uniqueName, type RedisServerHandle, type TcpProxy } from '@respire/harness';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, isRespireError, utf8Codec, type QueueConsumer, type QueueConsumerLogger } from '@respire/queue';

type Client = ReturnType<typeof createClient>;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quietLogger: QueueConsumerLogger = { warn() {}, error() {} };
/** A leaked connection shows within milliseconds of the event that leaks it (node-redis reconnects at once). */
const SETTLE_MS = 300;

/** A private server: CLIENT LIST shows only this file's connections. */
let server: RedisServerHandle;
let admin: Client;
beforeAll(async () => {
  server = await startRedisServer();
  admin = createClient({ url: server.url });
  admin.on('error', () => {});
  await admin.connect();
});
afterAll(async () => {
  admin?.destroy();
  await server?.close();
});

/** Per test: a proxy in front of the server, the caller's client through it (the proxy's first connection), and whatever the test started. */
let proxy: TcpProxy;
let caller: Client;
let callerId: string;
const consumers: QueueConsumer[] = [];
beforeEach(async () => {
  proxy = await startTcpProxy(server.port);
  caller = createClient({ url: proxy.url });
  caller.on('error', () => {});
  await caller.connect();
  callerId = String(await caller.sendCommand(['CLIENT', 'ID']));
});
afterEach(async () => {
  await Promise.all(consumers.splice(0).map((consumer) => consumer.stop()));
  caller.destroy();
  await proxy.close();
});

/** Connections on the server other than the admin's and the caller's: their IDs and last commands. */
async function others(): Promise<{ id: string; cmd: string }[]> {
  const ids = [String(await admin.sendCommand(['CLIENT', 'ID'])), callerId];
  return String(await admin.sendCommand(['CLIENT', 'LIST']))
    .split('\n')
    .filter((line) => line.trim() !== '' && !ids.includes(/(?:^| )id=(\d+)/.exec(line)![1]!))
    .map((line) => ({ id: /(?:^| )id=(\d+)/.exec(line)![1]!, cmd: /(?:^| )cmd=(\S*)/.exec(line)![1]! }));
}

/** Waits until a connection other than the admin's and the caller's is blocked in XREAD. */
async function blockedReader(): Promise<void> {
  await eventually(async () => (await others()).some((c) => c.cmd === 'xread'), 5000, 10);
}

/** Only the caller's connection is left, on the server and at the proxy. */
async function expectOnlyTheCaller(): Promise<void> {
  await pause(SETTLE_MS);
  expect({ server: await others(), proxy: proxy.connections }).toEqual({ server: [], proxy: 1 });
}

/** A queue on the caller's client, and one for the same queue on the admin's connection (a sender that bypasses the proxy). */
function queues() {
  const name = uniqueName();
  return {
    queue: new ReliableQueue(caller as never, name, { codec: utf8Codec }),
    sender: new ReliableQueue(admin as never, name, { codec: utf8Codec }),
    keys: queueKeys(name, ''),
  };
}

describe('the waiting receive under connection faults', () => {
  it('a frozen blocking connection is abandoned 2 s past its block time and replaced; a message sent meanwhile is returned', async () => {
    const { queue, sender } = queues();
    const started = performance.now();
    const waiting = queue.receive(30_000, { waitMs: 1500 });
    await blockedReader();
    proxy.freeze(1); // the block's reply never arrives
    const id = await sender.send('while frozen');
    const batch = await waiting;
    const elapsed = performance.now() - started;
    expect(batch.map((m) => [m.id, m.payload, m.deliveryCount])).toEqual([[id, 'while frozen', 1]]);
    // BLOCK 1500 ms + 2000 ms without a reply, then one receive: not sooner, and not much later.
    expect(elapsed).toBeGreaterThanOrEqual(3400);
    expect(elapsed).toBeLessThan(5500);
    await expectOnlyTheCaller();
  });

  it('a reset (RST) of the blocking connection mid-block: a new connection takes over the wait, which ends at waitMs', async () => {
    const { queue } = queues();
    const started = performance.now();
    const waiting = queue.receive(30_000, { waitMs: 1500 });
    await blockedReader();
    expect(proxy.reset(1)).toBe(1);
    expect(await waiting).toEqual([]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(1490);
    expect(elapsed).toBeLessThan(2800);
    expect(proxy.accepted).toBe(3); // the caller, the reset connection, its replacement
    await expectOnlyTheCaller();
  });

  it('refused connections: the third failure in a row is thrown at once as a transport error that leased nothing', async () => {
    const { queue, keys } = queues();
    await queue.receive(1000); // the group exists: the state below is the queue's whole state
    await proxy.stopListening();
    const started = performance.now();
    const error = await queue.receive(30_000, { waitMs: 5000 }).catch((e: unknown) => e);
    expect(isRespireError(error, 'TRANSPORT_FAILED')).toBe(true);
    expect(error).toMatchObject({ outcomeUnknown: false });
    expect(performance.now() - started).toBeLessThan(2000);
    // The caller's client still works, and a message sent now is there for the next receive.
    const id = await queue.send('after');
    expect(Number(await admin.sendCommand(['ZCARD', keys.deadlines]))).toBe(0);
    expect((await queue.receive(30_000)).map((m) => m.id)).toEqual([id]);
    await expectOnlyTheCaller();
  });

  it('a slow connect does not stretch the wait: the call still ends at waitMs, and the connection is closed once its connect finishes', async () => {
    const { queue } = queues();
    await queue.receive(1000); // the scripts are loaded: only the blocking connection is slow
    proxy.delayNewConnections(1500);
    const started = performance.now();
    expect(await queue.receive(30_000, { waitMs: 500 })).toEqual([]);
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(490);
    expect(elapsed).toBeLessThan(1300);
    await pause(1500); // the connect the call gave up finishes after it returned
    await expectOnlyTheCaller();
  });

  it('a slow connect still catches a message sent while it connects', async () => {
    const { queue, sender } = queues();
    await queue.receive(1000);
    proxy.delayNewConnections(800);
    const started = performance.now();
    const waiting = queue.receive(30_000, { waitMs: 5000 });
    await pause(200);
    const id = await sender.send('during the connect');
    expect((await waiting).map((m) => m.id)).toEqual([id]);
    expect(performance.now() - started).toBeLessThan(2500);
    await pause(800);
    await expectOnlyTheCaller();
  });
});

describe('consume() under connection faults', () => {
  it('stop() while its blocking connection is frozen resolves at once and leaves only the caller', async () => {
    const { queue, sender } = queues();
    const handled: string[] = [];
    const consumer = queue.consume((message) => void handled.push(message.payload), { logger: quietLogger });
    consumers.push(consumer);
    await blockedReader();
    proxy.freeze(1);
    await sender.send('unseen while frozen');
    const started = performance.now();
    await consumer.stop();
    expect(performance.now() - started).toBeLessThan(1000);
    await expectOnlyTheCaller();
    // Nothing was lost: the message waits for the next receiver.
    expect(handled).toEqual([]);
    expect((await queue.receive(30_000)).map((m) => m.payload)).toEqual(['unseen while frozen']);
  });

  it('goes on after a reset of its blocking connection: a message sent after it is handled', async () => {
    const { queue, sender } = queues();
    const handled: string[] = [];
    const consumer = queue.consume((message) => void handled.push(message.payload), { logger: quietLogger });
    consumers.push(consumer);
    await blockedReader();
    expect(proxy.reset(1)).toBe(1);
    await sender.send('after the reset');
    await eventually(() => handled.length === 1, 5000, 10);
    expect(handled).toEqual(['after the reset']);
    await consumer.stop();
    await expectOnlyTheCaller();
  });

  it('stop() while the blocking connection is being reconnected resolves at once; the slow connect is closed when it finishes', async () => {
    const { queue } = queues();
    const consumer = queue.consume(() => undefined, { logger: quietLogger });
    consumers.push(consumer);
    await blockedReader();
    proxy.delayNewConnections(1500); // the replacement's handshake hangs
    const blocked = (await others()).find((c) => c.cmd === 'xread')!;
    expect(Number(await admin.sendCommand(['CLIENT', 'KILL', 'ID', blocked.id]))).toBe(1);
    await eventually(() => proxy.accepted >= 3, 5000, 5); // the replacement's connect is under way
    const started = performance.now();
    await consumer.stop();
    expect(performance.now() - started).toBeLessThan(1000);
    await pause(1500); // the slow connect finishes after stop() resolved
    await expectOnlyTheCaller();
  });

  it('stop() while its receive is held by CLIENT PAUSE WRITE resolves after about a second; the batch that receive leases later is released, not lost', async () => {
    const { queue, sender } = queues();
    const id = await sender.send('x');
    const leasedAt = performance.now();
    expect(await sender.receive(1500)).toHaveLength(1); // its lease ends the consumer's first block in 1.5 s
    const handled: string[] = [];
    const consumer = queue.consume((message) => void handled.push(message.id), { logger: quietLogger });
    consumers.push(consumer);
    await blockedReader();
    await admin.sendCommand(['CLIENT', 'PAUSE', '10000', 'WRITE']);
    try {
      // The block ends at the lease's deadline; the receive script after it waits for the pause.
      await pause(leasedAt + 1500 + 400 - performance.now());
      const started = performance.now();
      await consumer.stop();
      expect(performance.now() - started).toBeLessThan(1500);
    } finally {
      await admin.sendCommand(['CLIENT', 'UNPAUSE']);
    }
    // The receive runs once the pause ends and leases the message (delivery 2); the stopped consumer releases it at once.
    expect(handled).toEqual([]);
    await eventually(async () => (await sender.receive(30_000)).some((m) => m.id === id && m.deliveryCount === 3), 5000, 20);
    await expectOnlyTheCaller();
  });
});
