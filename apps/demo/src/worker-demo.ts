// The worker half of the demo: orders through a StreamWorker, poison ones dead-lettered, invariants checked.
import { setTimeout as sleep } from 'node:timers/promises';
import { StreamWorker, StreamWorkerResult, type StreamEntry } from '@respire/worker';
import type { RedisClientLike } from '@respire/core-scripts';

export interface WorkerDemoOptions {
  orders: number;
  consumerCount: number;
  batchSize: number;
  deliveryLimit: number;
  log: (line: string) => void;
}

export interface WorkerDemoSummary {
  produced: number;
  attempts: number;
  acked: number;
  retried: number;
  deadLettered: Record<string, number>;
  elapsedMs: number;
  failures: string[];
}

/** Every 89th order always throws: it ends as `processing-failed` after the delivery limit. */
const isPoison = (order: number) => order % 89 === 0;
/** Every 101st order is invalid: the handler dead-letters it explicitly. */
const isInvalid = (order: number) => order % 101 === 0 && !isPoison(order);
/** About one order in ten fails its first attempt and is recovered after the minimum idle time. */
const failsOnce = (order: number) => order % 10 === 7;

class PaymentGatewayTimeout extends Error {}

type Raw = { sendCommand: (...args: unknown[]) => Promise<unknown>; masters?: unknown };

/**
 * Order fulfilment from an existing stream: a StreamWorker with 4 readers handles each order;
 * transient failures are retried by idle-pending recovery, invalid orders are dead-lettered
 * explicitly, poison orders exhaust the delivery limit.
 */
export async function runWorkerDemo(client: RedisClientLike, tag: string, options: WorkerDemoOptions): Promise<WorkerDemoSummary> {
  const stream = `{${tag}}:orders`;
  const deadLetterStream = `{${tag}}:orders-dead`;
  const send = (args: string[]) => {
    const c = client as Raw;
    return Array.isArray(c.masters) ? c.sendCommand(stream, false, args) : c.sendCommand(args);
  };
  const summary: WorkerDemoSummary = { produced: 0, attempts: 0, acked: 0, retried: 0, deadLettered: {}, elapsedMs: 0, failures: [] };
  const orderOf = new Map<string, number>();
  const ackedIds = new Set<string>();

  for (let order = 1; order <= options.orders; order += 200) {
    const ids = await Promise.all(
      Array.from(
        { length: Math.min(200, options.orders - order + 1) },
        (_, i) => send(['XADD', stream, '*', 'order-id', String(order + i), 'status', 'paid']) as Promise<string>,
      ),
    );
    ids.forEach((id, i) => orderOf.set(String(id), order + i));
    summary.produced += ids.length;
  }

  const started = Date.now();
  const worker = new StreamWorker({
    client,
    stream,
    group: 'fulfillment',
    consumerCount: options.consumerCount,
    batchSize: options.batchSize,
    readWaitMs: 200,
    minimumIdleTimeMs: 300,
    recoveryPollIntervalMs: 100,
    deadLetterStream,
    deliveryLimit: options.deliveryLimit,
    telemetryName: `demo-${tag}`,
    logger: { debug() {}, info() {}, warn() {}, error: (message: string) => options.log(`  worker error: ${message}`) },
    handler: (entry: StreamEntry) => {
      summary.attempts++;
      if (entry.deliveryCount > 1) summary.retried++;
      const order = Number(entry.getString('order-id'));
      if (isPoison(order)) throw new PaymentGatewayTimeout();
      if (isInvalid(order)) return StreamWorkerResult.DeadLetter;
      if (failsOnce(order) && entry.deliveryCount === 1) return StreamWorkerResult.Nack;
      if (ackedIds.has(entry.id)) summary.failures.push(`order ${order} handled after it was acked`);
      ackedIds.add(entry.id);
      summary.acked++;
      return StreamWorkerResult.Ack;
    },
  });

  const expectedDead = [...orderOf.values()].filter((o) => isPoison(o) || isInvalid(o)).length;
  const progress = setInterval(() => {
    options.log(`  worker: attempts ${summary.attempts}, acked ${summary.acked}, retried ${summary.retried}`);
  }, 500);
  await worker.start();
  try {
    for (;;) {
      const pending = (await send(['XPENDING', stream, 'fulfillment'])) as [number | string, ...unknown[]];
      const dead = Number(await send(['XLEN', deadLetterStream]));
      if (Number(pending[0]) === 0 && summary.acked + dead >= options.orders - 0 && dead >= expectedDead) break;
      if (Date.now() - started > 120_000) throw new Error('the worker demo did not finish within 120 s');
      await sleep(50);
    }
  } finally {
    clearInterval(progress);
    await worker.stop(5_000);
  }
  summary.elapsedMs = Date.now() - started;

  // Invariants: every order acked or dead-lettered exactly once, with the record fields the worker README documents.
  const records = (await send(['XRANGE', deadLetterStream, '-', '+'])) as [string, string[]][];
  const deadIds = new Set<string>();
  for (const [, fields] of records) {
    const names = fields.filter((_, i) => i % 2 === 0);
    const value = (name: string) => fields[fields.indexOf(name) + 1];
    if (names.slice(0, 5).join() !== '_respire.source_id,_respire.group,_respire.attempt,_respire.reason,_respire.exception_type') {
      summary.failures.push(`a dead-letter record starts with ${names.slice(0, 5).join()}`);
    }
    const source = value('_respire.source_id')!;
    const order = orderOf.get(source);
    const reason = value('_respire.reason')!;
    summary.deadLettered[reason] = (summary.deadLettered[reason] ?? 0) + 1;
    if (deadIds.has(source)) summary.failures.push(`entry ${source} dead-lettered twice`);
    deadIds.add(source);
    if (order === undefined) summary.failures.push(`dead letter for unknown entry ${source}`);
    else if (
      isPoison(order) &&
      (reason !== 'processing-failed' ||
        value('_respire.exception_type') !== 'PaymentGatewayTimeout' ||
        value('_respire.attempt') !== String(options.deliveryLimit))
    ) {
      summary.failures.push(`poison order ${order}: reason ${reason}, attempt ${value('_respire.attempt')}`);
    } else if (isInvalid(order) && reason !== 'explicit') summary.failures.push(`invalid order ${order}: reason ${reason}`);
    if (value('order-id') !== String(order)) summary.failures.push(`dead letter of order ${order} lost its fields`);
  }
  for (const id of deadIds) if (ackedIds.has(id)) summary.failures.push(`entry ${id} both acked and dead-lettered`);
  if (ackedIds.size + deadIds.size !== orderOf.size) summary.failures.push(`produced ${orderOf.size}, acked ${ackedIds.size} + dead-lettered ${deadIds.size}`);
  if (deadIds.size !== expectedDead) summary.failures.push(`expected ${expectedDead} dead letters, found ${deadIds.size}`);
  return summary;
}
