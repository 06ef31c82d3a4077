// Round trips and server commands per queue operation.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect, countingClient } from '../clients.js';
import { delta, sampleServer } from '../server-stats.js';

export interface RoundTrips {
  readonly operation: string;
  /** Commands written to the socket by Respire for the operation. */
  readonly wire: number;
  /** Commands the server ran (scripts' inner commands included), per INFO commandstats. */
  readonly server: number;
  readonly serverCommands: string;
}

/** Wire and server commands of each queue operation, warmed up (scripts already cached). */
export async function queueRoundTrips(url: string): Promise<RoundTrips[]> {
  const admin = await connect(url, 'timeout-0');
  const counting = countingClient(admin);
  const queue = new ReliableQueue(counting.client, `bench-rt-${randomBytes(4).toString('hex')}`, { codec: bytesCodec });
  const payload = Buffer.alloc(100, 'x');
  // Warm up: load every script once.
  await queue.send(payload, { deduplicationId: 'warm' });
  await queue.ack((await queue.receive(60_000))[0]!);
  await queue.nack({ id: '1-0', receipt: `1.${'a'.repeat(16)}.1` });
  const out: RoundTrips[] = [];
  const measure = async (operation: string, run: () => Promise<unknown>) => {
    const before = await sampleServer(admin);
    counting.reset();
    await run();
    const wire = counting.count();
    const d = delta(before, await sampleServer(admin));
    const serverCommands = [...d.calls]
      .sort((a, b) => b[1] - a[1])
      .map(([name, n]) => `${name}×${n}`)
      .join(' ');
    out.push({ operation, wire, server: d.commandCalls, serverCommands });
  };
  await measure('send', () => queue.send(payload));
  await measure('send with deduplication ID', () => queue.send(payload, { deduplicationId: 'd1' }));
  for (let i = 0; i < 8; i++) await queue.send(payload);
  await queue.ackMany(await queue.receive(60_000, { max: 10 }));
  let batch: Awaited<ReturnType<typeof queue.receive>> = [];
  for (let i = 0; i < 10; i++) await queue.send(payload);
  await measure('receive batch of 10 (none due)', async () => {
    batch = await queue.receive(60_000, { max: 10 });
  });
  await measure('ack one message', () => queue.ack(batch[0]!));
  await measure('ack batch of 9 (ackMany)', () => queue.ackMany(batch.slice(1)));
  for (let i = 0; i < 10; i++) await queue.send(payload);
  batch = await queue.receive(60_000, { max: 10 });
  await measure('nack batch of 10 (nackMany, delay 0)', () => queue.nackMany(batch, 0));
  await measure('receive batch of 10 (all due: redelivery)', async () => {
    batch = await queue.receive(60_000, { max: 10 });
  });
  await queue.ackMany(batch);
  admin.destroy();
  return out;
}
