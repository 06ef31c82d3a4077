// The noisy-neighbour scenario: how long quiet groups wait beside one group with a large backlog.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { connect } from '../clients.js';
import { payloadOf } from '../result.js';
import { percentile } from '../server-stats.js';

export interface NoisyRun {
  /** Messages already waiting in the one noisy group when the quiet groups send (0: no noisy group). */
  noisyBacklog: number;
  /** Quiet groups, each sending `perQuietGroup` messages. */
  quietGroups: number;
  perQuietGroup: number;
  /** `max` of every receive. */
  max: number;
}

export interface NoisyResult {
  noisyBacklog: number;
  /** Wait of the quiet groups' messages, send call to the receive that delivered it, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Receives made until every quiet message was delivered. */
  receives: number;
}

const SEND_MANY = 1000;

/**
 * Fills the noisy group (sendMany of 1,000, not timed), then starts one consumer (receive with
 * `max`, then ackMany of the batch) and sends every quiet message in one sendMany; stops when
 * each quiet message has been delivered. Ordered groups (the default of `groups: {}`).
 */
export async function noisyNeighbour(url: string, run: NoisyRun): Promise<NoisyResult> {
  const client = await connect(url, 'timeout-0');
  const queue = new ReliableQueue(client, `bench-noisy-${randomBytes(4).toString('hex')}`, { codec: bytesCodec, groups: {} });
  const payload = payloadOf(100);
  try {
    for (let sent = 0; sent < run.noisyBacklog; sent += SEND_MANY) {
      const n = Math.min(SEND_MANY, run.noisyBacklog - sent);
      await queue.sendMany(Array.from({ length: n }, () => ({ payload, groupId: 'noisy' })));
    }
    const quietTotal = run.quietGroups * run.perQuietGroup;
    // Every quiet message arrives in one sendMany (message m of every quiet group before m + 1 of
    // any), so each one's wait is the consumer's scheduling, not the producer's pace; the clock
    // starts as the consumer starts, just before that call.
    const items = [];
    for (let m = 0; m < run.perQuietGroup; m++) {
      for (let g = 0; g < run.quietGroups; g++) items.push({ payload, groupId: `quiet-${g}` });
    }
    const sentAt = performance.now();
    const waits: number[] = [];
    let receives = 0;
    const consumer = (async () => {
      while (waits.length < quietTotal) {
        const batch = await queue.receive(60_000, { max: run.max });
        const now = performance.now();
        receives++;
        for (const message of batch) {
          if (message.groupId === 'noisy') continue;
          waits.push(now - sentAt);
        }
        if (batch.length > 0) await queue.ackMany(batch);
        else await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await queue.sendMany(items);
    await consumer;
    waits.sort((a, b) => a - b);
    return { noisyBacklog: run.noisyBacklog, p50Ms: percentile(waits, 50), p99Ms: percentile(waits, 99), maxMs: waits[waits.length - 1]!, receives };
  } finally {
    client.destroy();
  }
}
