// The Cluster refresher: slot-map refreshes while a node client is down, and the end of a connect that never completes.
import { describe, expect, it } from 'vitest';
import { ClusterRefresher, clusterCallDeadlineMs } from '../src/cluster-recovery.js';

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
