// The queue torture's operation table: what a client can call, how it draws its arguments, how it runs through the public API, and what the model learns from the outcome.
import { timeReplyMs, type SeededRandom, type ServerClock } from '@respire/harness';
import { isRespireError, type ReceiveOptions, type ReceivedMessage, type SendManyItem, type SendOptions, type SendResult } from '@respire/queue';
import { RULES, type MessageEvent, type OpRecord, type Span, type TortureModel } from './torture-model.js';

/**
 * A message as the run sees it: a {@link ReceivedMessage}, with its partition when the queue is a
 * PartitionedQueue (its `id` is unique within that partition only; its receipt names it).
 */
export type TortureMessage = ReceivedMessage<Buffer> & { readonly partition?: number };

/** A send's result, with its partition on a PartitionedQueue. */
export type TortureSendResult = SendResult & { readonly partition?: number };

/**
 * The public API the operations call: a ReliableQueue's, which a PartitionedQueue shares (its
 * messages and send results carry their partition).
 */
export interface TortureQueue {
  sendWithResult(payload: Buffer, options?: SendOptions): Promise<TortureSendResult>;
  sendMany(items: readonly SendManyItem<Buffer>[]): Promise<TortureSendResult[]>;
  receive(visibilityTimeoutMs: number, options?: ReceiveOptions): Promise<TortureMessage[]>;
  ack(message: TortureMessage): Promise<boolean>;
  ackMany(messages: readonly TortureMessage[]): Promise<boolean[]>;
  nack(message: TortureMessage, delayMs?: number): Promise<boolean>;
  nackMany(messages: readonly TortureMessage[], delayMs?: number): Promise<boolean[]>;
  extend(message: TortureMessage, visibilityTimeoutMs: number): Promise<boolean>;
  extendMany(messages: readonly TortureMessage[], visibilityTimeoutMs: number): Promise<boolean[]>;
}

/** Where a delivery's lease is documented: the deadlines key of its queue (or partition) and its member, `<entry ID>:<receipt>`. */
export interface LeaseLocation {
  readonly key: string;
  readonly member: string;
}

/** A delivery a client received and may still settle: the message, the token its payload carries, and its lease deadline. */
export interface Held {
  readonly message: TortureMessage;
  readonly token: string;
  readonly deadline: Span;
}

/** Deliveries shared by the clients: `held` may still hold their leases; `stale` were settled or expired (reused to try stale receipts). */
export interface Pools {
  readonly held: Held[];
  readonly stale: Held[];
  /** Server times (ms) at which delayed sends become due: receives are now and then aimed at one. */
  readonly dueTimes: number[];
}

/** The run's sizes and mixes, drawn once from the seed. */
export interface RunPlan {
  readonly deliveryLimit: number;
  /** Deduplication IDs are drawn from this many, so repeats are common. */
  readonly deduplicationIds: number;
  /** The longest visibility timeout and NACK delay a client asks for (ms). */
  readonly maxVisibilityMs: number;
  readonly maxNackDelayMs: number;
}

/** What an operation can use: its client's queue and connection, the shared pools, the seed's stream for this client. */
export interface ClientContext {
  readonly name: string;
  readonly queue: TortureQueue;
  /** A command on the client's own connection (the queue's too): TIME, reads of the documented keys. */
  raw(args: string[]): Promise<unknown>;
  readonly random: SeededRandom;
  readonly clock: ServerClock;
  readonly pools: Pools;
  readonly plan: RunPlan;
  /** Where a delivery's lease deadline is kept (read right after a receive or extend). */
  leaseOf(message: TortureMessage): LeaseLocation;
  /** A fresh payload: its token, then `|`, then random bytes. */
  newPayload(): { token: string; payload: Buffer };
  /** The bytes sent under a token. */
  payloadOf(token: string): Buffer | undefined;
  /** Deduplication IDs whose send had no certain outcome: the next deduplicated send retries one. */
  readonly retries: string[];
}

/** How a call ended: its value, or an error that proves it did not run, leaves it uncertain, or is not one the contract names. */
export type Outcome<R> =
  { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown; readonly kind: 'not-sent' | 'uncertain' | 'unexpected' };

/**
 * One entry of the table. To add an operation (for example a waiting receive): draw its arguments, run it
 * through the public API, and say in `observe` what each outcome tells the model, uncertain ones
 * included; if it changes a lease in a way the model does not know yet, add that event and its rule
 * to torture-model.ts (see the queue README, "Tests").
 */
export interface Operation<A, R> {
  readonly name: string;
  readonly weight: number;
  /** False when it cannot run now (nothing held to settle). */
  ready?(ctx: ClientContext): boolean;
  /** Its arguments, and optionally the server time to aim the call at (a lease deadline). */
  draw(ctx: ClientContext): { readonly args: A; readonly aimAtMs?: number };
  run(ctx: ClientContext, args: A): Promise<R>;
  /** What the model learns from the call and its outcome. */
  observe(model: TortureModel, ctx: ClientContext, args: A, op: OpRecord, outcome: Outcome<R>): void;
  /** Bookkeeping of the shared pools after the call. */
  after?(ctx: ClientContext, args: A, outcome: Outcome<R>): void;
  describe(args: A): string;
}

/** The token a payload carries (its bytes up to the first `|`). */
export const tokenOf = (payload: Buffer): string => payload.toString('latin1', 0, Math.max(0, payload.indexOf(0x7c)));

const STALE_POOL = 300;
/** Share of settles that leave the delivery in the pool, so another client may settle it at the same time. */
const SHARED = 0.1;

/** Takes a delivery from the pools: mostly a held one, sometimes a stale one. */
function take(ctx: ClientContext, staleChance: number): Held | undefined {
  const { held, stale } = ctx.pools;
  const fromStale = stale.length > 0 && (held.length === 0 || ctx.random.chance(staleChance));
  const pool = fromStale ? stale : held;
  if (pool.length === 0) return undefined;
  const index = ctx.random.int(0, pool.length - 1);
  const item = pool[index]!;
  if (fromStale || !ctx.random.chance(SHARED)) pool.splice(index, 1);
  return item;
}

/** Settled, refused or uncertain: the delivery joins the stale pool (bounded) for later stale attempts. */
function retire(ctx: ClientContext, items: readonly Held[]): void {
  const { stale } = ctx.pools;
  for (const item of items) if (!stale.includes(item)) stale.push(item);
  if (stale.length > STALE_POOL) stale.splice(0, stale.length - STALE_POOL);
}

/** Moves deliveries whose lease has surely ended (by the paced estimate) from `held` to `stale`. */
function prune(ctx: ClientContext): void {
  const now = ctx.clock.estimateMs();
  const { held } = ctx.pools;
  for (let i = held.length - 1; i >= 0; i--) {
    if (held[i]!.deadline.hi < now - 20) retire(ctx, held.splice(i, 1));
  }
}

const canSettle = (ctx: ClientContext) => ctx.pools.held.length > 0 || ctx.pools.stale.length > 0;

/** A NACK delay: often 0, sometimes a few ms, sometimes long. */
const drawDelay = (ctx: ClientContext) =>
  ctx.random.weighted([
    [0, 45],
    [ctx.random.int(1, 50), 20],
    [ctx.random.int(50, ctx.plan.maxNackDelayMs), 35],
  ] as const);

/** The model's events for a settle call of `items`, one per position. */
function settleEvents(how: 'ack' | 'nack' | 'extend', delayMs: number, items: readonly Held[], op: OpRecord, outcome: Outcome<boolean[]>): MessageEvent[] {
  return items.map((item, i) => ({
    kind: 'settle',
    op,
    how,
    delayMs,
    token: item.token,
    receipt: item.message.receipt,
    count: item.message.deliveryCount,
    position: i + 1,
    result: outcome.ok ? outcome.value[i] : undefined,
  }));
}

/** Several deliveries for a batch settle: from the pools, sometimes with a stale one or a repeat. */
function drawBatch(ctx: ClientContext): Held[] {
  prune(ctx);
  const items: Held[] = [];
  const size = ctx.random.int(2, 8);
  for (let i = 0; i < size; i++) {
    const item = take(ctx, 0.1);
    if (item !== undefined) items.push(item);
  }
  if (items.length > 0 && ctx.random.chance(0.1)) items.splice(ctx.random.int(0, items.length), 0, ctx.random.pick(items));
  return items;
}

const label = (items: readonly Held[]) => items.map((h) => `${h.token}/${h.message.deliveryCount}`).join(', ');

interface SendArgs {
  readonly token: string;
  readonly payload: Buffer;
  readonly deduplicationId?: string;
  /** A delayed send's delay (ms). */
  readonly delayMs?: number;
}
interface SendReply {
  readonly id: string;
  readonly duplicate: boolean;
}

/** A deduplication ID: mostly one whose send had no certain outcome (the contract's advice: retry with it), else drawn from the run's set. */
function drawDeduplicationId(ctx: ClientContext): string {
  const retry = ctx.retries.length > 0 && ctx.random.chance(0.8) ? ctx.retries.shift() : undefined;
  return retry ?? `d-${ctx.random.int(0, ctx.plan.deduplicationIds - 1)}`;
}

/** A send delay: a few ms (where an early delivery would hide) or up to the longest NACK delay. */
const drawSendDelay = (ctx: ClientContext) =>
  ctx.random.weighted([
    [ctx.random.int(1, 30), 40],
    [ctx.random.int(30, ctx.plan.maxNackDelayMs), 60],
  ] as const);

const DUE_TIMES = 50;

/** Keeps a delayed send's due time (its entry ID's ms plus the delay, as the send script counts it) for aimed receives. */
function noteDue(ctx: ClientContext, args: SendArgs, reply: SendReply): void {
  if (args.delayMs === undefined || reply.duplicate) return;
  const { dueTimes } = ctx.pools;
  dueTimes.push(Number(reply.id.split('-')[0]) + args.delayMs);
  if (dueTimes.length > DUE_TIMES) dueTimes.splice(0, dueTimes.length - DUE_TIMES);
}

/** The options of one send as the public API takes them. */
const sendOptions = (args: SendArgs) => ({
  ...(args.deduplicationId === undefined ? {} : { deduplicationId: args.deduplicationId }),
  ...(args.delayMs === undefined ? {} : { delayMs: args.delayMs }),
});

const describeSend = (args: SendArgs) =>
  `${args.token}${args.deduplicationId === undefined ? '' : ` (deduplication ID ${args.deduplicationId})`}${args.delayMs === undefined ? '' : ` delayed ${args.delayMs} ms`}`;

const send = (kind: 'plain' | 'deduplicated' | 'delayed'): Operation<SendArgs, SendReply> => ({
  name: kind === 'plain' ? 'send' : `send (${kind})`,
  weight: kind === 'plain' ? 12 : kind === 'deduplicated' ? 6 : 4,
  draw(ctx) {
    const { token, payload } = ctx.newPayload();
    if (kind === 'plain') return { args: { token, payload } };
    if (kind === 'deduplicated') return { args: { token, payload, deduplicationId: drawDeduplicationId(ctx) } };
    return { args: { token, payload, delayMs: drawSendDelay(ctx), ...(ctx.random.chance(0.3) ? { deduplicationId: drawDeduplicationId(ctx) } : {}) } };
  },
  run: (ctx, args) => ctx.queue.sendWithResult(args.payload, sendOptions(args)),
  observe(model, _ctx, args, op, outcome) {
    model.record([
      { kind: 'send', op, token: args.token, dedupId: args.deduplicationId, delayMs: args.delayMs, reply: outcome.ok ? outcome.value : undefined },
    ]);
  },
  after(ctx, args, outcome) {
    // The contract's advice after an uncertain send: retry with the same deduplication ID.
    if (!outcome.ok && args.deduplicationId !== undefined) ctx.retries.push(args.deduplicationId);
    if (outcome.ok) noteDue(ctx, args, outcome.value);
  },
  describe: (args) => `send ${describeSend(args)}`,
});

/** Several sends in one call (`sendMany`): some deduplicated, some delayed; one result per item, or none when the reply was lost. */
const sendMany: Operation<readonly SendArgs[], SendReply[]> = {
  name: 'sendMany',
  weight: 4,
  draw(ctx) {
    const items: SendArgs[] = [];
    for (let i = ctx.random.int(2, 8); i > 0; i--) {
      const { token, payload } = ctx.newPayload();
      items.push({
        token,
        payload,
        ...(ctx.random.chance(0.3) ? { deduplicationId: drawDeduplicationId(ctx) } : {}),
        ...(ctx.random.chance(0.25) ? { delayMs: drawSendDelay(ctx) } : {}),
      });
    }
    return { args: items };
  },
  run: (ctx, items) => ctx.queue.sendMany(items.map((item) => ({ payload: item.payload, ...sendOptions(item) }))),
  observe(model, _ctx, items, op, outcome) {
    model.record(
      items.map((item, i) => ({
        kind: 'send',
        op,
        token: item.token,
        dedupId: item.deduplicationId,
        delayMs: item.delayMs,
        reply: outcome.ok ? outcome.value[i] : undefined,
      })),
    );
  },
  after(ctx, items, outcome) {
    if (outcome.ok) items.forEach((item, i) => noteDue(ctx, item, outcome.value[i]!));
    else for (const item of items) if (item.deduplicationId !== undefined) ctx.retries.push(item.deduplicationId);
  },
  describe: (items) => `sendMany(${items.map(describeSend).join(', ')})`,
};

export interface ReceiveArgs {
  readonly visibilityMs: number;
  readonly max: number;
  /** A waiting receive's `waitMs`; undefined for the nonblocking receive. */
  readonly waitMs?: number;
}
interface ReceiveReply {
  readonly messages: TortureMessage[];
  /** Each message's lease deadline as the deadlines key holds it, read right after (undefined when gone or unread). */
  readonly deadlines: (number | undefined)[];
}

const receiveOperation = (waiting: boolean): Operation<ReceiveArgs, ReceiveReply> => ({
  name: waiting ? 'receive (waiting)' : 'receive',
  weight: waiting ? 5 : 22,
  draw(ctx) {
    const visibilityMs = ctx.random.weighted([
      [ctx.random.int(20, 150), 35],
      [ctx.random.int(150, 800), 45],
      [ctx.random.int(800, ctx.plan.maxVisibilityMs), 20],
    ] as const);
    const max = ctx.random.weighted([
      [1, 25],
      [ctx.random.int(2, 5), 45],
      [ctx.random.int(6, 20), 30],
    ] as const);
    // Now and then aimed within a few ms of a delayed send's due time, where an early delivery hides.
    const now = ctx.clock.estimateMs();
    const soon = ctx.pools.dueTimes.filter((t) => t > now && t - now < 2000);
    // A waiting receive waits a little: long enough to wake on a send or a due time, short enough to keep the run moving.
    const wait = waiting ? { waitMs: ctx.random.int(5, 300) } : {};
    if (soon.length > 0 && ctx.random.chance(0.25)) {
      const dueAt = ctx.random.pick(soon);
      ctx.pools.dueTimes.splice(ctx.pools.dueTimes.indexOf(dueAt), 1);
      return { args: { visibilityMs, max, ...wait }, aimAtMs: dueAt + ctx.random.int(-3000, 1000) / 1000 };
    }
    return { args: { visibilityMs, max, ...wait } };
  },
  async run(ctx, args) {
    const messages = await ctx.queue.receive(args.visibilityMs, args.waitMs === undefined ? { max: args.max } : { max: args.max, waitMs: args.waitMs });
    let deadlines: (number | undefined)[] = messages.map(() => undefined);
    if (messages.length > 0) {
      // The documented member of a lease, `<entry ID>:<receipt>`, scored with its deadline: exact while it is still there.
      deadlines = await readDeadlines(ctx, messages);
    }
    return { messages, deadlines };
  },
  observe(model, ctx, args, op, outcome) {
    if (!outcome.ok) return; // a lost receive leaves its batch leased: the model learns nothing it could check
    const { messages, deadlines } = outcome.value;
    if (messages.length > args.max) model.callViolation(RULES.max, op, `returned ${messages.length} messages for max ${args.max}`);
    model.record(
      messages.map((m, i) => {
        const token = tokenOf(m.payload);
        const exact = deadlines[i];
        return {
          kind: 'delivery',
          op,
          token,
          id: m.id,
          ...(m.partition === undefined ? {} : { partition: m.partition }),
          count: m.deliveryCount,
          receipt: m.receipt,
          deadline:
            exact !== undefined ? { lo: exact, hi: exact } : { lo: Math.ceil(op.at.lo) + args.visibilityMs, hi: Math.ceil(op.at.hi) + args.visibilityMs },
          intact: ctx.payloadOf(token)?.equals(m.payload) === true,
        };
      }),
    );
  },
  after(ctx, args, outcome) {
    if (!outcome.ok) return;
    const { messages, deadlines } = outcome.value;
    const upper = ctx.clock.floorMs + args.visibilityMs + 1;
    messages.forEach((message, i) => {
      const exact = deadlines[i];
      ctx.pools.held.push({ message, token: tokenOf(message.payload), deadline: exact !== undefined ? { lo: exact, hi: exact } : { lo: 0, hi: upper } });
    });
  },
  describe: (args) => `receive(${args.visibilityMs} ms, max ${args.max}${args.waitMs === undefined ? '' : `, wait ${args.waitMs} ms`})`,
});

/**
 * Each message's lease deadline as its deadlines key holds it (ZMSCORE of the documented member,
 * one call per key: one per partition touched), undefined when gone or unread.
 */
async function readDeadlines(ctx: ClientContext, messages: readonly TortureMessage[]): Promise<(number | undefined)[]> {
  const deadlines: (number | undefined)[] = messages.map(() => undefined);
  const byKey = new Map<string, number[]>();
  const members = messages.map((m) => ctx.leaseOf(m));
  members.forEach(({ key }, i) => byKey.set(key, [...(byKey.get(key) ?? []), i]));
  for (const [key, indices] of byKey) {
    const scores = await ctx.raw(['ZMSCORE', key, ...indices.map((i) => members[i]!.member)]).catch(() => undefined);
    if (!Array.isArray(scores)) continue;
    indices.forEach((index, position) => {
      const score: unknown = scores[position];
      deadlines[index] = score === null || score === undefined ? undefined : Number(score);
    });
  }
  return deadlines;
}

/** The nonblocking receive (also the final drain's). */
export const receive = receiveOperation(false);
/** The waiting receive (`waitMs` 5–300 ms). */
export const waitingReceive = receiveOperation(true);

interface SettleOneArgs {
  readonly item: Held;
  readonly delayMs: number;
  /** Aimed at its lease deadline (a boundary test). */
  readonly aimed: boolean;
}

const settleOne = (how: 'ack' | 'nack'): Operation<SettleOneArgs, boolean[]> => ({
  name: how,
  weight: how === 'ack' ? 16 : 8,
  ready: canSettle,
  draw(ctx) {
    prune(ctx);
    const delayMs = how === 'nack' ? drawDelay(ctx) : 0;
    // Now and then, a call aimed within a few ms of a known deadline: the boundary is where an off-by-one hides.
    const exact = ctx.pools.held.filter((h) => h.deadline.lo === h.deadline.hi && h.deadline.hi - ctx.clock.estimateMs() < 2000);
    if (exact.length > 0 && ctx.random.chance(0.2)) {
      const item = ctx.random.pick(exact);
      ctx.pools.held.splice(ctx.pools.held.indexOf(item), 1);
      return { args: { item, delayMs, aimed: true }, aimAtMs: item.deadline.hi + ctx.random.int(-3000, 2000) / 1000 };
    }
    return { args: { item: take(ctx, 0.1)!, delayMs, aimed: false } };
  },
  run: async (ctx, args) => [how === 'ack' ? await ctx.queue.ack(args.item.message) : await ctx.queue.nack(args.item.message, args.delayMs)],
  observe(model, _ctx, args, op, outcome) {
    model.record(settleEvents(how, args.delayMs, [args.item], op, outcome));
  },
  after: (ctx, args) => retire(ctx, [args.item]),
  describe: (args) => `${how}(${label([args.item])}${how === 'nack' ? `, ${args.delayMs} ms` : ''})${args.aimed ? ' aimed at its deadline' : ''}`,
});

export interface SettleManyArgs {
  readonly items: readonly Held[];
  readonly delayMs: number;
}

const settleMany = (how: 'ack' | 'nack'): Operation<SettleManyArgs, boolean[]> => ({
  name: `${how}Many`,
  weight: how === 'ack' ? 8 : 3,
  ready: canSettle,
  draw: (ctx) => ({ args: { items: drawBatch(ctx), delayMs: how === 'nack' ? drawDelay(ctx) : 0 } }),
  run: (ctx, args) =>
    how === 'ack'
      ? ctx.queue.ackMany(args.items.map((h) => h.message))
      : ctx.queue.nackMany(
          args.items.map((h) => h.message),
          args.delayMs,
        ),
  observe(model, _ctx, args, op, outcome) {
    model.record(settleEvents(how, args.delayMs, args.items, op, outcome));
  },
  after: (ctx, args) => retire(ctx, args.items),
  describe: (args) => `${how}Many(${label(args.items)}${how === 'nack' ? `; ${args.delayMs} ms` : ''})`,
});

/** Acknowledges many deliveries (also the final drain's way to complete what it receives). */
export const ackMany = settleMany('ack');

interface ExtendArgs {
  readonly items: readonly Held[];
  readonly visibilityMs: number;
  readonly aimed: boolean;
}
interface ExtendReply {
  readonly results: boolean[];
  /** Each extended lease's new deadline as the deadlines key holds it, read right after (undefined when gone, unread or not extended). */
  readonly deadlines: (number | undefined)[];
}

/** Extends one delivery's lease (`extend`) or several (`extendMany`): the receipt stays, the deadline is replaced, shorter or longer. */
const extendLeases = (many: boolean): Operation<ExtendArgs, ExtendReply> => ({
  name: many ? 'extendMany' : 'extend',
  weight: many ? 3 : 6,
  ready: canSettle,
  draw(ctx) {
    const visibilityMs = ctx.random.weighted([
      [ctx.random.int(20, 150), 35],
      [ctx.random.int(150, ctx.plan.maxVisibilityMs), 65],
    ] as const);
    if (many) return { args: { items: drawBatch(ctx), visibilityMs, aimed: false } };
    prune(ctx);
    // As for ack: now and then aimed within a few ms of a known deadline.
    const exact = ctx.pools.held.filter((h) => h.deadline.lo === h.deadline.hi && h.deadline.hi - ctx.clock.estimateMs() < 2000);
    if (exact.length > 0 && ctx.random.chance(0.2)) {
      const item = ctx.random.pick(exact);
      ctx.pools.held.splice(ctx.pools.held.indexOf(item), 1);
      return { args: { items: [item], visibilityMs, aimed: true }, aimAtMs: item.deadline.hi + ctx.random.int(-3000, 2000) / 1000 };
    }
    return { args: { items: [take(ctx, 0.1)!], visibilityMs, aimed: false } };
  },
  async run(ctx, args) {
    const messages = args.items.map((h) => h.message);
    const results = many ? await ctx.queue.extendMany(messages, args.visibilityMs) : [await ctx.queue.extend(messages[0]!, args.visibilityMs)];
    let deadlines: (number | undefined)[] = results.map(() => undefined);
    if (results.some(Boolean)) {
      const scores = await readDeadlines(ctx, messages);
      deadlines = scores.map((score, i) => (results[i] ? score : undefined));
    }
    return { results, deadlines };
  },
  observe(model, _ctx, args, op, outcome) {
    model.record(settleEvents('extend', args.visibilityMs, args.items, op, outcome.ok ? { ok: true, value: outcome.value.results } : outcome));
  },
  after(ctx, args, outcome) {
    // An extended lease is held again, with its new deadline (exact when read, else bounded); the rest are stale.
    const kept: Held[] = [];
    if (outcome.ok) {
      const upper = ctx.clock.floorMs + args.visibilityMs + 1;
      args.items.forEach((item, i) => {
        if (!outcome.value.results[i] || kept.some((k) => k.message === item.message)) return;
        const exact = outcome.value.deadlines[i];
        kept.push({ ...item, deadline: exact !== undefined ? { lo: exact, hi: exact } : { lo: 0, hi: upper } });
      });
    }
    retire(
      ctx,
      args.items.filter((item) => !kept.some((k) => k.message === item.message)),
    );
    for (const item of kept) {
      const index = ctx.pools.held.findIndex((h) => h.message === item.message);
      if (index >= 0) ctx.pools.held.splice(index, 1);
      ctx.pools.held.push(item);
    }
  },
  describe: (args) => `${many ? 'extendMany' : 'extend'}(${label(args.items)}, ${args.visibilityMs} ms)${args.aimed ? ' aimed at its deadline' : ''}`,
});

/** The operations the queue has today. */
export const OPERATIONS: readonly Operation<never, unknown>[] = [
  send('plain'),
  send('deduplicated'),
  send('delayed'),
  sendMany,
  receive,
  waitingReceive,
  settleOne('ack'),
  ackMany,
  settleOne('nack'),
  settleMany('nack'),
  extendLeases(false),
  extendLeases(true),
] as unknown as readonly Operation<never, unknown>[];

/** The outcome of a call from what it resolved or rejected with. */
function outcomeOf<R>(settled: PromiseSettledResult<R>): Outcome<R> {
  if (settled.status === 'fulfilled') return { ok: true, value: settled.value };
  const error: unknown = settled.reason;
  if (isRespireError(error, 'TRANSPORT_FAILED'))
    return { ok: false, error, kind: (error as { outcomeUnknown?: boolean }).outcomeUnknown === false ? 'not-sent' : 'uncertain' };
  // A reply that proves the call did not run (BUSY, LOADING, ...): retryable.
  if (isRespireError(error) && error.retryable) return { ok: false, error, kind: 'not-sent' };
  return { ok: false, error, kind: 'unexpected' };
}

/** Tallies of what the clients did, for the report. */
export type Tally = Record<string, Record<string, number>>;

const describeError = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/** How a client's calls are numbered and timed, and where the outcomes go. */
export interface CallRunner {
  readonly model: TortureModel;
  readonly tally: Tally;
  /** The next global call number. */
  nextSeq(): number;
  /** TIME read on another connection, after a call's reply: its upper bound when the client's own connection just failed. */
  ceiling(): Promise<number>;
  /** True once the run is ending: an aimed call stops waiting. */
  stopped(): boolean;
}

/** Draws one operation's arguments and runs it as {@link runCall} does. */
export async function runOperation(ctx: ClientContext, operation: Operation<never, unknown>, runner: CallRunner): Promise<void> {
  const { args, aimAtMs } = operation.draw(ctx) as { args: never; aimAtMs?: number };
  await runCall(ctx, operation, args, runner, aimAtMs);
}

/**
 * Runs one call as a client: waits for its aim (paced by the estimate), brackets it with TIME on
 * the client's own connection (sent before it, so the server runs it first; and after its reply),
 * tells the model what it learned, and tallies the outcome.
 */
export async function runCall<A, R>(ctx: ClientContext, operation: Operation<A, R>, args: A, runner: CallRunner, aimAtMs?: number): Promise<void> {
  if (aimAtMs !== undefined) {
    for (let wait = aimAtMs - ctx.clock.estimateMs(); wait > 0 && !runner.stopped(); wait = aimAtMs - ctx.clock.estimateMs()) {
      await new Promise((resolve) => setTimeout(resolve, wait > 2 ? wait - 1 : 0));
    }
  }
  const seq = runner.nextSeq();
  runner.model.begin(seq);
  try {
    await timedCall(ctx, operation, args, runner, seq);
  } finally {
    runner.model.end(seq);
  }
}

async function timedCall<A, R>(ctx: ClientContext, operation: Operation<A, R>, args: A, runner: CallRunner, seq: number): Promise<void> {
  const floor = ctx.clock.floorMs;
  const before = ctx.raw(['TIME']);
  const [timeBefore, result] = await Promise.allSettled([before, operation.run(ctx, args)]);
  let outcome = outcomeOf(result);
  // A TIME answered with anything else means the client matched a reply to the wrong command:
  // nothing this call was answered can be trusted, so it counts as uncertain.
  let mismatch: string | undefined;
  const readTime = (reply: unknown): number | undefined => {
    try {
      return timeReplyMs(reply);
    } catch {
      mismatch ??= `TIME was answered with ${JSON.stringify(reply)?.slice(0, 80)}`;
      return undefined;
    }
  };
  let lo = floor;
  if (timeBefore.status === 'fulfilled') lo = readTime(timeBefore.value) ?? floor;
  let hi = Infinity;
  if (outcome.ok) {
    hi = await ctx.raw(['TIME']).then(
      (reply) => readTime(reply) ?? Infinity,
      () => runner.ceiling().catch(() => Infinity),
    );
  }
  if (mismatch !== undefined) outcome = { ok: false, error: new Error(`reply mismatch: ${mismatch}`), kind: 'uncertain' };
  if (lo > floor) ctx.clock.observe(lo);
  if (Number.isFinite(hi)) ctx.clock.observe(hi);
  const kind = outcome.ok ? 'ok' : outcome.kind;
  const counts = (runner.tally[operation.name] ??= {});
  counts[kind] = (counts[kind] ?? 0) + 1;
  const op: OpRecord = {
    seq,
    client: ctx.name,
    name: operation.name,
    at: { lo, hi },
    outcome: outcome.ok ? 'ok' : outcome.kind === 'not-sent' ? 'not-sent' : 'uncertain',
    text: `${operation.describe(args)}${outcome.ok ? '' : ` (${outcome.kind}: ${describeError(outcome.error).slice(0, 160)})`}`,
  };
  operation.observe(runner.model, ctx, args, op, outcome);
  operation.after?.(ctx, args, outcome);
  if (!outcome.ok && outcome.kind === 'unexpected') runner.model.callViolation(RULES.errors, op, describeError(outcome.error));
  if (mismatch !== undefined) runner.model.callViolation(RULES.replies, op, `${mismatch} on the client's connection`);
}
