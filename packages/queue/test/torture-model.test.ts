// Unit tests of the queue torture's model: each rule fires on a history that breaks it, stays quiet on one that keeps it (uncertain outcomes included), and a violation comes with its shortest history.
import { describe, expect, it } from 'vitest';
import {
  RULES,
  TortureModel,
  checkDeduplication,
  checkMessage,
  type DeadLetterEvent,
  type DeliveryEvent,
  type FinalEvent,
  type MessageEvent,
  type OpRecord,
  type SentEvent,
  type SettleEvent,
} from './torture-model.js';

const options = { deliveryLimit: 3, deadLetterMarginMs: 5 };
let seq = 0;
const op = (lo: number, hi: number, outcome: OpRecord['outcome'] = 'ok', name = 'op'): OpRecord => ({
  seq: ++seq,
  client: 'c1',
  name,
  at: { lo, hi: outcome === 'ok' ? hi : Infinity },
  outcome,
  text: name,
});
const sent = (at: number, id = '1-0', extra: Partial<SentEvent> = {}): SentEvent => ({
  kind: 'send',
  op: op(at, at + 1),
  token: 't',
  dedupId: undefined,
  reply: { id, duplicate: false },
  ...extra,
});
/** A delivery received within [at, at + 1] with an exact deadline. */
const delivered = (at: number, count: number, deadline: number, extra: Partial<DeliveryEvent> = {}): DeliveryEvent => ({
  kind: 'delivery',
  op: op(at, at + 1),
  token: 't',
  id: '1-0',
  count,
  receipt: `${count}.r`,
  deadline: { lo: deadline, hi: deadline },
  intact: true,
  ...extra,
});
const settled = (
  how: 'ack' | 'nack' | 'extend',
  at: number,
  count: number,
  result: boolean | undefined,
  delayMs = 0,
  extra: Partial<SettleEvent> = {},
): SettleEvent => ({
  kind: 'settle',
  op: op(at, at + 1, result === undefined ? 'uncertain' : 'ok'),
  how,
  delayMs,
  token: 't',
  receipt: `${count}.r`,
  count,
  position: 1,
  result,
  ...extra,
});
const dead = (atMs: number, count = 3): DeadLetterEvent => ({ kind: 'dead-letter', token: 't', id: '1-0', count, atMs, intact: true });
const end = (leftInStream = false): FinalEvent => ({ kind: 'final', token: 't', leftInStream });
const rules = (events: MessageEvent[]) => checkMessage(events, options).map((f) => f.rule);

describe('the queue torture model: histories that keep the contract', () => {
  it('send, a delivery that expires, a redelivery at the deadline, an ack: no violation', () => {
    expect(rules([sent(0), delivered(10, 1, 110), delivered(110, 2, 300), settled('ack', 120, 2, true), end()])).toEqual([]);
  });

  it('a NACK with a delay replaces the lease: a redelivery after its due time (even before the old deadline) is fine', () => {
    expect(rules([sent(0), delivered(10, 1, 1000), settled('nack', 20, 1, true, 50), delivered(72, 2, 2000), settled('ack', 80, 2, true), end()])).toEqual([]);
  });

  it('uncertain outcomes are never guessed: an ack without a reply may have completed the message', () => {
    expect(rules([sent(0), delivered(10, 1, 110), settled('ack', 20, 1, undefined), end()])).toEqual([]);
    // ...and a NACK without a reply may have released it early.
    expect(rules([sent(0), delivered(10, 1, 1000), settled('nack', 20, 1, undefined, 0), delivered(30, 2, 2000), settled('ack', 40, 2, true), end()])).toEqual(
      [],
    );
    // ...and a send without a reply may or may not have appended.
    expect(rules([sent(0, '1-0', { op: op(0, 0, 'uncertain'), reply: undefined }), end()])).toEqual([]);
  });

  it('dead-lettered after the limit, with the limit as its count, after the last lease ended', () => {
    expect(rules([sent(0), delivered(10, 1, 110), delivered(120, 2, 220), delivered(230, 3, 330), dead(340), end()])).toEqual([]);
  });

  it('an ack refused after another call that may have settled the same receipt first is fine', () => {
    expect(
      rules([
        sent(0),
        delivered(10, 1, 1000),
        settled('ack', 20, 1, undefined),
        settled('ack', 30, 1, false),
        delivered(1001, 2, 2000),
        settled('ack', 1010, 2, true),
        end(),
      ]),
    ).toEqual([]);
  });
});

describe('the queue torture model: lease extension and delayed sends', () => {
  it('an extend moves the deadline: an ack after the first deadline but before the extended one is fine, a redelivery then is early', () => {
    const extended = [sent(0), delivered(10, 1, 110), settled('extend', 50, 1, true, 500)];
    expect(rules([...extended, settled('ack', 200, 1, true)])).toEqual([]);
    expect(rules([...extended, delivered(200, 2, 700)])).toContain(RULES.early);
    expect(rules([...extended, delivered(600, 2, 1100)])).toEqual([]);
  });

  it('an extend may shorten the lease: a redelivery after the shorter deadline is fine', () => {
    expect(rules([sent(0), delivered(10, 1, 10_000), settled('extend', 20, 1, true, 50), delivered(200, 2, 300)])).toEqual([]);
  });

  it('an uncertain extend is never guessed: both the old and the new deadline are possible', () => {
    const uncertain = [sent(0), delivered(10, 1, 110), settled('extend', 50, 1, undefined, 500)];
    expect(rules([...uncertain, settled('ack', 200, 1, true)])).toEqual([]); // it may have extended
    expect(rules([...uncertain, delivered(200, 2, 700)])).toEqual([]); // or not
  });

  it('an extend after the lease completed, after a newer delivery ran or past the deadline must return false', () => {
    expect(rules([sent(0), delivered(10, 1, 1000), settled('ack', 20, 1, true), settled('extend', 30, 1, true, 500)])).toContain(RULES.stale);
    expect(rules([sent(0), delivered(10, 1, 110), delivered(120, 2, 220), settled('extend', 130, 1, true, 500)])).toContain(RULES.stale);
    expect(rules([sent(0), delivered(10, 1, 110), settled('extend', 110, 1, true, 500)])).toContain(RULES.stale);
    expect(rules([sent(0), delivered(10, 1, 1000), settled('extend', 20, 1, true, 500), settled('extend', 30, 1, true, 500)])).toEqual([]);
  });

  it('an extend true beside an ack true of the same receipt is stale only when the ack certainly ran first', () => {
    // Concurrent calls of two clients (overlapping spans): the server may have run the extend first.
    const ack = settled('ack', 20, 1, true, 0, { op: { ...op(20, 30), client: 'c2' } });
    const extend = settled('extend', 21, 1, true, 500, { op: { ...op(21, 32), client: 'c3' } });
    expect(rules([sent(0), delivered(10, 1, 1000), ack, extend])).toEqual([]);
    // The ack's reply came before the extend was sent: the extend ran after the completion.
    const later = settled('extend', 31, 1, true, 500, { op: { ...op(31, 40), client: 'c3' } });
    expect(rules([sent(0), delivered(10, 1, 1000), ack, later])).toContain(RULES.stale);
    // Two acks true of one receipt are stale in any order.
    const second = settled('ack', 21, 1, true, 0, { op: { ...op(21, 32), client: 'c3' } });
    expect(rules([sent(0), delivered(10, 1, 1000), ack, second])).toContain(RULES.stale);
  });

  it('an extend refused while the lease certainly held breaks the honoured rule', () => {
    expect(rules([sent(0), delivered(10, 1, 1000), settled('extend', 20, 1, false, 500)])).toContain(RULES.honoured);
    expect(rules([sent(0), delivered(10, 1, 1000), settled('nack', 15, 1, undefined), settled('extend', 20, 1, false, 500)])).toEqual([]);
    // A receipt repeated in one extendMany is extended once: its later position returns false (README).
    const first = settled('extend', 20, 1, true, 500);
    expect(rules([sent(0), delivered(10, 1, 1000), first, { ...first, position: 2, result: false }])).toEqual([]);
  });

  it('a delayed message is not received before the send time plus the delay', () => {
    const delayedSend = sent(0, '1-0', { delayMs: 300 });
    expect(rules([delayedSend, delivered(200, 1, 1000)])).toContain(RULES.early);
    expect(rules([delayedSend, delivered(301, 1, 1000)])).toEqual([]);
  });
});

describe('the queue torture model: each rule fires', () => {
  it.each<[string, () => MessageEvent[], string]>([
    [
      'an ack accepted from a stale receipt (a newer delivery exists)',
      () => [sent(0), delivered(10, 1, 110), delivered(120, 2, 220), settled('ack', 130, 1, true)],
      RULES.stale,
    ],
    ['an ack accepted at the deadline', () => [sent(0), delivered(10, 1, 110), settled('ack', 110, 1, true)], RULES.stale],
    ['a nack accepted after a newer delivery ran', () => [sent(0), delivered(10, 1, 110), delivered(120, 2, 220), settled('nack', 125, 1, true)], RULES.stale],
    ['one receipt accepted twice', () => [sent(0), delivered(10, 1, 1000), settled('nack', 20, 1, true, 500), settled('ack', 30, 1, true)], RULES.stale],
    ['an ack accepted for a dead-lettered message', () => [sent(0), delivered(10, 3, 110), settled('ack', 20, 3, true), dead(200)], RULES.stale],
    ['a redelivery before the lease deadline', () => [sent(0), delivered(10, 1, 110), delivered(100, 2, 300)], RULES.early],
    [
      'a redelivery before a confirmed NACK delay ended (the old deadline was earlier)',
      () => [sent(0), delivered(10, 1, 50), settled('nack', 20, 1, true, 500), delivered(100, 2, 300)],
      RULES.early,
    ],
    [
      'a dead letter before the last lease could end',
      () => [sent(0), delivered(10, 1, 110), delivered(120, 2, 220), delivered(230, 3, 1330), dead(340)],
      RULES.early,
    ],
    ['the same count delivered twice', () => [sent(0), delivered(10, 1, 110), delivered(120, 1, 220, { receipt: '1.other' })], RULES.oncePerLease],
    ['a count that goes backwards in server time', () => [sent(0), delivered(300, 1, 400), delivered(10, 2, 110, { receipt: '2.r' })], RULES.counts],
    ['a delivery past the limit', () => [sent(0), delivered(10, 4, 110)], RULES.counts],
    ['a dead letter with the wrong count', () => [sent(0), delivered(10, 1, 110), dead(200, 2)], RULES.deadLetters],
    ['two dead letters', () => [sent(0), dead(200), dead(300)], RULES.deadLetters],
    ['a held lease refused', () => [sent(0), delivered(10, 1, 1000), settled('ack', 20, 1, false)], RULES.honoured],
    ['a message gone without an ack or a dead letter', () => [sent(0), delivered(10, 1, 110), settled('ack', 200, 1, false), end()], RULES.lost],
    ['a message still in the stream after the drain', () => [sent(0), end(true)], RULES.lost],
    ['a send reported not sent that appended', () => [sent(0, '1-0', { op: op(0, 0, 'not-sent'), reply: undefined }), delivered(10, 1, 110)], RULES.notSent],
    ['a payload under another ID than its send returned', () => [sent(0, '2-0'), delivered(10, 1, 110)], RULES.intact],
    ['a payload changed in transit', () => [sent(0), delivered(10, 1, 110, { intact: false })], RULES.intact],
  ])('flags %s', (_what, history, rule) => {
    expect(rules(history())).toContain(rule);
  });

  it('deduplication: one ID, one append, one returned ID', () => {
    const d = (token: string, at: number, id: string | undefined, duplicate = false): SentEvent => ({
      kind: 'send',
      op: op(at, at + 1, id === undefined ? 'uncertain' : 'ok'),
      token,
      dedupId: 'd',
      reply: id === undefined ? undefined : { id, duplicate },
    });
    const seen = (token: string, id: string): DeliveryEvent => delivered(50, 1, 100, { token, id });
    // An uncertain first send that appended, a retry that returns it as a duplicate: fine.
    expect(checkDeduplication([d('a', 0, undefined), d('b', 10, '1-0', true), seen('a', '1-0')])).toEqual([]);
    const dedupRules = (events: MessageEvent[]) => checkDeduplication(events).map((f) => f.rule);
    expect(dedupRules([d('a', 0, '1-0'), d('b', 10, '2-0')])).toContain(RULES.dedup); // two IDs, two appends, the second after the first returned
    expect(dedupRules([d('a', 0, '1-0'), d('b', 10, '1-0', true), seen('a', '1-0'), seen('b', '2-0')])).toContain(RULES.dedup); // the duplicate's payload appended
    expect(dedupRules([d('a', 0, '1-0', true), seen('a', '3-0')])).toContain(RULES.dedup); // the returned ID is not the appended entry
  });
});

describe('the model object', () => {
  it('reports each violation once, with the shortest history that still breaks the rule', () => {
    const model = new TortureModel(options);
    const noise = [delivered(5, 1, 2000, { token: 'u', id: '9-0', receipt: 'u1' }), settled('ack', 6, 1, true, 0, { token: 'u', receipt: 'u1' })];
    model.record([sent(0), ...noise]);
    model.record([delivered(10, 1, 110), settled('nack', 112, 1, false), settled('ack', 25, 1, false, 0, { receipt: 'nope' })]);
    expect(model.violations).toEqual([]);
    model.record([delivered(120, 2, 220)]);
    model.record([settled('ack', 130, 1, true)]);
    model.record([settled('ack', 140, 1, true)]); // the same rule again: not reported twice
    expect(model.violations.map((v) => [v.rule, v.subject])).toEqual([[RULES.stale, 'message t']]);
    // A finding that hinges on what did not happen waits for the calls still running: one of them may settle it.
    model.begin(100);
    model.record([delivered(300, 1, 5000, { token: 'w', id: '7-0', receipt: 'w1' }), settled('ack', 310, 1, false, 0, { token: 'w', receipt: 'w1' })]);
    expect(model.violations).toHaveLength(1);
    model.record([settled('ack', 305, 1, true, 0, { token: 'w', receipt: 'w1' })]);
    model.end(100);
    expect(model.violations).toHaveLength(1);
    // ...and is reported once they are recorded, if it still holds.
    model.begin(101);
    model.record([delivered(400, 1, 5000, { token: 'z', id: '8-0', receipt: 'z1' }), settled('ack', 410, 1, false, 0, { token: 'z', receipt: 'z1' })]);
    expect(model.violations).toHaveLength(1);
    model.end(101);
    expect(model.violations.map((v) => [v.rule, v.subject])).toEqual([
      [RULES.stale, 'message t'],
      [RULES.honoured, 'message z'],
    ]);
    const [violation] = model.violations;
    // The shortest history: the newer delivery and the ack of the older one accepted (not the send, the refused calls, the repeat).
    expect(violation!.history).toHaveLength(2);
    expect(violation!.history.join('\n')).toMatch(/delivery 2[\s\S]*ack of t delivery 1 \(position 1\) → true/);
    expect(violation!.of).toBe(6); // the events of message t when it showed
    expect(model.checks).toBeGreaterThan(0);
  });

  it('an entry ID that carries two payloads is a violation', () => {
    const model = new TortureModel(options);
    model.record([delivered(10, 1, 110, { token: 'a', id: '5-0' })]);
    model.record([delivered(20, 1, 120, { token: 'b', id: '5-0' })]);
    expect(model.violations.map((v) => v.rule)).toEqual([RULES.intact]);
  });
});

describe('the model on a partitioned queue: a message is known by (partition, entry ID)', () => {
  it('one entry ID in two partitions is two messages', () => {
    const model = new TortureModel(options);
    model.record([delivered(10, 1, 110, { token: 'a', id: '5-0', partition: 0 })]);
    model.record([delivered(20, 1, 120, { token: 'b', id: '5-0', partition: 1 })]);
    expect(model.violations).toEqual([]);
    // ...but two payloads under one ID of one partition are a violation, named by where they are.
    model.record([delivered(30, 1, 130, { token: 'c', id: '5-0', partition: 1 })]);
    expect(model.violations.map((v) => [v.rule, v.subject])).toEqual([[RULES.intact, 'entry p1/5-0']]);
  });

  it('a message sent to one partition and delivered or dead-lettered from another is under two IDs', () => {
    const inP2 = sent(0, '1-0', { reply: { id: '1-0', duplicate: false, partition: 2 } });
    expect(rules([inP2, delivered(10, 1, 110, { partition: 2 }), settled('ack', 20, 1, true), end()])).toEqual([]);
    expect(rules([inP2, delivered(10, 1, 110, { partition: 0 })])).toContain(RULES.intact);
    const limit = [delivered(10, 1, 110, { partition: 2 }), delivered(120, 2, 220, { partition: 2 }), delivered(230, 3, 330, { partition: 2 })];
    expect(rules([inP2, ...limit, { ...dead(340), partition: 2 }, end()])).toEqual([]);
    // The delivery limit sends the message to its own partition's dead letters, not another's.
    expect(rules([inP2, ...limit, { ...dead(340), partition: 1 }, end()])).toContain(RULES.intact);
  });

  it('deduplication compares the partition too: a duplicate returned from another partition is not the appended entry', () => {
    const d = (token: string, at: number, partition: number, duplicate: boolean): SentEvent => ({
      kind: 'send',
      op: op(at, at + 1),
      token,
      dedupId: 'd',
      reply: { id: '1-0', duplicate, partition },
    });
    const seen = delivered(50, 1, 100, { token: 'a', id: '1-0', partition: 0 });
    expect(checkDeduplication([d('a', 0, 0, false), d('b', 10, 0, true), seen])).toEqual([]);
    expect(checkDeduplication([d('a', 0, 0, false), d('b', 10, 1, true), seen]).map((f) => f.rule)).toContain(RULES.dedup);
  });
});
