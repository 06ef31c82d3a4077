// The raw-stream ceiling the queue is compared with: XADD, XREADGROUP, XACK and XDEL.
import { randomBytes } from 'node:crypto';
import { connect, type ClientSetting } from '../clients.js';
import { measureThroughput, payloadOf, type ThroughputResult } from '../result.js';
import { pooled } from '../server-stats.js';

export interface RawRun {
  messages: number;
  batch: number;
  consumers: number;
  setting: ClientSetting;
  mode: 'end-to-end' | 'processing';
  payloadBytes: number;
}

type Entries = [string, string[]][] | null;

/** Reads the entries of one stream from an XREADGROUP reply in either protocol's shape. */
function entriesOf(reply: unknown): Entries {
  if (!reply) return null;
  if (Array.isArray(reply)) return (reply[0] as [string, Entries])[1];
  const map = reply as Record<string, Entries> | Map<string, Entries>;
  return map instanceof Map ? [...map.values()][0]! : Object.values(map)[0]!;
}

/**
 * The ceiling for this design, with no Respire: pipelined XADD; XREADGROUP COUNT n; XACK + XDEL
 * of each batch pipelined with the next read. No leases, no receipts, no dead letters.
 */
export async function rawThroughput(url: string, run: RawRun): Promise<ThroughputResult> {
  const client = await connect(url, run.setting);
  const stream = `bench-raw-${randomBytes(4).toString('hex')}`;
  await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
  const payload = payloadOf(run.payloadBytes);
  const produce = () => pooled(run.messages, 256, () => client.sendCommand(['XADD', stream, '*', 'payload', payload]));
  let done = 0;
  const consume = async (consumer: number) => {
    let pending: Promise<unknown> = Promise.resolve();
    while (done < run.messages) {
      const [reply] = await Promise.all([
        client.sendCommand(['XREADGROUP', 'GROUP', 'g', `c${consumer}`, 'COUNT', String(run.batch), 'STREAMS', stream, '>']),
        pending,
      ]);
      const ids = (entriesOf(reply) ?? []).map(([id]) => id);
      if (ids.length === 0) {
        pending = Promise.resolve();
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      pending = Promise.all([client.sendCommand(['XACK', stream, 'g', ...ids]), client.sendCommand(['XDEL', stream, ...ids])]).then(() => {
        done += ids.length;
      });
    }
    await pending;
  };
  if (run.mode === 'processing') await produce();
  try {
    return await measureThroughput(`raw stream ${run.mode} batch ${run.batch} x${run.consumers} (${run.setting})`, client, run.messages, async () => {
      await Promise.all([run.mode === 'end-to-end' ? produce() : Promise.resolve(), ...Array.from({ length: run.consumers }, (_, i) => consume(i))]);
    });
  } finally {
    await client.sendCommand(['DEL', stream]);
    client.destroy();
  }
}
