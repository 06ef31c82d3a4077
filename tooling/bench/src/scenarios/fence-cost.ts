// What fencing a worker's completions costs Redis, against a plain XACK.
import { randomBytes } from 'node:crypto';
import { scripts } from '@respire/core-scripts/internal';
import { connect, type BenchClient } from '../clients.js';
import { measureThroughput, type ThroughputResult } from '../result.js';
import { entriesOf, fillStream } from './stream-fill.js';

/**
 * What fencing costs Redis: one connection reads COUNT `batchSize` and completes each read with one
 * command written together with the next read, three ways: a plain XACK (no fence), the least a
 * fenced batch can do (a script with one XPENDING over the read's range for the consumer and one
 * XACK), and the worker's own `worker-complete` script. The same loop, so only the completion differs;
 * `rounds` interleaved rounds, each way's cheapest (in Redis CPU) reported.
 */
export async function fenceCost(url: string, messages: number, batchSize: number, payloadBytes: number, rounds: number): Promise<ThroughputResult[]> {
  const client = await connect(url, 'timeout-0');
  const minimal = String(
    await client.sendCommand([
      'SCRIPT',
      'LOAD',
      'local ids = {} for i = 3, #ARGV do ids[#ids + 1] = ARGV[i] end ' +
        "redis.call('XPENDING', KEYS[1], 'g', ARGV[1], ARGV[2], #ids, 'c') redis.call('XACK', KEYS[1], 'g', unpack(ids)) return #ids",
    ]),
  );
  const complete = String(await client.sendCommand(['SCRIPT', 'LOAD', scripts.workerComplete.source]));
  const ways: [string, (stream: string, ids: string[]) => string[]][] = [
    ['XACK of the read (no fence)', (stream, ids) => ['XACK', stream, 'g', ...ids]],
    ['one XPENDING + one XACK in a script (the least a fenced batch pays)', (stream, ids) => ['EVALSHA', minimal, '1', stream, ids[0]!, ids.at(-1)!, ...ids]],
    [
      'worker-complete',
      (stream, ids) => ['EVALSHA', complete, '2', stream, stream, 'g', 'c', '0', '60000', ids[0]!, ids.at(-1)!, ...ids.flatMap((id) => [id, '1', 'ack'])],
    ],
  ];
  // Interleaved rounds; each way keeps its cheapest round (CPU cost only grows with the machine's load).
  const best: ThroughputResult[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const [i, [label, command]] of ways.entries()) {
        const stream = `{fence-${randomBytes(4).toString('hex')}}:events`;
        await fillStream(client, stream, messages, payloadBytes);
        const row = await measureThroughput(`completing reads of ${batchSize}: ${label}`, client, messages, () => drain(client, stream, batchSize, command));
        if (best[i] === undefined || row.redisCpuUsPerMessage < best[i]!.redisCpuUsPerMessage) best[i] = row;
        await client.sendCommand(['DEL', stream]);
      }
    }
  } finally {
    client.destroy();
  }
  return best;
}

async function drain(client: BenchClient, stream: string, batchSize: number, command: (stream: string, ids: string[]) => string[]): Promise<void> {
  let ids: string[] = [];
  for (;;) {
    const completion = ids.length > 0 ? client.sendCommand(command(stream, ids)) : undefined;
    const read = client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', String(batchSize), 'STREAMS', stream, '>']);
    await completion;
    ids = entriesOf(await read).map(([id]) => id);
    if (ids.length === 0) return;
  }
}
