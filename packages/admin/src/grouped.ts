// Grouped queues for operators (queue README "Message groups"): their groups, largest backlogs and blocked heads, read-only.
import type { Page, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { RespireNotFoundError, nearest } from './not-found.js';
import {
  GROUPED_LEASED_MARK,
  RespireValidationError,
  isRespireError,
  isWellFormedText,
  parseLeaseMember,
  parseWithScores,
  queueKeys,
  text,
  toKeyPrefix,
} from './redis.js';
import type { DiscoveryOptions, QueueConfig } from './resources.js';
import { toCount, toOptions, toResourceId } from './validate.js';

/** A grouped queue the admin knows. Its id is its grouped stream key (`<keyPrefix>{respire-queue:<name>}:groups:stream`). */
export interface GroupedQueueResource {
  readonly kind: 'grouped-queue';
  readonly id: ResourceId;
  readonly name: string;
  readonly keyPrefix: string;
  /** The queue's grouped keys (queue README "Message groups", its key table). */
  readonly keys: GroupedKeys;
  /** Found by the discovery SCAN rather than configured. */
  readonly discovered: boolean;
  /**
   * The queue's `groupConcurrency` when configured (1 ordered, 2..1000 fair): a retried dead letter's
   * idle group joins the ready ring while it has room. Unknown (discovered, or not given): it joins
   * only with none of its messages in flight.
   */
  readonly groupConcurrency?: number;
}

/** A grouped queue to show: a queue's name and key prefix, and optionally its `groupConcurrency`. */
export interface GroupedQueueConfig extends QueueConfig {
  /** The queue's `groups.groupConcurrency` (1..1000), for retries of its dead letters. @defaultValue unknown */
  readonly groupConcurrency?: number;
}

/** The keys of a grouped queue, as `@respire/queue` derives them. */
export interface GroupedKeys {
  readonly stream: string;
  readonly deadlines: string;
  readonly deadLetter: string;
  readonly ready: string;
  readonly leased: string;
  readonly inflight: string;
  /** The wake stream (one entry at most): appended to when a group moves on without a send. */
  readonly wake: string;
  /** Each group's backlog key is this prefix followed by the group ID. */
  readonly backlogPrefix: string;
}

/** A grouped queue's counts: a few O(1) reads (XLEN, ZCARD, HLEN), whatever its number of groups. */
export interface GroupedQueueSummary extends GroupedQueueResource {
  /** Messages waiting or in flight (XLEN of its stream). */
  readonly messages: number;
  /** Groups in the ready ring: a message waiting and (ordered groups) none in flight (ZCARD). */
  readonly readyGroups: number;
  /** Messages in flight, leased or due for redelivery (HLEN of its leased hash, less its mark field); for ordered groups, the number of blocked groups. */
  readonly inFlight: number;
  /**
   * Fair groups (`groupConcurrency` above 1) are detected by their in-flight counts: true while
   * some message of such a queue is in flight; false for ordered groups and for an idle fair queue.
   */
  readonly fair: boolean;
  /**
   * Groups with messages: ready plus blocked (exact for ordered groups, and for fair groups with
   * nothing in flight); null for fair groups with messages in flight, where a group can be both
   * in the ring and in flight (then see `readyGroups` and `inFlight`).
   */
  readonly groups: number | null;
  /** Records in its dead-letter stream. */
  readonly deadLetters: number;
}

/** A group and its backlog size. */
export interface GroupBacklog {
  /** The group ID: user data, render it inert. */
  readonly groupId: string;
  /** Messages in the group's backlog (LLEN): for ordered groups its head too, leased or not; fair groups' taken messages have left it. */
  readonly backlog: number;
}

/** The largest backlogs of a grouped queue, as of `computedAtMs`. */
export interface LargestBacklogs {
  /** Largest first; ties by group ID. At most the `top` asked for. */
  readonly items: readonly GroupBacklog[];
  /** Server time (ms since the epoch) when the walk over the groups started. */
  readonly computedAtMs: number;
  /** Groups whose backlog was read by that walk. */
  readonly groupsRead: number;
  /** True when the walk stopped at {@link MAX_GROUPS_WALKED}: the largest are among those read only. */
  readonly truncated: boolean;
}

/** A grouped queue with its counts, its largest backlogs and the server time. */
export interface GroupedQueueStatus extends GroupedQueueSummary {
  readonly serverTimeMs: number;
  readonly largestBacklogs: LargestBacklogs;
}

/** A group in the ready ring, in ring order (the order receives take them). */
export interface ReadyGroup extends GroupBacklog {
  /** Its position in the ring (the score it joined with). */
  readonly position: number;
}

/** A message in flight (for ordered groups, a blocked group's head), in deadline order. */
export interface InFlightHead {
  /** Its group ID (user data); `null` when the leased hash no longer names it (settled meanwhile). */
  readonly groupId: string | null;
  readonly entryId: string;
  /** Deliveries made so far. */
  readonly deliveryCount: number;
  /** The lease's deadline or, once NACKed, its due time: ms since the epoch, server clock. */
  readonly deadlineMs: number;
  /** True once `deadlineMs` has passed: the next receive redelivers it (or dead-letters it at the delivery limit). */
  readonly due: boolean;
  /** False once NACKed (its receipt revoked): it waits for its due time. */
  readonly leased: boolean;
}

/** One group, as `respire groups show` prints it. */
export interface GroupDetail extends GroupBacklog {
  /** `ready` (in the ring), `blocked` (ordered: its head in flight; fair: at its limit or all taken), `empty` (no key: the group has no messages). */
  readonly state: 'ready' | 'blocked' | 'empty';
  /** The first entry of its backlog, null when empty. */
  readonly headId: string | null;
  /** Its messages in flight: for fair groups from the in-flight count, for ordered groups 1 when its head is leased. */
  readonly inFlight: number;
}

/** Options of {@link GroupedQueues.status}. */
export interface GroupedStatusOptions {
  /** Largest backlogs to list, 1..100. @defaultValue 10 */
  readonly top?: number;
  /** Reuse a walk at most this old (ms, by the host's monotonic clock); 0 walks now. @defaultValue 5000 */
  readonly maxAgeMs?: number;
}

/** Groups whose backlog one walk reads at most: beyond it the largest are of those read (`truncated`). */
export const MAX_GROUPS_WALKED = 1_000_000;
/** Groups one step of a walk reads (one script call of a few ms on the server). */
const WALK_STEP = 2000;
const GROUPED_MATCH = '*{respire-queue:*}:groups:stream';
const GROUPED_STREAM_KEY = /^(.*)\{respire-queue:([^{}]+)\}:groups:stream$/s;

/** The grouped queues an admin knows, and their groups (read-only: no script, no write). */
export class GroupedQueues {
  readonly #ctx: AdminContext;
  readonly #configured = new Map<ResourceId, GroupedQueueResource>();
  readonly #discovery: Required<DiscoveryOptions> | undefined;
  /** The last walk of each queue, shared by concurrent callers; keyed by resource id (never a metric label). */
  readonly #walks = new Map<ResourceId, { at: number; top: number; promise: Promise<LargestBacklogs> }>();

  /** @throws {@link RespireValidationError} for a bad name, key prefix, discovery bounds, or a queue configured twice. */
  constructor(ctx: AdminContext, queues: readonly GroupedQueueConfig[], discover: unknown) {
    this.#ctx = ctx;
    for (const [i, q] of queues.entries()) {
      const r = groupedResource(q, `groupedQueues[${i}]`, false);
      if (this.#configured.has(r.id)) throw new RespireValidationError('groupedQueues', `'${r.id}' is configured twice`);
      this.#configured.set(r.id, r);
    }
    if (discover === true) this.#discovery = { scanCount: 1000, maxPages: 100 };
    else if (discover && typeof discover === 'object') {
      const d = toOptions('discoverGroupedQueues', discover as DiscoveryOptions, ['scanCount', 'maxPages']);
      this.#discovery = {
        scanCount: toCount('discoverGroupedQueues.scanCount', d.scanCount, 1000, 1, 10_000),
        maxPages: toCount('discoverGroupedQueues.maxPages', d.maxPages, 100, 1, 10_000),
      };
    } else if (discover !== undefined && discover !== false) {
      throw new RespireValidationError('discoverGroupedQueues', 'must be a boolean or { scanCount, maxPages }');
    }
  }

  /**
   * Configured grouped queues, then those the bounded SCAN finds, each with its counts. A discovered
   * stream whose grouped keys hold other types (a key that only looks like a grouped queue's, or a
   * damaged queue) is left out rather than failing the whole list; a configured one still throws.
   */
  async list(): Promise<{ readonly groupedQueues: readonly GroupedQueueSummary[]; readonly discoveryTruncated: boolean }> {
    const resources = [...this.#configured.values()];
    let truncated = false;
    if (this.#discovery) {
      const found = await this.#ctx.resources.scanStreams(GROUPED_MATCH, this.#discovery);
      truncated = found.truncated;
      for (const key of found.keys.sort()) {
        const r = parseGroupedKey(key);
        if (r && !this.#configured.has(r.id)) resources.push(r);
      }
    }
    const summaryOf = (r: GroupedQueueResource): Promise<GroupedQueueSummary | null> =>
      this.#summary(r).catch((error: unknown) => {
        if (this.#configured.has(r.id) || !isRespireError(error, 'WRONG_TYPE')) throw error;
        return null;
      });
    const out: GroupedQueueSummary[] = [];
    for (let i = 0; i < resources.length; i += 32) {
      for (const summary of await Promise.all(resources.slice(i, i + 32).map(summaryOf))) if (summary) out.push(summary);
    }
    return { groupedQueues: out, discoveryTruncated: truncated };
  }

  /**
   * The grouped queue with this id: configured, or (with discovery) one whose stream or ready ring exists.
   * @throws {@link RespireNotFoundError} (kind `resource`) naming the nearest known grouped queues.
   */
  async get(id: ResourceId): Promise<GroupedQueueResource> {
    const key = toResourceId(id);
    const configured = this.#configured.get(key);
    if (configured) return configured;
    const parsed = this.#discovery ? parseGroupedKey(key) : undefined;
    if (parsed) {
      const n = Number(await this.#ctx.redis.send(key, ['EXISTS', parsed.keys.stream, parsed.keys.deadLetter], 'RespireAdmin groupedQueue'));
      if (n > 0) return parsed;
    }
    const known = (await this.list().catch(() => ({ groupedQueues: [...this.#configured.values()] }))).groupedQueues.map((q) => q.id);
    throw new RespireNotFoundError(
      { kind: 'resource', name: key, known: nearest(key, known) },
      `unknown grouped queue '${key}': neither configured${this.#discovery ? ' nor a discoverable grouped queue' : ''}`,
    );
  }

  /**
   * Counts, and the `top` largest backlogs. The counts are O(1); the largest backlogs walk every
   * group with messages (script `admin-group-backlogs`, 2,000 groups a call; for a user that may
   * not run scripts, the same steps by commands): O(groups), about 1.5 s at 100,000 groups on a
   * loaded 2-core host (admin README "Grouped queues"), so a walk is reused for `maxAgeMs` and
   * shared by concurrent callers.
   */
  async status(id: ResourceId, options?: GroupedStatusOptions): Promise<GroupedQueueStatus> {
    const o = toOptions('options', options, ['top', 'maxAgeMs']);
    const top = toCount('top', o.top, 10, 1, 100);
    const maxAgeMs = toCount('maxAgeMs', o.maxAgeMs, 5000, 0, 3_600_000);
    const r = await this.get(id);
    const [summary, serverTimeMs, largestBacklogs] = await Promise.all([
      this.#summary(r),
      this.#ctx.redis.timeMs(r.keys.stream, 'RespireAdmin groupedQueue'),
      this.#largest(r, top, maxAgeMs),
    ]);
    return { ...summary, serverTimeMs, largestBacklogs: { ...largestBacklogs, items: largestBacklogs.items.slice(0, top) } };
  }

  /**
   * One page of the ready ring, in the order receives take its groups, with each backlog: ZRANGE
   * BYSCORE after the cursor's position, LIMIT count, then one LLEN per row: O(log G + count).
   */
  async readyGroups(id: ResourceId, options?: { readonly count?: number; readonly cursor?: string }): Promise<Page<ReadyGroup>> {
    const o = toOptions('options', options, ['count', 'cursor']);
    const count = toCount('count', o.count, 50);
    const after = o.cursor === undefined ? undefined : toPosition(o.cursor);
    const r = await this.get(id);
    const op = 'RespireAdmin readyGroups';
    const reply = await this.#ctx.redis.send(
      r.keys.ready,
      ['ZRANGE', r.keys.ready, after === undefined ? '-inf' : `(${after}`, '+inf', 'BYSCORE', 'LIMIT', '0', String(count + 1), 'WITHSCORES'],
      op,
    );
    const rows = parseWithScores(reply);
    const page = rows.slice(0, count);
    const backlogs = await Promise.all(page.map(([g]) => this.#ctx.redis.send(r.keys.ready, ['LLEN', r.keys.backlogPrefix + g], op)));
    return {
      items: page.map(([groupId, position], i) => ({ groupId, position, backlog: Number(backlogs[i]) })),
      next: rows.length > count ? String(page[page.length - 1]![1]) : undefined,
    };
  }

  /**
   * One page of the messages in flight (for ordered groups: each blocked group's head), soonest
   * deadline first, with its group: the deadlines index by rank after the cursor's member (ZRANK,
   * ZRANGE, HMGET on the leased hash): O(log n + count). A cursor whose member was settled
   * meanwhile restarts at its deadline (a row may repeat, none is skipped).
   */
  async inFlight(
    id: ResourceId,
    options?: { readonly count?: number; readonly cursor?: string },
  ): Promise<Page<InFlightHead> & { readonly serverTimeMs: number }> {
    const o = toOptions('options', options, ['count', 'cursor']);
    const count = toCount('count', o.count, 50);
    const cursor = o.cursor === undefined ? undefined : toDeadlineCursor(o.cursor);
    const r = await this.get(id);
    const op = 'RespireAdmin groupInFlight';
    const { redis } = this.#ctx;
    const d = r.keys.deadlines;
    let start = 0;
    if (cursor) {
      const rank = await redis.send(d, ['ZRANK', d, cursor.member], op);
      start = rank === null || rank === undefined ? Number(await redis.send(d, ['ZCOUNT', d, '-inf', `(${cursor.score}`], op)) : Number(rank) + 1;
    }
    const [reply, serverTimeMs] = await Promise.all([
      redis.send(d, ['ZRANGE', d, String(start), String(start + count), 'WITHSCORES'], op),
      redis.timeMs(d, op),
    ]);
    const rows = parseWithScores(reply);
    const page = rows.slice(0, count);
    const members = page.map(([m]) => parseLeaseMember(m));
    const ids = members.map((m) => m?.entryId ?? '');
    const groups = ids.length === 0 ? [] : ((await redis.send(r.keys.leased, ['HMGET', r.keys.leased, ...ids], op)) as unknown[]);
    const items: InFlightHead[] = [];
    page.forEach(([, score], i) => {
      const m = members[i];
      if (!m) return;
      const g = groups[i];
      items.push({
        groupId: g === null || g === undefined ? null : text(g),
        entryId: m.entryId,
        deliveryCount: m.deliveryCount,
        deadlineMs: score,
        due: score <= serverTimeMs,
        leased: m.receipt !== undefined,
      });
    });
    const last = page[page.length - 1];
    return { items, next: rows.length > count && last ? `${last[1]}:${last[0]}` : undefined, serverTimeMs };
  }

  /** One group: its backlog, head, state and messages in flight (four O(log n) reads). */
  async group(id: ResourceId, groupId: string): Promise<GroupDetail> {
    const g = toGroupId(groupId);
    const r = await this.get(id);
    const op = 'RespireAdmin group';
    const { redis } = this.#ctx;
    const backlog = r.keys.backlogPrefix + g;
    const [size, head, ready, fair] = await Promise.all([
      redis.send(backlog, ['LLEN', backlog], op),
      redis.send(backlog, ['LINDEX', backlog, '0'], op),
      redis.send(r.keys.ready, ['ZSCORE', r.keys.ready, g], op),
      redis.send(r.keys.inflight, ['HGET', r.keys.inflight, g], op),
    ]);
    const headId = head === null || head === undefined ? null : text(head);
    let inFlight = fair === null || fair === undefined ? 0 : Number(text(fair));
    if (inFlight === 0 && headId !== null) {
      const owner = await redis.send(r.keys.leased, ['HGET', r.keys.leased, headId], op);
      if (owner !== null && owner !== undefined) inFlight = 1;
    }
    const state = ready !== null && ready !== undefined ? 'ready' : Number(size) === 0 && inFlight === 0 ? 'empty' : 'blocked';
    return { groupId: g, backlog: Number(size), state, headId, inFlight };
  }

  #summary(r: GroupedQueueResource): Promise<GroupedQueueSummary> {
    return groupedSummary(this.#ctx, r);
  }

  /** The cached walk, or a new one when it is older than `maxAgeMs` or listed fewer than `top`. */
  #largest(r: GroupedQueueResource, top: number, maxAgeMs: number): Promise<LargestBacklogs> {
    const now = performance.now();
    const cached = this.#walks.get(r.id);
    if (cached && cached.top >= top && now - cached.at <= maxAgeMs) return cached.promise;
    const promise = this.#walk(r, top);
    this.#walks.set(r.id, { at: now, top, promise });
    promise.catch(() => this.#walks.get(r.id)?.promise === promise && this.#walks.delete(r.id));
    return promise;
  }

  /**
   * Every group with messages, walked on the server in steps of {@link WALK_STEP} groups (script
   * `admin-group-backlogs`: the ring by rank, then the groups in flight by HSCAN, one LLEN per
   * group, returning the step's largest); keeps the `top` largest. Not a snapshot: a group that
   * moves between the ring and the in-flight set during the walk may be read twice or not at all.
   */
  async #walk(r: GroupedQueueResource, top: number): Promise<LargestBacklogs> {
    const op = 'RespireAdmin largestBacklogs';
    const { redis } = this.#ctx;
    const k = r.keys;
    const computedAtMs = await redis.timeMs(k.stream, op);
    const best = new Map<string, number>();
    let groupsRead = 0;
    let phase = 0;
    let cursor = '0';
    let scripted = true;
    while (phase < 2) {
      if (groupsRead >= MAX_GROUPS_WALKED) break;
      const args = { phase, cursor, budget: WALK_STEP, top };
      const step = scripted
        ? await redis
            .script('groupBacklogs', { ready: k.ready, leased: k.leased, inflight: k.inflight, backlogPrefix: k.backlogPrefix, ...args }, op)
            .catch((error: unknown) => {
              // A read-only user (`+@read`) may not run scripts: the same step from here, one LLEN per group.
              if (!isRespireError(error, 'PERMISSION_DENIED')) throw error;
              scripted = false;
              return this.#clientStep(r, args, op);
            })
        : await this.#clientStep(r, args, op);
      ({ phase, cursor } = step);
      groupsRead += step.read;
      for (const { group, backlog } of step.largest) best.set(group, Math.max(backlog, best.get(group) ?? 0));
    }
    const items = [...best]
      .map(([groupId, backlog]) => ({ groupId, backlog }))
      .sort((a, b) => b.backlog - a.backlog || (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0))
      .slice(0, top);
    return { items, computedAtMs, groupsRead, truncated: phase < 2 };
  }

  /**
   * One step of the walk as `admin-group-backlogs` does it, by commands from the client (for a
   * user that may not run scripts): the ring by rank or the groups in flight by HSCAN, then one
   * LLEN per group, sent together. Slower (a round trip's worth of replies per group).
   */
  async #clientStep(
    r: GroupedQueueResource,
    step: { phase: number; cursor: string; budget: number; top: number },
    op: string,
  ): Promise<{ phase: number; cursor: string; read: number; largest: { group: string; backlog: number }[] }> {
    const { redis } = this.#ctx;
    const k = r.keys;
    let groups: string[];
    let { phase, cursor } = step;
    if (phase === 0) {
      const rank = Number(cursor);
      groups = ((await redis.send(k.ready, ['ZRANGE', k.ready, String(rank), String(rank + step.budget - 1)], op)) as unknown[]).map(text);
      if (groups.length < step.budget) [phase, cursor] = [1, '0'];
      else cursor = String(rank + groups.length);
    } else {
      const fair = Number(await redis.send(k.inflight, ['HLEN', k.inflight], op)) > 0;
      const hash = fair ? k.inflight : k.leased;
      const reply = (await redis.send(hash, ['HSCAN', hash, cursor, 'COUNT', String(step.budget)], op)) as unknown[];
      cursor = text(reply[0]);
      const flat = ((reply[1] as unknown[]) ?? []).map(text);
      // The leased hash's mark field names no group.
      groups = flat.filter((_, i) => i % 2 === (fair ? 0 : 1) && (fair || flat[i - 1] !== GROUPED_LEASED_MARK));
      if (cursor === '0') phase = 2;
    }
    const sizes = await Promise.all(groups.map((g) => redis.send(k.ready, ['LLEN', k.backlogPrefix + g], op)));
    const largest = groups
      .map((group, i) => ({ group, backlog: Number(sizes[i]) }))
      .filter((b) => b.backlog > 0)
      .sort((a, b) => b.backlog - a.backlog || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))
      .slice(0, step.top);
    return { phase, cursor, read: groups.length, largest };
  }
}

/** A grouped queue's counts (XLEN, ZCARD, HLEN ×2, XLEN: O(1) each, concurrent); also a grouped partitioned queue's partitions'. */
export async function groupedSummary(ctx: AdminContext, r: GroupedQueueResource): Promise<GroupedQueueSummary> {
  const op = 'RespireAdmin groupedQueues';
  const { redis } = ctx;
  const k = r.keys;
  const [messages, readyGroups, leasedFields, fairGroups, deadLetters] = (
    await Promise.all([
      redis.send(k.stream, ['XLEN', k.stream], op),
      redis.send(k.ready, ['ZCARD', k.ready], op),
      redis.send(k.leased, ['HLEN', k.leased], op),
      redis.send(k.inflight, ['HLEN', k.inflight], op),
      redis.send(k.deadLetter, ['XLEN', k.deadLetter], op),
    ])
  ).map(Number) as [number, number, number, number, number];
  const fair = fairGroups > 0;
  // Past the leased hash's mark field, which it has whenever it exists.
  const inFlight = Math.max(leasedFields - 1, 0);
  return { ...r, messages, readyGroups, inFlight, fair, groups: fair ? null : readyGroups + inFlight, deadLetters };
}

/** The grouped keys of queue `name` under `keyPrefix`, as `@respire/queue`'s groupedQueueKeys derives them. */
export function groupedKeys(name: string, keyPrefix: string): GroupedKeys {
  const base = queueKeys(name, keyPrefix).stream.slice(0, -':stream'.length);
  return {
    stream: `${base}:groups:stream`,
    deadlines: `${base}:groups:deadlines`,
    deadLetter: `${base}:groups:dead-letter`,
    ready: `${base}:groups:ready`,
    leased: `${base}:groups:leased`,
    inflight: `${base}:groups:in-flight`,
    wake: `${base}:groups:wake`,
    backlogPrefix: `${base}:groups:group:`,
  };
}

function groupedResource(config: GroupedQueueConfig, argument: string, discovered: boolean): GroupedQueueResource {
  const c = toOptions(argument, config, ['name', 'keyPrefix', 'groupConcurrency']);
  const concurrency = c.groupConcurrency === undefined ? undefined : toCount(`${argument}.groupConcurrency`, c.groupConcurrency, 1, 1, 1000);
  const keyPrefix = toKeyPrefix(c.keyPrefix);
  let keys: GroupedKeys;
  try {
    keys = groupedKeys(c.name as string, keyPrefix);
  } catch (error) {
    if (isRespireError(error, 'INVALID_ARGUMENT')) throw new RespireValidationError(`${argument}.name`, (error as Error).message);
    throw error;
  }
  return {
    kind: 'grouped-queue',
    id: keys.stream,
    name: c.name as string,
    keyPrefix,
    keys,
    discovered,
    ...(concurrency === undefined ? {} : { groupConcurrency: concurrency }),
  };
}

function parseGroupedKey(key: string): GroupedQueueResource | undefined {
  const match = GROUPED_STREAM_KEY.exec(key);
  if (!match) return undefined;
  try {
    const r = groupedResource({ name: match[2]!, keyPrefix: match[1]! }, 'discovered', true);
    return r.id === key ? r : undefined;
  } catch {
    return undefined;
  }
}

/** A group ID as the queue takes it: a nonempty, well-formed string of at most 1,024 UTF-8 bytes (queue README "Message groups"). */
export function toGroupId(value: unknown): string {
  if (typeof value !== 'string' || value === '' || !isWellFormedText(value) || Buffer.byteLength(value) > 1024) {
    throw new RespireValidationError('groupId', 'must be a nonempty well-formed string of at most 1,024 UTF-8 bytes');
  }
  return value;
}

function toPosition(cursor: unknown): number {
  if (typeof cursor !== 'string' || !/^-?\d+(?:\.\d+)?(?:e[+-]?\d+)?$/i.test(cursor)) {
    throw new RespireValidationError('cursor', "must be a page's `next`");
  }
  return Number(cursor);
}

function toDeadlineCursor(cursor: unknown): { score: number; member: string } {
  const match = typeof cursor === 'string' ? /^(\d+):(.+)$/s.exec(cursor) : null;
  if (!match || !parseLeaseMember(match[2]!)) throw new RespireValidationError('cursor', "must be a page's `next`");
  return { score: Number(match[1]), member: match[2]! };
}
