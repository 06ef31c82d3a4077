// The queue torture's reference model: what each operation's observed outcome (or uncertainty) says about each message, the contract's rules over that, and the shortest failing history.
import { shrinkFailing } from '@respire/harness';

/**
 * An interval of server time, in ms with the microseconds as a fraction (TIME). `hi` is Infinity
 * when nothing bounds it from above (an operation whose reply never came).
 */
export interface Span {
  readonly lo: number;
  readonly hi: number;
}

/** One call a client made, as the history shows it. */
export interface OpRecord {
  /** Global issue order. */
  readonly seq: number;
  readonly client: string;
  /** The operation table's name (`send`, `receive`, `ackMany`, ...). */
  readonly name: string;
  /** When it ran on the server: `lo` from a TIME read before it (or the latest server time seen before it was sent), `hi` from one after its reply. */
  readonly at: Span;
  /** How it ended: with a reply, not sent (proved not to have run), or uncertain (it may have run, at any time after `at.lo`). */
  readonly outcome: 'ok' | 'not-sent' | 'uncertain';
  /** Its arguments and outcome in a few words, for histories. */
  readonly text: string;
}

/** A send as the model sees it. */
export interface SentEvent {
  readonly kind: 'send';
  readonly op: OpRecord;
  readonly token: string;
  readonly dedupId: string | undefined;
  /** The send's delay (ms; 0 or absent for none): the message is not receivable before the send's server time plus it. */
  readonly delayMs?: number;
  /** The reply (entry ID, whether it was a duplicate, and on a partitioned queue its partition) when `op.outcome` is `ok`. */
  readonly reply: { readonly id: string; readonly duplicate: boolean; readonly partition?: number } | undefined;
}

/** One delivery of a message, as a receive returned it. */
export interface DeliveryEvent {
  readonly kind: 'delivery';
  readonly op: OpRecord;
  readonly token: string;
  readonly id: string;
  /** On a partitioned queue, the partition the message came from (its `id` is unique within it only). */
  readonly partition?: number;
  readonly count: number;
  readonly receipt: string;
  /** The lease deadline: exact when read from the deadlines key right after, else bounded by the receive's span. */
  readonly deadline: Span;
  /** The payload bytes equal those sent under this token. */
  readonly intact: boolean;
}

/**
 * An ack, nack or extend of one delivery (one position of an ackMany / nackMany / extendMany). An
 * extend keeps the receipt and replaces the lease's deadline with its server time plus `delayMs`;
 * it completes nothing.
 */
export interface SettleEvent {
  readonly kind: 'settle';
  readonly op: OpRecord;
  readonly how: 'ack' | 'nack' | 'extend';
  /** NACK delay in ms (0 for an ack); for an extend, the new visibility timeout. */
  readonly delayMs: number;
  readonly token: string;
  readonly receipt: string;
  readonly count: number;
  /** Position in its call: a repeated ID counts once, so earlier positions of one call settle first. */
  readonly position: number;
  /** The reply's value for this position; undefined when the call's outcome is not `ok`. */
  readonly result: boolean | undefined;
}

/** A record of the dead-letter stream. */
export interface DeadLetterEvent {
  readonly kind: 'dead-letter';
  readonly token: string;
  /** The record's `source_id`. */
  readonly id: string;
  /** On a partitioned queue, the partition whose dead-letter stream holds the record. */
  readonly partition?: number;
  readonly count: number;
  /** The millisecond part of the record's stream ID: the server's clock when it was appended (never earlier). */
  readonly atMs: number;
  readonly intact: boolean;
}

/** What is left of a message after the final drain. */
export interface FinalEvent {
  readonly kind: 'final';
  readonly token: string;
  /** Still in the queue's stream after the drain gave up (never delivered again). */
  readonly leftInStream: boolean;
}

export type MessageEvent = SentEvent | DeliveryEvent | SettleEvent | DeadLetterEvent | FinalEvent;

/** The rules the model checks, as the report names them. */
export const RULES = {
  lost: 'no message lost',
  stale: 'no stale receipt accepted',
  oncePerLease: 'a message received at most once per lease',
  counts: 'delivery counts never go backwards',
  deadLetters: 'dead letters only at the limit, with the right count',
  dedup: 'deduplication returns the original ID',
  early: 'visibility and NACK delays never end early by server time',
  max: 'at most max per receive',
  honoured: 'a held lease is honoured',
  intact: 'payloads arrive intact under their sent ID',
  notSent: 'a call reported as not sent had no effect',
  errors: 'only the errors the contract names',
  replies: "each reply answers its own command (the client's bookkeeping)",
} as const;
export type Rule = (typeof RULES)[keyof typeof RULES];

/** One broken rule: about one message (its token) or one deduplication ID, or one call. */
export interface ModelViolation {
  readonly rule: Rule;
  /** `message <token>`, `deduplication ID <id>` or `call #<seq>`. */
  readonly subject: string;
  readonly detail: string;
}

export interface ModelOptions {
  readonly deliveryLimit: number;
  /**
   * How much later than a dead-lettering receive's own TIME the dead-letter record's stream ID may
   * be dated, in ms: the record's ID comes from the server's clock at its XADD (Redis 7.2+ uses the
   * time the script started), and a loaded machine can stall a script between the two. A dead letter
   * counts as early only when its ID is this much before the lease's earliest due time.
   */
  readonly deadLetterMarginMs: number;
}

/** A violation found in a subject's events: the rule, the events that show it (their keys), and what it is. */
interface Finding {
  readonly rule: Rule;
  readonly evidence: string;
  readonly detail: string;
}

/**
 * Where a message is: its entry ID, qualified by its partition on a partitioned queue (`p1/<ID>`),
 * where entry IDs are unique within one partition only. A message is known by where it is: one
 * under two partitions, or dead-lettered in another partition's stream, counts as under two IDs.
 */
export const where = (at: { readonly id: string; readonly partition?: number }): string => (at.partition === undefined ? at.id : `p${at.partition}/${at.id}`);

/** An event's identity within a history: its call and position, or its dead-letter record. */
function eventKey(e: MessageEvent): string {
  switch (e.kind) {
    case 'send':
      return `send#${e.op.seq}`;
    case 'delivery':
      return `receive#${e.op.seq}/${e.token}`;
    case 'settle':
      return `${e.how}#${e.op.seq}/${e.position}`;
    case 'dead-letter':
      return `dead-letter@${e.atMs}/${e.token}`;
    case 'final':
      return 'final';
  }
}

const ceil = Math.ceil;
const floor = Math.floor;

/** The earliest server time at which a NACK of this delivery could make it due again. */
function nackDueLo(settle: SettleEvent): number {
  return settle.delayMs === 0 ? floor(settle.op.at.lo) : ceil(settle.op.at.lo) + settle.delayMs;
}

/** Settles that may have taken effect: true, or without a reply (they may have run). */
const mayHaveTakenEffect = (s: SettleEvent) => s.result !== false;

/** An ack or a nack: it ends the delivery (an extend does not). */
const completes = (s: SettleEvent) => s.how !== 'extend';

/** The deadline an extend sets, within its call's span: its server time (rounded up to the ms) plus the duration. */
const extendedDeadline = (e: SettleEvent): Span => ({ lo: ceil(e.op.at.lo) + e.delayMs, hi: ceil(e.op.at.hi) + e.delayMs });

/** `a` ran, or may have run, before `b` (an earlier position of one call counts as before). */
const mayPrecede = (a: SettleEvent, b: SettleEvent) => (a.op.seq === b.op.seq ? a.position < b.position : a.op.at.lo < b.op.at.hi);
/** `a` ran on the server before `b`, whatever the interleaving: an earlier position of one call, or a reply before the other was sent. */
const mustPrecede = (a: SettleEvent, b: SettleEvent) => (a.op.seq === b.op.seq ? a.position < b.position : a.op.at.hi < b.op.at.lo);

/**
 * The earliest server time at which the contract lets delivery `d` end: its lease deadline, the
 * deadline an extend of it that may have run set (an extend replaces the deadline, so it may also
 * shorten it; a confirmed one replaced the first deadline for good), or the due time of a NACK of it
 * that may have run (a confirmed NACK replaces the lease outright).
 */
function dueLo(d: DeliveryEvent, settles: readonly SettleEvent[]): number {
  const mine = settles.filter((s) => s.receipt === d.receipt && mayHaveTakenEffect(s));
  const nacks = mine.filter((s) => s.how === 'nack');
  const confirmed = nacks.find((s) => s.result === true);
  if (confirmed !== undefined) return nackDueLo(confirmed);
  const extends_ = mine.filter((s) => s.how === 'extend');
  const first = extends_.some((e) => e.result === true) ? [] : [d.deadline.lo];
  return Math.min(...first, ...extends_.map((e) => extendedDeadline(e).lo), ...nacks.map(nackDueLo));
}

/** The latest the lease of `d` can last as seen by `s`: its deadline, or one an extend before `s` may have set. */
function deadlineHi(d: DeliveryEvent, settles: readonly SettleEvent[], s: SettleEvent): number {
  const extended = settles.filter((e) => e !== s && e.how === 'extend' && e.receipt === d.receipt && mayHaveTakenEffect(e) && mayPrecede(e, s));
  return Math.max(d.deadline.hi, ...extended.map((e) => extendedDeadline(e).hi));
}

/** The earliest the lease of `d` can end as seen by `s`: its deadline, or a shorter one an extend before `s` may have set. */
function deadlineLo(d: DeliveryEvent, settles: readonly SettleEvent[], s: SettleEvent): number {
  const extended = settles.filter((e) => e !== s && e.how === 'extend' && e.receipt === d.receipt && mayHaveTakenEffect(e) && mayPrecede(e, s));
  return Math.min(d.deadline.lo, ...extended.map((e) => extendedDeadline(e).lo));
}

/** `+12.345 ms` relative to `t0`, or `?` for an unbounded end. */
const rel = (ms: number, t0: number) => (Number.isFinite(ms) ? `+${(ms - t0).toFixed(3)} ms` : '?');

/** Checks one message's events against every per-message rule. Pure: used live, at the end and while shrinking. */
export function checkMessage(events: readonly MessageEvent[], options: ModelOptions): Finding[] {
  const found: Finding[] = [];
  const fail = (rule: Rule, evidence: readonly MessageEvent[], detail: string) => found.push({ rule, evidence: evidence.map(eventKey).join(' '), detail });
  const sends = events.filter((e): e is SentEvent => e.kind === 'send');
  const deliveries = events.filter((e): e is DeliveryEvent => e.kind === 'delivery').sort((a, b) => a.count - b.count || a.op.seq - b.op.seq);
  const settles = events.filter((e): e is SettleEvent => e.kind === 'settle');
  const letters = events.filter((e): e is DeadLetterEvent => e.kind === 'dead-letter');
  const final = events.find((e): e is FinalEvent => e.kind === 'final');
  const limit = options.deliveryLimit;
  const appeared = deliveries.length > 0 || letters.length > 0 || final?.leftInStream === true;

  // What a send said about the message.
  for (const send of sends) {
    if (send.op.outcome === 'not-sent' && appeared) fail(RULES.notSent, [send], `send #${send.op.seq} was reported not sent, yet its message appeared`);
    if (send.reply?.duplicate === true && appeared)
      fail(RULES.dedup, [send], `send #${send.op.seq} was a duplicate of ${where(send.reply)}, yet its own payload was appended`);
  }
  const appended = sends.find((s) => s.reply !== undefined && !s.reply.duplicate);
  const ids = new Set([...deliveries.map(where), ...letters.map(where), ...(appended?.reply ? [where(appended.reply)] : [])]);
  if (ids.size > 1) fail(RULES.intact, [], `one message under several IDs: ${[...ids].join(', ')}`);
  for (const e of [...deliveries, ...letters]) if (!e.intact) fail(RULES.intact, [e], `${e.kind} of ${where(e)} carried other payload bytes than were sent`);

  // Deliveries: counts in range, once per lease, never backwards, never before the previous lease could end.
  for (const d of deliveries) {
    if (d.count < 1 || d.count > limit) fail(RULES.counts, [d], `delivery count ${d.count} is outside 1..${limit} (receive #${d.op.seq})`);
  }
  // A delayed send: nothing of it is received, or dead-lettered, before its send's server time plus the delay.
  const delayed = sends.find((s) => (s.delayMs ?? 0) > 0);
  if (delayed !== undefined) {
    // The due time is counted from the send script's server time, which its entry ID's ms part
    // shows (unless the server's clock was behind the stream's last ID: an ID after the call).
    const idMs = delayed.reply === undefined || delayed.reply.duplicate ? -Infinity : Number(delayed.reply.id.split('-')[0]);
    const dueAt = Math.max(floor(delayed.op.at.lo), idMs <= delayed.op.at.hi ? idMs : -Infinity) + delayed.delayMs!;
    for (const d of deliveries) {
      if (d.op.at.hi < dueAt)
        fail(
          RULES.early,
          [delayed, d],
          `delivery ${d.count} (receive #${d.op.seq}) ran by server time ${d.op.at.hi.toFixed(3)}, before the send's delay ended at ${dueAt}`,
        );
    }
  }
  for (let i = 0; i < deliveries.length; i++) {
    const a = deliveries[i]!;
    for (let j = i + 1; j < deliveries.length; j++) {
      const b = deliveries[j]!;
      if (a.count === b.count) {
        fail(
          RULES.oncePerLease,
          [a, b],
          `delivered twice with count ${a.count}: receives #${a.op.seq} and #${b.op.seq}${a.op.seq === b.op.seq ? ' (the same batch)' : ''}`,
        );
        continue;
      }
      if (a.op.at.lo > b.op.at.hi) {
        fail(RULES.counts, [a, b], `count ${b.count} (receive #${b.op.seq}) was delivered before count ${a.count} (receive #${a.op.seq})`);
      }
      const due = dueLo(a, settles);
      if (b.op.at.hi < due) {
        fail(
          RULES.early,
          [a, b],
          `delivery ${b.count} (receive #${b.op.seq}) ran by server time ${b.op.at.hi.toFixed(3)}, before delivery ${a.count}'s lease could end at ${due.toFixed(3)} (${(due - b.op.at.hi).toFixed(3)} ms early)`,
        );
      }
    }
  }

  // Completions and extends: only by a held receipt, never after it completed, after a newer delivery or past the deadline.
  const byReceipt = new Map(deliveries.map((d) => [d.receipt, d]));
  for (const s of settles) {
    const d = byReceipt.get(s.receipt);
    if (s.result === true) {
      // Two completions of one receipt both true break the rule in either order (reported once, at the
      // later one in issue order). An extend true after a completion does only when the completion
      // certainly ran first: an earlier position of the same call, or a reply before the extend was
      // sent (concurrent calls of two clients may run in either order, and extend-then-ack is lawful).
      const twice = settles.find(
        (o) =>
          o !== s &&
          completes(o) &&
          o.receipt === s.receipt &&
          o.result === true &&
          (completes(s) ? o.op.seq < s.op.seq || (o.op.seq === s.op.seq && o.position < s.position) : mustPrecede(o, s)),
      );
      if (twice !== undefined) {
        fail(
          RULES.stale,
          [twice, s],
          `receipt ${s.receipt} was accepted ${s.how === 'extend' ? 'by an extend after it completed' : 'twice'}: ${twice.how} #${twice.op.seq} and ${s.how} #${s.op.seq}`,
        );
      }
      const newer = deliveries.find((o) => o.count > s.count && (s.how === 'ack' || o.op.at.hi < s.op.at.lo));
      if (newer !== undefined) {
        fail(
          RULES.stale,
          [s, newer],
          `${s.how} #${s.op.seq} of delivery ${s.count} returned true, but delivery ${newer.count} (receive #${newer.op.seq}) ${s.how === 'ack' ? 'exists' : 'had already run'}`,
        );
      }
      if (s.how === 'ack' && letters.length > 0)
        fail(RULES.stale, [s], `ack #${s.op.seq} of delivery ${s.count} returned true, but the message was dead-lettered`);
      if (d !== undefined && s.op.at.lo >= deadlineHi(d, settles, s)) {
        fail(
          RULES.stale,
          [s],
          `${s.how} #${s.op.seq} of delivery ${s.count} returned true at server time ${s.op.at.lo.toFixed(3)} or later, at or past the lease deadline ${deadlineHi(d, settles, s).toFixed(3)}`,
        );
      }
    }
    // A receipt whose lease certainly still held, with nothing before it that could have settled it, must be honoured.
    if (s.result === false && d !== undefined && s.op.at.hi < deadlineLo(d, settles, s)) {
      // An earlier position of the same call counts too, extends included: a receipt repeated in one call acts once (README).
      const sameCallEarlier = (o: SettleEvent) => o.op.seq === s.op.seq && o.position < s.position;
      const before = settles.some((o) => o !== s && o.receipt === s.receipt && mayHaveTakenEffect(o) && (completes(o) ? mayPrecede(o, s) : sameCallEarlier(o)));
      if (!before) {
        fail(
          RULES.honoured,
          [s],
          `${s.how} #${s.op.seq} of delivery ${s.count} returned false by server time ${s.op.at.hi.toFixed(3)}, before its deadline ${deadlineLo(d, settles, s).toFixed(3)}, with nothing else settling it`,
        );
      }
    }
  }

  // Dead letters: once, at the limit, with the count of deliveries made, never before the last lease could end.
  if (letters.length > 1) fail(RULES.deadLetters, [], `dead-lettered ${letters.length} times`);
  for (const letter of letters) {
    if (letter.count !== limit) fail(RULES.deadLetters, [letter], `dead-lettered with delivery_count ${letter.count}, not the limit ${limit}`);
    const last = deliveries[deliveries.length - 1];
    if (last !== undefined && last.count > letter.count)
      fail(RULES.deadLetters, [letter, last], `dead-lettered with delivery_count ${letter.count} after delivery ${last.count}`);
    if (last !== undefined && letter.atMs + 1 + options.deadLetterMarginMs <= dueLo(last, settles)) {
      fail(
        RULES.early,
        [letter, last],
        `dead-lettered at server time ${letter.atMs} (record ID), before delivery ${last.count}'s lease could end at ${dueLo(last, settles).toFixed(3)} (margin ${options.deadLetterMarginMs} ms)`,
      );
    }
  }

  // At the end: a message that existed was acknowledged, dead-lettered, or may have been completed by an ack without a reply.
  if (final !== undefined && (appeared || appended !== undefined)) {
    const acked = settles.some((s) => s.how === 'ack' && s.result === true);
    const lastCount = deliveries.length > 0 ? deliveries[deliveries.length - 1]!.count : 0;
    const maybeAcked = settles.some((s) => s.how === 'ack' && s.result === undefined && s.count === lastCount && lastCount > 0);
    if (final.leftInStream) fail(RULES.lost, [final], 'still in the queue after the drain: never delivered again');
    else if (!acked && letters.length === 0 && !maybeAcked) {
      fail(RULES.lost, [final], `gone from the queue without an acknowledgement or a dead letter (last delivery seen: ${lastCount || 'none'})`);
    }
  }
  return found;
}

/** Checks the sends of one deduplication ID and where their payloads ended up. Pure. */
export function checkDeduplication(events: readonly MessageEvent[]): Finding[] {
  const found: Finding[] = [];
  const sends = events.filter((e): e is SentEvent => e.kind === 'send');
  const replies = sends.filter((s) => s.reply !== undefined);
  const ids = new Set(replies.map((s) => where(s.reply!)));
  if (ids.size > 1) {
    found.push({
      rule: RULES.dedup,
      evidence: '',
      detail: `sends returned different IDs: ${replies.map((s) => `#${s.op.seq} → ${where(s.reply!)}${s.reply!.duplicate ? ' (duplicate)' : ''}`).join(', ')}`,
    });
  }
  const firsts = replies.filter((s) => !s.reply!.duplicate);
  if (firsts.length > 1)
    found.push({ rule: RULES.dedup, evidence: '', detail: `${firsts.length} sends appended: ${firsts.map((s) => `#${s.op.seq}`).join(', ')}` });
  for (const first of firsts) {
    const earlier = replies.find((s) => s !== first && s.op.at.hi < first.op.at.lo);
    if (earlier !== undefined)
      found.push({
        rule: RULES.dedup,
        evidence: `${eventKey(first)} ${eventKey(earlier)}`,
        detail: `send #${first.op.seq} appended although send #${earlier.op.seq} had already returned ${where(earlier.reply!)}`,
      });
  }
  const seen = new Map<string, string>();
  for (const e of events) {
    if (e.kind === 'delivery' || e.kind === 'dead-letter') seen.set(e.token, where(e));
    else if (e.kind === 'final' && e.leftInStream && !seen.has(e.token)) seen.set(e.token, '?');
  }
  if (seen.size > 1)
    found.push({
      rule: RULES.dedup,
      evidence: '',
      detail: `${seen.size} payloads of this ID were appended: ${[...seen].map(([t, id]) => `${t} as ${id}`).join(', ')}`,
    });
  for (const [token, id] of seen) {
    const reply = replies.find((s) => id !== '?' && where(s.reply!) !== id);
    if (reply !== undefined)
      found.push({
        rule: RULES.dedup,
        evidence: `${eventKey(reply)} ${token}`,
        detail: `send #${reply.op.seq} returned ${where(reply.reply!)}, but the appended payload (${token}) is ${id}`,
      });
  }
  return found;
}

/** A violation with the shortest history that still shows it. */
export interface ShrunkViolation extends ModelViolation {
  /** The shortest failing history, one line per event, server times relative to the subject's first event. */
  readonly history: readonly string[];
  /** How many events the subject had in all. */
  readonly of: number;
  /** The subject's whole history when it is longer than the shortest one (its last {@link WHOLE_HISTORY} events), same clock. */
  readonly whole: readonly string[];
  /** The server time span the shortest history covers (for faults nearby). */
  readonly span: Span;
  /** The server time (ms) the printed histories count from. */
  readonly t0: number;
}

/** How many of a subject's last events a violation also lists, beside its shortest history. */
export const WHOLE_HISTORY = 16;

/** Describes one event of a history. */
function describeEvent(e: MessageEvent, t0: number): string {
  switch (e.kind) {
    case 'send':
    case 'delivery':
    case 'settle':
      return `${rel(e.op.at.lo, t0)} .. ${rel(e.op.at.hi, t0)}  ${e.op.client} #${e.op.seq} ${e.op.text}${
        e.kind === 'delivery'
          ? `: ${e.token} as ${where(e)}, delivery ${e.count}, receipt ${e.receipt}, deadline ${rel(e.deadline.lo, t0)}${e.deadline.hi !== e.deadline.lo ? ` .. ${rel(e.deadline.hi, t0)}` : ''}`
          : e.kind === 'settle'
            ? `: ${e.how} of ${e.token} delivery ${e.count} (position ${e.position}) → ${e.result ?? e.op.outcome}`
            : `: ${e.token}${e.dedupId ? ` (deduplication ID ${e.dedupId})` : ''} → ${e.reply ? `${where(e.reply)}${e.reply.duplicate ? ' (duplicate)' : ''}` : e.op.outcome}`
      }`;
    case 'dead-letter':
      return `${rel(e.atMs, t0)}  dead-letter record of ${e.token} (${where(e)}), delivery_count ${e.count}`;
    case 'final':
      return `end: ${e.token} ${e.leftInStream ? 'still in the stream' : 'not in the stream'}`;
  }
}

/** Events in server-time order (by the earliest time each can have run; the end last). */
const byTime = (events: readonly MessageEvent[]) => [...events].sort((a, b) => (eventTimes(a)[0] ?? Infinity) - (eventTimes(b)[0] ?? Infinity));

const eventTimes = (e: MessageEvent): number[] => (e.kind === 'dead-letter' ? [e.atMs] : e.kind === 'final' ? [] : [e.op.at.lo, e.op.at.hi]);

/**
 * The reference model: events per message (by the token its payload carries) and per
 * deduplication ID, checked after every operation (and at the end, with each message's final
 * state). A rule can hinge on what did not happen (nothing else settled a receipt, no NACK released
 * a lease early), and a call still running may yet report it: a finding is confirmed only once
 * every call that was running when it showed has been recorded, and only if it still holds then.
 * Each violation is reported once per rule and subject, with the shortest sub-history that still
 * shows the same finding.
 */
export class TortureModel {
  readonly options: ModelOptions;
  readonly #byToken = new Map<string, MessageEvent[]>();
  /** Deduplication ID → the tokens of its sends, and token → its deduplication ID. */
  readonly #dedupTokens = new Map<string, Set<string>>();
  readonly #dedupOf = new Map<string, string>();
  readonly #idOwner = new Map<string, string>();
  readonly #reported = new Set<string>();
  /** Calls issued and not yet recorded. */
  readonly #running = new Set<number>();
  /** Findings waiting for the calls that were running when they showed: key → subject and those calls. */
  readonly #pending = new Map<string, { readonly subject: string; readonly rule: Rule; readonly waitFor: Set<number> }>();
  readonly violations: ShrunkViolation[] = [];
  /** Subject checks run (one per message or deduplication ID touched by each recorded operation). */
  checks = 0;

  constructor(options: ModelOptions) {
    this.options = options;
  }

  /** A call was issued: findings that show from now on wait until it is recorded ({@link TortureModel.end}). */
  begin(seq: number): void {
    this.#running.add(seq);
  }

  /** A call's events are all recorded: findings that waited for it are checked again. */
  end(seq: number): void {
    this.#running.delete(seq);
    for (const [key, pending] of this.#pending) {
      pending.waitFor.delete(seq);
      if (pending.waitFor.size > 0) continue;
      this.#pending.delete(key);
      this.#confirm(pending.subject, pending.rule);
    }
  }

  /** Adds what one operation (or the dead-letter stream, or the end) showed, then checks every subject it touched. */
  record(events: readonly MessageEvent[]): void {
    const touched = new Set<string>();
    for (const e of events) {
      if (e.kind === 'send' && e.dedupId !== undefined) {
        this.#dedupOf.set(e.token, e.dedupId);
        const tokens = this.#dedupTokens.get(e.dedupId) ?? new Set<string>();
        this.#dedupTokens.set(e.dedupId, tokens.add(e.token));
      }
      const list = this.#byToken.get(e.token);
      if (list) list.push(e);
      else this.#byToken.set(e.token, [e]);
      touched.add(e.token);
      if (e.kind === 'delivery' || e.kind === 'dead-letter') this.#claimId(e);
    }
    const subjects = new Set<string>();
    for (const token of touched) {
      subjects.add(`message ${token}`);
      const dedup = this.#dedupOf.get(token);
      if (dedup !== undefined) subjects.add(`deduplication ID ${dedup}`);
    }
    for (const subject of subjects) {
      this.checks++;
      for (const finding of this.#checkSubject(subject)) {
        const key = `${finding.rule}|${subject}`;
        if (this.#reported.has(key) || this.#pending.has(key)) continue;
        if (this.#running.size === 0) this.#confirm(subject, finding.rule);
        else this.#pending.set(key, { subject, rule: finding.rule, waitFor: new Set(this.#running) });
      }
    }
  }

  /** A violation about one call (not about a message): an unexpected error, a batch over `max`. */
  callViolation(rule: Rule, op: OpRecord, detail: string): void {
    const key = `${rule}|call ${op.seq}`;
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
    this.violations.push({
      rule,
      subject: `call #${op.seq}`,
      detail,
      history: [`${op.client} #${op.seq} ${op.text}`],
      of: 1,
      whole: [],
      span: op.at,
      t0: op.at.lo,
    });
  }

  /** Every message the model knows of (tokens). */
  tokens(): string[] {
    return [...this.#byToken.keys()];
  }

  /** One entry ID belongs to one message. */
  #claimId(e: DeliveryEvent | DeadLetterEvent): void {
    const id = where(e);
    const owner = this.#idOwner.get(id);
    if (owner === undefined) this.#idOwner.set(id, e.token);
    else if (owner !== e.token) {
      const key = `${RULES.intact}|id ${id}`;
      if (this.#reported.has(key)) return;
      this.#reported.add(key);
      const [lo = 0, hi = lo] = eventTimes(e);
      this.violations.push({
        rule: RULES.intact,
        subject: `entry ${id}`,
        detail: `two payloads under one entry ID: ${owner} and ${e.token}`,
        history: [describeEvent(e, lo)],
        of: 1,
        whole: [],
        span: { lo, hi },
        t0: lo,
      });
    }
  }

  /** A subject's events and its check. */
  #subject(subject: string): { events: readonly MessageEvent[]; check: (events: readonly MessageEvent[]) => Finding[] } {
    if (subject.startsWith('message ')) {
      return { events: this.#byToken.get(subject.slice('message '.length)) ?? [], check: (evs) => checkMessage(evs, this.options) };
    }
    const tokens = this.#dedupTokens.get(subject.slice('deduplication ID '.length)) ?? new Set<string>();
    return { events: [...tokens].flatMap((token) => this.#byToken.get(token) ?? []), check: checkDeduplication };
  }

  #checkSubject(subject: string): Finding[] {
    const { events, check } = this.#subject(subject);
    return check(events);
  }

  /** Reports `rule` for `subject` if it still holds, with the shortest history that shows the same finding. */
  #confirm(subject: string, rule: Rule): void {
    const { events, check } = this.#subject(subject);
    const finding = check(events).find((f) => f.rule === rule);
    const key = `${rule}|${subject}`;
    if (finding === undefined || this.#reported.has(key)) return;
    this.#reported.add(key);
    const same = (f: Finding) => f.rule === rule && f.evidence === finding.evidence;
    const shortest = shrinkFailing(events, (candidate) => check(candidate).some(same));
    const times = shortest.flatMap(eventTimes).filter(Number.isFinite);
    // One clock for both histories: from the subject's first event.
    const all = events.flatMap(eventTimes).filter(Number.isFinite);
    const t0 = all.length > 0 ? Math.min(...all) : 0;
    this.violations.push({
      rule,
      subject,
      detail: finding.detail,
      history: byTime(shortest).map((e) => describeEvent(e, t0)),
      of: events.length,
      whole:
        shortest.length < events.length
          ? byTime(events)
              .slice(-WHOLE_HISTORY)
              .map((e) => describeEvent(e, t0))
          : [],
      span: { lo: times.length > 0 ? Math.min(...times) : t0, hi: times.length > 0 ? Math.max(...times) : t0 },
      t0,
    });
  }
}
