// Helpers of the grouped-queue suites: the grouped keys and the server-clock waits on them.
import { expect } from 'vitest';
import { queueKeys } from '@respire/core-scripts/internal';
import { eventually, serverTimeMs, type Connection } from './support.js';

/** The grouped keys of queue `name` (no key prefix), as `groups` resolves them (README "Message groups"). */
export function groupedKeys(name: string): {
  stream: string;
  deadlines: string;
  deadLetter: string;
  ready: string;
  leased: string;
  backlogPrefix: string;
  wake: string;
  ungroupedStream: string;
  pattern: string;
} {
  const base = `{respire-queue:${name}}`;
  return {
    stream: `${base}:groups:stream`,
    deadlines: `${base}:groups:deadlines`,
    deadLetter: `${base}:groups:dead-letter`,
    ready: `${base}:groups:ready`,
    leased: `${base}:groups:leased`,
    backlogPrefix: `${base}:groups:group:`,
    wake: `${base}:groups:wake`,
    ungroupedStream: queueKeys(name, '').stream,
    pattern: `${base}:*`,
  };
}

/** Waits until every member of the grouped deadlines index is due on the server's own clock. */
export async function untilAllGroupedDue(conn: Connection, name: string): Promise<void> {
  const { deadlines } = groupedKeys(name);
  const top = (await conn.raw(deadlines, ['ZRANGE', deadlines, '-1', '-1', 'WITHSCORES'])) as unknown[];
  if (top.length === 0) return;
  // RESP2: [member, score]; RESP3: [[member, score]].
  const score = Number(Array.isArray(top[0]) ? (top[0] as unknown[])[1] : top[1]);
  await eventually(async () => (await serverTimeMs(conn, deadlines)) >= score, 10_000, 5);
}

/** The queue's keys that exist now, sorted. */
export async function existingKeys(conn: Connection, name: string): Promise<string[]> {
  const { pattern, stream } = groupedKeys(name);
  return ((await conn.raw(stream, ['KEYS', pattern])) as string[]).map(String).sort();
}

/**
 * The queue's keys that exist now but its wake stream, sorted; the wake stream, when it exists,
 * holds one entry at most (it stays once a group moved on: one key for the whole queue).
 */
export async function withoutWake(conn: Connection, name: string): Promise<string[]> {
  const { wake } = groupedKeys(name);
  const keys = await existingKeys(conn, name);
  if (keys.includes(wake)) expect(await conn.raw(wake, ['XLEN', wake])).toBe(1);
  return keys.filter((key) => key !== wake);
}

/** The dead-letter records of a stream: entry ID, source entry ID and delivery count. */
export async function deadLetters(conn: Connection, key: string): Promise<{ id: string; sourceId: string; deliveryCount: number }[]> {
  const entries = (await conn.raw(key, ['XRANGE', key, '-', '+'])) as [string, string[]][];
  return entries.map(([id, fields]) => {
    const value = (name: string): string => String(fields[fields.findIndex((f, i) => i % 2 === 0 && String(f) === name) + 1]);
    return { id: String(id), sourceId: value('source_id'), deliveryCount: Number(value('delivery_count')) };
  });
}

/** Every key of the queue with its type and contents, to prove that a refused call changed nothing. */
export async function groupedSnapshot(conn: Connection, name: string): Promise<string> {
  const { stream } = groupedKeys(name);
  const dump: unknown[] = [];
  for (const key of await existingKeys(conn, name)) {
    const type = String(await conn.raw(stream, ['TYPE', key]));
    const read: Record<string, string[]> = {
      stream: ['XRANGE', key, '-', '+'],
      zset: ['ZRANGE', key, '0', '-1', 'WITHSCORES'],
      list: ['LRANGE', key, '0', '-1'],
      hash: ['HGETALL', key],
      string: ['GET', key],
    };
    dump.push([key, type, read[type] ? await conn.raw(stream, read[type]) : null]);
  }
  return JSON.stringify(dump);
}
