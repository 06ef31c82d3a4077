import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamWorker } from '../src/index.js';
import { add, eventually, pendingCount, targets, uniqueKeys, type Connection } from './support.js';

describe.each(targets)('smoke on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  it('acks', async () => {
    const { stream } = uniqueKeys();
    const seen: string[] = [];
    const worker = new StreamWorker({ client: conn.client, stream, group: 'g', readWaitMs: 200, handler: (e) => (seen.push(e.getString('k')!), 'ack') });
    await worker.start();
    await add(conn, stream, { k: 'a' });
    await add(conn, stream, { k: 'b' });
    await eventually(() => seen.length === 2);
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    await worker.stop();
    await worker.done;
    expect(seen).toEqual(['a', 'b']);
  });
});
