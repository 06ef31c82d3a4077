// StreamProducer: typed appends whose retries are safe where the server makes them idempotent (IDMP).
import { randomBytes } from 'node:crypto';
import {
  RespireCodecError,
  RespireValidationError,
  isRespireError,
  type DurabilityOptions,
  type RedisClientLike,
  type RespireTransportError,
} from '@respire/core-scripts';
import { commandTarget, describeThrown, scriptCalls, toIntegerInRange, toKeyPrefix, type CommandTarget } from '@respire/core-scripts/internal';
import { exceptionType } from './logger.js';

/** Stream fields: an object (insertion order) or a list of pairs (duplicates allowed). */
export type StreamFields = Readonly<Record<string, string | Buffer>> | readonly (readonly [string | Buffer, string | Buffer])[];

/** Default `maxRetries` of a {@link StreamProducer}. */
export const DEFAULT_PRODUCER_RETRIES = 2;
/** Most `maxRetries` of a {@link StreamProducer}. */
export const MAX_PRODUCER_RETRIES = 10;

/** Options of {@link StreamProducer}. */
export interface StreamProducerOptions<T> {
  /** The caller's node-redis v5/v6 client, standalone or Cluster. Never closed. */
  client: RedisClientLike;
  /** The logical stream key (the `keyPrefix` is prepended). */
  stream: string;
  /** Prefix of the stream key. @defaultValue `''` */
  keyPrefix?: string;
  /** Turns a value into the entry's fields. A throw becomes a `RespireCodecError`; nothing is sent. */
  serialize: (value: T) => StreamFields;
  /** Stable producer identity for IDMP (Redis 8.6+). @defaultValue a random ID per producer object */
  producerId?: string;
  /** Retries of an append whose outcome is unknown (transport failure), 0..10; only where IDMP makes them safe. @defaultValue {@link DEFAULT_PRODUCER_RETRIES} (2) */
  maxRetries?: number;
  /**
   * Beyond the contract: each append waits until it reached `replicas` replicas and/or the AOF
   * (`WAIT` / `WAITAOF` behind it on its connection; the queue README's "Durability"). Short of it
   * the append stays applied and `add` throws `RespireNotDurableError` (never retried here; on
   * Redis 8.6+ an `add` repeated with the same `idempotencyId` within the IDMP window appends once).
   * @defaultValue undefined (no wait)
   */
  durability?: DurabilityOptions;
}

/**
 * Typed XADD with producer retries (README "Producer retries"). Each `add` gets a stable
 * idempotency identity; on Redis 8.6+ the append uses `XADD ... IDMP <producerId> <id>`, so a retry
 * after a lost reply returns the original entry's ID instead of appending twice. Elsewhere the entry
 * is appended plainly and an uncertain append is not retried (the transport error is thrown).
 *
 * Limits: deduplication lasts only within the server's IDMP window (`stream-idmp-duration`, default
 * 100 s, and `stream-idmp-maxsize`, default 100 IDs per producer); the payload of a repeat is not
 * compared; changing those settings with XCFGSET clears the stored IDs. It does not prevent consumer
 * redelivery: handlers must still be idempotent.
 *
 * @example
 * ```ts
 * const orders = new StreamProducer<Order>({ client, stream: '{orders}:events', serialize: (o) => ({ payload: JSON.stringify(o) }) });
 * const id = await orders.add({ id: 'o-1' });
 * ```
 */
export class StreamProducer<T> {
  readonly #target: CommandTarget;
  readonly #stream: string;
  readonly #serialize: (value: T) => StreamFields;
  readonly #producerId: string;
  readonly #maxRetries: number;

  /** @throws {@link RespireValidationError} for an invalid option. */
  constructor(options: StreamProducerOptions<T>) {
    this.#target = commandTarget(options.client, 'client', { durability: options.durability });
    if (typeof options.stream !== 'string' || options.stream.trim() === '') throw new RespireValidationError('stream', 'must be a nonblank string');
    this.#stream = toKeyPrefix(options.keyPrefix) + options.stream;
    if (typeof options.serialize !== 'function') throw new RespireValidationError('serialize', 'must be a function');
    this.#serialize = options.serialize;
    if (options.producerId !== undefined && (typeof options.producerId !== 'string' || options.producerId === '')) {
      throw new RespireValidationError('producerId', 'must be a nonempty string');
    }
    this.#producerId = options.producerId ?? `respire-${randomBytes(8).toString('hex')}`;
    this.#maxRetries =
      options.maxRetries === undefined ? DEFAULT_PRODUCER_RETRIES : toIntegerInRange('maxRetries', options.maxRetries, 0, MAX_PRODUCER_RETRIES);
  }

  /**
   * Appends one entry and returns its ID (the original entry's ID for an IDMP repeat).
   * @param options - `idempotencyId`: a stable ID for this logical append (e.g. an order ID); random per call when absent.
   * @throws {@link RespireCodecError} when `serialize` throws or returns no fields.
   * @throws {@link RespireTransportError} when the outcome stays unknown (retries exhausted, or no IDMP to
   *   retry safely), or, with `outcomeUnknown: false`, when no attempt was sent.
   * @throws {@link RespireServerError} for a server reply; `retryable` when it proves nothing ran (`BUSY`, ...).
   * @throws {@link RespireNotDurableError} with `durability`, when the append was applied but not confirmed in time.
   */
  async add(value: T, options: { idempotencyId?: string } = {}): Promise<string> {
    let fields: StreamFields;
    try {
      fields = this.#serialize(value);
    } catch (error) {
      throw new RespireCodecError(`StreamProducer.add: serialize failed (${describeThrown(error)}); nothing was sent`, { cause: error });
    }
    let pairs: (string | Buffer)[];
    try {
      pairs = flatten(fields);
    } catch (error) {
      if (isRespireError(error, 'CODEC_FAILED')) throw error;
      throw new RespireCodecError(`StreamProducer.add: what serialize returned cannot be read (${exceptionType(error)}); nothing was sent`, { cause: error });
    }
    const iid = options.idempotencyId ?? randomBytes(12).toString('hex');
    let lastError: unknown;
    // The first attempt that may have appended: only after one is a retry an idempotent repeat.
    let uncertain: unknown;
    for (let attempt = 0; attempt <= this.#maxRetries; attempt++) {
      try {
        const reply = await scriptCalls.workerAppend(
          this.#target,
          { stream: this.#stream, producerId: this.#producerId, idempotencyId: iid, retry: uncertain !== undefined, fields: pairs },
          { operation: 'StreamProducer.add' },
        );
        return reply.entryId;
      } catch (error) {
        if (uncertain !== undefined && isRespireError(error, 'UNSUPPORTED_SERVER')) throw uncertain;
        if (!isRespireError(error, 'TRANSPORT_FAILED')) throw error;
        lastError = error;
        if ((error as RespireTransportError).outcomeUnknown) uncertain ??= error;
      }
    }
    // An unknown outcome outranks later attempts that were not sent.
    throw uncertain ?? lastError;
  }
}

/**
 * Checks what `serialize` returned and flattens it to `field, value, ...`. Reading a hostile value
 * (a Proxy, throwing getters) may throw: the caller turns that into a `RespireCodecError` too.
 * @throws {@link RespireCodecError} unless it is an object or an array of pairs of strings or Buffers.
 */
function flatten(fields: StreamFields): (string | Buffer)[] {
  const isBytes = (x: unknown): x is string | Buffer => typeof x === 'string' || Buffer.isBuffer(x);
  const pairs: readonly (readonly unknown[])[] | undefined = Array.isArray(fields)
    ? (fields as readonly (readonly unknown[])[])
    : typeof fields === 'object' && fields !== null && !Buffer.isBuffer(fields)
      ? Object.entries(fields)
      : undefined;
  const out: (string | Buffer)[] = [];
  for (const pair of pairs ?? []) {
    const [f, v] = Array.isArray(pair) && pair.length === 2 ? pair : [];
    if (!isBytes(f) || !isBytes(v)) {
      throw new RespireCodecError('StreamProducer.add: serialize must return field/value pairs of strings or Buffers; nothing was sent');
    }
    out.push(f, v);
  }
  if (pairs === undefined || out.length === 0) {
    throw new RespireCodecError(
      'StreamProducer.add: serialize must return an object or an array of [field, value] pairs with at least one field; nothing was sent',
    );
  }
  return out;
}
