import { isErrorReply, runScript, scripts, type CommandTarget, type RedisArg, type RedisClientLike } from '@respire/core-scripts';

/** node-redis RESP type codes: bulk strings as Buffers, maps as flat arrays (RESP3 XREADGROUP). */
const BINARY_MAPPING = { typeMapping: { 36: Buffer, 37: Array } };

interface AnyClient {
  sendCommand(...args: unknown[]): Promise<unknown>;
  duplicate?(): AnyClient;
  connect?(): Promise<unknown>;
  destroy?(): void;
  disconnect?(): Promise<void>;
  on?(event: string, listener: (...args: unknown[]) => void): unknown;
  masters?: unknown;
}

/** True for a `createCluster` client. */
export function isCluster(client: RedisClientLike): boolean {
  return 'masters' in (client as object) && Array.isArray((client as { masters?: unknown }).masters);
}

/** Sends a raw command, routed by `key` in a Cluster; `binary` maps bulk strings to Buffers and maps to arrays. */
export function sendRaw(
  client: RedisClientLike,
  key: string,
  args: readonly RedisArg[],
  options: { binary?: boolean; timeout?: number } = {},
): Promise<unknown> {
  const c = client as unknown as AnyClient;
  const opts: Record<string, unknown> = {};
  if (options.binary) Object.assign(opts, BINARY_MAPPING);
  if (options.timeout !== undefined) opts.timeout = options.timeout;
  const passed = Object.keys(opts).length > 0 ? opts : undefined;
  return isCluster(client) ? c.sendCommand(key, false, args, passed) : c.sendCommand(args, passed);
}

/**
 * A blocking connection the worker owns: a duplicate of the caller's client (DESIGN.md decision 6),
 * so the caller's client is never blocked or closed.
 */
export class OwnedConnection {
  readonly client: RedisClientLike;
  #closed = false;

  private constructor(client: RedisClientLike) {
    this.client = client;
  }

  /** Duplicates and connects; rejects when the duplicate does not connect within `deadlineMs`. */
  static async open(source: RedisClientLike, deadlineMs: number, onError: (error: unknown) => void): Promise<OwnedConnection> {
    const parent = source as unknown as AnyClient;
    if (typeof parent.duplicate !== 'function') throw new Error('the client cannot be duplicated (client.duplicate is missing)');
    const dup = parent.duplicate();
    dup.on?.('error', onError);
    const connection = new OwnedConnection(dup as unknown as RedisClientLike);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        dup.connect?.(),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`connect did not finish in ${deadlineMs} ms`)), deadlineMs);
        }),
      ]);
    } catch (error) {
      connection.close();
      throw error;
    } finally {
      clearTimeout(timer);
    }
    return connection;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(key: string, args: readonly RedisArg[], options: { binary?: boolean; timeout?: number } = {}): Promise<unknown> {
    return sendRaw(this.client, key, args, options);
  }

  /** Destroys the connection at once (nothing of ours is in flight when this is called on stop). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const c = this.client as unknown as AnyClient;
    try {
      if (typeof c.destroy === 'function') c.destroy();
      else void c.disconnect?.().catch(() => {});
    } catch {
      // already closed
    }
  }
}

/** A raw stream entry: ID, flat field list, delivery count. */
export interface RawEntry {
  readonly id: string;
  readonly fields: Buffer[];
  readonly deliveryCount: number;
}

const str = (value: unknown): string => (Buffer.isBuffer(value) ? value.toString() : String(value));

/**
 * Parses an XREADGROUP reply of one stream: `null`, RESP2 `[[stream, entries]]`, or RESP3 with maps
 * as flat arrays `[stream, entries]`. Entries read with `>` have delivery count 1.
 */
export function parseReadReply(reply: unknown): RawEntry[] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  let entries: unknown;
  if (Array.isArray(reply[0])) entries = (reply[0] as unknown[])[1];
  else entries = reply[1];
  if (!Array.isArray(entries)) return [];
  const out: RawEntry[] = [];
  for (const item of entries) {
    if (!Array.isArray(item) || !Array.isArray(item[1])) continue;
    out.push({ id: str(item[0]), fields: (item[1] as unknown[]).map((f) => (Buffer.isBuffer(f) ? f : Buffer.from(str(f)))), deliveryCount: 1 });
  }
  return out;
}

/** Parses the `{ {id, fields, count}, ... }` list the worker scripts return. */
function parseScriptEntries(list: unknown): RawEntry[] {
  if (!Array.isArray(list)) return [];
  const out: RawEntry[] = [];
  for (const item of list) {
    if (!Array.isArray(item) || !Array.isArray(item[1])) continue;
    out.push({
      id: str(item[0]),
      fields: (item[1] as unknown[]).map((f) => (Buffer.isBuffer(f) ? f : Buffer.from(str(f)))),
      deliveryCount: Number(str(item[2])),
    });
  }
  return out;
}

/** The typed wrappers of the worker scripts (STYLE.md rule 5: KEYS/ARGV in header order). */
export const workerScripts = {
  async ack(target: CommandTarget, stream: string, group: string, consumer: string, id: string, count: number, deleteAcknowledged: boolean): Promise<boolean> {
    const reply = await runScript(target, scripts.workerAck, [stream], [group, consumer, id, String(count), deleteAcknowledged ? '1' : '0'], {
      operation: 'StreamWorker ack',
    });
    return Number(reply) === 1;
  },

  /** 1 released (XNACK FAIL), 0 left pending, -1 stale. */
  async release(target: CommandTarget, stream: string, group: string, consumer: string, id: string, count: number, minIdleMs: number): Promise<number> {
    const reply = await runScript(target, scripts.workerRelease, [stream], [group, consumer, id, String(count), String(minIdleMs)], {
      operation: 'StreamWorker release',
    });
    return Number(reply);
  },

  async deadLetter(
    target: CommandTarget,
    stream: string,
    deadLetterStream: string,
    args: { group: string; consumer: string; id: string; count: number; reason: string; exceptionType: string },
  ): Promise<{ status: 'appended' | 'deleted' | 'stale'; recordId?: string }> {
    const reply = (await runScript(
      target,
      scripts.workerDeadLetter,
      [stream, deadLetterStream],
      [args.group, args.consumer, args.id, String(args.count), args.reason, args.exceptionType],
      { operation: 'StreamWorker dead-letter' },
    )) as unknown[];
    const status = Number(reply[0]);
    if (status === 1) return { status: 'appended', recordId: str(reply[1]) };
    return { status: status === 2 ? 'deleted' : 'stale' };
  },

  async recover(
    target: CommandTarget,
    stream: string,
    group: string,
    consumer: string,
    minIdleMs: number,
    cursor: string,
    count: number,
  ): Promise<{ cursor: string; entries: RawEntry[]; removed: number; method: string }> {
    const reply = (await runScript(target, scripts.workerRecover, [stream], [group, consumer, String(minIdleMs), cursor, String(count)], {
      binary: true,
      operation: 'StreamWorker recovery',
    })) as unknown[];
    return { cursor: str(reply[0]), entries: parseScriptEntries(reply[1]), removed: Number(reply[2]), method: str(reply[3]) };
  },

  async replay(
    target: CommandTarget,
    stream: string,
    group: string,
    consumer: string,
    after: string,
    count: number,
  ): Promise<{ last: string; entries: RawEntry[]; removed: number }> {
    const reply = (await runScript(target, scripts.workerReplay, [stream], [group, consumer, after, String(count)], {
      binary: true,
      operation: 'StreamWorker startup replay',
    })) as unknown[];
    return { last: str(reply[0]), entries: parseScriptEntries(reply[1]), removed: Number(reply[2]) };
  },
};

/** True when `error` is (or wraps) a server reply starting with `code`, e.g. NOGROUP. */
export function replyCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
    if (isErrorReply(e)) return /^([A-Z]+)/.exec((e as Error).message)?.[1];
  }
  return undefined;
}

/** Reads one field of an XINFO reply element (RESP2 flat array, RESP3 object or Map). */
export function infoField(item: unknown, name: string): unknown {
  if (Array.isArray(item)) {
    for (let i = 0; i + 1 < item.length; i += 2) if (str(item[i]) === name) return item[i + 1];
    return undefined;
  }
  if (item instanceof Map) return item.get(name);
  if (item && typeof item === 'object') return (item as Record<string, unknown>)[name];
  return undefined;
}

export { str as replyString };
