// The targets a contract suite runs on (node-redis 6 and 5, a Cluster, the fake server) and the connections to them.
import { createClient, createCluster } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { afterAll, beforeAll, describe, inject } from 'vitest';
import type {} from './global-setup.js'; // the ProvidedContext keys inject() reads

/** A connected client of one kind, closed by `close`. `C` is the client type the suite expects. */
export interface Connection<C = unknown> {
  readonly client: C;
  readonly cluster: boolean;
  /** Sends a raw command to the node that serves `key`. */
  raw(key: string, args: (string | Buffer)[]): Promise<unknown>;
  close(): Promise<void>;
}

export interface Target<C = unknown> {
  readonly name: string;
  connect(url?: string): Promise<Connection<C>>;
}

/** A node-redis v6 standalone connection (RESP3). */
export async function standalone<C>(url: string): Promise<Connection<C>> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return { client: client as C, cluster: false, raw: (_key, args) => client.sendCommand(args), close: async () => void client.destroy() };
}

async function standaloneV5<C>(url: string): Promise<Connection<C>> {
  const client = createClientV5({ url });
  client.on('error', () => {});
  await client.connect();
  return { client: client as C, cluster: false, raw: (_key, args) => client.sendCommand(args), close: async () => void client.destroy() };
}

async function cluster<C>(urls: string[]): Promise<Connection<C>> {
  const client = createCluster({ rootNodes: urls.map((url) => ({ url })) });
  client.on('error', () => {});
  await client.connect();
  return { client: client as C, cluster: true, raw: (key, args) => client.sendCommand(key, false, args), close: async () => void client.destroy() };
}

/**
 * The targets every contract suite runs on: node-redis v6 (RESP3) and v5 (RESP2) on the run's
 * private server, v6 on its 3-master Cluster, and v6 on a fake server that `startFake` starts
 * once per test file (closed after it), except when `RESPIRE_TEST_TARGETS=servers`. Call it at a
 * test file's top level.
 */
export function contractTargets<C>(startFake: () => Promise<{ url: string; close(): Promise<void> }>): Target<C>[] {
  let fake: ReturnType<typeof startFake> | undefined;
  afterAll(async () => {
    await (await fake)?.close();
    fake = undefined;
  });
  const fakeUrl = async () => (await (fake ??= startFake())).url;
  const real: Target<C>[] = [
    { name: 'standalone node-redis 6', connect: (url) => standalone<C>(url ?? inject('redisUrl')) },
    { name: 'standalone node-redis 5', connect: (url) => standaloneV5<C>(url ?? inject('redisUrl')) },
    { name: 'cluster node-redis 6', connect: () => cluster<C>(inject('clusterUrls')) },
  ];
  // The fake server does not depend on REDIS_SERVER: CI's runs on the other servers leave it out
  // (RESPIRE_TEST_TARGETS=servers), since the run on Debian's Redis has already run it.
  if (process.env.RESPIRE_TEST_TARGETS === 'servers') return real;
  return [...real, { name: 'fake server node-redis 6', connect: async (url) => standalone<C>(url ?? (await fakeUrl())) }];
}

/**
 * Declares `title on <target>` for each target, with one connection per target opened before its
 * tests and closed after them: `body(target, connection)` declares the tests, `connection()` is the
 * open connection (read it inside a test or hook, not while declaring). Call it at a test file's top
 * level, like `describe`.
 */
export function describeOnTargets<C>(title: string, targets: readonly Target<C>[], body: (target: Target<C>, connection: () => Connection<C>) => void): void {
  describe.each(targets)(`${title} on $name`, (target) => {
    let open: Connection<C> | undefined;
    beforeAll(async () => {
      open = await target.connect();
    });
    afterAll(async () => {
      await open?.close();
      open = undefined;
    });
    body(target, () => {
      if (open === undefined) throw new Error(`no connection to ${target.name}: read connection() inside a test or hook`);
      return open;
    });
  });
}

/** Calls of one command in INFO commandstats (commands run inside scripts count too). */
export async function commandCalls(client: { sendCommand(args: string[]): Promise<unknown> }, command: string): Promise<number> {
  const info = String(await client.sendCommand(['INFO', 'commandstats']));
  return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
}
