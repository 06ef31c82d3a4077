// ReliableTopic: publish once, and subscriptions that each receive every retained publication on the lease engine (./leases).
import { MAX_BULK_BYTES, RespireServerError, RespireValidationError, type RedisClientLike } from '@respire/core-scripts';
import {
  MAX_INT32,
  commandTarget,
  infoField,
  replyString,
  scriptCalls,
  subscriptionKeys,
  toDurationMs,
  toEntryId,
  toIntegerInRange,
  toOptions,
  topicKeys,
  type CommandTarget,
  type MessageHeaders,
  type SubscriptionKeys,
  type TopicKeys,
} from '@respire/core-scripts/internal';
import { toCodec, type Codec } from './codec.js';
import { Leases, MAX_BATCH, receiptPairs, type MessageReceipt } from './leases/leases.js';
import { subscriptionSource } from './leases/subscription-source.js';
import { instrumented, instrumentedSettle, type QueueInstrumentation } from './instrumentation.js';
import { checkDeduplicationId, checkHeaders, decodeHeaders, decodePayload, encodePayload, withInjected } from './payloads.js';
import { DEFAULT_DEDUPLICATION_WINDOW_MS, DEFAULT_DELIVERY_LIMIT, toReceiveArguments, type ReceiveOptions, type ReceivedMessage } from './queue.js';
import { Consumer, consumeSettings, type ConsumeHandler, type ConsumeOptions, type QueueConsumer } from './consumer.js';
import { Waiter, receiveWaiting, waitPoint, withWaiter } from './wait.js';

/** Most publications one publish trims for retention (the oldest first); `trim()` takes up to {@link MAX_BATCH}. */
export const TOPIC_TRIM_PER_PUBLISH = 100;

/** Every option name of a topic, checked against {@link ReliableTopicOptions}. */
const TOPIC_OPTIONS = [
  'codec',
  'deliveryLimit',
  'keyPrefix',
  'commandTimeoutMs',
  'maxAgeMs',
  'maxLength',
  'instrumentation',
] as const satisfies readonly (keyof ReliableTopicOptions<unknown>)[];

/** Options of a {@link ReliableTopic}. */
export interface ReliableTopicOptions<T> {
  /** Turns payloads into bytes and back; see `bytesCodec`, `utf8Codec`, `jsonCodec()`. Required. */
  codec: Codec<T>;
  /**
   * Default delivery limit of the topic's subscriptions (each may set its own): deliveries after
   * which the next receive that finds the message due moves it to the subscription's dead-letter
   * stream. Whole number, 1..2^31-1.
   * @defaultValue 5
   */
  deliveryLimit?: number;
  /** Prepended to every key; the keys still share the topic's hash tag. @defaultValue '' (none) */
  keyPrefix?: string;
  /**
   * Retention bound by age, in ms (1..2^31-1): a publication older than this (by its entry ID's
   * time, server clock) is trimmed even if a subscription has not completed it, and that is
   * counted per subscription ({@link TopicSubscription.trimmedCount}). Every instance of a topic
   * should use the same bounds. @defaultValue undefined (no bound)
   */
  maxAgeMs?: number;
  /**
   * Retention bound by length (publications, 1..2^31-1): beyond the newest `maxLength`, the oldest
   * publications are trimmed even if a subscription has not completed them, and counted as for
   * `maxAgeMs`. @defaultValue undefined (no bound)
   */
  maxLength?: number;
  /** Deadline of each of the topic's commands, in ms (0..2^31-1; 0 disables it), as the queue's. @defaultValue the client's setting */
  commandTimeoutMs?: number;
  /**
   * Hooks for metrics and tracing (`@respire/otel`'s `createQueueTelemetry`), the queue's seam:
   * publish and publishMany are `send` operations on the topic's name (publish adds the hooks'
   * trace-context headers); a subscription's receive, ack, nack and extend carry its name as
   * `subscription`. Hooks never change an outcome.
   */
  instrumentation?: QueueInstrumentation;
}

/** Options of {@link ReliableTopic.publish}: the queue's deduplication rules. */
export interface PublishOptions {
  /**
   * Suppresses duplicate publications with this ID for the window: a repeat returns the original
   * entry ID and appends nothing. Nonempty, at most 1,024 UTF-8 bytes.
   */
  deduplicationId?: string;
  /** How long the ID is remembered, in ms (1..2^31-1, fractions round up). @defaultValue 86_400_000 (one day) */
  deduplicationWindowMs?: number;
  /**
   * Metadata beside the payload, as the queue's send takes them (queue README "Headers"): every
   * subscription's `message.headers`, kept in its dead letters. String names (nonempty), string or
   * `Uint8Array` values; at most 64 headers and 65,536 bytes encoded, checked before any I/O.
   */
  headers?: MessageHeaders;
}

/** One publication of a {@link ReliableTopic.publishManyWithResults}: its payload and the options of {@link ReliableTopic.publish}. */
export interface PublishManyItem<T> extends PublishOptions {
  /** The publication's payload, encoded by the topic's codec. */
  payload: T;
}

/** What happened to one item of a {@link ReliableTopic.publishManyWithResults}. */
export interface PublishManyResult {
  /** The publication's entry ID; for a duplicate, the original's. */
  readonly id: string;
  /** True when the deduplication ID was seen within its window (or earlier in the batch) and nothing was appended for this item. */
  readonly duplicate: boolean;
}

/** A publication checked and encoded, before any I/O. */
interface PreparedPublication {
  readonly bytes: Buffer;
  readonly deduplicationId: string | undefined;
  readonly windowMs: number;
  /** Encoded headers; undefined for none. */
  readonly headers: Buffer | undefined;
  /** The checked headers, in order, to add the instrumentation's to; undefined for none. */
  readonly headerEntries: readonly (readonly [string, string | Uint8Array])[] | undefined;
}

const PUBLISH_OPTIONS = ['deduplicationId', 'deduplicationWindowMs', 'headers'] as const satisfies readonly (keyof PublishOptions)[];
const PUBLISH_MANY_ITEM = ['payload', ...PUBLISH_OPTIONS] as const satisfies readonly (keyof PublishManyItem<unknown>)[];

/** What happened to a publish. */
export interface PublishResult {
  /** The publication's entry ID; for a duplicate, the original's. */
  readonly id: string;
  /** True when the deduplication ID was seen within its window and nothing was appended. */
  readonly duplicate: boolean;
  /** Publications retention trimmed in the same call (at most {@link TOPIC_TRIM_PER_PUBLISH}). */
  readonly trimmed: number;
}

/**
 * Where a new subscription starts: `'earliest'` (every retained publication), `'latest'` (only
 * publications after its creation), an entry ID (publications after that ID) or `{ timeMs }`
 * (publications whose entry ID time is at or after `timeMs`, ms since the epoch, server clock).
 */
export type SubscriptionStart = 'earliest' | 'latest' | string | { readonly timeMs: number };

/** Options of {@link ReliableTopic.subscription}. */
export interface SubscriptionOptions {
  /** Deliveries before dead-lettering, 1..2^31-1. @defaultValue the topic's `deliveryLimit` */
  deliveryLimit?: number;
  /** Where `create()` starts the subscription; an existing subscription keeps its position. @defaultValue 'latest' */
  start?: SubscriptionStart;
}

/** One subscription as {@link ReliableTopic.subscriptions} lists it. */
export interface SubscriptionInfo {
  /** The subscription name. */
  readonly name: string;
  /** The last entry ID delivered to it (its position); `'0-0'` before the first. */
  readonly lastDeliveredId: string;
  /** Deliveries leased or released and not yet settled (its pending entries list). */
  readonly pending: number;
  /** Retained publications not yet delivered to it, as the server counts them; null when it cannot tell (after a trim, on some servers). */
  readonly lag: number | null;
  /** Entries in its dead-letter stream. */
  readonly deadLetters: number;
  /** Publications a retention bound trimmed before it completed them. */
  readonly trimmed: number;
}

/** Options of {@link ReliableTopic.trim}. */
export interface TrimOptions {
  /** Most publications trimmed by this call, 1..1000. @defaultValue 1000 */
  max?: number;
}

/**
 * A reliable topic (queue README "Reliable topic"): each publication is one entry on the topic's
 * stream, whatever the number of subscriptions; each named subscription receives every retained
 * publication independently, with the reliable queue's consumer contract (leases, fenced receipts,
 * visibility timeouts on the server clock, a delivery limit and its own dead-letter stream).
 *
 * Retention: a publication is kept until every subscription has completed it (acknowledged or
 * dead-lettered), optionally bounded by `maxAgeMs` / `maxLength`; a bound that trims a publication
 * some subscription had not completed counts it for that subscription, never silently. Each
 * publish applies retention to at most {@link TOPIC_TRIM_PER_PUBLISH} of the oldest publications;
 * {@link ReliableTopic.trim} applies it on demand.
 *
 * The caller owns `client`; instances are cheap and stateless.
 *
 * @example
 * ```ts
 * const topic = new ReliableTopic(client, 'orders', { codec: jsonCodec<Order>() });
 * const billing = topic.subscription('billing', { start: 'earliest' });
 * await billing.create(); // once, idempotent
 * await topic.publish({ id: 42 }, { deduplicationId: 'order-42' });
 * for (const message of await billing.receive(30_000, { max: 10 })) await billing.ack(message);
 * ```
 */
export class ReliableTopic<T> {
  /** The topic name. */
  readonly name: string;
  /** The stream of publications. Reserve it for the topic: every consumer group on it is a subscription. */
  readonly streamKey: string;
  /** The default delivery limit of its subscriptions. */
  readonly deliveryLimit: number;
  /** Retention bound by age, ms; undefined for none. */
  readonly maxAgeMs: number | undefined;
  /** Retention bound by length, publications; undefined for none. */
  readonly maxLength: number | undefined;

  readonly #keys: TopicKeys;
  readonly #target: CommandTarget;
  readonly #codec: Codec<T>;
  readonly #instrumentation: QueueInstrumentation | undefined;

  /**
   * @param client - a connected node-redis client or Cluster client, owned by the caller.
   * @param name - nonblank, without `{` or `}`.
   * @throws {@link RespireValidationError} for a bad name, codec, delivery limit, bound, key
   *   prefix, command timeout, unknown option or a client that is not node-redis.
   * @throws {@link RespireCrossSlotError} when the resolved keys would not share one Cluster slot.
   */
  constructor(client: RedisClientLike, name: string, options: ReliableTopicOptions<T>) {
    if (typeof options !== 'object' || options === null) {
      throw new RespireValidationError('options', 'must be an object with at least a codec');
    }
    toOptions('options', options, TOPIC_OPTIONS);
    this.#keys = topicKeys(name, options.keyPrefix);
    this.#codec = toCodec<T>(options.codec);
    this.deliveryLimit = toIntegerInRange('deliveryLimit', options.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT, 1, MAX_INT32);
    this.maxAgeMs = options.maxAgeMs === undefined ? undefined : toDurationMs('maxAgeMs', options.maxAgeMs);
    this.maxLength = options.maxLength === undefined ? undefined : toIntegerInRange('maxLength', options.maxLength, 1, MAX_INT32);
    const commandTimeoutMs = options.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', options.commandTimeoutMs, true);
    this.#target = commandTarget(client, 'client', commandTimeoutMs === undefined ? {} : { commandTimeoutMs });
    this.#instrumentation = options.instrumentation;
    this.name = name;
    this.streamKey = this.#keys.stream;
  }

  /**
   * Appends a publication for every subscription (one entry, one copy of the payload) and returns
   * its entry ID; then applies retention to at most {@link TOPIC_TRIM_PER_PUBLISH} of the oldest
   * publications. With a deduplication ID, a repeat within the window returns the original ID and
   * appends nothing (the queue's rules).
   *
   * @throws {@link RespireValidationError} for a bad deduplication ID or window, bad headers (more
   *   than 64, over 65,536 bytes encoded, a blank name, a value neither string nor Uint8Array), or a
   *   payload over 512 MiB, before any I/O.
   * @throws {@link RespireCodecError} when the codec's encode throws; nothing is sent.
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} when a key has another type or
   *   the user may not run XADD, SET, XTRIM or HINCRBY on it; nothing changed.
   * @throws {@link RespireTransportError} when the outcome is unknown: retry with the same deduplication ID.
   * @throws {@link RespireServerError} for other replies; `retryable` when it proves nothing ran.
   */
  async publish(payload: T, options: PublishOptions = {}): Promise<string> {
    return (await this.publishWithResult(payload, options)).id;
  }

  /** As {@link publish}, but also tells whether it was a duplicate and how much retention trimmed. */
  async publishWithResult(payload: T, options: PublishOptions = {}): Promise<PublishResult> {
    const { bytes, deduplicationId, windowMs, headers, headerEntries } = this.#prepare(
      payload,
      toOptions('options', options, PUBLISH_OPTIONS),
      '',
      'ReliableTopic.publish',
    );
    return instrumented(
      this.#instrumentation,
      { operation: 'send', queue: this.name, messageCount: 1 },
      async (injected) => {
        const withContext = withInjected({ headers, headerEntries }, injected);
        const reply = await scriptCalls.topicPublish(
          this.#target,
          {
            stream: this.#keys.stream,
            // Unused without an ID (window 0), but a key of the topic all the same.
            deduplicationKey: this.#keys.deduplicationPrefix + (deduplicationId ?? ''),
            trimmed: this.#keys.trimmed,
            payload: bytes,
            windowMs: deduplicationId === undefined ? 0 : windowMs,
            maxAgeMs: this.maxAgeMs ?? 0,
            maxLength: this.maxLength ?? 0,
            trimLimit: TOPIC_TRIM_PER_PUBLISH,
            headers: withContext.headers ?? '',
          },
          { operation: 'ReliableTopic.publish' },
        );
        return { id: reply.entryId, duplicate: reply.duplicate, trimmed: reply.trimmed };
      },
      (result) => ({ messageId: result.id, duplicate: result.duplicate }),
    );
  }

  /**
   * Publishes up to {@link MAX_BATCH} payloads in one round trip and one atomic script: one entry
   * each, in order, all or none; then retention as {@link publish} (the new entries are never
   * trimmed by it, even past `maxLength`: the next publish or trim does). Without headers or
   * deduplication: {@link publishManyWithResults} takes them per item. An empty array sends nothing.
   * @returns the new entry IDs, in order.
   * @throws {@link RespireValidationError} for a non-array, more than 1,000 payloads, or encoded
   *   payloads over 512 MiB in total, before any I/O.
   * @throws {@link RespireCodecError}, {@link RespireKeyTypeError}, {@link RespirePermissionError},
   *   {@link RespireTransportError}, {@link RespireServerError} as {@link publish}.
   */
  async publishMany(payloads: readonly T[]): Promise<string[]> {
    if (!Array.isArray(payloads)) throw new RespireValidationError('payloads', 'must be an array');
    if (payloads.length > MAX_BATCH) throw new RespireValidationError('payloads', `at most ${MAX_BATCH} per call, got ${payloads.length}`);
    if (payloads.length === 0) return [];
    const prepared: PreparedPublication[] = [];
    let total = 0;
    for (const payload of payloads as readonly T[]) {
      const bytes = encodePayload(this.#codec, payload, 'ReliableTopic.publishMany');
      total += bytes.length;
      prepared.push({ bytes, deduplicationId: undefined, windowMs: 0, headers: undefined, headerEntries: undefined });
    }
    if (total > MAX_BULK_BYTES) {
      throw new RespireValidationError('payloads', `encoded to ${total} bytes in all, more than the ${MAX_BULK_BYTES} bytes (512 MiB) one call may carry`);
    }
    return (await this.#publishBatch(prepared, 'ReliableTopic.publishMany')).map((result) => result.id);
  }

  /**
   * Publishes up to {@link MAX_BATCH} items in one round trip and one atomic script, each with the
   * options of {@link publish} (headers, deduplication ID and window): the queue's `sendMany` rules
   * (queue README "Batch send"). Every item is checked and encoded before any I/O: one bad item
   * publishes nothing. An item whose deduplication ID was seen within its window appends nothing
   * and answers the original's entry ID; items sharing an ID within the batch: the first is
   * appended, the later ones are its duplicates. Then retention as {@link publishMany}, when
   * anything was appended. An empty array publishes nothing.
   *
   * A lost reply (`RespireTransportError` with `outcomeUnknown: true`) leaves every item's outcome
   * unknown (the script ran entirely or not at all): repeating the batch is safe for items with
   * deduplication IDs; items without one may be published twice.
   * @returns one {@link PublishManyResult} per item, in order.
   * @throws {@link RespireValidationError} before any I/O for a non-array, more than 1,000 items, an
   *   item that is not an object with a payload, a bad option (argument `items[i].<option>`: as
   *   {@link publish}'s), or payloads and headers over 512 MiB in total.
   * @throws {@link RespireCodecError} when the codec's encode throws for an item; nothing is sent.
   * @throws {@link RespireKeyTypeError}, {@link RespirePermissionError}, {@link RespireTransportError},
   *   {@link RespireServerError} as {@link publish}.
   */
  async publishManyWithResults(items: readonly PublishManyItem<T>[]): Promise<PublishManyResult[]> {
    let list: readonly unknown[];
    try {
      // A copy read once: a Proxy or an array-like with throwing getters fails here, as bad input.
      if (!Array.isArray(items)) throw new TypeError('not an array');
      list = Array.from(items);
    } catch {
      throw new RespireValidationError('items', 'must be an array of { payload, ...publish options }');
    }
    if (list.length > MAX_BATCH) throw new RespireValidationError('items', `at most ${MAX_BATCH} per call, got ${list.length}`);
    const prepared: PreparedPublication[] = [];
    let total = 0;
    for (const [index, item] of list.entries()) {
      const name = `items[${index}]`;
      if (typeof item !== 'object' || item === null || !('payload' in item)) throw new RespireValidationError(name, 'must be an object with a payload');
      const options = toOptions(name, item, PUBLISH_MANY_ITEM) as PublishManyItem<T>;
      const one = this.#prepare(options.payload, options, `${name}.`, 'ReliableTopic.publishManyWithResults');
      total += one.bytes.length + (one.headers?.length ?? 0);
      if (total > MAX_BULK_BYTES) {
        throw new RespireValidationError('items', `more than ${MAX_BULK_BYTES} bytes (512 MiB) in one call; nothing was sent: split the batch`);
      }
      prepared.push(one);
    }
    if (prepared.length === 0) return [];
    return this.#publishBatch(prepared, 'ReliableTopic.publishManyWithResults');
  }

  /** Checks and encodes one publication (no I/O); `prefix` names its item in errors. */
  #prepare(payload: T, options: PublishOptions, prefix: string, operation: string): PreparedPublication {
    const { deduplicationId, deduplicationWindowMs, headers } = options;
    const windowMs = toDurationMs(`${prefix}deduplicationWindowMs`, deduplicationWindowMs ?? DEFAULT_DEDUPLICATION_WINDOW_MS);
    if (deduplicationId !== undefined) checkDeduplicationId(deduplicationId, `${prefix}deduplicationId`);
    const checked = headers === undefined ? undefined : checkHeaders(headers, `${prefix}headers`);
    return { bytes: encodePayload(this.#codec, payload, operation), deduplicationId, windowMs, headers: checked?.encoded, headerEntries: checked?.entries };
  }

  /** One topic-publish-many call for a nonempty checked batch, inside the hooks (which may add trace-context headers to every item). */
  async #publishBatch(prepared: readonly PreparedPublication[], operation: string): Promise<PublishManyResult[]> {
    let appended = 0;
    return instrumented(
      this.#instrumentation,
      { operation: 'send', queue: this.name, messageCount: prepared.length },
      async (injected) => {
        const keyIndex = new Map<string, number>();
        const deduplicationKeys: string[] = [];
        const args: (string | Buffer)[] = [];
        for (const item of prepared) {
          const { bytes, deduplicationId, windowMs } = item;
          const headers = withInjected({ headers: item.headers, headerEntries: item.headerEntries }, injected).headers;
          let index = 0;
          if (deduplicationId !== undefined) {
            const key = this.#keys.deduplicationPrefix + deduplicationId;
            index = keyIndex.get(key) ?? 0;
            if (index === 0) {
              deduplicationKeys.push(key);
              index = deduplicationKeys.length + 2; // KEYS[1] and KEYS[2] are the stream and the trimmed hash
              keyIndex.set(key, index);
            }
          }
          args.push(bytes, String(index), String(windowMs), headers ?? '');
        }
        const reply = await scriptCalls.topicPublishMany(
          this.#target,
          {
            stream: this.#keys.stream,
            trimmed: this.#keys.trimmed,
            deduplicationKeys,
            maxAgeMs: this.maxAgeMs ?? 0,
            maxLength: this.maxLength ?? 0,
            trimLimit: TOPIC_TRIM_PER_PUBLISH,
            items: args,
          },
          { operation },
        );
        if (reply.results.length !== prepared.length) {
          throw new RespireServerError(`${operation}: the script answered ${reply.results.length} results for ${prepared.length} items`);
        }
        const results = reply.results.map((r) => ({ id: r.entryId, duplicate: r.duplicate }));
        appended = results.filter((r) => !r.duplicate).length;
        return results;
      },
      (results) => ({ completed: appended, duplicate: results.length > 0 && appended === 0 }),
    );
  }

  /**
   * Applies retention once: trims up to `max` of the oldest publications that no subscription
   * still needs (each subscription needs everything after its last-delivered entry ID and from the
   * oldest entry of its pending entries list), or that `maxAgeMs` / `maxLength` exclude (counted per
   * subscription that had not been delivered them). With no subscription, only the bounds trim.
   * @returns the number of publications trimmed; call again while it equals `max`.
   * @throws {@link RespireValidationError} for a bad `max`, before any I/O.
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} (XTRIM, HINCRBY); nothing changed.
   */
  async trim(options: TrimOptions = {}): Promise<number> {
    const max = toIntegerInRange('max', toOptions('options', options, ['max']).max ?? MAX_BATCH, 1, MAX_BATCH);
    return scriptCalls.topicTrim(
      this.#target,
      { stream: this.#keys.stream, trimmed: this.#keys.trimmed, maxAgeMs: this.maxAgeMs ?? 0, maxLength: this.maxLength ?? 0, trimLimit: max },
      { operation: 'ReliableTopic.trim' },
    );
  }

  /**
   * Every subscription of the topic (the consumer groups of its stream), read-only: position,
   * pending deliveries, lag, dead letters and trimmed count. Not one atomic snapshot: a few reads.
   * @throws {@link RespireKeyTypeError} when a key of the topic has another type.
   */
  async subscriptions(): Promise<SubscriptionInfo[]> {
    const operation = 'ReliableTopic.subscriptions';
    const { stream, trimmed } = this.#keys;
    if (Number(await this.#target.send(stream, ['EXISTS', stream], { operation })) === 0) return [];
    const groups = await this.#target.send(stream, ['XINFO', 'GROUPS', stream], { operation, keyType: { key: stream, type: 'stream' } });
    const counts = fieldMap(await this.#target.send(trimmed, ['HGETALL', trimmed], { operation, keyType: { key: trimmed, type: 'hash' } }));
    const list: SubscriptionInfo[] = [];
    for (const group of Array.isArray(groups) ? (groups as unknown[]) : []) {
      const name = replyString(infoField(group, 'name'));
      const deadLetter = subscriptionKeys(this.#keys, name).deadLetter;
      const deadLetters = await this.#target.send(deadLetter, ['XLEN', deadLetter], { operation, keyType: { key: deadLetter, type: 'stream' } });
      const lag = infoField(group, 'lag');
      list.push({
        name,
        lastDeliveredId: replyString(infoField(group, 'last-delivered-id')),
        pending: Number(infoField(group, 'pending')),
        lag: lag === null || lag === undefined ? null : Number(lag),
        deadLetters: Number(deadLetters),
        trimmed: Number(counts.get(name) ?? 0),
      });
    }
    return list;
  }

  /**
   * A handle on the subscription `name` (no I/O): call `create()` once to make it.
   * @throws {@link RespireValidationError} for a blank name or one with braces, a bad delivery
   *   limit or start, or an unknown option.
   */
  subscription(name: string, options: SubscriptionOptions = {}): TopicSubscription<T> {
    const { deliveryLimit, start } = toOptions('options', options, ['deliveryLimit', 'start']);
    const keys = subscriptionKeys(this.#keys, name);
    const limit = toIntegerInRange('deliveryLimit', deliveryLimit ?? this.deliveryLimit, 1, MAX_INT32);
    return new TopicSubscription<T>(this.#target, this.#keys, keys, this.#codec, limit, toStart(start ?? 'latest'), this.name, this.#instrumentation);
  }
}

/** A hash read by HGETALL (RESP2 flat array, RESP3 Map or object), as field to value text. */
function fieldMap(reply: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) map.set(replyString(reply[i]), replyString(reply[i + 1]));
  else if (reply instanceof Map) for (const [k, v] of reply) map.set(replyString(k), replyString(v));
  else if (reply && typeof reply === 'object') for (const [k, v] of Object.entries(reply)) map.set(k, replyString(v));
  return map;
}

/** Where a consumer group is created: after an entry ID, or after the last entry before a time (resolved by the script). */
interface StartPosition {
  readonly id: string;
  readonly timeMs: string;
}

function toStart(start: unknown): StartPosition {
  if (start === 'earliest') return { id: '0', timeMs: '' };
  if (start === 'latest') return { id: '$', timeMs: '' };
  if (typeof start === 'string') return { id: toEntryId('start', start), timeMs: '' };
  if (typeof start === 'object' && start !== null && Object.keys(start).length === 1 && 'timeMs' in start) {
    const timeMs = toIntegerInRange('start.timeMs', (start as { timeMs: unknown }).timeMs, 0, Number.MAX_SAFE_INTEGER);
    return timeMs === 0 ? { id: '0', timeMs: '' } : { id: '0', timeMs: String(timeMs) };
  }
  throw new RespireValidationError('start', "must be 'earliest', 'latest', an entry ID or { timeMs }");
}

/**
 * One named subscription of a {@link ReliableTopic}: its own consumer group on the topic's stream
 * (its position, kept across restarts), its own deadlines index and dead-letter stream. Receive,
 * ack and nack are the reliable queue's; a receipt of another subscription never completes or
 * releases one of this one's deliveries.
 */
export class TopicSubscription<T> {
  /** The subscription name (also its consumer group's). */
  readonly name: string;
  /** The topic's name. */
  readonly topic: string;
  /** The subscription's dead-letter stream: the queue's record format (`payload`, `source_id`, `delivery_count`). */
  readonly deadLetterStreamKey: string;
  /** Deliveries before dead-lettering. */
  readonly deliveryLimit: number;

  readonly #target: CommandTarget;
  readonly #topicKeys: TopicKeys;
  readonly #keys: SubscriptionKeys;
  readonly #codec: Codec<T>;
  readonly #leases: Leases;
  readonly #start: StartPosition;
  readonly #instrumentation: QueueInstrumentation | undefined;

  /** @internal Made by {@link ReliableTopic.subscription}. */
  constructor(
    target: CommandTarget,
    topicKeys: TopicKeys,
    keys: SubscriptionKeys,
    codec: Codec<T>,
    deliveryLimit: number,
    start: StartPosition,
    topic: string,
    instrumentation: QueueInstrumentation | undefined,
  ) {
    this.#target = target;
    this.#topicKeys = topicKeys;
    this.#keys = keys;
    this.#codec = codec;
    this.#start = start;
    this.#instrumentation = instrumentation;
    this.#leases = new Leases(target, subscriptionSource(topicKeys, keys));
    this.name = keys.group;
    this.topic = topic;
    this.deadLetterStreamKey = keys.deadLetter;
    this.deliveryLimit = deliveryLimit;
  }

  /**
   * Creates the subscription (its consumer group) at its `start`; idempotent: an existing
   * subscription keeps its position.
   * @returns true when created, false when it existed.
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} (XGROUP CREATE); nothing changed.
   */
  create(): Promise<boolean> {
    return scriptCalls.topicSubscribe(
      this.#target,
      { stream: this.#topicKeys.stream, group: this.#keys.group, start: this.#start.id, startTimeMs: this.#start.timeMs },
      { operation: 'TopicSubscription.create' },
    );
  }

  /**
   * Removes the subscription: its consumer group, deadlines index, retried dead letters, wake stream
   * and trimmed counter (its dead-letter stream is kept). Its publications are released to retention; its receipts are stale.
   * @returns true when it existed.
   */
  remove(): Promise<boolean> {
    return scriptCalls.topicUnsubscribe(
      this.#target,
      {
        stream: this.#topicKeys.stream,
        deadlines: this.#keys.deadlines,
        trimmed: this.#topicKeys.trimmed,
        wake: this.#keys.wake,
        retried: this.#keys.retried,
        group: this.#keys.group,
      },
      { operation: 'TopicSubscription.remove' },
    );
  }

  /**
   * Moves the subscription to `start` (an operator's replay or skip; see {@link SubscriptionStart}),
   * within what is retained: publications already trimmed cannot come back. Its leases are
   * discarded: every receipt it issued is stale from now on (ack and nack return false), its
   * pending entries list is emptied, and the retained publications after the new position are
   * delivered again with the delivery count starting at 1; retried dead letters not yet completed are
   * discarded with the leases. Its dead letters and trimmed count stay.
   * Moving forward releases what it skipped to retention.
   * @returns the subscription's new last-delivered entry ID (`'0'` for earliest) and the number of
   *   leases discarded.
   * @throws {@link RespireValidationError} for a bad `start`, before any I/O.
   * @throws {@link RespireStateError} when the subscription does not exist; nothing changed.
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} (XGROUP DESTROY and CREATE, DEL); nothing changed.
   */
  async seek(start: SubscriptionStart): Promise<{ readonly position: string; readonly discarded: number }> {
    const position = toStart(start);
    return scriptCalls.topicSeek(
      this.#target,
      {
        stream: this.#topicKeys.stream,
        deadlines: this.#keys.deadlines,
        retried: this.#keys.retried,
        group: this.#keys.group,
        start: position.id,
        startTimeMs: position.timeMs,
      },
      { operation: 'TopicSubscription.seek' },
    );
  }

  /**
   * Leases up to `max` publications for `visibilityTimeoutMs`: the queue's receive on this
   * subscription (due deliveries first, exhausted ones to the dead-letter stream, then new
   * publications in stream order). A due delivery whose publication a retention bound trimmed is
   * dropped and counted ({@link trimmedCount}). With `waitMs` (0..20,000 ms) it is the queue's
   * waiting receive (queue README "Waiting receive"): when nothing is receivable it blocks on a
   * connection of its own until a publication arrives or the subscription's next deadline passes,
   * and returns an empty batch at `waitMs`.
   * @throws {@link RespireValidationError} for a bad timeout, `max` or `waitMs` (before any I/O).
   * @throws {@link RespireStateError} when the subscription was never created (or was removed); nothing changed.
   * @throws {@link RespireCodecError}, {@link RespireKeyTypeError}, {@link RespirePermissionError},
   *   {@link RespireTransportError}, {@link RespireServerError} as the queue's receive.
   */
  async receive(visibilityTimeoutMs: number, options: ReceiveOptions = {}): Promise<ReceivedMessage<T>[]> {
    const { timeoutMs, max, waitMs } = toReceiveArguments(visibilityTimeoutMs, options);
    if (waitMs === 0) return this.#receiveOnce(timeoutMs, max);
    return withWaiter(this.#target, (waiter) => this.#receiveWaiting(timeoutMs, max, waitMs, waiter));
  }

  /**
   * Starts a hosted consumer of this subscription: the queue's `consume()` (queue README
   * "Consuming": concurrency, lease extension while a handler runs, batched ACKs, NACK with the
   * retry backoff on a throw, `stop()`), waiting with this subscription's waiting receive on one
   * connection of its own. Call {@link create} first: until the subscription exists its receives
   * fail (`RespireStateError`), logged and retried with the consumer's backoff.
   * @throws {@link RespireValidationError} for a handler that is not a function or a bad option (before anything starts).
   */
  consume(handler: ConsumeHandler<T>, options: ConsumeOptions = {}): QueueConsumer {
    const settings = consumeSettings(handler, options);
    return new Consumer<ReceivedMessage<T>>(
      {
        name: `${this.topic}/${this.name}`,
        receiveWaiting: (visibilityTimeoutMs, max, waitMs, waiter, beforeWait) => this.#receiveWaiting(visibilityTimeoutMs, max, waitMs, waiter, beforeWait),
        newWaiter: () => new Waiter(this.#target),
        ackMany: (messages) => this.ackMany(messages),
        nackMany: (messages, delayMs) => this.nackMany(messages, delayMs),
        extend: (message, visibilityTimeoutMs) => this.extend(message, visibilityTimeoutMs),
      },
      handler,
      settings,
    );
  }

  /** The waiting receive on this subscription: new publications and its NACKs (its wake stream) wake it, and so does its next deadline. */
  #receiveWaiting(timeoutMs: number, max: number, waitMs: number, waiter: Waiter, beforeWait?: () => Promise<void>): Promise<ReceivedMessage<T>[]> {
    const operation = 'TopicSubscription.receive (waiting)';
    const { stream } = this.#topicKeys;
    const { deadlines, wake, group } = this.#keys;
    return receiveWaiting(
      { stream, receiveOnce: () => this.#receiveOnce(timeoutMs, max), waitPoint: () => waitPoint(this.#target, { stream, deadlines, wake, group }, operation) },
      waitMs,
      waiter,
      operation,
      beforeWait,
    );
  }

  async #receiveOnce(timeoutMs: number, max: number): Promise<ReceivedMessage<T>[]> {
    const operation = 'TopicSubscription.receive';
    let deadLettered = 0;
    return instrumented(
      this.#instrumentation,
      { operation: 'receive', queue: this.topic, subscription: this.name, messageCount: max },
      async () => {
        const batch = await this.#leases.lease({ visibilityTimeoutMs: timeoutMs, max, deliveryLimit: this.deliveryLimit }, operation);
        deadLettered = batch.deadLettered;
        const messages: ReceivedMessage<T>[] = [];
        for (const { id, payload, deliveryCount, receipt, headers } of batch.leases) {
          const decoded = decodePayload(this.#codec, id, payload, batch.leases.length, operation);
          messages.push({ id, payload: decoded, deliveryCount, receipt, headers: decodeHeaders(id, headers, batch.leases.length, operation) });
        }
        return messages;
      },
      (messages) => ({ completed: messages.length, deadLettered }),
      // A decode failure still leaves the moves made: report them.
      (error) => ({ error, deadLettered }),
    );
  }

  /**
   * Acknowledges one delivery for this subscription (XACK in its group; the publication stays for
   * the others until retention trims it).
   * @returns true when acknowledged; false for an expired, revoked, superseded or completed receipt,
   *   or one of another subscription.
   * @throws {@link RespireValidationError} when `message` is not a received message (before any I/O).
   */
  async ack(message: MessageReceipt): Promise<boolean> {
    return (await this.ackMany([message]))[0]!;
  }

  /** Acknowledges up to 1,000 deliveries in one atomic script; one boolean per message, as {@link ack}. */
  async ackMany(messages: readonly MessageReceipt[]): Promise<boolean[]> {
    return this.#settle('ack', messages, (pairs, operation) => this.#leases.complete(pairs, operation));
  }

  /**
   * Rejects one delivery: revokes its receipt and makes it due after `delayMs` (0..2^31-1 ms), as the queue's nack.
   * @returns as {@link ack}.
   * @throws {@link RespireValidationError} for a bad delay or message (before any I/O).
   */
  async nack(message: MessageReceipt, delayMs = 0): Promise<boolean> {
    return (await this.nackMany([message], delayMs))[0]!;
  }

  /** Rejects up to 1,000 deliveries in one atomic script; as {@link nack}. */
  async nackMany(messages: readonly MessageReceipt[], delayMs = 0): Promise<boolean[]> {
    const delay = toDurationMs('delayMs', delayMs, true);
    return this.#settle('nack', messages, (pairs, operation) => this.#leases.release(pairs, delay, operation));
  }

  /**
   * Gives one delivery's lease a new deadline, server now + `visibilityTimeoutMs`, keeping its
   * receipt: the queue's extend on this subscription.
   * @returns true when extended; false exactly where {@link ack} would be (nothing changed).
   * @throws {@link RespireValidationError} for a bad timeout or message (before any I/O).
   */
  async extend(message: MessageReceipt, visibilityTimeoutMs: number): Promise<boolean> {
    return (await this.extendMany([message], visibilityTimeoutMs))[0]!;
  }

  /** Extends up to 1,000 deliveries' leases in one atomic script; as {@link extend}. */
  async extendMany(messages: readonly MessageReceipt[], visibilityTimeoutMs: number): Promise<boolean[]> {
    const timeoutMs = toDurationMs('visibilityTimeoutMs', visibilityTimeoutMs);
    return this.#settle('extend', messages, (pairs, operation) => this.#leases.extend(pairs, timeoutMs, operation));
  }

  /** Completes, releases or extends validated receipts, inside the hooks: one round trip, one boolean per message. */
  async #settle(
    operation: 'ack' | 'nack' | 'extend',
    messages: readonly MessageReceipt[],
    run: (pairs: readonly string[], operation: string) => Promise<boolean[]>,
  ): Promise<boolean[]> {
    const pairs = receiptPairs(messages);
    if (pairs.length === 0) return [];
    return instrumentedSettle(this.#instrumentation, { operation, queue: this.topic, subscription: this.name }, messages, () =>
      run(pairs, `TopicSubscription.${operation}`),
    );
  }

  /**
   * Publications a retention bound trimmed before this subscription completed them: never
   * delivered ones, counted by the trim, and leased ones, counted by the receive that found them gone.
   */
  async trimmedCount(): Promise<number> {
    const { trimmed } = this.#topicKeys;
    const count = await this.#target.send(trimmed, ['HGET', trimmed, this.#keys.group], {
      operation: 'TopicSubscription.trimmedCount',
      keyType: { key: trimmed, type: 'hash' },
    });
    return count === null || count === undefined ? 0 : Number(String(count));
  }
}
