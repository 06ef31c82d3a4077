// Shared helpers of the admin tests: targets, fixtures, records.
import { randomBytes } from 'node:crypto';
import { contractTargets, standalone, type Connection as HarnessConnection, type Target as HarnessTarget } from '@respire/harness';
import { FakeRedisServer, type RedisVersion } from '@respire/testing';
import { afterAll, beforeAll } from 'vitest';
import type { RedisClientLike } from '@respire/core-scripts';
import type { Actor, AuditRecord } from '../src/index.js';
import type {} from '@respire/harness/global-setup';

export type Connection = HarnessConnection<RedisClientLike>;
export type Target = HarnessTarget<RedisClientLike>;

/**
 * node-redis v6 (RESP3) and v5 (RESP2) on the run's private Redis, v6 on its 3-master Cluster,
 * and v6 on the fake server (`@respire/testing`, Redis 7.0 model), which runs the same Lua.
 */
export const targets: Target[] = contractTargets<RedisClientLike>(() => FakeRedisServer.start({ version: '7.0' }));

/**
 * The fake server (`@respire/testing`) as Redis `version`, and a node-redis 6 connection to it, for
 * the enclosing describe block: started before its tests, closed after them.
 */
export function onFakeServer(version: RedisVersion): { readonly server: FakeRedisServer; readonly conn: Connection } {
  const fake = {} as { server: FakeRedisServer; conn: Connection };
  beforeAll(async () => {
    fake.server = await FakeRedisServer.start({ version });
    fake.conn = await standalone<RedisClientLike>(fake.server.url);
  });
  afterAll(async () => {
    await fake.conn?.close();
    await fake.server?.close();
  });
  return fake;
}

/**
 * Adds two entries (`k` = `a`, `b`) to `stream`, creates group `g` at 0 and reads both as
 * `consumer`: they are pending to it, delivered once. Returns their IDs.
 */
export async function pendingPair(conn: Connection, stream: string, consumer: string): Promise<[string, string]> {
  const a = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'a']));
  const b = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'b']));
  await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
  await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', consumer, 'STREAMS', stream, '>']);
  return [a, b];
}

export const operator: Actor = { name: 'alice', role: 'operator' };
export const viewer: Actor = { name: 'victor', role: 'viewer' };

/** A fresh hash tag: `{tag}:events` and `{tag}:dead` share a slot. */
export function uniqueKeys(label = 's'): { tag: string; stream: string; dead: string } {
  const tag = `${label}-${randomBytes(6).toString('hex')}`;
  return { tag, stream: `{${tag}}:events`, dead: `{${tag}}:dead` };
}

/** A queue name no other test uses. */
export const uniqueQueue = (label = 'q'): string => `${label}-${randomBytes(6).toString('hex')}`;

/** Appends a worker dead-letter record the way worker-complete.lua writes it. */
export async function addWorkerRecord(
  conn: Connection,
  dead: string,
  sourceId: string,
  fields: (string | Buffer)[],
  meta: { group?: string; attempt?: number; reason?: string; exceptionType?: string } = {},
): Promise<string> {
  return String(
    await conn.raw(dead, [
      'XADD',
      dead,
      '*',
      '_respire.source_id',
      sourceId,
      '_respire.group',
      meta.group ?? 'g',
      '_respire.attempt',
      String(meta.attempt ?? 3),
      '_respire.reason',
      meta.reason ?? 'delivery-limit',
      '_respire.exception_type',
      meta.exceptionType ?? '',
      ...fields,
    ]),
  );
}

/** Appends a queue dead-letter record the way queue-receive.lua writes it. */
export async function addQueueRecord(conn: Connection, dead: string, payload: string | Buffer, sourceId = '1-1', count = 5): Promise<string> {
  return String(await conn.raw(dead, ['XADD', dead, '*', 'payload', payload, 'source_id', sourceId, 'delivery_count', String(count)]));
}

/** XRANGE as [id, [field, value, ...]] with strings. */
export async function range(conn: Connection, stream: string): Promise<[string, string[]][]> {
  const reply = (await conn.raw(stream, ['XRANGE', stream, '-', '+'])) as unknown[][];
  return reply.map((r) => [String(r[0]), (r[1] as unknown[]).map(String)]);
}

/** XPENDING detail rows. */
export async function pendingRows(conn: Connection, stream: string, group: string): Promise<{ id: string; consumer: string; idle: number; count: number }[]> {
  const reply = (await conn.raw(stream, ['XPENDING', stream, group, '-', '+', '1000'])) as unknown[][];
  return reply.map((r) => ({ id: String(r[0]), consumer: String(r[1]), idle: Number(r[2]), count: Number(r[3]) }));
}

/** An audit logger that records. */
export function recordingAudit(): { records: AuditRecord[]; audit: (r: AuditRecord) => void } {
  const records: AuditRecord[] = [];
  return { records, audit: (r) => void records.push(r) };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value (every 25 ms), failing after `timeoutMs`. */
export async function eventually<R>(check: () => Promise<R> | R, timeoutMs = 15_000): Promise<R> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(25);
  }
}
