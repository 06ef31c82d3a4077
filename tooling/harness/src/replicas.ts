// A private standalone master with replicas, for durability and failover tests.
import { createClient } from 'redis';
import { startTcpProxy, type TcpProxy } from './proxy.js';
import { startRedisServer, type RedisServerHandle } from './servers.js';

/** A standalone master and its replicas, each a private server this harness owns. */
export interface ReplicatedServerHandle {
  readonly master: RedisServerHandle;
  readonly replicas: readonly RedisServerHandle[];
  /**
   * Makes a replica lag, as a long pause, a stalled disk or a slow link would: its process is
   * frozen (SIGSTOP) and its replication link (each replica reaches the master through its own
   * loopback proxy) drops what the master sends from now on. Without the dropped link a stopped
   * replica would still find every write in its socket buffer when it runs again, and a failover
   * test would lose nothing.
   */
  pause(replica: RedisServerHandle): void;
  /** Lets a paused replica run again (SIGCONT) and resets its link, so it reconnects and resynchronises from the master. */
  resume(replica: RedisServerHandle): void;
  /**
   * Makes `replica` a master (`REPLICAOF NO ONE`), as a failover would, and waits until it says so.
   * Resumes it first if it is paused.
   */
  promote(replica: RedisServerHandle): Promise<void>;
  /** Waits until every replica that is not paused has its master link up and the master counts them online. */
  waitForLinks(timeoutMs?: number): Promise<void>;
  /** Stops every server (a paused one is resumed first, so it can exit). */
  close(): Promise<void>;
}

export interface ReplicatedServerOptions {
  /** Number of replicas, 1 or more. @defaultValue 1 */
  replicas?: number;
  /** Extra arguments for every server, e.g. `['--appendonly', 'yes']`. */
  args?: string[];
  /** Server binary; defaults to `serverBinary()`. */
  binary?: string;
}

async function sendTo(url: string, args: string[]): Promise<string> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    return String(await client.sendCommand(args));
  } finally {
    client.destroy();
  }
}

/**
 * Starts a master and `replicas` replicas (`--replicaof`), and resolves once every replica's link
 * is up and the master lists it `online` (a full sync done), so a `WAIT` can be answered.
 */
export async function startReplicatedServer(options: ReplicatedServerOptions = {}): Promise<ReplicatedServerHandle> {
  const count = options.replicas ?? 1;
  const binary = options.binary === undefined ? {} : { binary: options.binary };
  const args = options.args ?? [];
  const paused = new Set<RedisServerHandle>();
  const started: RedisServerHandle[] = [];
  const links = new Map<RedisServerHandle, TcpProxy>();
  const close = async () => {
    for (const server of paused) process.kill(server.pid, 'SIGCONT');
    paused.clear();
    await Promise.all([...links.values()].map((link) => link.close()));
    await Promise.all(started.map((server) => server.close()));
  };
  const linkOf = (replica: RedisServerHandle): TcpProxy => {
    const link = links.get(replica);
    if (link === undefined) throw new Error(`port ${replica.port} is not a replica of this set`);
    return link;
  };
  try {
    const master = await startRedisServer({ ...binary, args });
    started.push(master);
    const replicas: RedisServerHandle[] = [];
    for (let i = 0; i < count; i++) {
      const link = await startTcpProxy(master.port);
      const replica = await startRedisServer({ ...binary, args: [...args, '--replicaof', '127.0.0.1', String(link.port)] });
      started.push(replica);
      links.set(replica, link);
      replicas.push(replica);
    }
    const waitForLinks = async (timeoutMs = 15_000) => {
      const deadline = performance.now() + timeoutMs;
      const live = replicas.filter((replica) => !paused.has(replica));
      for (;;) {
        const info = await sendTo(master.url, ['INFO', 'replication']);
        const online = live.filter((replica) => new RegExp(`port=${replica.port},state=online`).test(info)).length;
        let up = 0;
        for (const replica of live) if ((await sendTo(replica.url, ['INFO', 'replication'])).includes('master_link_status:up')) up++;
        if (online === live.length && up === live.length) return;
        if (performance.now() > deadline) throw new Error(`replicas did not link up within ${timeoutMs} ms:\n${info}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await waitForLinks();
    return {
      master,
      replicas,
      pause: (replica) => {
        linkOf(replica).freeze();
        process.kill(replica.pid, 'SIGSTOP');
        paused.add(replica);
      },
      resume: (replica) => {
        process.kill(replica.pid, 'SIGCONT');
        paused.delete(replica);
        linkOf(replica).reset();
      },
      promote: async (replica) => {
        // The link goes first: nothing the master sent after a pause may reach the replica now.
        await linkOf(replica).close();
        if (paused.delete(replica)) process.kill(replica.pid, 'SIGCONT');
        await sendTo(replica.url, ['REPLICAOF', 'NO', 'ONE']);
        const deadline = performance.now() + 10_000;
        while (!(await sendTo(replica.url, ['INFO', 'replication'])).includes('role:master')) {
          if (performance.now() > deadline) throw new Error(`replica on port ${replica.port} did not become a master`);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      },
      waitForLinks,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
