import { randomBytes } from 'node:crypto';
import { StreamWorker, StreamWorkerResult, type StreamWorkerInstrumentation } from '@respire/worker';
import { connect, type BenchClient } from '../clients.js';
import { measureThroughput, payloadOf, type ThroughputResult } from '../result.js';
import { pooled } from '../server-stats.js';

export interface WorkerRun {
  messages: number;
  consumerCount: number;
  batchSize: number;
  payloadBytes: number;
  instrumentation?: StreamWorkerInstrumentation;
  label?: string;
}

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

async function fill(client: BenchClient, stream: string, messages: number, payloadBytes: number): Promise<void> {
  const payload = payloadOf(payloadBytes);
  await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
  await pooled(messages, 512, () => client.sendCommand(['XADD', stream, '*', 'payload', payload]));
}

async function waitAcknowledged(client: BenchClient, stream: string, messages: number): Promise<void> {
  for (;;) {
    const groups = (await client.sendCommand(['XINFO', 'GROUPS', stream])) as unknown[];
    const group = groups[0] as Record<string, unknown> | unknown[];
    const get = (name: string) => (Array.isArray(group) ? group[group.indexOf(name) + 1] : group[name]);
    if (Number(get('pending')) === 0 && Number(get('entries-read')) >= messages) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** StreamWorker processing a filled stream with a no-op handler (fenced completion per entry). */
export async function workerThroughput(url: string, run: WorkerRun): Promise<ThroughputResult> {
  const client = await connect(url, 'timeout-0');
  const stream = `{bench-${randomBytes(4).toString('hex')}}:events`;
  await fill(client, stream, run.messages, run.payloadBytes);
  const label = run.label ?? `StreamWorker consumerCount ${run.consumerCount} batchSize ${run.batchSize}`;
  let worker: { stop(): Promise<void> } | undefined;
  try {
    // Measured: start, then until every entry is acknowledged; stop() is not part of the figure.
    return await measureThroughput(label, client, run.messages, async () => {
      const started = new StreamWorker({
        client,
        stream,
        group: 'g',
        consumerCount: run.consumerCount,
        batchSize: run.batchSize,
        readWaitMs: 100,
        logger: quietLogger,
        telemetryName: `bench-${randomBytes(4).toString('hex')}`,
        handler: () => StreamWorkerResult.Ack,
        ...(run.instrumentation ? { instrumentation: run.instrumentation } : {}),
      });
      worker = started;
      await started.start();
      await waitAcknowledged(client, stream, run.messages);
    });
  } finally {
    await worker?.stop();
    await client.sendCommand(['DEL', stream]);
    client.destroy();
  }
}

/** A careful hand-written loop: consumerCount connections, XREADGROUP COUNT batchSize BLOCK, XACK per entry. */
export async function handWrittenLoop(url: string, run: WorkerRun): Promise<ThroughputResult> {
  const client = await connect(url, 'timeout-0');
  const stream = `{bench-${randomBytes(4).toString('hex')}}:events`;
  await fill(client, stream, run.messages, run.payloadBytes);
  const readers = await Promise.all(Array.from({ length: run.consumerCount }, () => connect(url, 'timeout-0')));
  let done = 0;
  try {
    return await measureThroughput(`hand-written XREADGROUP/XACK loop x${run.consumerCount} COUNT ${run.batchSize}`, client, run.messages, async () => {
      await Promise.all(
        readers.map(async (reader, i) => {
          while (done < run.messages) {
            const reply = await reader.sendCommand(['XREADGROUP', 'GROUP', 'g', `c${i}`, 'COUNT', String(run.batchSize), 'BLOCK', '100', 'STREAMS', stream, '>']);
            const entries = entriesOf(reply);
            for (const [id] of entries) {
              await reader.sendCommand(['XACK', stream, 'g', id]);
              done++;
            }
          }
        }),
      );
    });
  } finally {
    await client.sendCommand(['DEL', stream]);
    for (const reader of readers) reader.destroy();
    client.destroy();
  }
}

function entriesOf(reply: unknown): [string, unknown][] {
  if (!reply) return [];
  if (Array.isArray(reply)) return (reply[0] as [string, [string, unknown][]])[1];
  const map = reply as Record<string, [string, unknown][]> | Map<string, [string, unknown][]>;
  return (map instanceof Map ? [...map.values()][0] : Object.values(map)[0]) ?? [];
}
