// The StreamWorker scenarios of the bench: throughput and handler-to-ack latency.
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { StreamWorker, StreamWorkerResult, type StreamWorkerInstrumentation } from '@respire/worker';
import { connect, type BenchClient } from '../clients.js';
import { measureThroughput, type ThroughputResult } from '../result.js';
import { percentile } from '../server-stats.js';
import { fillStream } from './stream-fill.js';

export interface WorkerRun {
  messages: number;
  consumerCount: number;
  batchSize: number;
  payloadBytes: number;
  instrumentation?: StreamWorkerInstrumentation;
  /** Also measure handler-to-ack latency (through the instrumentation seam's `end`). */
  latency?: boolean;
  label?: string;
}

/** Handler-to-ack latency: from the handler's return to the confirmed completion, ms. */
export interface AckLatency {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly samples: number;
}

export type WorkerResult = ThroughputResult & { readonly ackLatency?: AckLatency };

const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/** Polls XINFO GROUPS (every millisecond) until the group has read and acknowledged every entry. */
async function waitAcknowledged(client: BenchClient, stream: string, messages: number): Promise<void> {
  for (;;) {
    const groups = (await client.sendCommand(['XINFO', 'GROUPS', stream])) as unknown[];
    const group = groups[0] as Record<string, unknown> | unknown[];
    const get = (name: string) => (Array.isArray(group) ? group[group.indexOf(name) + 1] : group[name]);
    if (Number(get('pending')) === 0 && Number(get('entries-read')) >= messages) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/** Records when each handler returned and, at the delivery's end (after its completion), how long ago that was. */
function latencyProbe(): { instrumentation: StreamWorkerInstrumentation; returned(id: string): void; result(): AckLatency } {
  const returnedAt = new Map<string, number>();
  const samples: number[] = [];
  return {
    instrumentation: {
      startDelivery: (start) => ({
        end: () => {
          const at = returnedAt.get(start.entryId);
          if (at === undefined) return;
          samples.push(performance.now() - at);
          returnedAt.delete(start.entryId);
        },
      }),
    },
    returned: (id) => void returnedAt.set(id, performance.now()),
    result: () => {
      const sorted = samples.sort((a, b) => a - b);
      return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), samples: sorted.length };
    },
  };
}

/** StreamWorker processing a filled stream with a no-op handler (fenced completion). */
export async function workerThroughput(url: string, run: WorkerRun): Promise<WorkerResult> {
  const client = await connect(url, 'timeout-0');
  const stream = `{bench-${randomBytes(4).toString('hex')}}:events`;
  await fillStream(client, stream, run.messages, run.payloadBytes);
  const label = run.label ?? `StreamWorker consumerCount ${run.consumerCount} batchSize ${run.batchSize}`;
  const probe = run.latency ? latencyProbe() : undefined;
  const instrumentation = probe?.instrumentation ?? run.instrumentation;
  // The handler counts its calls, so the end is polled for only once every entry was handled.
  let handled = 0;
  let allHandled!: () => void;
  const everyEntryHandled = new Promise<void>((resolve) => (allHandled = resolve));
  const count = () => {
    if (++handled === run.messages) allHandled();
  };
  const handler = probe ? (entry: { id: string }) => (count(), probe.returned(entry.id), StreamWorkerResult.Ack) : () => (count(), StreamWorkerResult.Ack);
  let worker: { stop(): Promise<void> } | undefined;
  try {
    // Measured: start, then until every entry is acknowledged; stop() is not part of the figure.
    const row = await measureThroughput(label, client, run.messages, async () => {
      const started = new StreamWorker({
        client,
        stream,
        group: 'g',
        consumerCount: run.consumerCount,
        batchSize: run.batchSize,
        readWaitMs: 100,
        logger: quietLogger,
        telemetryName: `bench-${randomBytes(4).toString('hex')}`,
        handler,
        ...(instrumentation ? { instrumentation } : {}),
      });
      worker = started;
      await started.start();
      await everyEntryHandled;
      await waitAcknowledged(client, stream, run.messages);
    });
    return probe ? { ...row, ackLatency: probe.result() } : row;
  } finally {
    await worker?.stop();
    await client.sendCommand(['DEL', stream]);
    client.destroy();
  }
}
