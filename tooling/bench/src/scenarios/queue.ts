// The ReliableQueue throughput scenarios of the bench.
import { randomBytes } from 'node:crypto';
import { ReliableQueue, bytesCodec, type ReceivedMessage } from '@respire/queue';
import { connect, type ClientSetting } from '../clients.js';
import { measureThroughput, payloadOf, type ThroughputResult } from '../result.js';
import { pooled } from '../server-stats.js';
import { loadHistoryScript, sampleQueue } from './history.js';

export interface QueueRun {
  messages: number;
  batch: number;
  consumers: number;
  /** 'batch': one ackMany per batch; 'single': one ack call per message. */
  ack: 'batch' | 'single';
  setting: ClientSetting;
  /** 'end-to-end': producer and consumers run together; 'processing': the queue is filled first. */
  mode: 'end-to-end' | 'processing';
  payloadBytes: number;
  /** Passed as the queue's `commandTimeoutMs` (what Respire can do with the caller's default client). */
  commandTimeoutMs?: number;
  /** A history sample of the queue (the admin's script) every this many ms, from another connection, during the run. */
  sampleEveryMs?: number;
  /** Appended to the scenario's label. */
  label?: string;
  /** A grouped queue (README "Message groups"), message i in group i mod `groups`. */
  groups?: number;
}

const SEND_WINDOW = 256;

/** send → receive → ack of `messages` messages through one ReliableQueue. */
export async function queueThroughput(url: string, run: QueueRun): Promise<ThroughputResult> {
  const client = await connect(url, run.setting);
  const name = `bench-${randomBytes(4).toString('hex')}`;
  const queue = new ReliableQueue(client, name, {
    codec: bytesCodec,
    ...(run.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: run.commandTimeoutMs }),
    ...(run.groups === undefined ? {} : { groups: {} }),
  });
  const payload = payloadOf(run.payloadBytes);
  const groups = run.groups;
  const produce = () =>
    pooled(run.messages, SEND_WINDOW, groups === undefined ? () => queue.send(payload) : (i) => queue.send(payload, { groupId: `g${i % groups}` }));
  let acked = 0;
  const complete = async (batch: ReceivedMessage<Buffer>[]) => {
    if (batch.length === 0) return;
    const results = run.ack === 'batch' ? await queue.ackMany(batch) : await Promise.all(batch.map((m) => queue.ack(m)));
    acked += results.filter(Boolean).length;
  };
  const consume = async () => {
    let pending: Promise<void> = Promise.resolve();
    while (acked < run.messages) {
      // Ack the previous batch while the next receive is in flight, as a careful consumer does.
      const [batch] = await Promise.all([queue.receive(60_000, { max: run.batch }), pending]);
      pending = complete(batch);
      if (batch.length === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    await pending;
  };
  if (run.mode === 'processing') await produce();
  const setting = run.commandTimeoutMs === undefined ? run.setting : `${run.setting} client, commandTimeoutMs ${run.commandTimeoutMs}`;
  const label = `queue ${run.mode} batch ${run.batch} ack ${run.ack} x${run.consumers} (${setting})${run.label ? `, ${run.label}` : ''}`;
  const sampler = run.sampleEveryMs === undefined ? undefined : await connect(url, run.setting);
  const sha = sampler ? await loadHistoryScript(sampler) : '';
  try {
    return await measureThroughput(label, client, run.messages, async () => {
      let samples: Promise<unknown> = Promise.resolve();
      const timer = sampler ? setInterval(() => (samples = samples.then(() => sampleQueue(sampler, sha, queue.streamKey))), run.sampleEveryMs) : undefined;
      try {
        await Promise.all([run.mode === 'end-to-end' ? produce() : Promise.resolve(), ...Array.from({ length: run.consumers }, consume)]);
      } finally {
        clearInterval(timer);
        await samples;
      }
    });
  } finally {
    await client.sendCommand(['DEL', queue.streamKey]);
    client.destroy();
    sampler?.destroy();
  }
}
