import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A redis-server process this harness started and owns. */
export interface RedisServerHandle {
  readonly host: '127.0.0.1';
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** The binary that runs, and what it reports as its version (`7.0.15`, `8.6.3`, ...). */
  readonly binary: string;
  readonly version: string;
  /** `valkey` when the binary reports `Valkey server v=...`: its version numbers are Valkey's, not Redis's. */
  readonly flavour: 'redis' | 'valkey';
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
  close(): Promise<void>;
  /** Kills the process at once with SIGKILL, as a crash would. */
  kill(): Promise<void>;
}

const INSTALL_HINT =
  'redis-server was not found. Install it (Debian/Ubuntu: `apt-get install -y redis-server redis-tools`) ' +
  'or point REDIS_SERVER at a redis-server binary. Tests never fall back to skipping.';

/** The server binary: `REDIS_SERVER`, else `redis-server` on PATH. Throws with an install hint when missing. */
export function serverBinary(): string {
  const binary = process.env.REDIS_SERVER?.trim() || 'redis-server';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error(INSTALL_HINT);
  return binary;
}

/** `Redis server v=7.0.15 ...` / `Valkey server v=9.1.2 ...` → `7.0.15`. */
export function binaryVersion(binary: string): { flavour: 'redis' | 'valkey'; version: string } {
  const out = spawnSync(binary, ['--version'], { encoding: 'utf8' }).stdout ?? '';
  const version = /v=(\d+\.\d+\.\d+)/.exec(out)?.[1] ?? 'unknown';
  return { flavour: /valkey/i.test(out) ? 'valkey' : 'redis', version };
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A free loopback port in 20000..50999 (never 6379), whose cluster-bus port (+10000) is free too
 * when `withBus` is set.
 */
export async function freePort(withBus = false): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * 31000);
    if (!(await portIsFree(port))) continue;
    if (withBus && !(await portIsFree(port + 10000))) continue;
    return port;
  }
  throw new Error('no free loopback port found');
}

export interface StartOptions {
  /** Extra `redis-server` arguments, e.g. `['--cluster-enabled', 'yes']`. */
  args?: string[];
  /** Reserve the cluster-bus port too. */
  cluster?: boolean;
  /** Server binary; defaults to {@link serverBinary}. */
  binary?: string;
}

/** Starts a private redis-server on a free loopback port; retries when the port was taken meanwhile. */
export async function startRedisServer(options: StartOptions = {}): Promise<RedisServerHandle> {
  const binary = options.binary ?? serverBinary();
  let lastError: unknown;
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort(options.cluster);
    try {
      return await spawnServer(binary, port, options.args ?? []);
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

function spawnServer(binary: string, port: number, extraArgs: string[]): Promise<RedisServerHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'respire-redis-'));
  const args = [
    '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
    '--dir', dir, '--daemonize', 'no', '--protected-mode', 'no', '--loglevel', 'notice',
    '--cluster-config-file', `nodes-${port}.conf`,
    ...extraArgs,
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const remove = () => {
    children.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    remove();
  };
  const { version, flavour } = binaryVersion(binary);
  const handle: RedisServerHandle = {
    host: '127.0.0.1', port, url: `redis://127.0.0.1:${port}`, binary, version, flavour,
    close: () => stop('SIGTERM'),
    kill: () => stop('SIGKILL'),
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve(handle);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', reject);
    void exited.then(() => {
      remove();
      reject(new Error(`redis-server on port ${port} exited at startup:\n${output}`));
    });
    setTimeout(() => reject(new Error(`redis-server on port ${port} did not start in 10 s:\n${output}`)), 10_000).unref();
  });
}

/** Runs `redis-cli` against a harness server and returns its trimmed output. */
export function redisCli(port: number, args: string[]): string {
  const result = spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });
  if (result.error) throw result.error;
  return (result.stdout ?? '').trim();
}

/** True when the server is Redis (not Valkey) at `major.minor` or newer: the gate for Redis-only stream commands. */
export function redisAtLeast(server: Pick<RedisServerHandle, 'flavour' | 'version'>, major: number, minor: number): boolean {
  const [maj = 0, min = 0] = server.version.split('.').map(Number);
  return server.flavour === 'redis' && (maj > major || (maj === major && min >= minor));
}
