import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scripts, type RedisClientLike } from '@respire/core-scripts';
import { StreamProducer } from '../src/index.js';
import { range, targets, uniqueKeys, type Connection } from './support.js';

/** Seed 002 "Producer retries" on the harness server (Redis 7: no IDMP, so plain appends). */
describe.each(targets)('StreamProducer on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('appends typed values in field order and returns the entry ID', async () => {
    const { stream } = uniqueKeys();
    const producer = new StreamProducer<{ id: string; total: number }>({
      client: conn.client,
      stream,
      serialize: (o) => [['order-id', o.id], ['total', String(o.total)]],
    });
    const id = await producer.add({ id: 'o-1', total: 5 });
    expect(await range(conn, stream)).toEqual([[id, ['order-id', 'o-1', 'total', '5']]]);
  });
});

describe('StreamProducer retries', () => {
  let conn: Connection;
  beforeAll(async () => void (conn = await targets[0]!.connect()));
  afterAll(async () => conn.close());

  it('without IDMP (Redis < 8.6) an append whose reply was lost is not retried: the transport error is thrown and nothing is appended twice', async () => {
    const { stream } = uniqueKeys();
    const real = conn.client as unknown as { sendCommand(args: unknown[], o?: unknown): Promise<unknown> };
    let appends = 0;
    const lossy = {
      sendCommand: async (args: unknown[], options?: unknown) => {
        const isAppend = (args[0] === 'EVALSHA' && args[1] === scripts.workerAppend.sha1) || (args[0] === 'EVAL' && args[1] === scripts.workerAppend.source);
        const first = isAppend && appends === 0;
        const reply = await real.sendCommand(args, options);
        if (isAppend) appends++;
        if (first) throw new Error('Socket closed unexpectedly');
        return reply;
      },
    } as unknown as RedisClientLike;
    const producer = new StreamProducer<string>({ client: lossy, stream, serialize: (v) => ({ v }) });
    await expect(producer.add('x')).rejects.toMatchObject({ name: 'RespireTransportError' });
    expect(appends).toBe(1); // the retry was refused by the script without IDMP: nothing appended
    expect(await range(conn, stream)).toHaveLength(1);
  });

  it('validates its options and wraps serializer failures', async () => {
    expect(() => new StreamProducer({ client: conn.client, stream: '', serialize: () => ({}) })).toThrow(expect.objectContaining({ argument: 'stream' }));
    expect(() => new StreamProducer({ client: conn.client, stream: 's', serialize: () => ({}), maxRetries: 11 })).toThrow(expect.objectContaining({ argument: 'maxRetries' }));
    const p = new StreamProducer<number>({ client: conn.client, stream: uniqueKeys().stream, serialize: () => { throw new SyntaxError('secret'); } });
    await expect(p.add(1)).rejects.toMatchObject({ name: 'RespireCodecError', message: expect.not.stringContaining('secret') });
  });
});
