// Helpers of the fault suites: conditions on a monotonic clock, client lists, parked readers, sockets and timers of this process.
import { createClient } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import type { RedisClientLike } from '@respire/core-scripts';

/**
 * Helpers of the "faults from the field" suites (connections, server reasons, clock steps,
 * hostile user code, transient replies). They use only public entries, and measure time with
 * performance.now(), so a test that steps Date.now() still has working deadlines.
 */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it returns a truthy value; throws after `timeoutMs` (monotonic). */
export async function waitFor<R>(check: () => Promise<R> | R, timeoutMs = 8000, what = 'condition', stepMs = 25): Promise<NonNullable<R>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<R>;
    if (performance.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await sleep(stepMs);
  }
}

/** Settles `promise` within `ms`: `{ settled: false }` when it is still pending then. */
export async function within<T>(promise: Promise<T>, ms: number): Promise<{ settled: false } | { settled: true; value?: T; error?: unknown }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ settled: false }>((resolve) => (timer = setTimeout(() => resolve({ settled: false }), ms)));
  try {
    return await Promise.race([
      promise.then(
        (value) => ({ settled: true as const, value }),
        (error: unknown) => ({ settled: true as const, error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** A node-redis client as these tests drive it. */
export interface TestClient {
  sendCommand(args: string[]): Promise<unknown>;
  destroy(): void;
  isOpen: boolean;
}

/** A connected node-redis v6 (RESP3) or v5 (RESP2) client; `extra` is merged into the client options. */
export async function connectClient(url: string, version: 6 | 5 = 6, extra: Record<string, unknown> = {}): Promise<TestClient & RedisClientLike> {
  const client = version === 6 ? createClient({ url, ...extra }) : createClientV5({ url, ...extra });
  client.on('error', () => {});
  await client.connect();
  return client as unknown as TestClient & RedisClientLike;
}

/** One line of CLIENT LIST. */
export interface ClientInfo {
  readonly id: string;
  readonly cmd: string;
  readonly flags: string;
  readonly name: string;
}

/** CLIENT LIST of the server `admin` is connected to, without `admin`'s own connection. */
export async function clientList(admin: TestClient): Promise<ClientInfo[]> {
  const own = String(await admin.sendCommand(['CLIENT', 'ID']));
  return String(await admin.sendCommand(['CLIENT', 'LIST']))
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const field = (name: string) => new RegExp(`(?:^| )${name}=(\\S*)`).exec(line)?.[1] ?? '';
      return { id: field('id'), cmd: field('cmd'), flags: field('flags'), name: field('name') };
    })
    .filter((c) => c.id !== own);
}

/** IDs of connections parked in a blocking XREADGROUP. */
export async function parkedReaders(admin: TestClient): Promise<string[]> {
  return (await clientList(admin)).filter((c) => c.cmd === 'xreadgroup' && c.flags.includes('b')).map((c) => c.id);
}

/** Open TCP sockets of this process (handles that keep the event loop alive). */
export function tcpSockets(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
}

/** Active (ref'ed) timers of this process. */
export function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

/** A logger that records every call (message and context only). */
export function recordingLogger(): {
  entries: { level: string; message: string; context?: Readonly<Record<string, unknown>> }[];
  debug(message: string, context?: Readonly<Record<string, unknown>>): void;
  info(message: string, context?: Readonly<Record<string, unknown>>): void;
  warn(message: string, context?: Readonly<Record<string, unknown>>): void;
  error(message: string, context?: Readonly<Record<string, unknown>>): void;
} {
  const entries: { level: string; message: string; context?: Readonly<Record<string, unknown>> }[] = [];
  const at = (level: string) => (message: string, context?: Readonly<Record<string, unknown>>) => void entries.push({ level, message, context });
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** XPENDING detail of a group: ID, consumer and delivery count per entry. */
export async function pending(client: TestClient, stream: string, group: string): Promise<{ id: string; consumer: string; count: number }[]> {
  const reply = (await client.sendCommand(['XPENDING', stream, group, '-', '+', '100'])) as unknown[][];
  return reply.map((r) => ({ id: String(r[0]), consumer: String(r[1]), count: Number(r[3]) }));
}
