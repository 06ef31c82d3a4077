// ReliableQueue: send (with deduplication), and receive, ACK and NACK on the lease engine (./leases).
import {
  MAX_BULK_BYTES,
  RespireCodecError,
  RespireServerError,
  RespireValidationError,
  type DurabilityOptions,
  type RedisClientLike,
} from '@respire/core-scripts';
import {
  MAX_INT32,
  commandTarget,
  describeThrown,
  exceptionType,
  isWellFormedText,
  queueKeys,
  scriptCalls,
  toDurationMs,
  toIntegerInRange,
  toOptions,
  type CommandTarget,
  type MessageHeaders,
  type QueueKeys,
  type ReceivedHeaders,
} from '@respire/core-scripts/internal';
import { toCodec, type Codec } from './codec.js';
import { checkDeduplicationId, checkHeaders, decodeHeaders, withInjected } from './payloads.js';
import { instrumented, instrumentedSettle, type QueueInstrumentation } from './instrumentation.js';
import { Leases, MAX_BATCH, receiptPairs, type Lease, type MessageReceipt } from './leases/leases.js';
import { queueSource } from './leases/queue-source.js';
import { groupedQueueKeys, groupedSource, type GroupedQueueKeys } from './leases/grouped-source.js';
import { Waiter, groupedWaitPoint, receiveWaiting, waitPoint, withWaiter } from './wait.js';
import { Consumer, consumeSettings, type ConsumeHandler, type ConsumeOptions, type QueueConsumer } from './consumer.js';
import { SendCoalescer } from './send-coalescer.js';

/** Default `max` of {@link ReliableQueue.receive}: small batches keep the atomic recovery short (README "The contract"). */
export const DEFAULT_RECEIVE_MAX = 10;
/** Longest `waitMs` of a waiting {@link ReliableQueue.receive}: 20 s, as SQS's long polling. */
export const MAX_WAIT_MS = 20_000;
/** Default delivery limit: five deliveries (README "The contract"). */
export const DEFAULT_DELIVERY_LIMIT = 5;
/** Default deduplication window: one day, in ms (README "The contract"). */
export const DEFAULT_DEDUPLICATION_WINDOW_MS = 86_400_000;
/** Longest deduplication ID, in UTF-8 bytes. */
export const MAX_DEDUPLICATION_ID_BYTES = 1024;
/** Longest group ID of a grouped queue's message, in UTF-8 bytes (README "Message groups"). */
export const MAX_GROUP_ID_BYTES = 1024;
/**
 * Largest encoded payload, in bytes: 512 MiB (536,870,912), Redis's default `proto-max-bulk-len`,
 * the most a server takes in one argument. Larger payloads are refused before any I/O.
 */
export const MAX_PAYLOAD_BYTES = MAX_BULK_BYTES;
/** Most items of one {@link ReliableQueue.sendMany}. */
export const MAX_SEND_BATCH = 1000;
/**
 * Most bytes of one {@link ReliableQueue.sendMany}, payloads and headers together: 512 MiB, so a
 * batch fits the server's query buffer (`client-query-buffer-limit`, 1 GiB by default).
 */
export const MAX_SEND_BATCH_BYTES = MAX_BULK_BYTES;
/**
 * Most payload and header bytes of the grouped sends coalesced into one script call (README
 * "Message groups"): 1 MiB; a larger send goes alone.
 */
const MAX_COALESCED_SEND_BYTES = 1_048_576;
/**
 * Most grouped sends coalesced into one script call: 100, about half a millisecond of server time
 * (README "Message groups": about 5 µs a message), so that one call never holds the server long.
 */
const MAX_COALESCED_SENDS = 100;

/** Every option name of a queue, checked against {@link ReliableQueueOptions}. */
const QUEUE_OPTIONS = [
  'codec',
  'deliveryLimit',
  'keyPrefix',
  'instrumentation',
  'commandTimeoutMs',
  'groups',
  'durability',
] as const satisfies readonly (keyof ReliableQueueOptions<unknown>)[];

/** Options of a {@link ReliableQueue}. */
export interface ReliableQueueOptions<T> {
  /** Turns payloads into bytes and back; see `bytesCodec`, `utf8Codec`, `jsonCodec()`. Required. */
  codec: Codec<T>;
  /**
   * Deliveries after which the next receive that finds the message due moves it to the
   * dead-letter stream. Whole number, 1..2^31-1. Every instance of a queue must use the same.
   * @defaultValue 5
   */
  deliveryLimit?: number;
  /**
   * Prepended to every key (a key-prefixed view of the client). The queue's keys still share
   * one hash tag; the resolved keys are checked to be in one Cluster slot.
   * @defaultValue '' (none)
   */
  keyPrefix?: string;
  /** Hooks for metrics and tracing (`@respire/otel`). */
  instrumentation?: QueueInstrumentation;
  /**
   * Deadline of each of the queue's commands, in ms (0..2^31-1); 0 disables it. A command still
   * waiting to be written when it expires (the client is reconnecting) is not sent:
   * `RespireTransportError` with `outcomeUnknown: false`. A command written but not answered by
   * then (a black-holed connection) rejects a few ms later with `outcomeUnknown: true`; the
   * connection is left to its owner. Nothing is retried. Undefined keeps the client's own setting:
   * node-redis 6 waits at most 5,000 ms for the write and then as long as the connection lives
   * (`0` made the queue about 3× faster in `pnpm bench`: no timer per command); node-redis 5 has
   * no timeout at all. On a node-redis 6 Cluster client, undefined holds each whole call to the
   * client's timeout (`commandOptions.timeout`, 5,000 ms by default), including the wait for the
   * slot's node connection, which node-redis's own timeout does not cover: during a failover a call
   * ends with `RespireTransportError` instead of hanging (README "Cluster failover").
   * @defaultValue undefined (the client's setting)
   */
  commandTimeoutMs?: number;
  /**
   * Makes the queue grouped (README "Message groups", beyond the contract: CONFORMANCE.md): every
   * send names a `groupId`; messages of one group are delivered in send order, at most one of them
   * leased at a time, and groups are served round robin (`{}`: ordered groups); with
   * `groupConcurrency` above 1, fair groups. A grouped queue keeps its own keys under the queue's hash tag; every instance of a
   * name must agree, and grouped calls fail with `RespireKeyTypeError` while the ungrouped queue's
   * stream of the same name exists.
   * @defaultValue undefined (ungrouped)
   */
  groups?: GroupOptions;
  /**
   * Makes every write of the queue (send, receive's leases and dead letters, ack, nack) wait until
   * it reached `replicas` replicas (`WAIT`) and/or the AOF (`WAITAOF`, Redis 7.2+ / Valkey 8+)
   * within `timeoutMs`, pipelined on the write's connection (README "Durability": what it promises
   * and what it does not). When the target is not met the write stays applied and the call throws
   * `RespireNotDurableError` (`retrySafe` for a send with a deduplication ID). A wait blocks the
   * connection it runs on: give a durable queue its own client when others share it.
   * @defaultValue undefined (no wait: Redis's asynchronous replication)
   */
  durability?: DurabilityOptions;
}

/** Options of a grouped queue (see {@link ReliableQueueOptions.groups}). */
export interface GroupOptions {
  /**
   * Most messages of one group in flight (leased, or NACKed or expired and not yet redelivered),
   * 1..1000. 1 keeps each group in send order (ordered groups); above 1, fair groups: up to that
   * many of a group in flight, in no promised order, groups still served round robin. Every
   * instance of a queue must use the same.
   * @defaultValue 1
   */
  groupConcurrency?: number;
}

/** Most messages of one group in flight: a fair group's largest `groupConcurrency`. */
export const MAX_GROUP_CONCURRENCY = 1000;

/** Options of {@link ReliableQueue.send}. */
export interface SendOptions {
  /**
   * Suppresses duplicate sends with this ID for the window: a repeat returns the original entry
   * ID and keeps the first payload, also after ACK and dead-lettering. Nonempty, at most 1,024
   * UTF-8 bytes. Reuse it when retrying a send whose outcome is unknown.
   */
  deduplicationId?: string;
  /**
   * How long the ID is remembered, in ms (1..2^31-1, fractions round up). A duplicate does not
   * extend it; expiry removes only the deduplication key, never messages.
   * @defaultValue 86_400_000 (one day)
   */
  deduplicationWindowMs?: number;
  /**
   * How long the message waits before its first delivery, in ms (0..2^31-1, fractions round up;
   * beyond the contract: README "Delayed send"). It is not receivable before server time at the
   * send + the delay; the wait is not a delivery. Deduplication is unchanged: the window starts
   * at the send. Refused on a grouped queue (`RespireValidationError` before any I/O: a delayed
   * head would hold back its group; README "Message groups").
   * @defaultValue 0 (receivable at once)
   */
  delayMs?: number;
  /**
   * The message's group, required on a grouped queue and refused on an ungrouped one (README
   * "Message groups"): a nonempty string of at most 1,024 UTF-8 bytes, well-formed Unicode.
   */
  groupId?: string;
  /**
   * Metadata beside the payload (beyond the contract: README "Headers"), returned as
   * `message.headers` on every delivery and kept in dead letters: string names (nonempty,
   * well-formed Unicode), each with a string or bytes (`Uint8Array`) value. At most
   * `MAX_HEADERS` (64) headers and `MAX_HEADERS_BYTES` (65,536) bytes encoded.
   * @defaultValue none
   */
  headers?: MessageHeaders;
}

/** One message of a {@link ReliableQueue.sendMany}: its payload and the options of {@link ReliableQueue.send}. */
export interface SendManyItem<T> extends SendOptions {
  /** The message's payload, encoded by the queue's codec. */
  payload: T;
}

/** A grouped queue's send checked and encoded: a send with its group. */
interface PreparedGroupedSend extends PreparedSend {
  readonly groupId: string;
}

/**
 * The two steps of a queue's sends, checked (no I/O) then sent, for this package only (not
 * exported by its entry): a partitioned queue checks a whole batch before any partition is
 * written, so one bad item sends nothing (README "Scaling past one master"). On a grouped queue
 * `prepare` checks as a grouped send and `send` is ungrouped only: send a grouped one with `sendMany`.
 */
export interface SendSteps {
  prepare<T>(queue: ReliableQueue<T>, payload: T, options: SendOptions): PreparedSend;
  send<T>(queue: ReliableQueue<T>, prepared: PreparedSend): Promise<SendResult>;
  prepareMany<T>(queue: ReliableQueue<T>, items: readonly SendManyItem<T>[]): PreparedSend[];
  sendMany<T>(queue: ReliableQueue<T>, prepared: readonly PreparedSend[]): Promise<SendResult[]>;
}

// Set by ReliableQueue's static block: the steps reach its private methods.
let sendSteps: SendSteps | undefined;

/** The package-internal {@link SendSteps}. */
export function queueSendSteps(): SendSteps {
  return sendSteps!;
}

/** A send checked and encoded: what the scripts take. */
export interface PreparedSend {
  readonly bytes: Buffer;
  readonly deduplicationId: string | undefined;
  readonly windowMs: number;
  readonly delayMs: number;
  /** Encoded headers; undefined for none. */
  readonly headers: Buffer | undefined;
  /** The checked headers, in order, to add the instrumentation's to; undefined for none. */
  readonly headerEntries: readonly (readonly [string, string | Uint8Array])[] | undefined;
}

const SEND_OPTIONS = ['deduplicationId', 'deduplicationWindowMs', 'delayMs', 'headers', 'groupId'] as const satisfies readonly (keyof SendOptions)[];
const SEND_MANY_ITEM = ['payload', ...SEND_OPTIONS] as const satisfies readonly (keyof SendManyItem<unknown>)[];

/** Options of {@link ReliableQueue.receive}. */
export interface ReceiveOptions {
  /**
   * Most messages to return, 1..1000. It also bounds recovery: at most `max` due entries are
   * examined per call (oldest deadline first).
   * @defaultValue 10
   */
  max?: number;
  /**
   * How long to wait for a message when none is receivable, in ms (0..20,000, fractions round
   * up; beyond the contract: CONFORMANCE.md). 0 keeps the nonblocking receive. A waiting receive
   * returns as soon as it leases a message (a send from any client, an expired lease, a NACK by
   * any client, at once or when its delay passes), or an empty batch once `waitMs` has passed. A
   * NACK wakes it through the queue's wake stream, which the NACK appends to. It blocks on a
   * connection of its own (a duplicate of the queue's client, closed before the call returns, on
   * every path), never on the queue's client. README "Waiting receive". On a grouped queue it also
   * wakes when an ACK or a dead letter moves a group on (its wake stream; README "Message groups").
   * @defaultValue 0
   */
  waitMs?: number;
}

/** One delivery of a message. Pass it back to `ack` or `nack`. */
export interface ReceivedMessage<T> {
  /** The stream entry ID: stable across redeliveries. */
  readonly id: string;
  /** The decoded payload. */
  readonly payload: T;
  /** How many times the message has been delivered, this delivery included; starts at 1. */
  readonly deliveryCount: number;
  /** Opaque receipt fencing this delivery; only it can ACK or NACK this delivery. */
  readonly receipt: string;
  /**
   * The headers it was sent with (README "Headers"): a string value comes back as a string, bytes
   * as a Buffer. A frozen empty object when it had none.
   */
  readonly headers: ReceivedHeaders;
  /**
   * The message's group on a grouped queue (README "Message groups"): the `groupId` it was sent
   * with. Absent (undefined) on an ungrouped queue.
   */
  readonly groupId?: string;
}

/** What happened to a send. */
export interface SendResult {
  /** The stream entry ID; for a duplicate, the original message's. */
  readonly id: string;
  /** True when the deduplication ID was seen within its window and nothing was appended. */
  readonly duplicate: boolean;
}

/**
 * A reliable message queue on one Redis stream (README "The contract"): send,
 * receive a leased batch, then ACK or NACK each delivery with its receipt.
 *
 * Delivery is at least once. Deadlines come from the server clock. Every state change is one
 * atomic script that checks key types and ACL permissions before its first write. Errors are
 * `RespireError`s; `error.retryable` is true only when the call provably did not run and may
 * succeed later (`BUSY`, `LOADING`, `TRYAGAIN`, `MASTERDOWN`, `CLUSTERDOWN`, or not sent for want of
 * a connection: `RespireTransportError` with `outcomeUnknown: false`): the queue never retries by
 * itself.
 *
 * The caller owns `client` (node-redis v5 or v6, `createClient` or `createCluster`); the queue
 * never closes it. Instances are cheap and stateless: any instance with the same name, prefix,
 * codec and delivery limit, on any client, can ACK or NACK another's deliveries.
 *
 * @example
 * ```ts
 * const queue = new ReliableQueue(client, 'notifications', { codec: utf8Codec, deliveryLimit: 5 });
 * await queue.send('Order shipped', { deduplicationId: 'order-42-shipped' });
 * for (const message of await queue.receive(30_000, { max: 10 })) {
 *   try {
 *     console.log(message.payload);
 *     await queue.ack(message); // false: the lease expired or the receipt was already completed
 *   } catch {
 *     await queue.nack(message, 10_000);
 *   }
 * }
 * ```
 */
export class ReliableQueue<T> {
  static {
    sendSteps = {
      prepare: (queue, payload, options) => {
        const checked = toOptions('options', options, SEND_OPTIONS);
        return queue.#grouped ? queue.#prepareGrouped(payload, checked, '') : queue.#prepare(payload, checked, '');
      },
      send: (queue, prepared) => queue.#sendPrepared(prepared),
      prepareMany: (queue, items) => queue.#prepareMany(items),
      sendMany: (queue, prepared) => queue.#sendManyPrepared(prepared),
    };
  }

  /** The queue name. */
  readonly name: string;
  /** The stream holding the queue's messages. Reserve it for the queue. */
  readonly streamKey: string;
  /**
   * The dead-letter stream. Entries have the fields `payload` (bytes), `source_id` (the original
   * entry ID) and `delivery_count` (deliveries made), then `headers` (README "Headers") when the
   * message had any. Read it with XRANGE / XREAD; you own its retention.
   */
  readonly deadLetterStreamKey: string;
  /** Deliveries before dead-lettering. */
  readonly deliveryLimit: number;

  readonly #keys: QueueKeys;
  readonly #grouped: GroupedQueueKeys | undefined;
  readonly #groupConcurrency: number;
  readonly #target: CommandTarget;
  readonly #leases: Leases;
  readonly #codec: Codec<T>;
  readonly #instrumentation: QueueInstrumentation | undefined;
  /** A grouped queue's sends of one turn, sent as one grouped-send-many call; undefined with `durability` (one script per send). */
  readonly #coalescer: SendCoalescer<PreparedGroupedSend, SendResult> | undefined;

  /**
   * @param client - a connected node-redis client or Cluster client, owned by the caller.
   * @param name - nonblank, without `{` or `}`.
   * @throws {@link RespireValidationError} for a blank name or one with braces, a codec without
   *   encode/decode, a delivery limit that is not a whole number from 1 to 2^31-1, a key prefix
   *   that is not a string, a bad `durability` option, or a client that is not node-redis.
   * @throws {@link RespireCrossSlotError} when the resolved keys would not share one Cluster slot.
   */
  constructor(client: RedisClientLike, name: string, options: ReliableQueueOptions<T>) {
    if (typeof options !== 'object' || options === null) {
      throw new RespireValidationError('options', 'must be an object with at least a codec');
    }
    toOptions('options', options, QUEUE_OPTIONS);
    this.#keys = queueKeys(name, options.keyPrefix);
    const { groupConcurrency } = toOptions('groups', options.groups, ['groupConcurrency']);
    this.#groupConcurrency = toIntegerInRange('groups.groupConcurrency', groupConcurrency ?? 1, 1, MAX_GROUP_CONCURRENCY);
    this.#grouped = options.groups === undefined ? undefined : groupedQueueKeys(this.#keys);
    this.#codec = toCodec<T>(options.codec);
    this.deliveryLimit = toIntegerInRange('deliveryLimit', options.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT, 1, MAX_INT32);
    const commandTimeoutMs = options.commandTimeoutMs === undefined ? undefined : toDurationMs('commandTimeoutMs', options.commandTimeoutMs, true);
    this.#target = commandTarget(client, 'client', { commandTimeoutMs, durability: options.durability });
    this.#leases = new Leases(this.#target, this.#grouped ? groupedSource(this.#grouped, this.#groupConcurrency) : queueSource(this.#keys));
    this.#instrumentation = options.instrumentation;
    this.name = name;
    this.streamKey = this.#grouped?.stream ?? this.#keys.stream;
    this.deadLetterStreamKey = this.#grouped?.deadLetter ?? this.#keys.deadLetter;
    const grouped = this.#grouped;
    this.#coalescer =
      grouped && options.durability === undefined
        ? new SendCoalescer((items) => this.#sendGroupedBatch(grouped, items, 'ReliableQueue.send'), MAX_COALESCED_SENDS, MAX_COALESCED_SEND_BYTES)
        : undefined;
  }

  /**
   * Appends a message and returns its stream entry ID (README "The contract": send).
   * Without a deduplication ID every call appends (one XADD). With one, a repeat within the
   * window returns the original ID and appends nothing.
   *
   * On a grouped queue (README "Message groups") the sends issued in one turn of the event loop
   * go out together, up to 100 per script call (`grouped-send-many`), in issue order: each gets
   * its own result, and a group keeps its send order, also with a `sendMany` issued after them. A
   * failed call fails each of its sends with its error: a key of another type or a refused
   * permission for any of them (a deduplication key, a backlog) fails them all and changes
   * nothing; a lost reply leaves the outcome of each unknown (the call ran entirely or not at
   * all). With the `durability` option, one script per send.
   *
   * @throws {@link RespireValidationError} for a bad deduplication ID or window, or an encoded payload
   *   longer than {@link MAX_PAYLOAD_BYTES} (512 MiB), before any I/O: nothing is sent, and a retry
   *   cannot succeed.
   * @throws {@link RespireCodecError} when the codec's encode throws (nothing is sent); the message
   *   includes what it threw.
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} when a key has another type or the
   *   user may not write it; nothing changed.
   * @throws {@link RespireTransportError} when the outcome is unknown (`outcomeUnknown`): retry with the
   *   same deduplication ID; or, with `outcomeUnknown: false`, when it was not sent.
   * @throws {@link RespireServerError} for other replies; `retryable` when the reply proves nothing ran
   *   (`BUSY`, `LOADING`, `TRYAGAIN`, `MASTERDOWN`, `CLUSTERDOWN`): repeat the call after a backoff.
   * @throws {@link RespireNotDurableError} with the `durability` option, when the message was appended
   *   but not confirmed on enough replicas or in the AOF in time (`reply` holds the entry ID of a send
   *   without deduplication ID); `retrySafe` when it has a deduplication ID.
   * @throws {@link RespireUnsupportedServerError} with `durability.aof` on a server without WAITAOF or
   *   with appendonly off, before anything is written.
   */
  async send(payload: T, options: SendOptions = {}): Promise<string> {
    return (await this.sendWithResult(payload, options)).id;
  }

  /** As {@link send}, but also tells whether the send was suppressed as a duplicate. */
  async sendWithResult(payload: T, options: SendOptions = {}): Promise<SendResult> {
    if (this.#grouped) return this.#sendGrouped(this.#grouped, payload, options);
    return this.#sendPrepared(this.#prepare(payload, toOptions('options', options, SEND_OPTIONS), ''));
  }

  /** An ungrouped send already checked and encoded by `#prepare`. */
  async #sendPrepared(prepared: PreparedSend): Promise<SendResult> {
    return instrumented(
      this.#instrumentation,
      { operation: 'send', queue: this.name, messageCount: 1 },
      async (injected) => {
        const operation = 'ReliableQueue.send';
        const item = withInjected(prepared, injected);
        const { bytes, deduplicationId, windowMs, delayMs, headers } = item;
        if (delayMs === 0 && deduplicationId === undefined) {
          // The hot path: one XADD, no script.
          const command =
            headers === undefined ? ['XADD', this.#keys.stream, '*', 'payload', bytes] : ['XADD', this.#keys.stream, '*', 'payload', bytes, 'headers', headers];
          const id = await this.#target.send(this.#keys.stream, command, {
            operation,
            keyType: { key: this.#keys.stream, type: 'stream' },
          });
          return { id: String(id), duplicate: false };
        }
        if (delayMs === 0 && headers === undefined) {
          const reply = await scriptCalls.queueSend(
            this.#target,
            { stream: this.#keys.stream, deduplicationKey: this.#keys.deduplicationPrefix + deduplicationId, payload: bytes, windowMs },
            { operation, retrySafe: true },
          );
          return { id: reply.entryId, duplicate: reply.duplicate };
        }
        return (await this.#sendBatch([item], operation))[0]!;
      },
      (result) => ({ messageId: result.id, duplicate: result.duplicate }),
    );
  }

  /**
   * A grouped queue's send: one script appends to the stream, the group's backlog and, when it was
   * empty, the ready ring. The sends issued in one turn of the event loop go out together as one
   * grouped-send-many call (in issue order, so a group keeps its send order); each gets its own
   * result, and a failed call fails each of its sends with its error. With `durability`, one
   * grouped-send call per send.
   */
  async #sendGrouped(keys: GroupedQueueKeys, payload: T, options: SendOptions): Promise<SendResult> {
    const prepared = this.#prepareGrouped(payload, toOptions('options', options, SEND_OPTIONS), '');
    const coalescer = this.#coalescer;
    return instrumented(
      this.#instrumentation,
      { operation: 'send', queue: this.name, messageCount: 1 },
      async (injected) => {
        const item = withInjected(prepared, injected);
        if (coalescer) return coalescer.add(item, item.bytes.length + (item.headers?.length ?? 0));
        const { bytes, deduplicationId, windowMs, headers, groupId } = item;
        const reply = await scriptCalls.groupedSend(
          this.#target,
          {
            stream: keys.stream,
            ready: keys.ready,
            backlog: keys.backlogPrefix + groupId,
            deduplicationKey: keys.deduplicationPrefix + (deduplicationId ?? ''),
            ungroupedStream: keys.ungroupedStream,
            inflight: keys.inflight,
            payload: bytes,
            groupId,
            windowMs: deduplicationId === undefined ? 0 : windowMs,
            concurrency: this.#groupConcurrency,
            headers: headers ?? '',
          },
          { operation: 'ReliableQueue.send', retrySafe: deduplicationId !== undefined },
        );
        return { id: reply.entryId, duplicate: reply.duplicate };
      },
      (result) => ({ messageId: result.id, duplicate: result.duplicate }),
    );
  }

  /**
   * Appends up to {@link MAX_SEND_BATCH} (1,000) messages in one round trip and one atomic script
   * (beyond the contract: README "Batch send"), in order, each with the options of {@link send}.
   * Every item is checked and encoded before any I/O: one bad item sends nothing. Items sharing a
   * deduplication ID within the batch: the first is appended, the later ones are its duplicates.
   * An empty array returns `[]` without I/O.
   *
   * A lost reply (`RespireTransportError` with `outcomeUnknown: true`) leaves the outcome of every
   * item unknown (the script ran entirely or not at all): retrying the same batch is safe for items
   * with deduplication IDs (each is appended once), while items without one may be appended twice.
   *
   * @returns one {@link SendResult} per item, in order.
   * @throws {@link RespireValidationError} before any I/O for more than 1,000 items, an item that is
   *   not an object with a payload, a bad option (argument `items[i].<option>`), an encoded payload
   *   above {@link MAX_PAYLOAD_BYTES}, or a batch above {@link MAX_SEND_BATCH_BYTES}.
   * @throws {@link RespireCodecError} when the codec's encode throws for an item (nothing is sent).
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} as for {@link send}; nothing changed.
   * @throws {@link RespireTransportError} / {@link RespireServerError} as for {@link send}.
   */
  async sendMany(items: readonly SendManyItem<T>[]): Promise<SendResult[]> {
    const prepared = this.#prepareMany(items);
    if (prepared.length === 0) return [];
    return this.#sendManyPrepared(prepared);
  }

  /** Checks and encodes every item of a {@link sendMany}, without I/O. */
  #prepareMany(items: readonly SendManyItem<T>[]): PreparedSend[] {
    let list: readonly unknown[];
    try {
      // A copy read once: a Proxy or an array-like with throwing getters fails here, as bad input.
      if (!Array.isArray(items)) throw new TypeError('not an array');
      list = Array.from(items);
    } catch {
      throw new RespireValidationError('items', 'must be an array of { payload, ...send options }');
    }
    if (list.length > MAX_SEND_BATCH) throw new RespireValidationError('items', `at most ${MAX_SEND_BATCH} per call, got ${list.length}`);
    const grouped = this.#grouped;
    const prepared: PreparedSend[] = [];
    let total = 0;
    for (const [index, item] of list.entries()) {
      const name = `items[${index}]`;
      if (typeof item !== 'object' || item === null || !('payload' in item)) {
        throw new RespireValidationError(name, 'must be an object with a payload');
      }
      const options = toOptions(name, item, SEND_MANY_ITEM) as SendManyItem<T>;
      const one = grouped ? this.#prepareGrouped(options.payload, options, `${name}.`) : this.#prepare(options.payload, options, `${name}.`);
      total += one.bytes.length + (one.headers?.length ?? 0);
      if (total > MAX_SEND_BATCH_BYTES) {
        throw new RespireValidationError('items', `more than ${MAX_SEND_BATCH_BYTES} bytes (512 MiB) in one call; nothing was sent: split the batch`);
      }
      prepared.push(one);
    }
    return prepared;
  }

  /** Sends a nonempty batch checked by `#prepareMany`: one round trip, one script. */
  async #sendManyPrepared(prepared: readonly PreparedSend[]): Promise<SendResult[]> {
    const grouped = this.#grouped;
    let appended = 0;
    return instrumented(
      this.#instrumentation,
      { operation: 'send', queue: this.name, messageCount: prepared.length },
      async (injected) => {
        const items = injected === undefined ? prepared : prepared.map((item) => withInjected(item, injected));
        // Sends waiting to be coalesced were issued first: they go out first, keeping each group's order.
        this.#coalescer?.flush();
        const results = grouped
          ? // Every item of a grouped queue was prepared by #prepareGrouped.
            await this.#sendGroupedBatch(grouped, items as unknown as readonly PreparedGroupedSend[], 'ReliableQueue.sendMany')
          : await this.#sendBatch(items, 'ReliableQueue.sendMany');
        appended = results.filter((r) => !r.duplicate).length;
        return results;
      },
      (results) => ({ messageId: results.length === 1 ? results[0]!.id : undefined, completed: appended, duplicate: appended === 0 }),
    );
  }

  /** One queue-send-many call: the batch's distinct deduplication keys, then five arguments per item. */
  async #sendBatch(items: readonly PreparedSend[], operation: string): Promise<SendResult[]> {
    const keyIndex = new Map<string, number>();
    const deduplicationKeys: string[] = [];
    const args: (string | Buffer)[] = [];
    for (const { bytes, deduplicationId, windowMs, delayMs, headers } of items) {
      let index = 0;
      if (deduplicationId !== undefined) {
        const key = this.#keys.deduplicationPrefix + deduplicationId;
        index = keyIndex.get(key) ?? 0;
        if (index === 0) {
          deduplicationKeys.push(key);
          index = deduplicationKeys.length + 1; // KEYS[1] is the stream
          keyIndex.set(key, index);
        }
      }
      args.push(bytes, String(index), String(windowMs), String(delayMs), headers ?? '');
    }
    // Retry-safe (RespireNotDurableError says so) only when every item has a deduplication ID.
    const retrySafe = items.every((item) => item.deduplicationId !== undefined);
    const reply = await scriptCalls.queueSendMany(this.#target, { stream: this.#keys.stream, deduplicationKeys, items: args }, { operation, retrySafe });
    if (reply.results.length !== items.length) {
      throw new RespireServerError(`${operation}: the script answered ${reply.results.length} results for ${items.length} items`);
    }
    return reply.results.map((r) => ({ id: r.entryId, duplicate: r.duplicate }));
  }

  /**
   * One grouped-send-many call: the batch's distinct backlogs and deduplication keys (KEYS from 5),
   * then six arguments per item.
   */
  async #sendGroupedBatch(keys: GroupedQueueKeys, items: readonly PreparedGroupedSend[], operation: string): Promise<SendResult[]> {
    const keyIndex = new Map<string, number>();
    const batchKeys: string[] = [];
    const indexOf = (key: string): number => {
      let index = keyIndex.get(key);
      if (index === undefined) {
        batchKeys.push(key);
        index = batchKeys.length + 4; // KEYS[1..4] are the stream, ring, ungrouped stream and in-flight hash
        keyIndex.set(key, index);
      }
      return index;
    };
    const args: (string | Buffer)[] = [];
    for (const { bytes, groupId, deduplicationId, windowMs, headers } of items) {
      const backlog = indexOf(keys.backlogPrefix + groupId);
      const deduplication = deduplicationId === undefined ? 0 : indexOf(keys.deduplicationPrefix + deduplicationId);
      args.push(bytes, groupId, String(backlog), String(deduplication), String(windowMs), headers ?? '');
    }
    const retrySafe = items.every((item) => item.deduplicationId !== undefined);
    const reply = await scriptCalls.groupedSendMany(
      this.#target,
      {
        stream: keys.stream,
        ready: keys.ready,
        ungroupedStream: keys.ungroupedStream,
        inflight: keys.inflight,
        batchKeys,
        concurrency: this.#groupConcurrency,
        items: args,
      },
      { operation, retrySafe },
    );
    if (reply.results.length !== items.length) {
      throw new RespireServerError(`${operation}: the script answered ${reply.results.length} results for ${items.length} items`);
    }
    return reply.results.map((r) => ({ id: r.entryId, duplicate: r.duplicate }));
  }

  /** Checks and encodes one send; `prefix` names its arguments in errors (`items[3].`). */
  #prepare(payload: T, options: SendOptions, prefix: string): PreparedSend {
    const { deduplicationId, deduplicationWindowMs, delayMs, groupId } = options;
    if (groupId !== undefined) throw new RespireValidationError(`${prefix}groupId`, 'is for a grouped queue (the `groups` option); this queue is ungrouped');
    const windowMs = toDurationMs(`${prefix}deduplicationWindowMs`, deduplicationWindowMs ?? DEFAULT_DEDUPLICATION_WINDOW_MS);
    const delay = toDurationMs(`${prefix}delayMs`, delayMs ?? 0, true);
    if (deduplicationId !== undefined) checkDeduplicationId(deduplicationId, `${prefix}deduplicationId`);
    const checked = options.headers === undefined ? undefined : checkHeaders(options.headers, `${prefix}headers`);
    return {
      bytes: this.#encode(payload, `${prefix}payload`),
      deduplicationId,
      windowMs,
      delayMs: delay,
      headers: checked?.encoded,
      headerEntries: checked?.entries,
    };
  }

  /**
   * Checks and encodes one send of a grouped queue: a valid `groupId`, no `delayMs` (README
   * "Message groups": refused, a delayed head would hold back its whole group); `prefix` as the ungrouped check's.
   */
  #prepareGrouped(payload: T, options: SendOptions, prefix: string): PreparedGroupedSend {
    if (options.delayMs !== undefined) {
      throw new RespireValidationError(`${prefix}delayMs`, 'is not supported on a grouped queue: a delayed message would hold back its whole group');
    }
    const { groupId } = options;
    checkGroupId(groupId, `${prefix}groupId`);
    return { ...this.#prepare(payload, { ...options, groupId: undefined }, prefix), groupId };
  }

  /**
   * Leases up to `max` messages for `visibilityTimeoutMs` (README "The contract": receive).
   * Nonblocking by default: returns at once, possibly with an empty batch (also when it only moved
   * exhausted messages to the dead-letter stream — keep polling). With `options.waitMs` it waits
   * for a message instead (README "Waiting receive").
   *
   * Each call first examines at most `max` due entries (expired leases and due NACKs, oldest
   * deadline first): those with deliveries left are redelivered with a new receipt and come first
   * in the batch; exhausted ones move atomically to {@link deadLetterStreamKey} without taking a
   * batch slot. New messages fill the remaining slots. A lease is valid while the server clock is
   * before its deadline; at the deadline itself the message is due.
   *
   * @param visibilityTimeoutMs - how long the batch stays invisible to other receivers, in ms
   *   (1..2^31-1, fractions round up). Receivers may use different durations.
   * @throws {@link RespireValidationError} for a bad timeout, `max` or `waitMs` (before any I/O).
   * @throws {@link RespireCodecError} when decoding a payload throws (the message includes what it
   *   threw): the whole batch stays leased and is received again after the timeout, counting
   *   toward the delivery limit.
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} when a key has another type or the
   *   user may not make a write this call needs (the writes it will make are checked); nothing changed.
   * @throws {@link RespireTransportError} when the reply was lost: the batch stays leased (or, with
   *   `outcomeUnknown: false`, nothing was sent).
   * @throws {@link RespireServerError} for other replies; `retryable` when it proves nothing ran.
   *   A waiting receive also throws these for its blocking connection (XREAD needs read permission
   *   on the stream): a killed, reset or frozen one is replaced twice, then the third failure in a
   *   row is thrown as a `RespireTransportError` (nothing leased by that step).
   */
  async receive(visibilityTimeoutMs: number, options: ReceiveOptions = {}): Promise<ReceivedMessage<T>[]> {
    const { timeoutMs, max, waitMs } = toReceiveArguments(visibilityTimeoutMs, options);
    if (waitMs === 0) return this.#receiveOnce(timeoutMs, max);
    return withWaiter(this.#target, (waiter) => this.#receiveWaiting(timeoutMs, max, waitMs, waiter));
  }

  /**
   * The waiting receive on `waiter`'s blocking connection (the caller closes it): a nonblocking
   * receive; when empty, the wait point (one read-only script) and XREAD BLOCK from the group's
   * cursor until the next deadline or the end of the wait; then receive again. An idle wait costs
   * three commands. Returns an empty batch at once once `waiter` is closed. `beforeWait` runs
   * before each wait point is read (a consumer's pending NACKs are applied first, so their delays
   * bound the block).
   */
  async #receiveWaiting(timeoutMs: number, max: number, waitMs: number, waiter: Waiter, beforeWait?: () => Promise<void>): Promise<ReceivedMessage<T>[]> {
    const operation = 'ReliableQueue.receive (waiting)';
    const grouped = this.#grouped;
    return receiveWaiting(
      {
        stream: this.streamKey,
        receiveOnce: () => this.#receiveOnce(timeoutMs, max),
        waitPoint: () => (grouped ? groupedWaitPoint(this.#target, grouped, operation) : waitPoint(this.#target, this.#keys, operation)),
      },
      waitMs,
      waiter,
      operation,
      beforeWait,
    );
  }

  /**
   * Starts a hosted consumer (beyond the contract: CONFORMANCE.md; README "Consuming"): up to
   * `concurrency` handlers in flight, each message's lease extended while its handler runs,
   * resolve → ACK, `nackAfter(ms)` → NACK with that delay, a throw → NACK with the retry backoff
   * (the exception's type logged, never its message). It waits with the waiting receive on one
   * connection of its own (a duplicate of the queue's client), closed by `stop()`; failures of
   * receive back off (50 ms doubling to 5 s) and retry until `stop()`. On a grouped queue with
   * ordered groups, a group's messages are handled one at a time, in send order, whatever the
   * concurrency (one of a group is in flight at most); different groups run in parallel.
   * @throws {@link RespireValidationError} for a handler that is not a function or a bad option
   *   (before anything starts).
   */
  consume(handler: ConsumeHandler<T>, options: ConsumeOptions = {}): QueueConsumer {
    const settings = consumeSettings(handler, options);
    return new Consumer<ReceivedMessage<T>>(
      {
        name: this.name,
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

  async #receiveOnce(timeoutMs: number, max: number): Promise<ReceivedMessage<T>[]> {
    let deadLettered = 0;
    return instrumented(
      this.#instrumentation,
      { operation: 'receive', queue: this.name, messageCount: max },
      async () => {
        const batch = await this.#leases.lease({ visibilityTimeoutMs: timeoutMs, max, deliveryLimit: this.deliveryLimit }, 'ReliableQueue.receive');
        deadLettered = batch.deadLettered;
        return this.#decodeBatch(batch.leases);
      },
      (messages) => ({ completed: messages.length, deadLettered }),
      // A decode failure still leaves the moves made: report them.
      (error) => ({ error, deadLettered }),
    );
  }

  /**
   * Acknowledges one delivery: removes the message and its delivery metadata.
   * @returns true when acknowledged; false for an expired, revoked, superseded or already
   *   completed receipt (nothing changed). A lost reply leaves the outcome uncertain, even if a
   *   retry returns false.
   * @throws {@link RespireValidationError} when `message` is not a received message (before any I/O).
   * @throws {@link RespirePermissionError} / {@link RespireKeyTypeError} as for receive; nothing changed.
   */
  async ack(message: MessageReceipt): Promise<boolean> {
    return (await this.ackMany([message]))[0]!;
  }

  /**
   * Acknowledges up to 1,000 deliveries in one round trip and one atomic script (beyond the contract: CONFORMANCE.md).
   * Uses XACKDEL on Redis 8.2+, XACK + XDEL elsewhere.
   * @returns one boolean per message, in order, as {@link ack}.
   */
  async ackMany(messages: readonly MessageReceipt[]): Promise<boolean[]> {
    return this.#settle('ack', messages, (pairs, operation) => this.#leases.complete(pairs, operation));
  }

  /**
   * Rejects one delivery: revokes its receipt at once and makes the message due after `delayMs`.
   * 0 makes it receivable immediately; a positive delay replaces the remaining visibility
   * timeout. NACK never dead-letters: the next receive that finds it due and exhausted does.
   * @param delayMs - ms, 0..2^31-1, fractions round up. @defaultValue 0
   * @returns as {@link ack}.
   * @throws {@link RespireValidationError} for a bad delay or message (before any I/O).
   */
  async nack(message: MessageReceipt, delayMs = 0): Promise<boolean> {
    return (await this.nackMany([message], delayMs))[0]!;
  }

  /** Rejects up to 1,000 deliveries in one round trip and one atomic script; as {@link nack}. */
  async nackMany(messages: readonly MessageReceipt[], delayMs = 0): Promise<boolean[]> {
    const delay = toDurationMs('delayMs', delayMs, true);
    return this.#settle('nack', messages, (pairs, operation) => this.#leases.release(pairs, delay, operation));
  }

  /**
   * Extends one delivery's lease (beyond the contract: CONFORMANCE.md): its deadline becomes server
   * now + `visibilityTimeoutMs`, replacing the old one (earlier or later, as SQS's
   * ChangeMessageVisibility), and the receipt stays valid for ack, nack and further extends. Call
   * it well before the deadline while a long job runs. One script, one round trip.
   * @param visibilityTimeoutMs - the new lease from now, in ms (1..2^31-1, fractions round up), as
   *   {@link receive}'s.
   * @returns true when extended; false for an expired, revoked, superseded or completed receipt,
   *   exactly where {@link ack} would return false: nothing changed, and the message may already be
   *   another consumer's (stop working on it). A lost reply leaves the outcome uncertain; repeating
   *   the call is safe (an extend can be repeated).
   * @throws {@link RespireValidationError} for a bad timeout or message (before any I/O).
   * @throws {@link RespireKeyTypeError} / {@link RespirePermissionError} when the deadlines key has
   *   another type or the user may not ZADD it; nothing changed.
   * @throws {@link RespireTransportError} / {@link RespireServerError} as for {@link ack}.
   */
  async extend(message: MessageReceipt, visibilityTimeoutMs: number): Promise<boolean> {
    return (await this.extendMany([message], visibilityTimeoutMs))[0]!;
  }

  /**
   * Extends up to 1,000 deliveries' leases in one round trip and one atomic script, each to server
   * now + `visibilityTimeoutMs`; one boolean per message, in order, as {@link extend}. A receipt
   * repeated in one call is extended once: its later positions return false, as {@link ackMany}'s.
   */
  async extendMany(messages: readonly MessageReceipt[], visibilityTimeoutMs: number): Promise<boolean[]> {
    const timeoutMs = toDurationMs('visibilityTimeoutMs', visibilityTimeoutMs);
    return this.#settle('extend', messages, (pairs, operation) => this.#leases.extend(pairs, timeoutMs, operation));
  }

  /** Completes or releases validated receipts: one round trip, one boolean per message. */
  async #settle(
    operation: 'ack' | 'nack' | 'extend',
    messages: readonly MessageReceipt[],
    run: (pairs: readonly string[], operation: string) => Promise<boolean[]>,
  ): Promise<boolean[]> {
    const pairs = receiptPairs(messages);
    if (pairs.length === 0) return [];
    return instrumentedSettle(this.#instrumentation, { operation, queue: this.name }, messages, () => run(pairs, `ReliableQueue.${operation}`));
  }

  #encode(payload: T, argument: string): Buffer {
    let encoded: unknown;
    try {
      encoded = this.#codec.encode(payload);
    } catch (error) {
      throw new RespireCodecError(`ReliableQueue.send: the codec could not encode the payload (${describeThrown(error)}); nothing was sent`, { cause: error });
    }
    // What encode returned is user code's value: even the type checks and reads stay guarded.
    let bytes: Buffer | undefined;
    try {
      if (typeof encoded === 'string') bytes = Buffer.from(encoded, 'utf8');
      else if (Buffer.isBuffer(encoded)) bytes = encoded;
      else if (encoded instanceof Uint8Array) bytes = Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
    } catch (error) {
      throw new RespireCodecError(`ReliableQueue.send: what the codec returned cannot be read (${describeThrown(error)}); nothing was sent`, { cause: error });
    }
    if (bytes === undefined) {
      throw new RespireCodecError(`ReliableQueue.send: the codec must return a Uint8Array or a string, got ${exceptionType(encoded)}; nothing was sent`);
    }
    if (bytes.length > MAX_PAYLOAD_BYTES) {
      throw new RespireValidationError(
        argument,
        `encoded to ${bytes.length} bytes, more than the ${MAX_PAYLOAD_BYTES} bytes (512 MiB) Redis takes in one argument ` +
          '(proto-max-bulk-len); nothing was sent, and no retry can succeed: send a reference to the data instead',
      );
    }
    return bytes;
  }

  #decodeBatch(leases: readonly Lease[]): ReceivedMessage<T>[] {
    const messages: ReceivedMessage<T>[] = [];
    for (const { id, payload: bytes, deliveryCount, receipt, headers: encoded, groupId } of leases) {
      const headers = decodeHeaders(id, encoded, leases.length, 'ReliableQueue.receive');
      let payload: T;
      try {
        payload = this.#codec.decode(bytes);
      } catch (error) {
        throw new RespireCodecError(
          `ReliableQueue.receive: the codec could not decode entry ${id} (${describeThrown(error)}); the whole batch of ` +
            `${leases.length} stays leased and is received again after the visibility timeout`,
          { cause: error },
        );
      }
      // Only a grouped queue's messages have the property: an ungrouped one's keep their shape.
      messages.push(groupId === undefined ? { id, payload, deliveryCount, receipt, headers } : { id, payload, deliveryCount, receipt, headers, groupId });
    }
    return messages;
  }
}

function checkGroupId(id: unknown, argument: string): asserts id is string {
  if (typeof id !== 'string' || id.length === 0) {
    throw new RespireValidationError(argument, 'must be a nonempty string: every message of a grouped queue names its group');
  }
  if (!isWellFormedText(id)) {
    throw new RespireValidationError(argument, 'must be well-formed Unicode (no lone surrogates), or two groups could share a key');
  }
  if (Buffer.byteLength(id, 'utf8') > MAX_GROUP_ID_BYTES) {
    throw new RespireValidationError(argument, `must be at most ${MAX_GROUP_ID_BYTES} UTF-8 bytes`);
  }
}

/** `waitMs` of a receive: 0..{@link MAX_WAIT_MS} ms, fractions round up; undefined is 0. */
function toWaitMs(value: unknown): number {
  if (value === undefined) return 0;
  const waitMs = toDurationMs('waitMs', value as number, true);
  if (waitMs > MAX_WAIT_MS) throw new RespireValidationError('waitMs', `must be at most ${MAX_WAIT_MS} ms, got ${waitMs}`);
  return waitMs;
}

/**
 * A receive's arguments, checked before any I/O (a queue's or a topic subscription's).
 * @throws {@link RespireValidationError} for a bad timeout, `max`, `waitMs` or an unknown option.
 */
export function toReceiveArguments(visibilityTimeoutMs: unknown, options: ReceiveOptions): { timeoutMs: number; max: number; waitMs: number } {
  const timeoutMs = toDurationMs('visibilityTimeoutMs', visibilityTimeoutMs as number);
  const { max, waitMs } = toOptions('options', options, ['max', 'waitMs']);
  return { timeoutMs, max: toIntegerInRange('max', max ?? DEFAULT_RECEIVE_MAX, 1, MAX_BATCH), waitMs: toWaitMs(waitMs) };
}
