// A Cluster failover under a running worker: SIGKILL of the stream's master, and a CLUSTER FAILOVER (planned).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createCluster } from 'redis';
import { serverBinary, sleep, startRedisCluster, type RedisClusterHandle, type RedisServerHandle } from '@respire/harness';
import { keySlot } from '@respire/core-scripts/internal';
import { StreamProducer, StreamWorkerHost } from '../src/index.js';
import { recordingLogger, uniqueKeys } from './support.js';

/** The per-call deadline the producer is held to, in ms (node-redis 6's own default timeout). */
const DEADLINE_MS = 5000;
/** Leeway over a deadline for a loaded machine's timers. */
const LEEWAY_MS = 1000;

interface Calls {
  readonly tookMs: number[];
  /** IDs of the adds that succeeded: the producer was told the entry exists. */
  readonly acknowledged: string[];
  failed: number;
  /** performance.now() of the first add that succeeded after the kill. */
  firstOkAfter?: number;
}

async function untilTrue(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await sleep(50);
  }
}

describe('Cluster failover under a running worker (3 masters + 3 replicas, cluster-node-timeout 1500)', () => {
  let cluster: RedisClusterHandle;
  /** The server that is master of each shard now (a failover swaps a shard's master and replica). */
  let masters: RedisServerHandle[];
  let replicas: RedisServerHandle[];
  beforeAll(async () => {
    cluster = await startRedisCluster(serverBinary(), { replicasPerMaster: 1, nodeTimeoutMs: 1500 });
    masters = [...cluster.nodes];
    replicas = [...cluster.replicas];
  }, 90_000);
  afterAll(async () => cluster?.close());

  /** The index (in `cluster.nodes` / `cluster.replicas`) of the shard that serves `key`: the harness splits slots evenly in order. */
  const shardOf = (key: string) => Math.floor(keySlot(key) / Math.ceil(16384 / cluster.nodes.length));

  /**
   * A producer adds entries in a loop while a host with the restart policy runs a worker on the
   * stream; `disrupt` fails the stream's master over. Every entry the new master holds is processed.
   */
  async function underLoad(disrupt: (shard: number) => Promise<void>) {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => {});
    await client.connect();
    const { stream } = uniqueKeys();
    const hostLog = recordingLogger();
    const host = new StreamWorkerHost({
      handleSignals: false,
      faultPolicy: 'restart',
      restart: { initialDelayMs: 100, maxDelayMs: 1000, maxRestarts: 100 },
      logger: hostLog,
    });
    const seen = new Set<string>();
    // A read the old master answered as the kill came keeps its entries pending on the promoted
    // replica, under this consumer, with the reply lost: only idle-pending recovery delivers them,
    // after minimumIdleTimeMs (60 s by default, longer than this test waits).
    host.add({
      client: client as never,
      stream,
      group: 'g',
      readWaitMs: 200,
      minimumIdleTimeMs: 2000,
      recoveryPollIntervalMs: 100,
      logger: recordingLogger(),
      handler: (entry) => (seen.add(entry.id), 'ack'),
    });
    await host.start();
    const producer = new StreamProducer<string>({ client: client as never, stream, maxRetries: 0, serialize: (value) => ({ k: value }) });
    const calls: Calls = { tookMs: [], acknowledged: [], failed: 0 };
    let disruptedAt = Infinity;
    let running = true;
    const produce = async () => {
      while (running) {
        const started = performance.now();
        try {
          calls.acknowledged.push(await producer.add('v'));
          if (started > disruptedAt) calls.firstOkAfter ??= performance.now();
        } catch {
          calls.failed++;
          await sleep(20);
        } finally {
          calls.tookMs.push(performance.now() - started);
        }
      }
    };
    const producers = [produce(), produce()];
    try {
      await untilTrue(() => seen.size >= 20, 10_000, 'the worker processes entries before the failover');
      disruptedAt = performance.now();
      await disrupt(shardOf(stream));
      await untilTrue(() => calls.firstOkAfter !== undefined, 20_000, 'an add succeeds after the failover');
      const flowsAgainMs = calls.firstOkAfter! - disruptedAt;
      const processedBefore = seen.size;
      // Work flows again through the worker too, not only the producer.
      await untilTrue(() => seen.size >= processedBefore + 20, 15_000, 'the worker processes entries after the failover');
      running = false;
      await Promise.all(producers);
      const onMaster = (await client.sendCommand(stream, true, ['XRANGE', stream, '-', '+'])) as [string, unknown][];
      await untilTrue(() => onMaster.every(([id]) => seen.has(String(id))), 15_000, 'the worker processes every entry the new master holds');
      const held = new Set(onMaster.map(([id]) => String(id)));
      return { flowsAgainMs, calls, faults: host.faultCount, lost: calls.acknowledged.filter((id) => !held.has(id)).length, entries: onMaster.length };
    } finally {
      running = false;
      await Promise.all(producers);
      await host.stop().catch(() => {});
      client.destroy();
    }
  }

  it('CLUSTER FAILOVER (planned, with its write pause): no add fails, nothing is lost, the worker never faults', async () => {
    const round = await underLoad(async (shard) => {
      const replica = createClient({ url: replicas[shard]!.url });
      replica.on('error', () => {});
      await replica.connect();
      try {
        await replica.sendCommand(['CLUSTER', 'FAILOVER']);
        await untilTrue(async () => String(await replica.sendCommand(['ROLE'])).startsWith('master'), 10_000, 'the replica takes over');
      } finally {
        replica.destroy();
      }
      [masters[shard], replicas[shard]] = [replicas[shard]!, masters[shard]!];
    });
    console.info(
      `CLUSTER FAILOVER: work flowed again ${round.flowsAgainMs.toFixed(0)} ms after it was asked for; longest add ${Math.max(0, ...round.calls.tookMs).toFixed(0)} ms; ` +
        `${round.calls.acknowledged.length} adds ok, ${round.calls.failed} failed; worker faults ${round.faults}; ${round.entries} entries processed`,
    );
    expect(round.calls.failed).toBe(0);
    expect(round.lost).toBe(0);
    expect(round.faults).toBe(0);
  }, 60_000);

  // No retry: the first attempt killed the shard's master, so a second would disrupt nothing.
  it(
    'SIGKILL of the master: no add outlives its deadline, adds succeed on the promoted replica, the restarted worker processes every entry',
    { retry: 0, timeout: 60_000 },
    async () => {
      const round = await underLoad(async (shard) => masters[shard]!.kill());
      const longest = Math.max(0, ...round.calls.tookMs);
      console.info(
        `Cluster SIGKILL: work flowed again ${round.flowsAgainMs.toFixed(0)} ms after the kill; longest add ${longest.toFixed(0)} ms; ` +
          `${round.calls.acknowledged.length} adds ok, ${round.calls.failed} failed, ${round.lost} acknowledged adds lost; worker faults ${round.faults}; ${round.entries} entries processed`,
      );
      expect(longest).toBeLessThan(DEADLINE_MS + LEEWAY_MS);
      // No add to the shard can succeed before the promotion, at least cluster-node-timeout (1500 ms) after the kill.
      expect(round.flowsAgainMs).toBeGreaterThan(1000);
    },
  );
});
