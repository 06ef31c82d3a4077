// The raw processing ceiling the StreamWorker is compared with.
import { randomBytes } from 'node:crypto';
import { connect, type BenchClient } from '../clients.js';
import { measureThroughput, type ThroughputResult } from '../result.js';
import { entriesOf, fillStream } from './stream-fill.js';

export interface CeilingRun {
  messages: number;
  consumerCount: number;
  batchSize: number;
  payloadBytes: number;
}

/**
 * The raw processing ceiling for a stream consumer, as a careful engineer writes it without Respire:
 * `consumerCount` connections, each reading XREADGROUP COUNT `batchSize` BLOCK and acknowledging the
 * whole batch with one XACK written together with its next read (the next `>` read does not depend
 * on the acknowledgement). No fencing, no handler, no entry objects: what Redis and node-redis cost.
 */
export async function streamCeiling(url: string, run: CeilingRun): Promise<ThroughputResult> {
  const client = await connect(url, 'timeout-0');
  const stream = `{bench-${randomBytes(4).toString('hex')}}:events`;
  await fillStream(client, stream, run.messages, run.payloadBytes);
  const readers = await Promise.all(Array.from({ length: run.consumerCount }, () => connect(url, 'timeout-0')));
  let acked = 0;
  let stopped = false;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const consume = async (reader: BenchClient, index: number) => {
    let ids: string[] = [];
    while (!stopped) {
      // Sent in the same tick: node-redis writes both at once and Redis runs the XACK first.
      const ack = ids.length > 0 ? reader.sendCommand(['XACK', stream, 'g', ...ids]) : undefined;
      const read = reader.sendCommand(['XREADGROUP', 'GROUP', 'g', `c${index}`, 'COUNT', String(run.batchSize), 'BLOCK', '100', 'STREAMS', stream, '>']);
      if (ack) {
        const count = Number(await ack); // not `acked += await ack`: that reads `acked` before awaiting
        acked += count;
        if (acked >= run.messages) finish();
      }
      ids = entriesOf(await read).map(([id]) => id);
    }
  };
  let loops: Promise<void>[] = [];
  try {
    return await measureThroughput(
      `raw ceiling: XREADGROUP COUNT ${run.batchSize} + XACK of the batch pipelined, x${run.consumerCount}`,
      client,
      run.messages,
      async () => {
        loops = readers.map((reader, i) => consume(reader, i));
        await finished;
      },
    );
  } finally {
    stopped = true;
    await Promise.allSettled(loops);
    await client.sendCommand(['DEL', stream]);
    for (const reader of readers) reader.destroy();
    client.destroy();
  }
}
