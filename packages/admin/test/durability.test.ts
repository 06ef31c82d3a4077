// The admin's durability option: repair actions wait for a replica; one the lagging replica did not confirm raises RespireNotDurableError.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { standalone, startReplicatedServer, type ReplicatedServerHandle } from '@respire/harness';
import type { RedisClientLike } from '@respire/core-scripts';
import { RespireAdmin, RespireValidationError } from '../src/index.js';
import { operator, pendingPair, pendingRows, recordingAudit, uniqueKeys, type Connection } from './support.js';

describe('RespireAdmin durability (beyond the contract)', () => {
  let set: ReplicatedServerHandle;
  let conn: Connection;
  beforeAll(async () => {
    set = await startReplicatedServer({ replicas: 1 });
    conn = await standalone<RedisClientLike>(set.master.url);
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await set?.close();
  });

  it('a repair action waits for the replica; with the replica lagging it is applied and raises RespireNotDurableError', async () => {
    const { stream } = uniqueKeys();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { streams: [{ stream }], audit, durability: { replicas: 1, timeoutMs: 200 } });
    const [a, b] = await pendingPair(conn, stream, 'c1');
    expect(await admin.ackPending(operator, stream, 'g', a, { deliveryCount: 1, consumer: 'c1' })).toEqual({ status: 'acknowledged' });
    set.pause(set.replicas[0]!);
    try {
      const error = await admin.ackPending(operator, stream, 'g', b, { deliveryCount: 1, consumer: 'c1' }).catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'RespireNotDurableError', code: 'NOT_DURABLE', applied: true, replicasReached: 0 });
      expect(await pendingRows(conn, stream, 'g')).toEqual([]);
      // Reads do not wait: they answer while the replica lags.
      expect((await admin.resources()).resources.length).toBeGreaterThan(0);
    } finally {
      set.resume(set.replicas[0]!);
      await set.waitForLinks();
    }
    expect(records.length).toBeGreaterThanOrEqual(2);
  }, 30_000);

  it('refuses a bad durability option when created', () => {
    const make = () => new RespireAdmin(conn.client, { durability: { replicas: 1 } as never });
    expect(make).toThrow(RespireValidationError);
    expect(make).toThrow(expect.objectContaining({ argument: 'durability.timeoutMs' }));
  });
});
