// A child process of the partitions bench: one producer or consumer of a queue on a Cluster, driven over IPC.
/**
 * Started by scenarios/partitions.ts with `fork` (the parent's tsx loader and conditions). Argv:
 * the Cluster's root node URLs. It keeps one Cluster client for its life and, per measured way,
 * builds the way's queue (one {@link ReliableQueue}, or a {@link PartitionedQueue} of `partitions`),
 * answers `ready`, runs its role on `go` and answers `done` with its CPU time.
 * - producer: `messages` pipelined `send()`s, at most 256 in flight;
 * - consumer: `receive(max: batch)` with the previous batch's `ackMany` in flight, posting each
 *   ackMany's count, until `stop`; an empty receive waits 1 ms before polling again.
 */
import { PartitionedQueue, ReliableQueue, bytesCodec, type ReceivedMessage } from '@respire/queue';
import { createCluster } from 'redis';
import { pooled } from '../server-stats.js';

/** A message from the parent. */
export type ChildCommand =
  | { type: 'prepare'; role: 'producer' | 'consumer'; queue: string; partitions: number; messages: number; batch: number; payloadBytes: number }
  | { type: 'go' }
  | { type: 'stop' }
  | { type: 'exit' };

/** A message to the parent. */
export type ChildReport =
  { type: 'ready' } | { type: 'acked'; count: number } | { type: 'done'; cpuUs: number; count: number } | { type: 'failed'; error: string };

type Queue = Pick<ReliableQueue<Buffer>, 'send' | 'receive' | 'ackMany'>;

const SEND_WINDOW = 256;

const post = (report: ChildReport) => process.send!(report);

async function main(): Promise<void> {
  const client = createCluster({ rootNodes: process.argv.slice(2).map((url) => ({ url })), commandOptions: { timeout: 0 } });
  client.on('error', () => {});
  await client.connect();
  let prepared: Extract<ChildCommand, { type: 'prepare' }> | undefined;
  let queue: Queue | undefined;
  let stopping = false;
  const run = async (): Promise<number> => {
    const { role, messages, batch, payloadBytes } = prepared!;
    const payload = Buffer.alloc(payloadBytes, 'x');
    if (role === 'producer') {
      await pooled(messages, SEND_WINDOW, () => queue!.send(payload));
      return messages;
    }
    let acked = 0;
    let pending: Promise<void> = Promise.resolve();
    const complete = async (received: ReceivedMessage<Buffer>[]) => {
      if (received.length === 0) return;
      const results = await queue!.ackMany(received);
      const count = results.filter(Boolean).length;
      acked += count;
      post({ type: 'acked', count });
    };
    while (!stopping) {
      // Ack the previous batch while the next receive is in flight, as a careful consumer does.
      const [received] = await Promise.all([queue!.receive(60_000, { max: batch }), pending]);
      pending = complete(received);
      if (received.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await pending;
    return acked;
  };
  process.on('message', (command: ChildCommand) => {
    if (command.type === 'prepare') {
      prepared = command;
      stopping = false;
      queue =
        command.partitions === 0
          ? new ReliableQueue(client, command.queue, { codec: bytesCodec })
          : new PartitionedQueue(client, command.queue, { codec: bytesCodec, partitions: command.partitions });
      post({ type: 'ready' });
    } else if (command.type === 'go') {
      const cpu = process.cpuUsage();
      run().then(
        (count) => {
          const used = process.cpuUsage(cpu);
          post({ type: 'done', cpuUs: used.user + used.system, count });
        },
        (error: unknown) => post({ type: 'failed', error: String((error as Error)?.stack ?? error) }),
      );
    } else if (command.type === 'stop') {
      stopping = true;
    } else {
      process.disconnect(); // 'disconnect' below ends the process
    }
  });
  // The parent gone (ended or crashed): nothing more will come, so this process ends too.
  process.on('disconnect', () => {
    client.destroy();
    process.exit(0);
  });
  post({ type: 'ready' });
}

main().catch((error: unknown) => {
  post({ type: 'failed', error: String((error as Error)?.stack ?? error) });
  process.exitCode = 1;
});
