// The BullMQ scenario of the bench.
import { randomBytes } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { connect } from '../clients.js';
import { measureThroughput, type ThroughputResult } from '../result.js';

export interface BullRun {
  messages: number;
  concurrency: number;
  mode: 'end-to-end' | 'processing';
  payloadBytes: number;
}

/** BullMQ add → process → complete of the same jobs, removeOnComplete, a no-op processor. */
export async function bullmqThroughput(url: string, run: BullRun): Promise<ThroughputResult> {
  const { hostname, port } = new URL(url);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
  const name = `bench-bull-${randomBytes(4).toString('hex')}`;
  const queue = new Queue(name, { connection });
  const data = { payload: 'x'.repeat(run.payloadBytes) };
  const produce = async () => {
    for (let i = 0; i < run.messages; i += 1000) {
      const jobs = Array.from({ length: Math.min(1000, run.messages - i) }, () => ({ name: 'job', data, opts: { removeOnComplete: true } }));
      await queue.addBulk(jobs);
    }
  };
  if (run.mode === 'processing') await produce();
  const admin = await connect(url, 'default');
  let completed = 0;
  let resolveAll!: () => void;
  const allDone = new Promise<void>((resolve) => (resolveAll = resolve));
  try {
    return await measureThroughput(`bullmq ${run.mode} concurrency ${run.concurrency}`, admin, run.messages, async () => {
      const worker = new Worker(name, async () => undefined, { connection, concurrency: run.concurrency, autorun: true });
      worker.on('completed', () => {
        if (++completed === run.messages) resolveAll();
      });
      await Promise.all([run.mode === 'end-to-end' ? produce() : Promise.resolve(), allDone]);
      await worker.close();
    });
  } finally {
    await queue.obliterate({ force: true }).catch(() => {});
    await queue.close();
    admin.destroy();
  }
}
