// Receive latency and recovery cost with a large leased backlog.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect } from '../clients.js';
import { delta, percentile, pooled, sampleServer } from '../server-stats.js';

export interface ScaleResult {
  /** Messages leased (with a distant deadline) in the deadline index while measuring. */
  readonly backlog: number;
  readonly receiveP50Ms: number;
  readonly receiveP99Ms: number;
  /** Wall time per due message while recovering `dueMessages` expired leases, µs. */
  readonly recoveryUsPerDue: number;
  /** Redis CPU per due message recovered, µs. */
  readonly recoveryCpuUsPerDue: number;
  readonly dueMessages: number;
}

/**
 * Receive latency with `backlog` messages leased in the deadline index, and the cost of
 * recovering due messages alongside that backlog.
 */
export async function scale(url: string, backlog: number, samples: number, dueMessages: number): Promise<ScaleResult> {
  const client = await connect(url, 'timeout-0');
  const queue = new ReliableQueue(client, `bench-scale-${randomBytes(4).toString('hex')}`, { codec: bytesCodec, deliveryLimit: 1000 });
  const payload = Buffer.alloc(100, 'x');
  try {
    await pooled(backlog, 512, () => queue.send(payload));
    for (let leased = 0; leased < backlog;) leased += (await queue.receive(3_600_000, { max: 1000 })).length;

    const latencies: number[] = [];
    for (let i = 0; i < samples; i++) {
      await queue.send(payload);
      const started = process.hrtime.bigint();
      const batch = await queue.receive(60_000, { max: 10 });
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
      await queue.ackMany(batch);
    }
    latencies.sort((a, b) => a - b);

    // Lease them all with a short timeout, long enough that none is due before all are leased
    // (due entries come first, so a 1 ms lease would be redelivered instead of leasing the rest).
    await pooled(dueMessages, 512, () => queue.send(payload));
    const leaseMs = 3_000;
    const leaseStarted = Date.now();
    for (let leased = 0; leased < dueMessages;) leased += (await queue.receive(leaseMs, { max: 1000 })).length;
    if (Date.now() - leaseStarted >= leaseMs) throw new Error('leasing the due messages took longer than their lease');
    await sleep(leaseMs + 50);
    const before = await sampleServer(client);
    const started = process.hrtime.bigint();
    for (let recovered = 0; recovered < dueMessages;) {
      const batch = await queue.receive(60_000, { max: 100 });
      recovered += batch.filter((m) => m.deliveryCount > 1).length;
    }
    const wallUs = Number(process.hrtime.bigint() - started) / 1e3;
    const d = delta(before, await sampleServer(client));
    return {
      backlog,
      receiveP50Ms: percentile(latencies, 50),
      receiveP99Ms: percentile(latencies, 99),
      recoveryUsPerDue: wallUs / dueMessages,
      recoveryCpuUsPerDue: d.cpuUs / dueMessages,
      dueMessages,
    };
  } finally {
    await client.sendCommand(['DEL', queue.streamKey]);
    client.destroy();
  }
}
