// Private redis-server processes on free loopback ports, for tests and the demo.
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
  /** The server's process ID (a new one after {@link RedisServerHandle.restart}). */
  readonly pid: number;
  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and removes its directory. */
  close(): Promise<void>;
  /** Kills the process at once with SIGKILL, as a crash would, and removes its directory. */
  kill(): Promise<void>;
  /**
   * Kills the process with SIGKILL, as a crash would, and starts the same binary again on the same
   * port with the same directory and arguments, so it reloads what it persisted there (start it
   * with `--appendonly yes` to keep every write); resolves once it accepts connections.
   * @throws Error when it does not start again (the port was taken meanwhile, or it exited).
   */
  restart(): Promise<void>;
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

/**
 * The servers this process started and has not stopped, with their directories.
 *
 * Each server runs in its own process group (`detached`), so the Ctrl-C that a terminal sends to
 * its foreground group reaches this process only: a program that handles SIGINT (the dashboard
 * demo) shuts down against a live server and then stops it. In exchange this process must stop
 * its servers on every way out, since nothing else will:
 * - `process.exit()`, an emptied event loop, an uncaught exception: the synchronous 'exit' hook
 *   below kills them with SIGKILL and removes their directories (an 'exit' listener cannot wait
 *   for anything asynchronous, such as a child's 'exit' event);
 * - SIGINT, SIGTERM or SIGHUP that nothing else in the process handles (Node would die of it
 *   without running any JavaScript): the same, then the signal is raised again so the process
 *   ends as it would have without this hook. When the program has its own listener the signal is
 *   left to it, and it exits through one of the paths above.
 * Only SIGKILL of this process leaves a server behind.
 */
const owned = new Map<ChildProcess, string>();
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

function killOwnedNow(): void {
  for (const [child, dir] of owned) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
    // Once the directory is gone the server cannot create a file in it (its working directory
    // no longer exists); the retries cover a file it writes while the directory is removed.
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 20 });
  }
  owned.clear();
}

function onStopSignal(signal: NodeJS.Signals): void {
  if (process.listenerCount(signal) > 1) return; // the program handles it, and will exit
  killOwnedNow();
  for (const name of STOP_SIGNALS) process.removeListener(name, onStopSignal);
  process.kill(process.pid, signal);
}

function own(child: ChildProcess, dir: string): void {
  if (owned.size === 0) for (const name of STOP_SIGNALS) process.on(name, onStopSignal);
  owned.set(child, dir);
}

function disown(child: ChildProcess): void {
  if (!owned.delete(child)) return;
  if (owned.size === 0) for (const name of STOP_SIGNALS) process.removeListener(name, onStopSignal);
}

process.once('exit', killOwnedNow);

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

async function spawnServer(binary: string, port: number, extraArgs: string[]): Promise<RedisServerHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'respire-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--protected-mode',
    'no',
    '--loglevel',
    'notice',
    '--cluster-config-file',
    `nodes-${port}.conf`,
    ...extraArgs,
  ];
  /** Set while the running process is being replaced: its exit must not remove the directory. */
  let restarting = false;
  const launch = () => launchServer(binary, port, args, dir, () => !restarting);
  let current: Launched;
  try {
    current = await launch();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const stop = async (signal: NodeJS.Signals) => {
    await current.stop(signal);
    rmSync(dir, { recursive: true, force: true });
  };
  const { version, flavour } = binaryVersion(binary);
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    binary,
    version,
    flavour,
    get pid() {
      return current.child.pid ?? -1;
    },
    close: () => stop('SIGTERM'),
    kill: () => stop('SIGKILL'),
    restart: async () => {
      restarting = true;
      try {
        await current.stop('SIGKILL');
        current = await launch();
      } finally {
        restarting = false;
      }
    },
  };
}

/** A running server process of a handle. */
interface Launched {
  readonly child: ChildProcess;
  /** Sends `signal` (SIGKILL after 5 s) unless it has exited, and resolves once it has. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Starts one server process in `dir` and resolves once it accepts connections. When it exits and
 * `removeOnExit()` says so (it crashed, or was stopped), `dir` is removed with it.
 */
function launchServer(binary: string, port: number, args: string[], dir: string, removeOnExit: () => boolean): Promise<Launched> {
  // Its own process group: see `owned`.
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  own(child, dir);
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    disown(child);
  };
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve({ child, stop });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (error) => {
      if (child.pid === undefined) disown(child); // it never started: no 'exit' follows
      reject(error);
    });
    void exited.then(() => {
      disown(child);
      if (removeOnExit()) rmSync(dir, { recursive: true, force: true });
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
