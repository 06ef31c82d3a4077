// A Cluster failover under load: SIGKILL of the master serving a queue; every call returns or fails within its deadline, and the same queue works again on the promoted replica.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCluster } from 'redis';
import { serverBinary, sleep, startRedisCluster, type RedisClusterHandle } from '@respire/harness';
import { keySlot } from '@respire/core-scripts/internal';
import { ReliableQueue, RespireError, utf8Codec } from '@respire/queue';
import { uniqueName } from './support.js';

const PRODUCERS = 4;
/** Leeway over a deadline for a loaded machine's timers (ms). */
const LEEWAY_MS = 1000;

interface Round {
  /** Time from the kill until a call started after it succeeded (ms). */
  flowsAgainMs: number;
  /** The longest call that ended after the kill (ms). */
  longestMs: number;
  /** Calls that failed after the kill. */
  failed: number;
  /** The codes of those failures (`TRANSPORT_FAILED`, ...), and the failures that were not RespireErrors. */
  codes: string[];
  untyped: string[];
  /** Failures proved not sent (`outcomeUnknown: false`), and those of them not marked `retryable` (expected none). */
  notSent: number;
  notSentNotRetryable: string[];
}

describe('Cluster failover (3 masters + 3 replicas, cluster-node-timeout 1500): SIGKILL of the master serving the queue', () => {
  let cluster: RedisClusterHandle;
  /** Shards whose master was killed already: each round kills another one. */
  const killed = new Set<number>();
  beforeAll(async () => {
    cluster = await startRedisCluster(serverBinary(), { replicasPerMaster: 1, nodeTimeoutMs: 1500 });
  }, 90_000);
  afterAll(async () => cluster?.close());

  /** The shard serving `key`: the harness splits the slots evenly in order. */
  const shardOf = (key: string) => Math.floor(keySlot(key) / Math.ceil(16384 / cluster.nodes.length));

  /** Producers send and a consumer receives and ACKs on one queue; its master is killed; calls go on until one succeeds. */
  async function killRound(commandTimeoutMs: number | undefined): Promise<Round> {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => {});
    await client.connect();
    const options = { codec: utf8Codec, ...(commandTimeoutMs === undefined ? {} : { commandTimeoutMs }) };
    let queue = new ReliableQueue<string>(client as never, uniqueName(), options);
    while (killed.has(shardOf(queue.streamKey))) queue = new ReliableQueue<string>(client as never, uniqueName(), options);
    const shard = shardOf(queue.streamKey);
    let killedAt = Infinity;
    let firstOkAfter: number | undefined;
    let longestMs = 0;
    let failed = 0;
    const untyped: string[] = [];
    const codes = new Set<string>();
    let notSent = 0;
    const notSentNotRetryable: string[] = [];
    let running = true;
    const timed = async (call: () => Promise<unknown>) => {
      const started = performance.now();
      try {
        await call();
        if (started > killedAt) firstOkAfter ??= performance.now();
      } catch (error) {
        if (performance.now() > killedAt) failed++;
        if (error instanceof RespireError) codes.add(error.code);
        else untyped.push(String(error));
        if ((error as { outcomeUnknown?: unknown }).outcomeUnknown === false) {
          notSent++;
          if ((error as RespireError).retryable !== true) notSentNotRetryable.push((error as Error).message);
        }
        await sleep(20);
      } finally {
        if (performance.now() > killedAt) longestMs = Math.max(longestMs, performance.now() - started);
      }
    };
    const producer = async () => {
      while (running) await timed(() => queue.send('payload'));
    };
    const consumer = async () => {
      while (running) {
        await timed(async () => {
          const batch = await queue.receive(30_000, { max: 10 });
          if (batch.length > 0) await queue.ackMany(batch);
        });
      }
    };
    const loops = [...Array.from({ length: PRODUCERS }, producer), consumer()];
    try {
      await sleep(300);
      killedAt = performance.now();
      killed.add(shard);
      await cluster.nodes[shard]!.kill();
      const end = performance.now() + 20_000;
      while (firstOkAfter === undefined && performance.now() < end) await sleep(50);
      if (firstOkAfter === undefined) throw new Error('no call succeeded within 20 s of the kill');
      // The same queue object keeps working on the promoted replica: a full round trip.
      await timed(() => queue.send('after the failover'));
      running = false;
      await Promise.all(loops);
      return { flowsAgainMs: firstOkAfter - killedAt, longestMs, failed, codes: [...codes], untyped, notSent, notSentNotRetryable };
    } finally {
      running = false;
      await Promise.race([Promise.all(loops), sleep(10_000)]);
      client.destroy();
    }
  }

  it("a call whose slot's node client never connects (a dead master put back into the slot map) fails at the client's timeout instead of hanging, as not sent and retryable", async () => {
    // node-redis 6 waits for the node client's connect before it queues the command and starts its
    // timeout; a dead address's connect retries forever. The call's deadline must cover that wait,
    // and a call that never got past it was never written.
    const client = createCluster({ rootNodes: cluster.rootNodes, commandOptions: { timeout: 300 } });
    client.on('error', () => {});
    await client.connect();
    try {
      const queue = new ReliableQueue<string>(client as never, uniqueName(), { codec: utf8Codec });
      // The slot's master as node-redis holds it while its connect is in progress (and never ends).
      const master = (client as unknown as { slots: { master: { connectPromise?: Promise<unknown>; address: string } }[] }).slots[keySlot(queue.streamKey)]!
        .master;
      master.connectPromise = new Promise(() => {});
      const started = performance.now();
      const error = await queue.send('never routed').catch((e: unknown) => e);
      expect(performance.now() - started).toBeLessThan(300 + LEEWAY_MS);
      expect(error).toMatchObject({ code: 'TRANSPORT_FAILED', outcomeUnknown: false, retryable: true });
      expect((error as Error).message).toContain(`not sent: the connection to ${master.address}`);
      expect((error as Error).message).toMatch(/was not ready within 300 ms; nothing happened$/);
    } finally {
      client.destroy();
    }
  });

  it("with the client's own timeout (node-redis 6: 5,000 ms): every call ends within it, failures are RespireErrors, calls succeed on the promoted replica", async () => {
    const round = await killRound(undefined);
    console.info(
      `Cluster SIGKILL, queue, default deadline: ${JSON.stringify({ ...round, flowsAgainMs: Math.round(round.flowsAgainMs), longestMs: Math.round(round.longestMs) })}`,
    );
    expect(round.longestMs).toBeLessThan(5000 + LEEWAY_MS);
    expect(round.failed).toBeGreaterThan(0);
    expect(round.untyped).toEqual([]);
    expect(round.codes).toEqual(['TRANSPORT_FAILED']);
    expect(round.notSentNotRetryable).toEqual([]);
  }, 60_000);

  it('with commandTimeoutMs 1000: every call ends within it and calls succeed on the promoted replica', async () => {
    const round = await killRound(1000);
    console.info(
      `Cluster SIGKILL, queue, commandTimeoutMs 1000: ${JSON.stringify({ ...round, flowsAgainMs: Math.round(round.flowsAgainMs), longestMs: Math.round(round.longestMs) })}`,
    );
    expect(round.longestMs).toBeLessThan(1000 + LEEWAY_MS);
    expect(round.failed).toBeGreaterThan(0);
    expect(round.untyped).toEqual([]);
    expect(round.codes).toEqual(['TRANSPORT_FAILED']);
    expect(round.notSentNotRetryable).toEqual([]);
  }, 60_000);
});
