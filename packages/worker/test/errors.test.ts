// Typed errors for a stream key of another type, and the limits and life-cycle errors of the public API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_BULK_BYTES } from '@respire/core-scripts';
import { StreamProducer, StreamWorkerHost, isRespireError } from '../src/index.js';
import { add, range, recordingLogger, targets, uniqueKeys, workerFixture, type Connection } from './support.js';

/** Errors that say what happened and what to do: typed, with the key, the types or the state named. */
describe.each(targets)('a stream key of another type on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());
  const worker = workerFixture(() => conn);

  it.each([
    ['creating the group (createGroup, the default)', true, 'StreamWorker.start: create consumer group'],
    ['checking the group (createGroup: false)', false, 'StreamWorker.start: XINFO GROUPS'],
  ])('StreamWorker.start() names the key and both types when %s', async (_label, createGroup, operation) => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['SET', stream, 'occupied']);
    const w = worker({ stream, group: 'g', createGroup, handler: () => 'ack' });
    const error = await w.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect((error as Error).name).toBe('RespireKeyTypeError');
    expect((error as Error).message).toBe(`${operation}: ${stream} holds a string, expected a stream`);
    expect(w.state).toBe('stopped');
    expect(await conn.raw(stream, ['GET', stream])).toBe('occupied');
  });

  it('StreamProducer.add names the key and both types, as the queue does', async () => {
    const { stream } = uniqueKeys();
    await conn.raw(stream, ['HSET', stream, 'f', 'v']);
    const producer = new StreamProducer<string>({ client: conn.client, stream, serialize: (v) => ({ payload: v }) });
    const error = await producer.add('x').then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect((error as Error).message).toBe(`StreamProducer.add: ${stream} holds a hash, expected a stream`);
  });
});

describe('limits and life cycle', () => {
  let conn: Connection;
  beforeAll(async () => void (conn = await targets[0]!.connect()));
  afterAll(async () => conn.close());
  const worker = workerFixture(() => conn);

  it("StreamProducer.add refuses a field above Redis's bulk limit (512 MiB) before any I/O", async () => {
    const { stream } = uniqueKeys();
    // allocUnsafe leaves the memory untouched: no 512 MiB of RAM is used.
    const huge = Buffer.allocUnsafe(MAX_BULK_BYTES + 1);
    const producer = new StreamProducer<Buffer>({ client: conn.client, stream, serialize: (v) => [['payload', v]] });
    const error = await producer.add(huge).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
    expect((error as Error).message).toMatch(/^payload: StreamProducer\.add: a value of 536870913 bytes is longer than the 536870912 bytes \(512 MiB\)/);
    expect(await range(conn, stream)).toEqual([]);
  });

  it('start() on a running worker and add() on a started host throw RespireStateError (code INVALID_STATE)', async () => {
    const { stream } = uniqueKeys();
    await add(conn, stream, { k: 'v' });
    const w = worker({ stream, group: 'g', handler: () => 'ack' });
    await w.start();
    const twice = await w.start().then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(twice, 'INVALID_STATE'), String(twice)).toBe(true);
    expect((twice as Error).name).toBe('RespireStateError');
    expect((twice as Error).message).toBe('StreamWorker.start: the worker is running');
    expect(w.state).toBe('running');

    const host = new StreamWorkerHost({ handleSignals: false, shutdownTimeoutMs: 1000, logger: recordingLogger() });
    host.add({ client: conn.client, stream: uniqueKeys().stream, group: 'g', readWaitMs: 200, logger: recordingLogger(), handler: () => 'ack' });
    await host.start();
    try {
      let late: unknown;
      try {
        host.add({ client: conn.client, stream: uniqueKeys().stream, group: 'g', telemetryName: 'late', handler: () => 'ack' });
      } catch (error) {
        late = error;
      }
      expect(isRespireError(late, 'INVALID_STATE'), String(late)).toBe(true);
      expect((late as Error).message).toBe('StreamWorkerHost.add: the host has already started');
      expect(host.workers).toHaveLength(1);
      const again = await host.start().then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(again, 'INVALID_STATE'), String(again)).toBe(true);
    } finally {
      await host.stop();
    }
  });
});
