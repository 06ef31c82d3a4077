// A Cluster failover under the admin API and the dashboard: SIGKILL of the master serving a queue and a stream; every call ends within its bound, and the pages answer again on the promoted replica.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, isRespireError } from '@respire/admin';
import { serverBinary, sleep, startRedisCluster, type RedisClusterHandle } from '@respire/harness';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { createDashboard } from '../src/index.js';
import { TOKENS, bearer, testAuthorize, uniqueTag } from './support.js';

/** The admin's deadline per command (ms). */
const COMMAND_TIMEOUT_MS = 1000;
/**
 * Longest an admin call or a page may take while the master is down: a page runs a few commands one
 * after another (the resource's status, then its groups), each held to the deadline; plus leeway for a
 * loaded machine's timers.
 */
const CALL_BOUND_MS = 4 * COMMAND_TIMEOUT_MS + 1000;
/** How long after the kill every call must have succeeded again (the Cluster promotes in about 2-4 s). */
const RECOVERY_BOUND_MS = 20_000;

interface Outcome {
  readonly name: string;
  readonly startedMs: number;
  readonly tookMs: number;
  /** `ok`, a Respire error code, `http <status>`, or `untyped: <error>` (expected never). */
  readonly result: string;
}

describe('Cluster failover under the admin API and the dashboard (3 masters, a replica for the one killed, cluster-node-timeout 1500)', () => {
  let cluster: RedisClusterHandle;
  beforeAll(async () => {
    cluster = await startRedisCluster(serverBinary(), { replicasPerMaster: 1, replicatedMasters: 1, nodeTimeoutMs: 1500 });
  }, 90_000);
  afterAll(async () => cluster?.close());

  /** A name whose `key(name)` is served by the first master (the one with a replica, and the one killed): the harness splits the slots evenly in order. */
  const onFirstMaster = async (client: { sendCommand(key: string, readonly: boolean, args: string[]): Promise<unknown> }, key: (name: string) => string) => {
    for (;;) {
      const name = uniqueTag('failover');
      const slot = Number(await client.sendCommand(key(name), true, ['CLUSTER', 'KEYSLOT', key(name)]));
      if (slot < Math.ceil(16384 / 3)) return name;
    }
  };

  it('every admin call and every page ends within its bound during the failover (a typed error, or a 503 "Try again" page), and all answer again after the promotion', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => {});
    await client.connect();
    const queueName = await onFirstMaster(client, (name) => `{respire-queue:${name}}:stream`);
    const queueId = `{respire-queue:${queueName}}:stream`;
    const stream = `{${await onFirstMaster(client, (name) => `{${name}}:events`)}}:events`;
    const admin = new RespireAdmin(client, { queues: [{ name: queueName }], streams: [{ stream }], commandTimeoutMs: COMMAND_TIMEOUT_MS });
    const dashboard = createDashboard({ admin, authorize: testAuthorize, basePath: '/' });
    const server = createServer(dashboard.nodeListener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const outcomes: Outcome[] = [];
    let running = true;
    try {
      // Something to show: three messages on the queue, two entries read by a group on the stream.
      const queue = new ReliableQueue<string>(client as never, queueName, { codec: utf8Codec });
      for (const text of ['a', 'b', 'c']) await queue.send(text);
      await client.sendCommand(stream, false, ['XADD', stream, '*', 'k', 'v1']);
      await client.sendCommand(stream, false, ['XADD', stream, '*', 'k', 'v2']);
      await client.sendCommand(stream, false, ['XGROUP', 'CREATE', stream, 'g', '0']);
      await client.sendCommand(stream, false, ['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', '2', 'STREAMS', stream, '>']);
      // The replica has every write before the kill, so the promoted master shows the same state.
      await client.sendCommand(stream, false, ['WAIT', '1', '5000']);

      const calls: Record<string, () => Promise<string>> = {
        'admin.overview': async () => {
          const overview = await admin.overview();
          // A resource whose master is down is listed as unavailable: the overview itself answers.
          return overview.unavailable.length === 0 && overview.queues[0]?.length === 3 ? 'ok' : 'partial';
        },
        'admin.queueStatus': async () => ((await admin.queueStatus(queueId)).length === 3 ? 'ok' : 'wrong'),
        'admin.streamStatus': async () => ((await admin.streamStatus(stream)).groups.length === 1 ? 'ok' : 'wrong'),
        'admin.pending': async () => ((await admin.pending(stream, 'g')).items.length === 2 ? 'ok' : 'wrong'),
        'page /': () => page('/'),
        'page /queue': () => page(`/queue?id=${encodeURIComponent(queueId)}`),
        'page /stream': () => page(`/stream?id=${encodeURIComponent(stream)}`),
      };
      /** One page as a viewer; the bound is the test's, so a page that never answers fails here. */
      const page = async (path: string): Promise<string> => {
        const response = await fetch(`${origin}${path}`, { headers: bearer(TOKENS.viewer), signal: AbortSignal.timeout(CALL_BOUND_MS * 2) });
        const body = await response.text();
        if (!body.includes('</html>')) return `http ${response.status} without a page`;
        return response.status === 200 ? 'ok' : `http ${response.status}`;
      };
      for (const [name, call] of Object.entries(calls)) expect(`${name} ${await call()}`).toBe(`${name} ok`);

      let killedAt = Infinity;
      const loop = async (name: string, call: () => Promise<string>) => {
        while (running) {
          const started = performance.now();
          let result: string;
          try {
            result = await call();
          } catch (error) {
            result = isRespireError(error) ? error.code : `untyped: ${String(error)}`;
            // A call proved never sent is retryable (README: errors); one that may have run is not.
            const unknown = (error as { outcomeUnknown?: unknown }).outcomeUnknown;
            if (unknown !== undefined && (error as { retryable?: unknown }).retryable !== (unknown === false)) result = `inconsistent: ${String(error)}`;
          }
          if (started > killedAt - 50) outcomes.push({ name, startedMs: started - killedAt, tookMs: performance.now() - started, result });
          await sleep(result === 'ok' ? 100 : 50);
        }
      };
      const loops = Object.entries(calls).map(([name, call]) => loop(name, call));
      await sleep(300);
      killedAt = performance.now();
      await cluster.nodes[0]!.kill();
      // Until every kind of call has succeeded with a start after the kill (on the promoted replica).
      const recovered = () => Object.keys(calls).every((name) => outcomes.some((o) => o.name === name && o.startedMs > 0 && o.result === 'ok'));
      while (!recovered() && performance.now() - killedAt < RECOVERY_BOUND_MS) await sleep(100);
      running = false;
      await Promise.all(loops);

      const failed = outcomes.filter((o) => o.result !== 'ok');
      const summary = Object.fromEntries(
        Object.keys(calls).map((name) => {
          const own = outcomes.filter((o) => o.name === name);
          const firstOk = own.find((o) => o.startedMs > 0 && o.result === 'ok');
          return [
            name,
            {
              calls: own.length,
              failed: own.filter((o) => o.result !== 'ok').length,
              longestMs: Math.round(Math.max(...own.map((o) => o.tookMs))),
              okAgainMs: firstOk && Math.round(firstOk.startedMs + firstOk.tookMs),
            },
          ];
        }),
      );
      console.info(`Cluster SIGKILL under the admin and the dashboard: ${JSON.stringify({ results: [...new Set(outcomes.map((o) => o.result))], summary })}`);
      expect(recovered()).toBe(true);
      expect(failed.length).toBeGreaterThan(0); // the kill was felt: the calls did meet the failover
      expect(outcomes.filter((o) => o.result.startsWith('untyped') || o.result.startsWith('inconsistent'))).toEqual([]);
      // A page answers with itself or with the 503 "Try again" page, never a 500 or no page.
      expect(outcomes.filter((o) => o.name.startsWith('page') && o.result !== 'ok' && o.result !== 'http 503')).toEqual([]);
      expect(outcomes.filter((o) => o.tookMs > CALL_BOUND_MS)).toEqual([]);
    } finally {
      running = false;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      client.destroy();
    }
  }, 90_000);
});
