// queue.consume() (README "Consuming"): concurrency, ACK and NACK by result, lease extension, stop() under load, hostile user code.
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hostileValues, startRedisServer, type RedisServerHandle } from '@respire/harness';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, isRespireError, nackAfter, utf8Codec, type QueueConsumer, type QueueConsumerLogger, type ReceivedMessage } from '@respire/queue';
import { describeOnTargets, eventually, queueFixture, targets, uniqueName } from './support.js';

/** A logger that keeps every line. */
function recordingLogger(): QueueConsumerLogger & { lines: { level: string; message: string; context: unknown }[] } {
  const lines: { level: string; message: string; context: unknown }[] = [];
  return {
    lines,
    warn: (message, context) => void lines.push({ level: 'warn', message, context }),
    error: (message, context) => void lines.push({ level: 'error', message, context }),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Consumers a test started, stopped after it whatever happened. */
const started: QueueConsumer[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((consumer) => consumer.stop()));
});
function track(consumer: QueueConsumer): QueueConsumer {
  started.push(consumer);
  return consumer;
}

describeOnTargets('ReliableQueue.consume', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  it('ACKs each message its handler resolves, with at most `concurrency` handlers in flight', async () => {
    const queue = queueOf();
    for (let i = 0; i < 12; i++) await queue.send(`m${i}`);
    let running = 0;
    let most = 0;
    const seen: string[] = [];
    const consumer = track(
      queue.consume(
        async (message) => {
          running++;
          most = Math.max(most, running);
          await pause(40); // the work
          seen.push(message.payload);
          running--;
        },
        { concurrency: 3, logger: recordingLogger() },
      ),
    );
    await eventually(() => seen.length === 12, 10_000, 10);
    expect(most).toBe(3);
    expect(new Set(seen).size).toBe(12);
    await consumer.stop();
    const keys = queueKeys(queue.name, '');
    await eventually(async () => (await connection().raw(keys.stream, ['XLEN', keys.stream])) === 0, 5000, 10);
    expect(await connection().raw(keys.deadlines, ['EXISTS', keys.deadlines])).toBe(0);
  });

  it('wakes for a message sent after it started waiting', async () => {
    const queue = queueOf();
    const got: string[] = [];
    track(queue.consume((message) => void got.push(message.payload), { logger: recordingLogger() }));
    await pause(300);
    const sentAt = performance.now();
    await queue.send('late');
    await eventually(() => got.length === 1, 5000, 5);
    expect(performance.now() - sentAt).toBeLessThan(2000);
  });

  it('NACKs a throw with the retry backoff and logs only the exception type', async () => {
    const queue = queueOf();
    class PaymentDeclined extends Error {}
    const logger = recordingLogger();
    const deliveries: [number, number][] = [];
    await queue.send('card 4242');
    track(
      queue.consume(
        (message) => {
          deliveries.push([message.deliveryCount, performance.now()]);
          if (message.deliveryCount === 1) throw new PaymentDeclined('secret card 4242 declined');
        },
        { retryBackoff: { initialDelayMs: 400 }, logger },
      ),
    );
    await eventually(() => deliveries.length === 2, 10_000, 10);
    expect(deliveries.map(([count]) => count)).toEqual([1, 2]);
    expect(deliveries[1]![1] - deliveries[0]![1]).toBeGreaterThanOrEqual(300);
    const warned = logger.lines.find((line) => line.message.includes('threw'));
    expect(warned?.context).toMatchObject({ errorType: 'PaymentDeclined', deliveryCount: 1, delayMs: 400 });
    expect(JSON.stringify(logger.lines)).not.toContain('4242');
  });

  it('retries a handler that throws while the consumer is blocked after its backoff, not after the block', async () => {
    const queue = queueOf();
    const deliveries: [number, number][] = [];
    let thrownAt = 0;
    await queue.send('flaky');
    track(
      queue.consume(
        async (message) => {
          deliveries.push([message.deliveryCount, performance.now()]);
          if (message.deliveryCount > 1) return;
          // By now the consumer waits for more (nothing else is receivable): the NACK must wake it.
          await pause(400);
          thrownAt = performance.now();
          throw new Error('first delivery fails');
        },
        { retryBackoff: { initialDelayMs: 300 }, logger: recordingLogger() },
      ),
    );
    // Without the wake the retry would wait for the consumer's block (20 s) to end.
    await eventually(() => deliveries.length === 2, 10_000, 10);
    expect(deliveries.map(([count]) => count)).toEqual([1, 2]);
    const retriedAfter = deliveries[1]![1] - thrownAt;
    expect(retriedAfter).toBeGreaterThanOrEqual(250);
    expect(retriedAfter).toBeLessThan(3000);
  });

  it('NACKs with the delay a handler returns with nackAfter', async () => {
    const queue = queueOf();
    const deliveries: number[] = [];
    await queue.send('later');
    track(
      queue.consume(
        (message) => {
          deliveries.push(message.deliveryCount);
          return message.deliveryCount === 1 ? nackAfter(100) : undefined;
        },
        { logger: recordingLogger() },
      ),
    );
    await eventually(() => deliveries.length === 2, 10_000, 10);
    expect(deliveries).toEqual([1, 2]);
    expect(() => nackAfter(-1)).toThrow(/delayMs/);
  });

  it('extends the lease of a slow handler: its message is not redelivered meanwhile', async () => {
    const queue = queueOf();
    const id = await queue.send('slow');
    let finish!: () => void;
    const gate = new Promise<void>((resolve) => (finish = resolve));
    const deliveries: number[] = [];
    track(
      queue.consume(
        async (message) => {
          deliveries.push(message.deliveryCount);
          await gate;
        },
        { visibilityTimeoutMs: 600, logger: recordingLogger() },
      ),
    );
    await eventually(() => deliveries.length === 1, 5000, 5);
    // Three visibility timeouts later, another receiver still finds nothing.
    expect(await queue.receive(30_000, { waitMs: 1800 })).toEqual([]);
    finish();
    const keys = queueKeys(queue.name, '');
    await eventually(async () => (await connection().raw(keys.stream, ['XLEN', keys.stream])) === 0, 5000, 10);
    expect(deliveries).toEqual([1]);
    expect(id).toMatch(/-/);
  });

  it('aborts the handler when its lease is lost and does not acknowledge its result', async () => {
    const queue = queueOf();
    await queue.send('taken');
    const logger = recordingLogger();
    let delivered: ReceivedMessage<string> | undefined;
    let abortedAt: number | undefined;
    track(
      queue.consume(
        async (message, { signal }) => {
          delivered = message;
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          abortedAt = performance.now();
          return 'done';
        },
        { visibilityTimeoutMs: 600, logger },
      ),
    );
    await eventually(() => delivered !== undefined, 5000, 5);
    // The receipt is completed elsewhere: the next extension finds it stale.
    expect(await queue.ack(delivered!)).toBe(true);
    const ackedAt = performance.now();
    await eventually(() => abortedAt !== undefined, 5000, 5);
    expect(abortedAt! - ackedAt).toBeLessThan(1500);
    await eventually(() => logger.lines.some((line) => line.message.includes('not acknowledged')), 5000, 5);
    expect(logger.lines.some((line) => line.message.includes('the ack'))).toBe(false);
  });

  it('stop() under load releases the messages it will not finish at once and resolves', async () => {
    const queue = queueOf();
    for (let i = 0; i < 20; i++) await queue.send(`m${i}`);
    const handled: string[] = [];
    const consumer = queue.consume(
      async (message, { signal }) => {
        handled.push(message.id);
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })); // never finishes by itself
      },
      { concurrency: 5, shutdownTimeoutMs: 200, logger: recordingLogger() },
    );
    await eventually(() => handled.length === 5, 5000, 5);
    expect(consumer.inFlight).toBe(5);
    await consumer.stop();
    expect(consumer.running).toBe(false);
    expect(consumer.inFlight).toBe(0);
    // The five are receivable at once (NACK delay 0), ahead of the fifteen never received.
    const batch = await queue.receive(30_000, { max: 100 });
    expect(batch).toHaveLength(20);
    expect(
      batch
        .filter((m) => m.deliveryCount === 2)
        .map((m) => m.id)
        .sort(),
    ).toEqual([...handled].sort());
  });

  it('contains hostile handlers and loggers: every message is settled and the consumer goes on', async () => {
    const queue = queueOf();
    const hostile = hostileValues();
    const throwingLogger = {
      warn: () => {
        throw new Error('logger');
      },
      error: () => Promise.reject(new Error('logger')),
    };
    const deliveries = new Map<number, number>();
    for (let i = 0; i < hostile.length; i++) await queue.send(String(i));
    track(
      queue.consume(
        (message) => {
          const index = Number(message.payload);
          deliveries.set(index, message.deliveryCount);
          const value = hostile[index]!.make();
          if (message.deliveryCount === 1) {
            if (index % 3 === 0) throw value;
            if (index % 3 === 1)
              return {
                then: () => {
                  throw value;
                },
              };
            return Promise.reject(value);
          }
          // Returned later, it acknowledges the message (or, where reading its `then` throws, NACKs it once more).
          return value;
        },
        { concurrency: 4, retryBackoff: { initialDelayMs: 0 }, logger: throwingLogger as never },
      ),
    );
    const keys = queueKeys(queue.name, '');
    await eventually(async () => (await connection().raw(keys.stream, ['XLEN', keys.stream])) === 0, 15_000, 20);
    expect([...deliveries.values()].every((count) => count >= 2)).toBe(true);
    expect(deliveries.size).toBe(hostile.length);
  });

  it('refuses a bad handler or option before anything starts', () => {
    const queue = queueOf();
    const bad: [unknown, object][] = [
      [null, {}],
      [() => {}, { concurrency: 0 }],
      [() => {}, { concurrency: 1001 }],
      [() => {}, { visibilityTimeoutMs: 0 }],
      [() => {}, { shutdownTimeoutMs: -1 }],
      [() => {}, { retryBackoff: { initialDelayMs: Number.NaN } }],
      [() => {}, { unknownOption: 1 }],
    ];
    for (const [handler, options] of bad) {
      let error: unknown;
      try {
        queue.consume(handler as never, options);
      } catch (e) {
        error = e;
      }
      expect(isRespireError(error, 'INVALID_ARGUMENT'), JSON.stringify(options)).toBe(true);
    }
  });
});

/** A private server: CLIENT LIST shows only this file's connections. */
describe('ReliableQueue.consume connections', () => {
  let server: RedisServerHandle;
  let admin: ReturnType<typeof createClient>;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = createClient({ url: server.url });
    client = createClient({ url: server.url });
    for (const c of [admin, client]) {
      c.on('error', () => {});
      await c.connect();
    }
  });
  afterAll(async () => {
    admin?.destroy();
    client?.destroy();
    await server?.close();
  });
  /** Connections other than the admin's and the caller's, by their last command. */
  const others = async () => {
    const ids = [String(await admin.sendCommand(['CLIENT', 'ID'])), String(await client.sendCommand(['CLIENT', 'ID']))];
    return String(await admin.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .filter((line) => line.trim() !== '' && !ids.includes(/(?:^| )id=(\d+)/.exec(line)![1]!))
      .map((line) => ({ id: /(?:^| )id=(\d+)/.exec(line)![1]!, cmd: /(?:^| )cmd=(\S*)/.exec(line)![1]! }));
  };

  it('stop() under load leaves no connection open', async () => {
    const queue = new ReliableQueue(client as never, uniqueName(), { codec: utf8Codec });
    for (let i = 0; i < 200; i++) void queue.send(`m${i}`);
    let handled = 0;
    const consumer = queue.consume(
      async () => {
        handled++;
        await pause(5);
      },
      { concurrency: 16, shutdownTimeoutMs: 50, logger: recordingLogger() },
    );
    await eventually(() => handled >= 50, 10_000, 5);
    await consumer.stop();
    expect(await others()).toEqual([]);
  });

  it('goes on after its blocking connection is killed, and stop() leaves no connection', async () => {
    const queue = new ReliableQueue(client as never, uniqueName(), { codec: utf8Codec });
    const got: string[] = [];
    const consumer = queue.consume((message) => void got.push(message.payload), { logger: recordingLogger() });
    await eventually(async () => (await others()).some((c) => c.cmd === 'xread'), 5000, 10);
    const blocked = (await others()).find((c) => c.cmd === 'xread')!;
    expect(Number(await admin.sendCommand(['CLIENT', 'KILL', 'ID', blocked.id]))).toBe(1);
    await queue.send('after the kill');
    await eventually(() => got.length === 1, 10_000, 10);
    await eventually(async () => (await others()).some((c) => c.cmd === 'xread'), 5000, 10);
    await consumer.stop();
    expect(await others()).toEqual([]);
  });
});
