// The resources an admin knows: configured queues and streams, and queues found by a bounded SCAN.
import type { QueueResource, Resource, ResourceId, StreamResource } from './api.js';
import type { Redis } from './redis.js';
import { BINARY, RespireValidationError, bytes, isRespireError, keySlot, queueKeys, text, toKeyPrefix, toRespireError } from './redis.js';
import { RespireNotFoundError, nearest } from './not-found.js';
import { toCount, toName, toOptions, toResourceId } from './validate.js';

/** A reliable queue to show: its name as given to `new ReliableQueue(client, name)` and its key prefix. */
export interface QueueConfig {
  readonly name: string;
  /** The queue's `keyPrefix` option. @defaultValue `''` */
  readonly keyPrefix?: string;
}

/**
 * A worker stream to show. A worker dead-letter record does not name its source stream (the worker
 * README fixes its first five fields), so the source of a retry is this configuration: records of
 * `deadLetterStream` are retried onto `stream`.
 */
export interface StreamConfig {
  /** The logical stream key, as given to `new StreamWorker({ stream })`. */
  readonly stream: string;
  /** Prepended to `stream` and `deadLetterStream` (the worker's client key prefix). @defaultValue `''` */
  readonly keyPrefix?: string;
  /** The workers' `deadLetterStream` (logical key). Without it the stream has no dead-letter views or retries. */
  readonly deadLetterStream?: string;
  /** Display name. @defaultValue the resolved stream key */
  readonly label?: string;
}

/** Bounds of the queue discovery SCAN. */
export interface DiscoveryOptions {
  /** SCAN COUNT hint per call, 1..10000. @defaultValue 1000 */
  readonly scanCount?: number;
  /** SCAN calls per master before giving up (then `discoveryTruncated`), 1..10000. @defaultValue 100 */
  readonly maxPages?: number;
}

/** Every key of every queue; TYPE stream keeps the ready and dead-letter streams. */
const DISCOVERY_MATCH = '*{respire-queue:*}:*';
/** A queue's ready or dead-letter stream: a queue whose ready stream is gone still has its dead letters. */
const QUEUE_STREAM_KEY = /^(.*)\{respire-queue:([^{}]+)\}:(stream|dead-letter)$/s;
/** Any key of a queue (stream, deadlines, dead letters, wake stream, deduplication, history, counters). */
const QUEUE_KEY = /\{respire-queue:[^{}]+\}:(?:stream|deadlines|dead-letter|wake|history|counters|dedup:.*)$/s;

/**
 * The resources an admin knows: configured queues and streams, and (with discovery) queues found
 * by a bounded SCAN (MATCH, TYPE stream, COUNT, a page limit per master; never KEYS).
 */
export class Resources {
  readonly #redis: Redis;
  readonly #configured = new Map<ResourceId, Resource>();
  readonly #discovery: Required<DiscoveryOptions> | undefined;

  /** @throws {@link RespireValidationError} for a bad configuration (see `RespireAdmin`'s constructor). */
  constructor(redis: Redis, queues: readonly QueueConfig[], streams: readonly StreamConfig[], discover: boolean | DiscoveryOptions | undefined) {
    this.#redis = redis;
    for (const [i, q] of queues.entries()) this.#add(queueResource(q, `queues[${i}]`, false));
    for (const [i, s] of streams.entries()) this.#add(streamResource(s, `streams[${i}]`));
    if (discover === true) this.#discovery = { scanCount: 1000, maxPages: 100 };
    else if (discover && typeof discover === 'object') {
      const d = toOptions('discoverQueues', discover, ['scanCount', 'maxPages']);
      this.#discovery = {
        scanCount: toCount('discoverQueues.scanCount', d.scanCount, 1000, 1, 10_000),
        maxPages: toCount('discoverQueues.maxPages', d.maxPages, 100, 1, 10_000),
      };
    } else if (discover !== undefined && discover !== false) {
      throw new RespireValidationError('discoverQueues', 'must be a boolean or { scanCount, maxPages }');
    }
  }

  #add(resource: Resource): void {
    if (this.#configured.has(resource.id)) throw new RespireValidationError('resource', `'${resource.id}' is configured twice`);
    this.#configured.set(resource.id, resource);
  }

  /**
   * Checks that an audit stream is none of the resources' keys: audit records appended to a stream
   * that workers read, or to a dead-letter stream, would be taken for work. Keys a queue uses
   * (`...{respire-queue:<name>}:stream` and its siblings) are refused for any name, so discovered
   * queues are covered too.
   * @throws {@link RespireValidationError} (`auditStream`)
   */
  checkAuditStream(key: string): void {
    const used = [...this.#configured.values()].flatMap((r) => (r.kind === 'queue' ? Object.values(r.keys) : [r.stream, r.deadLetterStream]));
    if (used.includes(key) || QUEUE_KEY.test(key)) {
      throw new RespireValidationError('auditStream', `must not be a key of a queue or worker stream, got '${key}'`);
    }
  }

  /** Configured queues and streams, then queues found by the bounded SCAN (when enabled). */
  async list(): Promise<{ readonly resources: readonly Resource[]; readonly discoveryTruncated: boolean }> {
    const resources = [...this.#configured.values()];
    if (!this.#discovery) return { resources, discoveryTruncated: false };
    const { keys, truncated } = await this.#scan(DISCOVERY_MATCH, this.#discovery);
    const seen = new Set(this.#configured.keys());
    for (const key of keys.sort()) {
      const found = parseQueueKey(key);
      if (found && !seen.has(found.id)) {
        seen.add(found.id);
        resources.push(found);
      }
    }
    return { resources, discoveryTruncated: truncated };
  }

  /**
   * Stream keys of the keyspace that are neither a queue's nor a history (a bounded SCAN TYPE
   * stream, the discovery bounds or their defaults), for a hint of the names that do exist.
   */
  async streamKeys(): Promise<{ keys: string[]; truncated: boolean }> {
    const { keys, truncated } = await this.#scan('*', this.#discovery ?? { scanCount: 1000, maxPages: 100 });
    return { keys: keys.filter((k) => !QUEUE_KEY.test(k) && !k.endsWith(':respire-history')).sort(), truncated };
  }

  /**
   * Keys of `type` (default stream) matching `match`: the bounded SCAN of discovery (TYPE, COUNT, a
   * page limit per master of a Cluster; never KEYS).
   */
  scanStreams(match: string, bounds: Required<DiscoveryOptions>, type: 'stream' | 'string' = 'stream'): Promise<{ keys: string[]; truncated: boolean }> {
    return this.#scan(match, bounds, type);
  }

  async #scan(match: string, bounds: Required<DiscoveryOptions>, type: 'stream' | 'string' = 'stream'): Promise<{ keys: string[]; truncated: boolean }> {
    const found = new Set<string>();
    let truncated = false;
    for (const node of await this.#redis.masters()) {
      let cursor = '0';
      let pages = 0;
      do {
        if (pages === bounds.maxPages) {
          truncated = true;
          break;
        }
        let reply: unknown[];
        try {
          reply = (await node.sendCommand(['SCAN', cursor, 'MATCH', match, 'COUNT', String(bounds.scanCount), 'TYPE', type], BINARY)) as unknown[];
        } catch (error) {
          throw toRespireError(error, 'RespireAdmin queue discovery (SCAN)');
        }
        pages++;
        cursor = text(reply[0]);
        for (const key of (reply[1] as unknown[]) ?? []) {
          // A key that is not valid UTF-8 cannot be addressed by a string id: skipped.
          const name = utf8(bytes(key));
          if (name !== undefined) found.add(name);
        }
      } while (cursor !== '0');
    }
    return { keys: [...found], truncated };
  }

  /**
   * The resource with this id: a configured one, or (with discovery) a queue whose stream key it
   * is and which exists.
   * @throws {@link RespireValidationError} (`resource`) for a malformed id, and for an unknown one (then
   *   {@link isUnknownResource} is true).
   */
  async get(id: ResourceId): Promise<Resource> {
    const key = toResourceId(id);
    const configured = this.#configured.get(key);
    if (configured) return configured;
    if (this.#discovery) {
      const found = parseQueueKey(key);
      if (found && found.id === key) {
        // It exists when its ready stream or its dead-letter stream does.
        const types = await Promise.all([found.keys.stream, found.keys.deadLetter].map((k) => this.#redis.send(k, ['TYPE', k], 'RespireAdmin resource')));
        if (types.some((t) => text(t) === 'stream')) return found;
      }
    }
    const known = nearest(
      key,
      (await this.list().catch(() => ({ resources: [...this.#configured.values()] }))).resources.map((r) => r.id),
    );
    throw new UnknownResourceError(key, known, `unknown resource '${key}': neither configured${this.#discovery ? ' nor a discoverable queue' : ''}`);
  }

  async queue(id: ResourceId): Promise<QueueResource> {
    const r = await this.get(id);
    if (r.kind !== 'queue') throw new RespireValidationError('resource', `'${id}' is a worker stream, not a queue`);
    return r;
  }

  async stream(id: ResourceId): Promise<StreamResource> {
    const r = await this.get(id);
    if (r.kind !== 'stream') {
      throw new RespireValidationError(
        'resource',
        `'${id}' is a queue: its group's pending entries do not tell the truth after first delivery; use queueDeliveries`,
      );
    }
    return r;
  }
}

/**
 * An id that names no resource. Still a `RespireValidationError` with `argument: 'resource'`
 * (callers that catch those keep working); {@link isUnknownResource} tells it apart, and
 * `notFound.known` names the nearest resources that do exist.
 */
class UnknownResourceError extends RespireNotFoundError {
  /** The id that named no resource. */
  readonly unknownResource: ResourceId;

  constructor(id: ResourceId, known: readonly string[], message: string) {
    super({ kind: 'resource', name: id, known }, message);
    this.unknownResource = id;
  }
}

/**
 * True when `error` says that a resource id names no resource: neither configured nor (with
 * discovery) an existing queue. Such an error is a `RespireValidationError` with
 * `argument: 'resource'` and the id in `unknownResource`. Other refusals of that argument are not "unknown":
 * a malformed id (not a nonempty string), a queue where a worker stream is needed or the reverse,
 * a stream without a dead-letter stream. Checks fields rather than `instanceof`, so it holds
 * across two installed copies of the package.
 *
 * @example
 * ```ts
 * try {
 *   await admin.resource(id);
 * } catch (error) {
 *   if (isUnknownResource(error)) return notFound();
 *   throw error;
 * }
 * ```
 */
export function isUnknownResource(error: unknown): error is RespireValidationError & { readonly unknownResource: ResourceId } {
  if (!isRespireError(error, 'INVALID_ARGUMENT')) return false;
  const e = error as { argument?: unknown; unknownResource?: unknown };
  return error.name === 'RespireValidationError' && e.argument === 'resource' && typeof e.unknownResource === 'string';
}

/** The dead-letter stream of a resource. @throws {@link RespireValidationError} for a stream without one. */
export function deadLetterKey(r: Resource): string {
  if (r.kind === 'queue') return r.keys.deadLetter;
  if (r.deadLetterStream === undefined) throw new RespireValidationError('resource', `'${r.id}' has no dead-letter stream configured`);
  return r.deadLetterStream;
}

/** The main stream of a resource. */
export function mainStream(r: Resource): string {
  return r.kind === 'queue' ? r.keys.stream : r.stream;
}

/** A queue's resource from its name and key prefix. @throws {@link RespireValidationError} for a bad name or prefix. */
export function queueResource(config: QueueConfig, argument: string, discovered: boolean): QueueResource {
  const c = toOptions(argument, config, ['name', 'keyPrefix']);
  const keyPrefix = toKeyPrefix(c.keyPrefix);
  const keys = queueKeys(c.name, keyPrefix);
  return {
    kind: 'queue',
    id: keys.stream,
    name: c.name as string,
    keyPrefix,
    keys: { stream: keys.stream, deadlines: keys.deadlines, deadLetter: keys.deadLetter },
    discovered,
  };
}

function streamResource(config: StreamConfig, argument: string): StreamResource {
  const c = toOptions(argument, config, ['stream', 'keyPrefix', 'deadLetterStream', 'label']);
  const prefix = toKeyPrefix(c.keyPrefix);
  const stream = prefix + toName(`${argument}.stream`, c.stream, 65_536);
  const dead = c.deadLetterStream === undefined ? undefined : prefix + toName(`${argument}.deadLetterStream`, c.deadLetterStream, 65_536);
  if (dead === stream) throw new RespireValidationError(`${argument}.deadLetterStream`, `must differ from the stream (both resolve to '${stream}')`);
  const label = c.label === undefined ? stream : toName(`${argument}.label`, c.label);
  return { kind: 'stream', id: stream, stream, deadLetterStream: dead, label, retryAtomic: dead !== undefined && keySlot(dead) === keySlot(stream) };
}

/** A queue's ready or dead-letter stream key → its resource, when it is one a ReliableQueue would use. */
function parseQueueKey(key: string): QueueResource | undefined {
  const match = QUEUE_STREAM_KEY.exec(key);
  if (!match) return undefined;
  try {
    const r = queueResource({ name: match[2]!, keyPrefix: match[1]! }, 'discovered', true);
    return (match[3] === 'stream' ? r.keys.stream : r.keys.deadLetter) === key ? r : undefined;
  } catch {
    return undefined;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function utf8(b: Buffer): string | undefined {
  try {
    return strictUtf8.decode(b);
  } catch {
    return undefined;
  }
}
