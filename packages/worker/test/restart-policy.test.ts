// The host's 'restart' fault policy: a faulted worker starts again after a backoff, up to a limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireValidationError, StreamWorkerHost } from '../src/index.js';
import { add, eventually, recordingLogger, targets, uniqueKeys, type Connection } from './support.js';

let conn: Connection;
beforeAll(async () => void (conn = await targets[0]!.connect()));
afterAll(async () => conn.close());

/** Makes the worker's stream key a string, so its reads and its next start fail with WRONGTYPE. */
async function breakStream(stream: string): Promise<void> {
  await conn.raw(stream, ['DEL', stream]);
  await conn.raw(stream, ['SET', stream, 'not a stream']);
}

describe("StreamWorkerHost faultPolicy 'restart'", () => {
  it('restarts a faulted worker after a backoff, logs and counts every fault, and the restarted worker processes new entries', async () => {
    const { stream } = uniqueKeys();
    const logger = recordingLogger();
    const host = new StreamWorkerHost({
      handleSignals: false,
      faultPolicy: 'restart',
      restart: { initialDelayMs: 20, maxDelayMs: 100, maxRestarts: 1000 },
      logger,
    });
    const seen: string[] = [];
    const worker = host.add({
      client: conn.client,
      stream,
      group: 'g',
      readWaitMs: 100,
      logger: recordingLogger(),
      handler: (e) => (seen.push(String(e.get('k'))), 'ack'),
    });
    await host.start();
    await add(conn, stream, { k: 'first' });
    await eventually(() => seen.length === 1);

    await breakStream(stream);
    // It faults, and each restart fails too (XGROUP CREATE on a string) while the key stays broken.
    await eventually(() => host.faultCount >= 3);
    expect(logger.entries.filter((e) => e.message === 'stream worker faulted').length).toBe(host.faultCount);
    expect(logger.entries.some((e) => e.message === 'restarting stream worker' && e.level === 'warn')).toBe(true);

    await conn.raw(stream, ['DEL', stream]);
    await eventually(() => worker.state === 'running', 5000);
    await add(conn, stream, { k: 'after the restart' });
    await eventually(() => seen.length === 2, 5000);
    expect(seen).toEqual(['first', 'after the restart']);
    let settled = false;
    void host.done.finally(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await host.stop();
    await expect(host.done).resolves.toBeUndefined();
  });

  it('after maxRestarts restarts in a row it stops every worker and rejects done with the fault', async () => {
    const a = uniqueKeys();
    const b = uniqueKeys();
    const logger = recordingLogger();
    const host = new StreamWorkerHost({
      handleSignals: false,
      faultPolicy: 'restart',
      restart: { initialDelayMs: 10, maxDelayMs: 1000, maxRestarts: 2 },
      logger,
    });
    host.add({ client: conn.client, stream: a.stream, group: 'g', telemetryName: 'a', readWaitMs: 100, logger: recordingLogger(), handler: () => 'ack' });
    const healthy = host.add({ client: conn.client, stream: b.stream, group: 'g', telemetryName: 'b', readWaitMs: 100, handler: () => 'ack' });
    await host.start();
    await breakStream(a.stream);
    await expect(host.done).rejects.toMatchObject({ code: 'WRONG_TYPE' });
    // The run's fault, then two restarts that failed to start.
    expect(host.faultCount).toBe(3);
    expect(healthy.state).toBe('stopped');
    expect(logger.entries.some((e) => e.message.startsWith('stream worker restarts exhausted'))).toBe(true);
  });

  it('stop() during a backoff ends the host without starting the worker again', async () => {
    const { stream } = uniqueKeys();
    const host = new StreamWorkerHost({ handleSignals: false, faultPolicy: 'restart', restart: { initialDelayMs: 60_000 }, logger: recordingLogger() });
    const worker = host.add({ client: conn.client, stream, group: 'g', readWaitMs: 100, logger: recordingLogger(), handler: () => 'ack' });
    await host.start();
    await breakStream(stream);
    await eventually(() => host.faultCount === 1);
    await host.stop();
    await expect(host.done).resolves.toBeUndefined();
    expect(worker.state).toBe('stopped');
  });

  it.each([
    [{ faultPolicy: 'stop-all', restart: {} }, 'restart'],
    [{ faultPolicy: 'restart', restart: { initialDelayMs: 0 } }, 'restart.initialDelayMs'],
    [{ faultPolicy: 'restart', restart: { initialDelayMs: 500, maxDelayMs: 100 } }, 'restart.maxDelayMs'],
    [{ faultPolicy: 'restart', restart: { maxRestarts: -1 } }, 'restart.maxRestarts'],
    [{ faultPolicy: 'restart', restart: { backoff: 2 } }, 'restart'],
    [{ faultPolicy: 'retry' }, 'faultPolicy'],
  ])('refuses %j', (options, argument) => {
    const make = () => new StreamWorkerHost({ handleSignals: false, ...(options as object) });
    expect(make).toThrow(RespireValidationError);
    expect(make).toThrow(expect.objectContaining({ argument }));
  });
});
