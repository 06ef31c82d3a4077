// Key namespaces: a queue's keys under its hash tag, key prefixes, and the same-slot check.
import { RespireCrossSlotError, RespireValidationError } from './errors.js';
import { keySlot } from './slots.js';

/**
 * The one field of a grouped queue's leased hash (entry ID to group ID) that is not an entry ID,
 * written with every take (`lua/includes/leased-mark.lua`): its value, longer than the server's
 * `hash-max-listpack-value`, keeps the hash a hashtable. Readers of the hash skip it; the hash is
 * deleted when the mark is all that is left.
 */
export const GROUPED_LEASED_MARK = 'respire:hashtable';

/**
 * Checks that the keys of one unit of work are distinct and share one Cluster slot (also on
 * standalone Redis, so a move to Cluster never splits them).
 * @throws {@link RespireCrossSlotError} naming the keys that differ.
 */
export function assertSameSlot(keys: Readonly<Record<string, string>>): void {
  const entries = Object.entries(keys);
  const seen = new Map<string, string>();
  for (const [role, key] of entries) {
    const other = seen.get(key);
    if (other !== undefined) throw new RespireCrossSlotError(`${role} and ${other} resolve to the same key '${key}'`);
    seen.set(key, role);
  }
  const [firstRole, firstKey] = entries[0] ?? [];
  if (firstKey === undefined) return;
  const slot = keySlot(firstKey);
  for (const [role, key] of entries) {
    const found = keySlot(key);
    if (found !== slot) {
      throw new RespireCrossSlotError(
        `${role} '${key}' is in Cluster slot ${found} but ${firstRole} '${firstKey}' is in slot ${slot}; ` +
          'keys of one queue or worker must share a hash tag',
      );
    }
  }
}

/**
 * Validates a key prefix (a key-prefixed view of the client; node-redis has none of its own).
 * @throws {@link RespireValidationError} when it is not a string.
 */
export function toKeyPrefix(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') throw new RespireValidationError('keyPrefix', `must be a string, got ${typeof value}`);
  if (!isWellFormedText(value)) throw new RespireValidationError('keyPrefix', 'must be well-formed Unicode (no lone surrogates)');
  return value;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when `text` has no lone UTF-16 surrogates. Keys are sent as UTF-8, where every lone
 * surrogate becomes U+FFFD, so two different ill-formed names could resolve to one key.
 */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** The resolved keys of one reliable queue. */
export interface QueueKeys {
  /** Hash tag shared by every key: `{respire-queue:<name>}`. */
  readonly hashTag: string;
  /** The ready stream holding every waiting and leased message. */
  readonly stream: string;
  /**
   * Sorted set of the delivery metadata: member `<entry ID>:<receipt>` while leased, or
   * `<entry ID>:<delivery count>` after NACK, scored with the lease deadline or due time (ms,
   * server clock). Only entries delivered at least once have a member.
   */
  readonly deadlines: string;
  /** The dead-letter stream. */
  readonly deadLetter: string;
  /**
   * Stream of at most one entry, appended to (XADD MAXLEN 1) by a NACK that released a lease: a
   * waiting receive blocks on it beside the stream, so it wakes when a message becomes due sooner.
   */
  readonly wake: string;
  /** The key prefix of every deduplication key; the ID follows. */
  readonly deduplicationPrefix: string;
}

/**
 * Resolves and checks the keys of the queue `name` under `keyPrefix`.
 * Names are nonblank and contain no braces; keys share the hash tag
 * `{respire-queue:<name>}`; resolved keys are distinct and in one slot.
 * @throws {@link RespireValidationError} for a blank name or one with `{` or `}`.
 * @throws {@link RespireCrossSlotError} when the prefix splits the keys across slots.
 */
export function queueKeys(name: unknown, keyPrefix: unknown): QueueKeys {
  if (typeof name !== 'string' || name.trim() === '') {
    throw new RespireValidationError('name', 'a queue name must be a nonblank string');
  }
  if (/[{}]/.test(name)) throw new RespireValidationError('name', `a queue name must not contain '{' or '}', got '${name}'`);
  if (!isWellFormedText(name)) throw new RespireValidationError('name', 'a queue name must be well-formed Unicode (no lone surrogates)');
  const prefix = toKeyPrefix(keyPrefix);
  const hashTag = `{respire-queue:${name}}`;
  const base = `${prefix}${hashTag}`;
  const keys: QueueKeys = {
    hashTag,
    stream: `${base}:stream`,
    deadlines: `${base}:deadlines`,
    deadLetter: `${base}:dead-letter`,
    wake: `${base}:wake`,
    deduplicationPrefix: `${base}:dedup:`,
  };
  assertSameSlot({
    stream: keys.stream,
    deadlines: keys.deadlines,
    deadLetter: keys.deadLetter,
    wake: keys.wake,
    deduplication: `${keys.deduplicationPrefix}x`,
  });
  return keys;
}
