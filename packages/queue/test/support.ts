import { randomBytes } from 'node:crypto';
import { createClient, createCluster } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { afterAll, inject } from 'vitest';
import { FakeRedisServer } from '@respire/testing';
import type { RedisClientLike } from '@respire/core-scripts';

/** A connected client of one kind, closed by `close`. */
export interface Connection {
  readonly client: RedisClientLike;
  /** Sends a raw command to the node that serves `key`. */
  raw(key: string, args: (string | Buffer)[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface Target {
  readonly name: string;
  connect(url?: string): Promise<Connection>;
}

async function standalone(url: string): Promise<Connection> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return {
    client,
    raw: (_key, args) => client.sendCommand(args),
    close: async () => void client.destroy(),
  };
}

async function standaloneV5(url: string): Promise<Connection> {
  const client = createClientV5({ url });
  client.on('error', () => {});
  await client.connect();
  return {
    client: client as unknown as RedisClientLike,
    raw: (_key, args) => client.sendCommand(args),
    close: async () => void client.destroy(),
  };
}

async function cluster(urls: string[]): Promise<Connection> {
  const client = createCluster({ rootNodes: urls.map((url) => ({ url })) });
  client.on('error', () => {});
  await client.connect();
  return {
    client,
    raw: (key, args) => client.sendCommand(key, false, args),
    close: async () => void client.destroy(),
  };
}

/** One fake server per test file (the Redis 7.0 model, real clock), started on first use. */
let fake: Promise<FakeRedisServer> | undefined;
const fakeUrl = async () => (await (fake ??= FakeRedisServer.start({ version: '7.0' }))).url;
afterAll(async () => {
  await (await fake)?.close();
  fake = undefined;
});

/**
 * The suite runs on each: node-redis v6 (RESP3) and v5 (RESP2) standalone, v6 on a 3-master
 * Cluster, and v6 on the fake server (`@respire/testing`), which runs the same scripts.
 */
export const targets: Target[] = [
  { name: 'standalone node-redis 6', connect: (url) => standalone(url ?? inject('redisUrl')) },
  { name: 'standalone node-redis 5', connect: (url) => standaloneV5(url ?? inject('redisUrl')) },
  { name: 'cluster node-redis 6', connect: () => cluster(inject('clusterUrls')) },
  { name: 'fake server node-redis 6', connect: async (url) => standalone(url ?? (await fakeUrl())) },
];

/** A queue name no other test uses. */
export function uniqueName(label = 'q'): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Everything stored for a queue, to prove that a refused call changed nothing. */
export async function snapshot(conn: Connection, keys: { stream: string; deadlines: string; deadLetter: string }): Promise<string> {
  const [type, stream, deadlines, dead, groups] = await Promise.all([
    conn.raw(keys.stream, ['TYPE', keys.stream]),
    conn.raw(keys.stream, ['TYPE', keys.stream]).then((t) => (String(t) === 'stream' ? conn.raw(keys.stream, ['XRANGE', keys.stream, '-', '+']) : null)),
    conn.raw(keys.deadlines, ['TYPE', keys.deadlines]).then((t) => (String(t) === 'zset' ? conn.raw(keys.deadlines, ['ZRANGE', keys.deadlines, '0', '-1', 'WITHSCORES']) : t)),
    conn.raw(keys.deadLetter, ['TYPE', keys.deadLetter]).then((t) => (String(t) === 'stream' ? conn.raw(keys.deadLetter, ['XRANGE', keys.deadLetter, '-', '+']) : t)),
    conn.raw(keys.stream, ['TYPE', keys.stream]).then((t) => (String(t) === 'stream' ? conn.raw(keys.stream, ['XINFO', 'GROUPS', keys.stream]) : null)),
  ]);
  return JSON.stringify({ type, stream, deadlines, dead, groups });
}
