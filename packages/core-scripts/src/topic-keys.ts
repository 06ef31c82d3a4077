// Key namespaces of a reliable topic and its subscriptions: every key under the topic's one hash tag.
import { RespireValidationError } from './errors.js';
import { assertSameSlot, isWellFormedText, toKeyPrefix } from './keys.js';

/** The resolved keys of one reliable topic. */
export interface TopicKeys {
  /** Hash tag shared by every key of the topic and its subscriptions: `{respire-topic:<name>}`. */
  readonly hashTag: string;
  /** The stream of publications, one entry each; each subscription is a consumer group on it. */
  readonly stream: string;
  /** Hash: per subscription name, the publications trimmed by a retention bound before that subscription completed them. */
  readonly trimmed: string;
  /** The key prefix of every deduplication key; the ID follows. */
  readonly deduplicationPrefix: string;
  /** The prefix of every subscription's deadlines index; the subscription name follows. */
  readonly deadlinesPrefix: string;
  /** The prefix of every subscription's dead-letter stream; the subscription name follows. */
  readonly deadLetterPrefix: string;
  /** The prefix of every subscription's wake stream; the subscription name follows. */
  readonly wakePrefix: string;
  /** The prefix of every subscription's retried-messages hash; the subscription name follows. */
  readonly retriedPrefix: string;
}

/** The resolved keys of one subscription of a topic. */
export interface SubscriptionKeys {
  /** The subscription's name: also its consumer group's and its one consumer's. */
  readonly group: string;
  /**
   * Sorted set of the subscription's delivery metadata, as a queue's (member `<entry ID>:<receipt>`
   * while leased, `<entry ID>:<delivery count>` after NACK, scored with the deadline in ms).
   */
  readonly deadlines: string;
  /** The subscription's dead-letter stream (the queue's record format). */
  readonly deadLetter: string;
  /**
   * The subscription's wake stream: at most one entry, appended to (XADD MAXLEN 1) by a NACK that
   * released a lease, so its waiting receives wake (as a queue's).
   */
  readonly wake: string;
  /**
   * Hash of the subscription's retried dead letters not yet completed (the admin's retry, script
   * admin-retry-subscription-dead-letters): field `<entry ID>` the payload, `<entry ID>:headers` the
   * encoded headers when it had any. Receive reads a message's body from here when retention has
   * trimmed its publication; completing the message deletes its fields.
   */
  readonly retried: string;
}

/** A topic's or subscription's name: nonblank, no braces, well-formed Unicode. */
function checkName(argument: string, what: string, name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '') throw new RespireValidationError(argument, `a ${what} name must be a nonblank string`);
  if (/[{}]/.test(name)) throw new RespireValidationError(argument, `a ${what} name must not contain '{' or '}', got '${name}'`);
  if (!isWellFormedText(name)) throw new RespireValidationError(argument, `a ${what} name must be well-formed Unicode (no lone surrogates)`);
  return name;
}

/**
 * Resolves and checks the keys of the topic `name` under `keyPrefix`: every key under the hash tag
 * `{respire-topic:<name>}`, distinct and in one Cluster slot. Each kind of key has its own prefix
 * (`:stream`, `:trimmed`, `:dedup:<ID>`, `:deadlines:<subscription>`, `:dead-letter:<subscription>`,
 * `:wake:<subscription>`, `:retried:<subscription>`),
 * so no name can make two keys meet.
 * @throws {@link RespireValidationError} for a blank name or one with `{` or `}`.
 * @throws {@link RespireCrossSlotError} when the prefix splits the keys across slots.
 */
export function topicKeys(name: unknown, keyPrefix: unknown): TopicKeys {
  checkName('name', 'topic', name);
  const prefix = toKeyPrefix(keyPrefix);
  const hashTag = `{respire-topic:${name as string}}`;
  const base = `${prefix}${hashTag}`;
  const keys: TopicKeys = {
    hashTag,
    stream: `${base}:stream`,
    trimmed: `${base}:trimmed`,
    deduplicationPrefix: `${base}:dedup:`,
    deadlinesPrefix: `${base}:deadlines:`,
    deadLetterPrefix: `${base}:dead-letter:`,
    wakePrefix: `${base}:wake:`,
    retriedPrefix: `${base}:retried:`,
  };
  assertSameSlot({
    stream: keys.stream,
    trimmed: keys.trimmed,
    deduplication: `${keys.deduplicationPrefix}x`,
    deadlines: `${keys.deadlinesPrefix}x`,
    deadLetter: `${keys.deadLetterPrefix}x`,
    wake: `${keys.wakePrefix}x`,
    retried: `${keys.retriedPrefix}x`,
  });
  return keys;
}

/**
 * The keys of the subscription `name` of a topic.
 * @throws {@link RespireValidationError} for a blank name or one with `{` or `}`.
 */
export function subscriptionKeys(topic: TopicKeys, name: unknown): SubscriptionKeys {
  const group = checkName('subscription', 'subscription', name);
  return {
    group,
    deadlines: topic.deadlinesPrefix + group,
    deadLetter: topic.deadLetterPrefix + group,
    wake: topic.wakePrefix + group,
    retried: topic.retriedPrefix + group,
  };
}
