// A failover to a lagging replica: what acknowledged sends it loses, without and with the durability option.
import { describe, expect, it } from 'vitest';
import { startRedisServer, startReplicatedServer, sleep } from '@respire/harness';
import { ReliableQueue, RespireNotDurableError, utf8Codec, type ReliableQueueOptions } from '@respire/queue';
import { eventually, standalone, uniqueName } from './support.js';

const PRODUCERS = 8;

interface Round {
  /** Sends that resolved: the producer was told the message exists. */
  acknowledged: number;
  /** Of those, the ones the promoted replica does not have. */
  lost: number;
  /** Sends that raised RespireNotDurableError (applied on the old master, not confirmed). */
  notDurable: number;
}

/**
 * One round: producers send under load to a master with one replica; the replica lags (its process
 * stopped and its link dropping what the master sends); the master is killed (SIGKILL) and the
 * replica promoted (REPLICAOF NO ONE). Every send the producers saw succeed is looked up on it.
 */
async function failoverRound(durability: ReliableQueueOptions<string>['durability']): Promise<Round> {
  const set = await startReplicatedServer({ replicas: 1 });
  const conn = await standalone(set.master.url);
  const name = uniqueName();
  const queue = new ReliableQueue<string>(conn.client, name, { codec: utf8Codec, durability });
  const acknowledged: string[] = [];
  let notDurable = 0;
  let running = true;
  const producer = async () => {
    while (running) {
      try {
        acknowledged.push(await queue.send('payload'));
      } catch (error) {
        if (error instanceof RespireNotDurableError) notDurable++;
        else return; // the master is gone
      }
    }
  };
  try {
    const producers = Array.from({ length: PRODUCERS }, producer);
    await sleep(150);
    set.pause(set.replicas[0]!);
    await sleep(300);
    await set.master.kill();
    running = false;
    await Promise.all(producers);
    await set.promote(set.replicas[0]!);
    const promoted = await standalone(set.replicas[0]!.url);
    try {
      const stored = (await promoted.raw(queue.streamKey, ['XRANGE', queue.streamKey, '-', '+'])) as [string, unknown][];
      const ids = new Set(stored.map((entry) => String(entry[0])));
      return { acknowledged: acknowledged.length, lost: acknowledged.filter((id) => !ids.has(id)).length, notDurable };
    } finally {
      await promoted.close();
    }
  } finally {
    running = false;
    await conn.close().catch(() => {});
    await set.close();
  }
}

describe('failover to a lagging replica (standalone, SIGKILL of the master, REPLICAOF NO ONE)', () => {
  it('without the durability option, acknowledged sends are lost', async () => {
    const round = await failoverRound(undefined);
    console.info(`without durability: ${JSON.stringify(round)}`);
    expect(round.acknowledged).toBeGreaterThan(0);
    expect(round.lost).toBeGreaterThan(0);
  }, 60_000);

  it('with replicas: 1, no acknowledged send is lost, and the unconfirmed ones raised RespireNotDurableError', async () => {
    const round = await failoverRound({ replicas: 1, timeoutMs: 100 });
    console.info(`with replicas: 1: ${JSON.stringify(round)}`);
    expect(round.acknowledged).toBeGreaterThan(0);
    expect(round.lost).toBe(0);
    expect(round.notDurable).toBeGreaterThan(0);
  }, 60_000);
});

/** Producers send for a while; the server is killed (SIGKILL) and restarted on its directory; acknowledged sends it lacks are counted. */
async function restartRound(args: string[]): Promise<Round> {
  const server = await startRedisServer({ args });
  const conn = await standalone(server.url);
  const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec });
  const acknowledged: string[] = [];
  let running = true;
  const producer = async () => {
    while (running) {
      try {
        acknowledged.push(await queue.send('payload'));
      } catch {
        return; // the server is gone
      }
    }
  };
  try {
    const producers = Array.from({ length: PRODUCERS }, producer);
    await sleep(300);
    await server.restart();
    running = false;
    await Promise.all(producers);
    const after = await standalone(server.url);
    try {
      const stored = (await after.raw(queue.streamKey, ['XRANGE', queue.streamKey, '-', '+'])) as [string, unknown][];
      const ids = new Set(stored.map((entry) => String(entry[0])));
      return { acknowledged: acknowledged.length, lost: acknowledged.filter((id) => !ids.has(id)).length, notDurable: 0 };
    } finally {
      await after.close();
    }
  } finally {
    running = false;
    await conn.close().catch(() => {});
    await server.close();
  }
}

describe('a crash and restart of a standalone server (SIGKILL, then it reloads its directory)', () => {
  it('without persistence, every acknowledged send is lost', async () => {
    const round = await restartRound([]);
    console.info(`no persistence: ${JSON.stringify(round)}`);
    expect(round.acknowledged).toBeGreaterThan(0);
    expect(round.lost).toBe(round.acknowledged);
  }, 60_000);

  it.each(['everysec', 'always'])(
    'with appendonly yes and appendfsync %s, a process crash loses no acknowledged send',
    async (fsync) => {
      const round = await restartRound(['--appendonly', 'yes', '--appendfsync', fsync]);
      console.info(`AOF ${fsync}: ${JSON.stringify(round)}`);
      expect(round.acknowledged).toBeGreaterThan(0);
      expect(round.lost).toBe(0);
    },
    60_000,
  );
});

describe('a planned failover (FAILOVER: writes paused until the replica caught up)', () => {
  it('loses no acknowledged send, without the durability option', async () => {
    const set = await startReplicatedServer({ replicas: 1 });
    const conn = await standalone(set.master.url);
    const queue = new ReliableQueue<string>(conn.client, uniqueName(), { codec: utf8Codec });
    const acknowledged: string[] = [];
    let running = true;
    let refused = 0;
    const producer = async () => {
      while (running) {
        try {
          acknowledged.push(await queue.send('payload'));
        } catch {
          refused++; // READONLY once the old master follows the new one
          await sleep(5);
        }
      }
    };
    try {
      const producers = Array.from({ length: PRODUCERS }, producer);
      await sleep(150);
      const replica = set.replicas[0]!;
      await conn.raw(queue.streamKey, ['FAILOVER', 'TO', '127.0.0.1', String(replica.port), 'TIMEOUT', '5000']);
      const promoted = await standalone(replica.url);
      try {
        await eventually(async () => String(await promoted.raw(queue.streamKey, ['INFO', 'replication'])).includes('role:master'), 10_000);
        await sleep(100);
        running = false;
        await Promise.all(producers);
        const stored = (await promoted.raw(queue.streamKey, ['XRANGE', queue.streamKey, '-', '+'])) as [string, unknown][];
        const ids = new Set(stored.map((entry) => String(entry[0])));
        const lost = acknowledged.filter((id) => !ids.has(id)).length;
        console.info(`planned failover: ${JSON.stringify({ acknowledged: acknowledged.length, lost, refused })}`);
        expect(acknowledged.length).toBeGreaterThan(0);
        expect(lost).toBe(0);
      } finally {
        await promoted.close();
      }
    } finally {
      running = false;
      await conn.close().catch(() => {});
      await set.close();
    }
  }, 60_000);
});
