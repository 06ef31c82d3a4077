// StreamProducer: typed appends on every target, and retries only where the server makes them idempotent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RedisClientLike } from '@respire/core-scripts';
import { scripts } from '@respire/core-scripts/internal';
import { StreamProducer } from '../src/index.js';
import { atLeast, range, targets, uniqueKeys, type Connection } from './support.js';

/** README "Producer retries" on the harness server (Redis 7: no IDMP, so plain appends). */
describe.each(targets)('StreamProducer on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('appends typed values in field order and returns the entry ID', async () => {
    const { stream } = uniqueKeys();
    const producer = new StreamProducer<{ id: string; total: number }>({
      client: conn.client,
      stream,
      serialize: (o) => [
        ['order-id', o.id],
        ['total', String(o.total)],
      ],
    });
    const id = await producer.add({ id: 'o-1', total: 5 });
    expect(await range(conn, stream)).toEqual([[id, ['order-id', 'o-1', 'total', '5']]]);
  });
});

describe('StreamProducer retries', () => {
  let conn: Connection;
  beforeAll(async () => void (conn = await targets[0]!.connect()));
  afterAll(async () => conn.close());

  it('retries an append whose reply was lost only where IDMP makes it safe: same ID on Redis 8.6+, the transport error elsewhere; never two entries', async () => {
    const { stream } = uniqueKeys();
    const real = conn.client as unknown as { sendCommand(args: unknown[], o?: unknown): Promise<unknown> };
    let appends = 0;
    let firstId: unknown;
    const lossy = {
      isOpen: true,
      sendCommand: async (args: unknown[], options?: unknown) => {
        const isAppend = (args[0] === 'EVALSHA' && args[1] === scripts.workerAppend.sha1) || (args[0] === 'EVAL' && args[1] === scripts.workerAppend.source);
        const first = isAppend && appends === 0;
        const reply = await real.sendCommand(args, options);
        if (isAppend) appends++;
        if (first) {
          firstId = (reply as unknown[])[0];
          throw new Error('Socket closed unexpectedly');
        }
        return reply;
      },
    } as unknown as RedisClientLike;
    const producer = new StreamProducer<string>({ client: lossy, stream, serialize: (v) => ({ v }) });
    if (await atLeast(conn, 8, 6)) {
      const id = await producer.add('x');
      expect(id).toBe(String(firstId));
      expect(appends).toBe(2); // the retry ran and was deduplicated by IDMP
    } else {
      await expect(producer.add('x')).rejects.toMatchObject({ name: 'RespireTransportError' });
      expect(appends).toBe(1); // the retry was refused by the script without IDMP
    }
    expect(await range(conn, stream)).toHaveLength(1);
  });

  it('validates its options and wraps serializer failures', async () => {
    expect(() => new StreamProducer({ client: conn.client, stream: '', serialize: () => ({}) })).toThrow(expect.objectContaining({ argument: 'stream' }));
    expect(() => new StreamProducer({ client: conn.client, stream: 's', serialize: () => ({}), maxRetries: 11 })).toThrow(
      expect.objectContaining({ argument: 'maxRetries' }),
    );
    // The caller's own serializer failed: its error message is theirs to see (as the queue's codec errors say what the codec threw).
    const thrown = new SyntaxError('Unexpected token } in JSON');
    const p = new StreamProducer<number>({
      client: conn.client,
      stream: uniqueKeys().stream,
      serialize: () => {
        throw thrown;
      },
    });
    await expect(p.add(1)).rejects.toMatchObject({
      name: 'RespireCodecError',
      message: 'StreamProducer.add: serialize failed (SyntaxError: Unexpected token } in JSON); nothing was sent',
      cause: thrown,
    });
  });

  it.each([
    ['a string', () => JSON.stringify({ a: 1 })],
    ['a number value', () => ({ amount: 5 })],
    ['no fields', () => ({})],
    ['a malformed pair', () => [['only-field']]],
  ])('refuses a serializer that returns %s, sending nothing', async (_label, serialize) => {
    const { stream } = uniqueKeys();
    const p = new StreamProducer<number>({ client: conn.client, stream, serialize: serialize as never });
    await expect(p.add(1)).rejects.toMatchObject({ name: 'RespireCodecError' });
    expect(await range(conn, stream)).toHaveLength(0);
  });
});
