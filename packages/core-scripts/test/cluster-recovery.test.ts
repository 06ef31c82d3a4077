// The Cluster refresher: slot-map refreshes while a node client is down, the end of a connect that never completes, the wait for a node's connection, and which transport failures are retryable.
import { describe, expect, it } from 'vitest';
import { isConnectionFailure, isTransient, toRespireError } from '../src/classify.js';
import { ClusterRefresher, clusterCallDeadlineMs, masterReady } from '../src/cluster-recovery.js';
import { keySlot } from '../src/slots.js';

interface FakeNode {
  client?: { isReady: boolean; destroyed: boolean; destroy(): void };
  connectPromise?: Promise<unknown>;
}

function nodeClient(isReady: boolean): NonNullable<FakeNode['client']> {
  return {
    isReady,
    destroyed: false,
    destroy() {
      this.destroyed = true;
    },
  };
}

/** A stand-in for node-redis 6's `_slots`: counts refreshes; `onRefresh` plays what a refresh finds. */
function fakeCluster(nodes: FakeNode[], onRefresh: (count: number) => void = () => {}) {
  const slots = {
    refreshes: 0,
    nodeByAddress: new Map(nodes.map((node, i) => [`127.0.0.1:${7000 + i}`, node])),
    rediscover: () => {
      slots.refreshes++;
      onRefresh(slots.refreshes);
      return Promise.resolve();
    },
  };
  return { _slots: slots, _commandOptions: { timeout: 5000 } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ClusterRefresher', () => {
  it('refreshes the slot map every 200 ms while a node client is not ready, and stops once every node is ready', async () => {
    const down = nodeClient(false);
    const cluster = fakeCluster([{ client: nodeClient(true) }, { client: down }], (count) => {
      if (count === 3) cluster._slots.nodeByAddress.delete('127.0.0.1:7001'); // the third refresh finds the promoted replica
    });
    new ClusterRefresher(cluster, 5000).refresh();
    await sleep(1000);
    expect(cluster._slots.refreshes).toBe(3);
  });

  it('does not refresh when every node client is ready (a failure unrelated to a node going down)', async () => {
    const cluster = fakeCluster([{ client: nodeClient(true) }]);
    new ClusterRefresher(cluster, 5000).refresh();
    await sleep(300);
    expect(cluster._slots.refreshes).toBe(0);
  });

  it('ends a node connect that has been retrying longer than the call deadline, and only that one', async () => {
    const stuck = nodeClient(false);
    const fresh = nodeClient(false);
    const stuckNode: FakeNode = { client: stuck, connectPromise: new Promise(() => {}) };
    const cluster = fakeCluster([stuckNode, { client: nodeClient(true) }]);
    const refresher = new ClusterRefresher(cluster, 1000);
    refresher.refresh();
    await sleep(300);
    expect(stuck.destroyed).toBe(false);
    // A second connect to another address, first seen about 300 ms later, is younger than the limit when the first is ended.
    cluster._slots.nodeByAddress.set('127.0.0.1:7002', { client: fresh, connectPromise: new Promise(() => {}) });
    const end = performance.now() + 5000;
    while (!stuck.destroyed && performance.now() < end) await sleep(10);
    expect(stuck.destroyed).toBe(true);
    expect(fresh.destroyed).toBe(false);
    cluster._slots.nodeByAddress.clear(); // ends the refreshes
    await sleep(250);
  });

  it("a Cluster call's default deadline is the client's own timeout, none when the client has none", () => {
    expect(clusterCallDeadlineMs({ _commandOptions: { timeout: 1234 } })).toBe(1234);
    expect(clusterCallDeadlineMs({ _commandOptions: {} })).toBe(5000);
    expect(clusterCallDeadlineMs({ _commandOptions: { timeout: 0 } })).toBeUndefined();
    expect(clusterCallDeadlineMs({})).toBeUndefined();
  });

  it('does nothing for a client without node-redis 6 slots', () => {
    expect(() => new ClusterRefresher({}, 5000).refresh()).not.toThrow();
  });
});

describe('masterReady: the wait for the connection to the slot master, within the call deadline', () => {
  /** A stand-in for a node-redis 6 Cluster client: every slot served by `master`, `nodeClient` as node-redis answers it. */
  function routed(master: FakeNode & { address: string }) {
    return {
      slots: Array.from({ length: 16384 }, () => ({ master })),
      nodeClient: (node: FakeNode) => node.connectPromise ?? Promise.resolve(node.client),
    };
  }

  it('does not wait (returns undefined) when the connection is open', () => {
    expect(masterReady(routed({ address: '127.0.0.1:7000', client: nodeClient(true) }), 'k', 300, 'op')).toBeUndefined();
  });

  it('fails as not sent, retryable, naming the node, when the connection is still opening at the deadline', async () => {
    const master = { address: '127.0.0.1:7000', client: nodeClient(false), connectPromise: new Promise(() => {}) };
    const started = performance.now();
    const error = await masterReady(routed(master), 'k', 200, 'ReliableQueue.send')!.catch((e: unknown) => e);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(error).toMatchObject({ name: 'RespireTransportError', code: 'TRANSPORT_FAILED', outcomeUnknown: false, retryable: true });
    expect((error as Error).message).toBe(
      `ReliableQueue.send: not sent: the connection to 127.0.0.1:7000 (master of slot ${keySlot('k')}) was not ready within 200 ms; nothing happened`,
    );
    expect(isConnectionFailure(error)).toBe(true); // so the transport refreshes the slot map
  });

  it('resolves once a connect in progress completes in time', async () => {
    const master = { address: '127.0.0.1:7000', client: nodeClient(false), connectPromise: sleep(50) };
    await expect(masterReady(routed(master), 'k', 1000, 'op')).resolves.toBeUndefined();
  });

  it('fails as not sent, retryable, when the connect fails (its cause kept)', async () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7000'), { code: 'ECONNREFUSED', syscall: 'connect' });
    const master = { address: '127.0.0.1:7000', connectPromise: Promise.reject(refused) };
    master.connectPromise.catch(() => {});
    const error = await masterReady(routed(master), 'k', 1000, 'op')!.catch((e: unknown) => e);
    expect(error).toMatchObject({ outcomeUnknown: false, retryable: true, cause: refused });
    expect((error as Error).message).toMatch(/^op: not sent: the connection to 127\.0\.0\.1:7000 \(master of slot \d+\) could not be opened/);
  });
});

describe('retryable on transport errors: true only when the command provably never reached the server for want of a connection', () => {
  /** An error of a class called `name`, as node-redis throws them (the class name is what classifies it). */
  const named = (name: string) => new { [name]: class extends Error {} }[name]!(name);
  it.each([
    ['TimeoutError', false, true],
    ['ClientOfflineError', false, true],
    ['CommandTimeoutDuringMaintenanceError', false, true],
    ['ClientClosedError', false, false],
    ['AbortError', false, false],
    ['SocketClosedUnexpectedlyError', true, false],
  ])('%s: outcomeUnknown %s, retryable %s', (name, outcomeUnknown, retryable) => {
    expect(toRespireError(named(name), 'op')).toMatchObject({ code: 'TRANSPORT_FAILED', outcomeUnknown, retryable });
  });

  it('isTransient stays about server replies: a retryable transport error is not counted (loops treat connections on their own)', () => {
    expect(isTransient(toRespireError(named('TimeoutError'), 'op'))).toBe(false);
  });
});
