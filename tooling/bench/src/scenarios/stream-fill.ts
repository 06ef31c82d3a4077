// Filling a stream for the worker scenarios.
import type { BenchClient } from '../clients.js';
import { payloadOf } from '../result.js';
import { pooled } from '../server-stats.js';

/** Creates group `g` and appends `messages` entries with one `payload` field of `payloadBytes` bytes. */
export async function fillStream(client: BenchClient, stream: string, messages: number, payloadBytes: number): Promise<void> {
  const payload = payloadOf(payloadBytes);
  await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
  await pooled(messages, 512, () => client.sendCommand(['XADD', stream, '*', 'payload', payload]));
}

/** The entries of the one stream in an XREADGROUP reply, in either protocol's shape (nil: none). */
export function entriesOf(reply: unknown): [string, unknown][] {
  if (!reply) return [];
  if (Array.isArray(reply)) return (reply[0] as [string, [string, unknown][]])[1];
  const map = reply as Record<string, [string, unknown][]> | Map<string, [string, unknown][]>;
  return (map instanceof Map ? [...map.values()][0] : Object.values(map)[0]) ?? [];
}
