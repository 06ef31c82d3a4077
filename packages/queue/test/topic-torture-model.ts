// The topic torture's reference model: what each observed publish, delivery, settle and dead letter says about each subscription's copy of each publication.

/** One broken rule, with the events of its subject (a publication in one subscription, or a deduplication ID). */
export interface TopicViolation {
  readonly rule: string;
  readonly subject: string;
  readonly detail: string;
  readonly history: readonly string[];
}

/** The rules, as reports name them. */
export const TOPIC_RULES = {
  unknown: 'every delivery is of a publication some publish made, with its bytes intact',
  dedup: 'a deduplication ID appends one publication; its repeats return that ID and append nothing',
  count: 'a subscription’s deliveryCount of a publication only increases, up to the delivery limit',
  fenced: 'only the current receipt of a subscription’s delivery settles it (no stale, revoked or foreign receipt)',
  once: 'a subscription completes a publication once: no delivery after its ack, no ack and dead letter both',
  deadLetter: 'a dead letter is made at the delivery limit',
  pending: 'an acknowledged delivery leaves its subscription’s pending entries list',
  retention: 'retention never trims what a subscription still needs (no bounds: no trimmed count)',
  complete: 'every publication is delivered to every subscription and completed (acked or dead-lettered)',
} as const;

/** What a subscription knows of one publication. */
interface Copy {
  maxCount: number;
  /** Receipt → the delivery count it was issued with. */
  readonly receipts: Map<string, number>;
  /** Receipts an ack or nack that returned true has used up. */
  readonly spent: Set<string>;
  acked: boolean;
  /** An ack of it failed without a reply: it may have happened. */
  maybeAcked: boolean;
  deadLetterCount: number | undefined;
  readonly history: string[];
}

/** The most events kept per subject for reports. */
const HISTORY = 40;

/**
 * The model. It judges only what the contract makes certain: a call that failed without a reply
 * may have run (an ack may have completed its delivery; a publish may have appended). Calls of one
 * subscription are made one after another, so the order their replies arrive in is the order they
 * ran in on the server.
 */
export class TopicTortureModel {
  readonly violations: TopicViolation[] = [];
  checks = 0;
  readonly #subscriptions: readonly string[];
  readonly #deliveryLimit: number;
  /** Token → its publish (dedup ID; the reply's ID and duplicate flag when it came). */
  readonly #published = new Map<string, { dedupId: string | undefined; id?: string; duplicate?: boolean }>();
  /** Entry ID → token, from publish replies and deliveries. */
  readonly #tokenOf = new Map<string, string>();
  /** Entry IDs that must reach every subscription: acknowledged publications, and every publication some subscription was delivered. */
  readonly #required = new Set<string>();
  /** Dedup ID → the IDs its replies returned, and how many said "appended". */
  readonly #dedup = new Map<string, { ids: Set<string>; appended: number; history: string[] }>();
  /** Subscription → entry ID → its copy. */
  readonly #copies = new Map<string, Map<string, Copy>>();
  readonly #reported = new Set<string>();
  readonly #deliveredTokens = new Set<string>();

  constructor(options: { readonly subscriptions: readonly string[]; readonly deliveryLimit: number }) {
    this.#subscriptions = options.subscriptions;
    this.#deliveryLimit = options.deliveryLimit;
    for (const s of options.subscriptions) this.#copies.set(s, new Map());
  }

  /** A publish about to be sent: a subscription may receive it before its reply comes. */
  publishing(tokens: readonly string[], dedupId: string | undefined): void {
    for (const token of tokens) this.#published.set(token, { dedupId });
  }

  /** A publish called with `token` ({@link publishing} first); `reply` when it answered. */
  published(text: string, token: string, dedupId: string | undefined, reply: { id: string; duplicate: boolean } | undefined): void {
    this.checks++;
    this.#published.set(token, { dedupId, ...(reply ?? {}) });
    if (reply === undefined) return;
    this.#required.add(reply.id);
    if (reply.duplicate && this.#deliveredTokens.has(token))
      this.#fail(TOPIC_RULES.dedup, `dedup ${dedupId}`, `${token} was delivered, yet its publish was answered as a duplicate`, []);
    if (!reply.duplicate) this.#bind(reply.id, token, text);
    if (dedupId === undefined) return;
    const d = this.#dedup.get(dedupId) ?? { ids: new Set<string>(), appended: 0, history: [] };
    this.#dedup.set(dedupId, d);
    d.ids.add(reply.id);
    if (!reply.duplicate) d.appended++;
    note(d.history, `${text} -> ${reply.id}${reply.duplicate ? ' (duplicate)' : ''}`);
    if (d.ids.size > 1) this.#fail(TOPIC_RULES.dedup, `dedup ${dedupId}`, `its publishes returned ${d.ids.size} IDs: ${[...d.ids].join(', ')}`, d.history);
    if (d.appended > 1) this.#fail(TOPIC_RULES.dedup, `dedup ${dedupId}`, `${d.appended} publishes said they appended`, d.history);
    // A duplicate's ID is an earlier publication with the same deduplication ID.
    const owner = reply.duplicate ? this.#tokenOf.get(reply.id) : undefined;
    if (owner !== undefined && this.#published.get(owner)?.dedupId !== dedupId)
      this.#fail(TOPIC_RULES.dedup, `dedup ${dedupId}`, `a duplicate returned ${reply.id}, a publication of ${owner}`, d.history);
  }

  /** A publishMany of `tokens` ({@link publishing} first); `ids` when it answered. */
  publishedMany(text: string, tokens: readonly string[], ids: readonly string[] | undefined): void {
    this.checks++;
    tokens.forEach((token, i) => {
      this.#published.set(token, { dedupId: undefined, ...(ids ? { id: ids[i]!, duplicate: false } : {}) });
      if (ids?.[i] !== undefined) {
        this.#required.add(ids[i]);
        this.#bind(ids[i], token, text);
      }
    });
  }

  /** A delivery a receive of `subscription` returned. */
  delivered(subscription: string, text: string, m: { id: string; token: string; count: number; receipt: string; intact: boolean }): void {
    this.checks++;
    const copy = this.#copy(subscription, m.id);
    note(copy.history, `${text}: delivery ${m.count} of ${m.token} (${m.receipt})`);
    const subject = `${subscription} ${m.id}`;
    const publish = this.#published.get(m.token);
    if (publish === undefined || !m.intact)
      this.#fail(TOPIC_RULES.unknown, subject, `token ${m.token}: ${publish ? 'bytes differ' : 'no publish made it'}`, copy.history);
    if (publish?.duplicate) this.#fail(TOPIC_RULES.dedup, subject, `${m.token}'s publish was answered as a duplicate, yet it was appended`, copy.history);
    this.#bind(m.id, m.token, `${text} (${subscription})`);
    this.#required.add(m.id);
    this.#deliveredTokens.add(m.token);
    if (m.count <= copy.maxCount) this.#fail(TOPIC_RULES.count, subject, `delivery count ${m.count} after ${copy.maxCount}`, copy.history);
    if (m.count > this.#deliveryLimit)
      this.#fail(TOPIC_RULES.count, subject, `delivery count ${m.count} beyond the limit ${this.#deliveryLimit}`, copy.history);
    if (copy.acked) this.#fail(TOPIC_RULES.once, subject, 'delivered again after an ack returned true', copy.history);
    copy.maxCount = Math.max(copy.maxCount, m.count);
    copy.receipts.set(m.receipt, m.count);
  }

  /**
   * One position of an ack, nack or extend that `subscription` made with a receipt `owner` issued
   * (another subscription's for a foreign settle). `maxCountAtSend` is the owner's latest delivery
   * count of the publication when the call was sent; `result` is undefined when no reply came.
   */
  settled(
    subscription: string,
    owner: string,
    text: string,
    how: 'ack' | 'nack' | 'extend',
    item: { id: string; receipt: string },
    maxCountAtSend: number,
    result: boolean | undefined,
  ): void {
    this.checks++;
    const copy = this.#copy(owner, item.id);
    const issued = copy.receipts.get(item.receipt);
    note(copy.history, `${text}: ${subscription === owner ? '' : `${subscription}'s `}${how} of receipt ${item.receipt} -> ${result ?? 'no reply'}`);
    const subject = `${owner} ${item.id}`;
    if (result === undefined) {
      if (how === 'ack' && subscription === owner) copy.maybeAcked = true;
      return;
    }
    if (!result) return;
    if (subscription !== owner) {
      // The foreign subscription's own copy is where the damage would land.
      this.#fail(TOPIC_RULES.fenced, subject, `${subscription}'s ${how} accepted a receipt of ${owner}`, copy.history);
      return;
    }
    if (issued !== undefined && issued < maxCountAtSend)
      this.#fail(TOPIC_RULES.fenced, subject, `${how} accepted the receipt of delivery ${issued} after delivery ${maxCountAtSend}`, copy.history);
    if (copy.spent.has(item.receipt)) this.#fail(TOPIC_RULES.fenced, subject, `${how} accepted receipt ${item.receipt} after it was used up`, copy.history);
    if (how === 'extend') return;
    copy.spent.add(item.receipt);
    if (how !== 'ack') return;
    if (copy.acked) this.#fail(TOPIC_RULES.once, subject, 'a second ack returned true', copy.history);
    if (copy.deadLetterCount !== undefined) this.#fail(TOPIC_RULES.once, subject, 'acked and dead-lettered both', copy.history);
    copy.acked = true;
  }

  /** A record of `subscription`'s dead-letter stream. */
  deadLettered(subscription: string, m: { id: string; token: string; count: number; intact: boolean }): void {
    this.checks++;
    const copy = this.#copy(subscription, m.id);
    note(copy.history, `dead letter of ${m.token} at count ${m.count}`);
    const subject = `${subscription} ${m.id}`;
    if (!m.intact || !this.#published.has(m.token))
      this.#fail(TOPIC_RULES.unknown, subject, `dead letter of ${m.token}: bytes differ or no publish made it`, copy.history);
    this.#bind(m.id, m.token, `dead letter (${subscription})`);
    this.#required.add(m.id);
    if (m.count !== this.#deliveryLimit)
      this.#fail(TOPIC_RULES.deadLetter, subject, `dead-lettered at count ${m.count}, the limit is ${this.#deliveryLimit}`, copy.history);
    if (m.count < copy.maxCount) this.#fail(TOPIC_RULES.count, subject, `dead-lettered at count ${m.count} after delivery ${copy.maxCount}`, copy.history);
    if (copy.deadLetterCount !== undefined) this.#fail(TOPIC_RULES.once, subject, 'dead-lettered twice', copy.history);
    if (copy.acked) this.#fail(TOPIC_RULES.once, subject, 'acked and dead-lettered both', copy.history);
    copy.deadLetterCount = m.count;
  }

  /** The publications `subscription` has acknowledged so far (an ack returned true): read before reading its pending entries list. */
  acked(subscription: string): Set<string> {
    return new Set([...this.#copies.get(subscription)!].filter(([, copy]) => copy.acked).map(([id]) => id));
  }

  /** `ids` are in `subscription`'s pending entries list, read after {@link acked} returned `acked`. */
  pendingSeen(subscription: string, acked: ReadonlySet<string>, ids: readonly string[]): void {
    this.checks++;
    for (const id of ids) {
      if (!acked.has(id)) continue;
      const copy = this.#copy(subscription, id);
      this.#fail(TOPIC_RULES.pending, `${subscription} ${id}`, 'still pending in its group after an ack returned true', copy.history);
    }
  }

  /** `subscription`'s trimmed count as the topic reports it: a topic without bounds must never count one. */
  trimmedSeen(subscription: string, trimmed: number): void {
    this.checks++;
    if (trimmed > 0) this.#fail(TOPIC_RULES.retention, subscription, `trimmed count ${trimmed} on a topic without bounds`, []);
  }

  /** The latest delivery count `subscription` saw of `id` (0 for none). */
  maxCount(subscription: string, id: string): number {
    return this.#copies.get(subscription)?.get(id)?.maxCount ?? 0;
  }

  /** After the drain: every required publication completed by every subscription. @returns how many were required. */
  finish(): number {
    for (const id of this.#required) {
      for (const s of this.#subscriptions) {
        this.checks++;
        const copy = this.#copies.get(s)!.get(id);
        if (copy && (copy.acked || copy.maybeAcked || copy.deadLetterCount !== undefined)) continue;
        this.#fail(
          TOPIC_RULES.complete,
          `${s} ${id}`,
          `${this.#tokenOf.get(id) ?? 'unknown token'}: ${copy ? `delivered up to count ${copy.maxCount}, never completed` : 'never delivered'}`,
          copy?.history ?? [],
        );
      }
    }
    return this.#required.size;
  }

  /** The events of one subscription's copy of `id`, for reports on what the server still holds. */
  historyOf(subscription: string, id: string): readonly string[] {
    return this.#copies.get(subscription)?.get(id)?.history ?? [];
  }

  #copy(subscription: string, id: string): Copy {
    const copies = this.#copies.get(subscription)!;
    let copy = copies.get(id);
    if (copy === undefined) {
      copy = { maxCount: 0, receipts: new Map(), spent: new Set(), acked: false, maybeAcked: false, deadLetterCount: undefined, history: [] };
      copies.set(id, copy);
    }
    return copy;
  }

  /** Ties an entry ID to the token it carries: one ID, one publication. */
  #bind(id: string, token: string, text: string): void {
    const known = this.#tokenOf.get(id);
    if (known === undefined) this.#tokenOf.set(id, token);
    else if (known !== token) this.#fail(TOPIC_RULES.unknown, `entry ${id}`, `carries ${token} per ${text}, ${known} before`, []);
  }

  /** Records a violation once per rule and subject. */
  #fail(rule: string, subject: string, detail: string, history: readonly string[]): void {
    const key = `${rule}|${subject}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.violations.push({ rule, subject, detail, history: [...history] });
  }
}

function note(history: string[], line: string): void {
  history.push(line);
  if (history.length > HISTORY) history.shift();
}
