// Reliable topics for operators: discovery, subscriptions with their backlogs, dead letters, and the audited seek.
import type { Actor, BulkOptions, BulkResult, DeadLetterOptions, DeadLetterPage, DeleteResult, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { bulk, deleting } from './dead-letter-actions.js';
import { deadLetterPage } from './dead-letter-pages.js';
import { RespireNotFoundError, nearest } from './not-found.js';
import { queueRecord } from './records.js';
import { RespireValidationError, infoField, isRespireError, subscriptionKeys, text, toKeyPrefix, topicKeys } from './redis.js';
import type { DiscoveryOptions } from './resources.js';
import { toCount, toEntryId, toName, toOptions, toResourceId } from './validate.js';

/** A reliable topic to show: its name as given to `new ReliableTopic(client, name)` and its key prefix. */
export interface TopicConfig {
  readonly name: string;
  /** The topic's `keyPrefix` option. @defaultValue `''` */
  readonly keyPrefix?: string;
}

/** A topic the admin knows. Its id is its stream key (`<keyPrefix>{respire-topic:<name>}:stream`). */
export interface TopicResource {
  readonly kind: 'topic';
  readonly id: ResourceId;
  readonly name: string;
  readonly keyPrefix: string;
  /** The stream of publications; each subscription is a consumer group on it. */
  readonly stream: string;
  /** Found by the discovery SCAN rather than configured. */
  readonly discovered: boolean;
}

/** A topic in the list: its resource, publications retained and number of subscriptions. */
export interface TopicSummary extends TopicResource {
  /** Publications retained (XLEN of its stream); 0 when the stream does not exist. */
  readonly publications: number;
  readonly subscriptions: number;
}

/** One subscription of a topic, as an operator sees it (queue README "Reliable topic"). */
export interface SubscriptionStatus {
  readonly name: string;
  /** Its position: the last publication delivered to it; `'0-0'` before the first. */
  readonly lastDeliveredId: string;
  /** Retained publications not yet delivered to it (the group's lag); null when the server cannot tell (after a trim, on some servers). */
  readonly lag: number | null;
  /**
   * Deliveries leased or released and not yet settled (its group's pending entries list). Retried
   * dead letters are not in that list: they are counted in {@link SubscriptionStatus.retried}.
   */
  readonly pending: number;
  /**
   * Dead letters retried for this subscription and not yet completed (acknowledged or dead-lettered
   * again), whether due or leased: the entries of its retried hash (`…:retried:<subscription>`,
   * queue README "Dead letters of a subscription"), read with one HKEYS. Not in `pending`.
   */
  readonly retried: number;
  /**
   * Age in ms, by the server clock, of the oldest publication it has not completed: the oldest of
   * its pending entries, its retried dead letters and its first undelivered publication (by entry
   * ID time); null when it has none.
   */
  readonly oldestUnacknowledgedAgeMs: number | null;
  /** Records in its dead-letter stream (the queue's record format). */
  readonly deadLetters: number;
  /** Publications a retention bound trimmed before it completed them. */
  readonly trimmed: number;
  /** Its dead-letter stream's key. */
  readonly deadLetterStream: string;
}

/** A topic with its subscriptions and the server time they were read at. */
export interface TopicStatus extends TopicSummary {
  /** Server time (TIME of the topic's node) in ms since the epoch. */
  readonly serverTimeMs: number;
  /** Every subscription (consumer group of its stream), by name. */
  readonly subscriptionList: readonly SubscriptionStatus[];
}

/**
 * Where an operator moves a subscription: `'earliest'` (every retained publication), `'latest'`
 * (only later ones), an entry ID (publications after it) or `{ timeMs }` (publications whose entry
 * ID time is at or after it, ms since the epoch, server clock).
 */
export type SeekTarget = 'earliest' | 'latest' | string | { readonly timeMs: number };

/** What a seek did. */
export type SeekResult =
  /** Moved: its new last-delivered ID (`'0'` for earliest) and the leases discarded (their receipts are stale). */
  | { readonly status: 'moved'; readonly position: string; readonly discarded: number }
  /** The subscription does not exist; nothing changed. */
  | { readonly status: 'missing' };

/** What a retry of a subscription's dead letter did. */
export type SubscriptionRetryResult =
  /**
   * The record was deleted and its publication (`publicationId`, the record's `source_id`) is due
   * again for this subscription only, with delivery count 1; no other subscription sees it again.
   */
  | { readonly status: 'retried'; readonly publicationId: string }
  /** The record is gone (already retried or deleted). */
  | { readonly status: 'missing' }
  /** A foreign record, or no such subscription: nothing changed. */
  | { readonly status: 'refused'; readonly reason: string };

/** The SCAN pattern of every topic's stream of publications. */
const TOPIC_MATCH = '*{respire-topic:*}:stream';
const TOPIC_STREAM_KEY = /^(.*)\{respire-topic:([^{}]+)\}:stream$/s;
/** Any key of a topic: refused as an audit stream. */
export const TOPIC_KEY = /\{respire-topic:[^{}]+\}:(?:stream|trimmed|deadlines:.*|dead-letter:.*|wake:.*|retried:.*|dedup:.*)$/s;
/** Topics whose counts are read at a time, so a large discovery never floods the server with one burst. */
const CONCURRENCY = 32;

/** The topics an admin knows: configured ones, then (with discovery) those a bounded SCAN finds. */
export class Topics {
  readonly #ctx: AdminContext;
  readonly #configured = new Map<ResourceId, TopicResource>();
  readonly #discovery: Required<DiscoveryOptions> | undefined;

  /** @throws {@link RespireValidationError} for a bad topic name, key prefix, discovery bounds, or a topic configured twice. */
  constructor(ctx: AdminContext, topics: readonly TopicConfig[], discover: unknown) {
    this.#ctx = ctx;
    for (const [i, t] of topics.entries()) {
      const r = topicResource(t, `topics[${i}]`, false);
      if (this.#configured.has(r.id)) throw new RespireValidationError('topics', `'${r.id}' is configured twice`);
      this.#configured.set(r.id, r);
    }
    if (discover === true) this.#discovery = { scanCount: 1000, maxPages: 100 };
    else if (discover && typeof discover === 'object') {
      const d = toOptions('discoverTopics', discover as DiscoveryOptions, ['scanCount', 'maxPages']);
      this.#discovery = {
        scanCount: toCount('discoverTopics.scanCount', d.scanCount, 1000, 1, 10_000),
        maxPages: toCount('discoverTopics.maxPages', d.maxPages, 100, 1, 10_000),
      };
    } else if (discover !== undefined && discover !== false) {
      throw new RespireValidationError('discoverTopics', 'must be a boolean or { scanCount, maxPages }');
    }
  }

  /** Configured topics, then those found by the bounded SCAN, each with its counts. */
  async list(): Promise<{ readonly topics: readonly TopicSummary[]; readonly discoveryTruncated: boolean }> {
    const resources = [...this.#configured.values()];
    let truncated = false;
    if (this.#discovery) {
      const found = await this.#ctx.resources.scanStreams(TOPIC_MATCH, this.#discovery);
      truncated = found.truncated;
      for (const key of found.keys.sort()) {
        const r = parseTopicKey(key);
        if (r && !this.#configured.has(r.id)) resources.push(r);
      }
    }
    const topics: TopicSummary[] = [];
    for (let i = 0; i < resources.length; i += CONCURRENCY) {
      topics.push(...(await Promise.all(resources.slice(i, i + CONCURRENCY).map((r) => this.#summary(r)))));
    }
    return { topics, discoveryTruncated: truncated };
  }

  /**
   * The topic with this id: a configured one, or (with discovery) one whose stream exists.
   * @throws {@link RespireNotFoundError} (kind `resource`) naming the nearest known topics.
   */
  async get(id: ResourceId): Promise<TopicResource> {
    const key = toResourceId(id);
    const configured = this.#configured.get(key);
    if (configured) return configured;
    const parsed = this.#discovery ? parseTopicKey(key) : undefined;
    if (parsed && text(await this.#ctx.redis.send(key, ['TYPE', key], 'RespireAdmin topic')) === 'stream') return parsed;
    const known = (await this.list().catch(() => ({ topics: [...this.#configured.values()] }))).topics.map((t) => t.id);
    throw new RespireNotFoundError(
      { kind: 'resource', name: key, known: nearest(key, known) },
      `unknown topic '${key}': neither configured${this.#discovery ? ' nor a discoverable topic' : ''}`,
    );
  }

  /** A topic and every subscription with its lag, pending, oldest unacknowledged age, dead letters and trimmed count. */
  async status(id: ResourceId): Promise<TopicStatus> {
    const r = await this.get(id);
    const op = 'RespireAdmin topic';
    const { redis } = this.#ctx;
    const keys = topicKeys(r.name, r.keyPrefix);
    const [serverTimeMs, groups, counts] = await Promise.all([
      redis.timeMs(r.stream, op),
      this.#groups(r.stream, op),
      redis.send(keys.trimmed, ['HGETALL', keys.trimmed], op).then(fieldMap),
    ]);
    const publications = Number(await redis.send(r.stream, ['XLEN', r.stream], op));
    const subscriptionList = await Promise.all(
      groups.map(async (g): Promise<SubscriptionStatus> => {
        const { deadLetter: dead, retried } = subscriptionKeys(keys, g.name);
        const [deadLetters, summary, waiting, retriedIds] = await Promise.all([
          redis.send(dead, ['XLEN', dead], op),
          g.pending > 0 ? redis.send(r.stream, ['XPENDING', r.stream, g.name], op) : Promise.resolve(null),
          g.lag === 0 ? Promise.resolve([]) : redis.send(r.stream, ['XRANGE', r.stream, `(${g.lastDeliveredId}`, '+', 'COUNT', '1'], op),
          redis.send(retried, ['HKEYS', retried], op).then(retriedPublications),
        ]);
        const oldestPending = Array.isArray(summary) && summary[1] !== null && summary[1] !== undefined ? idTime(text(summary[1])) : undefined;
        const firstWaiting = Array.isArray(waiting) && Array.isArray(waiting[0]) ? idTime(text((waiting[0] as unknown[])[0])) : undefined;
        const oldestRetried = retriedIds.length === 0 ? undefined : Math.min(...retriedIds.map((id) => idTime(id) ?? Number.POSITIVE_INFINITY));
        const oldest = [oldestPending, firstWaiting, oldestRetried].filter((t): t is number => t !== undefined && Number.isFinite(t));
        return {
          name: g.name,
          lastDeliveredId: g.lastDeliveredId,
          lag: g.lag,
          pending: g.pending,
          retried: retriedIds.length,
          oldestUnacknowledgedAgeMs: oldest.length === 0 ? null : Math.max(0, serverTimeMs - Math.min(...oldest)),
          deadLetters: Number(deadLetters),
          trimmed: Number(counts.get(g.name) ?? 0),
          deadLetterStream: dead,
        };
      }),
    );
    return { ...r, publications, subscriptions: groups.length, serverTimeMs, subscriptionList };
  }

  /** One page of a subscription's dead letters (the queue's record format), as `RespireAdmin.deadLetters`. */
  async deadLetters(id: ResourceId, subscription: string, options?: DeadLetterOptions): Promise<DeadLetterPage> {
    const name = toSubscription(subscription);
    return deadLetterPage(this.#ctx, options, async () => ({ key: await this.#deadLetterKey(id, name), parse: queueRecord }));
  }

  /** Deletes one record of a subscription's dead letters (XDEL); audited as `delete`. */
  async deleteDeadLetter(actor: Actor, id: ResourceId, subscription: string, recordId: string): Promise<DeleteResult> {
    const who = this.#ctx.auditor.operator(actor, 'delete', id, { subscription: String(subscription), recordId: String(recordId) });
    const name = toSubscription(subscription);
    const rid = toEntryId('recordId', recordId);
    return this.#ctx.auditor.run<DeleteResult>(who, 'delete', id, { subscription: name, recordId: rid }, async () => {
      const dead = await this.#deadLetterKey(id, name);
      const n = Number(await this.#ctx.redis.send(dead, ['XDEL', dead, rid], 'RespireAdmin deleteDeadLetter'));
      return n === 1 ? { value: { status: 'deleted' } as const, result: 'ok' as const } : { value: { status: 'missing' } as const, result: 'missing' as const };
    });
  }

  /**
   * Retries one record of a subscription's dead letters for that subscription only (script
   * `admin-retry-subscription-dead-letters`, queue README "Reliable topic"): atomically, the record
   * is deleted and its publication made due again in the subscription's deadlines index, its body
   * kept in the subscription's retried hash until completed, so retention never drops it. A
   * publication the subscription gets anyway (pending, already retried, not yet delivered) is
   * not scheduled twice. Audited as `retry` with the subscription in its target.
   */
  async retryDeadLetter(actor: Actor, id: ResourceId, subscription: string, recordId: string): Promise<SubscriptionRetryResult> {
    const who = this.#ctx.auditor.operator(actor, 'retry', id, { subscription: String(subscription), recordId: String(recordId) });
    const name = toSubscription(subscription);
    const rid = toEntryId('recordId', recordId);
    return this.#ctx.auditor.run<SubscriptionRetryResult>(who, 'retry', id, { subscription: name, recordId: rid }, async () => {
      let value: SubscriptionRetryResult;
      try {
        value = (await this.#retry(id, name, [rid]))[0]!;
      } catch (error) {
        if (!isRespireError(error, 'INVALID_STATE')) throw error;
        value = { status: 'refused', reason: `the subscription '${name}' does not exist` };
      }
      return {
        value,
        result: value.status === 'retried' ? ('ok' as const) : value.status,
        target: value.status === 'retried' ? { subscription: name, recordId: rid, publicationId: value.publicationId } : undefined,
      };
    });
  }

  /**
   * Retries every record of a subscription's dead letters present when it starts, oldest first, as
   * {@link retryDeadLetter}: one script call per page, bounded and abortable as the queue's
   * `retryAllDeadLetters`. Records of another format are left and counted `failed`. Audited as `retry-all`.
   * @throws {@link RespireStateError} when the subscription does not exist (it stops at the first page).
   */
  retryAllDeadLetters(actor: Actor, id: ResourceId, subscription: string, options?: BulkOptions): Promise<BulkResult> {
    const name = toSubscription(subscription);
    return bulk(this.#ctx, actor, id, 'retry-all', options, { subscription: name }, async () => ({
      dead: await this.#deadLetterKey(id, name),
      run: async (ids) => {
        const outcomes = await this.#retry(id, name, ids);
        return { done: outcomes.filter((o) => o.status === 'retried').length, failed: outcomes.filter((o) => o.status === 'refused').length };
      },
    }));
  }

  /** Deletes every record of a subscription's dead letters present when it starts, oldest first, one XDEL per page; audited as `delete-all`. */
  deleteAllDeadLetters(actor: Actor, id: ResourceId, subscription: string, options?: BulkOptions): Promise<BulkResult> {
    const name = toSubscription(subscription);
    return bulk(this.#ctx, actor, id, 'delete-all', options, { subscription: name }, async () => deleting(this.#ctx, await this.#deadLetterKey(id, name)));
  }

  /**
   * Retries up to 1,000 records of a subscription's dead letters in one script call, in order.
   * @throws {@link RespireStateError} when the subscription does not exist; nothing changed.
   */
  async #retry(id: ResourceId, subscription: string, recordIds: readonly string[]): Promise<SubscriptionRetryResult[]> {
    const r = await this.get(id);
    const keys = subscriptionKeys(topicKeys(r.name, r.keyPrefix), subscription);
    const reply = await this.#ctx.redis.script(
      'retrySubscription',
      {
        deadLetterStream: keys.deadLetter,
        stream: r.stream,
        deadlines: keys.deadlines,
        retried: keys.retried,
        wake: keys.wake,
        group: subscription,
        recordIds,
      },
      'RespireAdmin retry',
    );
    return reply.map((o): SubscriptionRetryResult =>
      o.status === 'retried'
        ? { status: 'retried', publicationId: o.sourceId }
        : o.status === 'missing'
          ? { status: 'missing' }
          : { status: 'refused', reason: o.reason },
    );
  }

  /**
   * Moves a subscription to `to` (the queue package's `TopicSubscription.seek`, script
   * `topic-seek`): its leases are discarded (their receipts stale), its pending entries list
   * emptied, and the retained publications after the new position delivered again, counting from
   * 1; its dead letters and trimmed count stay. Audited as `seek`.
   */
  async seek(actor: Actor, id: ResourceId, subscription: string, to: SeekTarget): Promise<SeekResult> {
    const who = this.#ctx.auditor.operator(actor, 'seek', id, { subscription: String(subscription), to: showTarget(to) });
    const name = toSubscription(subscription);
    const start = toStart(to);
    return this.#ctx.auditor.run<SeekResult>(who, 'seek', id, { subscription: name, to: showTarget(to) }, async () => {
      const r = await this.get(id);
      const keys = subscriptionKeys(topicKeys(r.name, r.keyPrefix), name);
      try {
        const reply = await this.#ctx.redis.script(
          'topicSeek',
          { stream: r.stream, deadlines: keys.deadlines, retried: keys.retried, group: name, start: start.id, startTimeMs: start.timeMs },
          'RespireAdmin seek',
        );
        return {
          value: { status: 'moved', position: reply.position, discarded: reply.discarded } as const,
          result: 'ok' as const,
          target: { subscription: name, to: showTarget(to), position: reply.position, discarded: reply.discarded },
        };
      } catch (error) {
        if (isRespireError(error, 'INVALID_STATE')) return { value: { status: 'missing' } as const, result: 'missing' as const };
        throw error;
      }
    });
  }

  async #deadLetterKey(id: ResourceId, subscription: string): Promise<string> {
    const r = await this.get(id);
    return subscriptionKeys(topicKeys(r.name, r.keyPrefix), subscription).deadLetter;
  }

  async #summary(r: TopicResource): Promise<TopicSummary> {
    const op = 'RespireAdmin topics';
    const [length, groups] = await Promise.all([this.#ctx.redis.send(r.stream, ['XLEN', r.stream], op), this.#groups(r.stream, op)]);
    return { ...r, publications: Number(length), subscriptions: groups.length };
  }

  /** The consumer groups of a topic's stream (XINFO GROUPS); none when the stream does not exist. */
  async #groups(stream: string, op: string): Promise<{ name: string; lastDeliveredId: string; pending: number; lag: number | null }[]> {
    if (Number(await this.#ctx.redis.send(stream, ['EXISTS', stream], op)) === 0) return [];
    const reply = await this.#ctx.redis.send(stream, ['XINFO', 'GROUPS', stream], op);
    return (Array.isArray(reply) ? (reply as unknown[]) : [])
      .map((g) => {
        const lag = infoField(g, 'lag');
        return {
          name: text(infoField(g, 'name')),
          lastDeliveredId: text(infoField(g, 'last-delivered-id')),
          pending: Number(infoField(g, 'pending')),
          lag: lag === null || lag === undefined ? null : Number(lag),
        };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}

function topicResource(config: TopicConfig, argument: string, discovered: boolean): TopicResource {
  const c = toOptions(argument, config, ['name', 'keyPrefix']);
  const keyPrefix = toKeyPrefix(c.keyPrefix);
  let stream: string;
  try {
    stream = topicKeys(c.name, keyPrefix).stream;
  } catch (error) {
    if (isRespireError(error, 'INVALID_ARGUMENT')) throw new RespireValidationError(`${argument}.name`, (error as Error).message);
    throw error;
  }
  return { kind: 'topic', id: stream, name: c.name as string, keyPrefix, stream, discovered };
}

/** A topic's stream key → its resource, when it is the one a ReliableTopic would use. */
function parseTopicKey(key: string): TopicResource | undefined {
  const match = TOPIC_STREAM_KEY.exec(key);
  if (!match) return undefined;
  try {
    const r = topicResource({ name: match[2]!, keyPrefix: match[1]! }, 'discovered', true);
    return r.stream === key ? r : undefined;
  } catch {
    return undefined;
  }
}

/** A subscription name as the queue package takes it: nonblank, no braces, at most 1,024 characters. */
function toSubscription(value: unknown): string {
  const name = toName('subscription', value);
  subscriptionKeys(topicKeys('check', ''), name);
  return name;
}

/** The seek target, checked before any I/O, as the script's start arguments. */
function toStart(to: unknown): { id: string; timeMs: string } {
  if (to === 'earliest') return { id: '0', timeMs: '' };
  if (to === 'latest') return { id: '$', timeMs: '' };
  if (typeof to === 'string') return { id: toEntryId('to', to), timeMs: '' };
  if (typeof to === 'object' && to !== null && Object.keys(to).length === 1 && 'timeMs' in to) {
    const timeMs = toCount('to.timeMs', (to as { timeMs: unknown }).timeMs, 0, 0, Number.MAX_SAFE_INTEGER);
    return timeMs === 0 ? { id: '0', timeMs: '' } : { id: '0', timeMs: String(timeMs) };
  }
  throw new RespireValidationError('to', "must be 'earliest', 'latest', an entry ID or { timeMs }");
}

function showTarget(to: unknown): string {
  if (typeof to === 'object' && to !== null && 'timeMs' in to) return `time:${String((to as { timeMs: unknown }).timeMs)}`;
  return String(to);
}

/**
 * The publications of a retried hash (HKEYS): its fields that are entry IDs (`<id>`), not the
 * optional `<id>:headers` beside them. A hash that does not exist reads as none.
 */
function retriedPublications(reply: unknown): string[] {
  return (Array.isArray(reply) ? reply : reply instanceof Set ? [...reply] : []).map((f) => text(f)).filter((f) => /^\d{1,20}-\d{1,20}$/.test(f));
}

/** The ms part of an entry ID. */
function idTime(id: string): number | undefined {
  const ms = Number(id.split('-')[0]);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A hash read by HGETALL (RESP2 flat array, RESP3 Map or object), as field to value text. */
function fieldMap(reply: unknown): Map<string, string> {
  const map = new Map<string, string>();
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) map.set(text(reply[i]), text(reply[i + 1]));
  else if (reply instanceof Map) for (const [k, v] of reply) map.set(text(k), text(v));
  else if (reply && typeof reply === 'object') for (const [k, v] of Object.entries(reply)) map.set(k, text(v));
  return map;
}
