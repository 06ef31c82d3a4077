// The worker suites' targets, fixture and small Redis helpers.
import {
  contractTargets,
  stopAfterEach,
  standalone as harnessStandalone,
  type Connection as HarnessConnection,
  type Target as HarnessTarget,
} from '@respire/harness';
import { FakeRedisServer } from '@respire/testing';
import type { RedisClientLike } from '@respire/core-scripts';
import { StreamWorker, type StreamEntry, type StreamWorkerBaseOptions, type StreamWorkerHandlerOptions, type StreamWorkerLogger } from '../src/index.js';
import type {} from '@respire/harness/global-setup';

export type Connection = HarnessConnection<RedisClientLike>;
export type Target = HarnessTarget<RedisClientLike>;

/** A node-redis v6 connection to `url`. */
export const standalone = (url: string): Promise<Connection> => harnessStandalone<RedisClientLike>(url);

/**
 * node-redis v6 (RESP3) and v5 (RESP2) standalone, v6 on a 3-master Cluster, and v6 on the fake
 * server (`@respire/testing`, Redis 7.0 model), which runs the same worker scripts.
 */
export const targets: Target[] = contractTargets<RedisClientLike>(() => FakeRedisServer.start({ version: '7.0' }));

export { eventually, sleep, uniqueKeys } from '@respire/harness';

/** A logger that records every call. */
export function recordingLogger(): StreamWorkerLogger & { entries: { level: string; message: string; context?: Readonly<Record<string, unknown>> }[] } {
  const entries: { level: string; message: string; context?: Readonly<Record<string, unknown>> }[] = [];
  const at = (level: string) => (message: string, context?: Readonly<Record<string, unknown>>) => void entries.push({ level, message, context });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** XPENDING summary count of the group. */
export async function pendingCount(conn: Connection, stream: string, group: string): Promise<number> {
  const reply = (await conn.raw(stream, ['XPENDING', stream, group])) as unknown[];
  return Number(reply[0]);
}

/** XPENDING detail: [id, consumer, idle, count] per entry. */
export async function pendingEntries(conn: Connection, stream: string, group: string): Promise<{ id: string; consumer: string; count: number }[]> {
  const reply = (await conn.raw(stream, ['XPENDING', stream, group, '-', '+', '100'])) as unknown[][];
  return reply.map((r) => ({ id: String(r[0]), consumer: String(r[1]), count: Number(r[3]) }));
}

export async function add(conn: Connection, stream: string, fields: Record<string, string>): Promise<string> {
  return String(await conn.raw(stream, ['XADD', stream, '*', ...Object.entries(fields).flat()]));
}

/** XRANGE as [id, [field, value, ...]] with strings. */
export async function range(conn: Connection, stream: string): Promise<[string, string[]][]> {
  const reply = (await conn.raw(stream, ['XRANGE', stream, '-', '+'])) as unknown[][];
  return reply.map((r) => [String(r[0]), (r[1] as unknown[]).map(String)]);
}

/** Worker options for tests: `client` optional (the suite's connection is the default). */
export type TestOptions<T> = Omit<StreamWorkerBaseOptions, 'client'> & { client?: RedisClientLike } & StreamWorkerHandlerOptions<T> & {
    deserialize?: (entry: StreamEntry) => T;
  };

/** The serving node's Redis version as [major, minor] (INFO SERVER). */
export async function serverVersion(conn: Connection, key = 'x'): Promise<[number, number]> {
  const info = String(await conn.raw(key, ['INFO', 'SERVER']));
  const m = /redis_version:(\d+)\.(\d+)/.exec(info)!;
  return [Number(m[1]), Number(m[2])];
}

/** True when the server is at least `major.minor`. */
export async function atLeast(conn: Connection, major: number, minor: number): Promise<boolean> {
  const [a, b] = await serverVersion(conn);
  return a > major || (a === major && b >= minor);
}

/**
 * The suite's worker factory: `worker(options)` builds a StreamWorker on `connection()`'s client
 * with test defaults (readWaitMs 200, a recording logger; `options` override them) and stops it
 * after each test. Call it at a test file's or `describe`'s top level.
 */
export function workerFixture(connection: () => Connection, stopTimeoutMs = 1000): <T = StreamEntry>(options: TestOptions<T>) => StreamWorker<T> {
  const track = stopAfterEach<StreamWorker<unknown>>(stopTimeoutMs);
  return <T = StreamEntry>(options: TestOptions<T>) =>
    track(
      new StreamWorker<T>({ client: connection().client, readWaitMs: 200, logger: recordingLogger(), ...options } as never) as StreamWorker<unknown>,
    ) as StreamWorker<T>;
}
