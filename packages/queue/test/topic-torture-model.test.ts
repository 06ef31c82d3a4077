// The topic torture's model on hand-written histories: each rule fires on the history that breaks it, and a lawful history passes.
import { describe, expect, it } from 'vitest';
import { TOPIC_RULES, TopicTortureModel } from './topic-torture-model.js';

const SUBS = ['a', 'b'] as const;
const model = () => new TopicTortureModel({ subscriptions: SUBS, deliveryLimit: 2 });
const rules = (m: TopicTortureModel) => m.violations.map((v) => v.rule);

/** One publication `t1` at `1-0`, published and acknowledged. */
function published(m: TopicTortureModel): void {
  m.publishing(['t1'], undefined);
  m.published('publish t1', 't1', undefined, { id: '1-0', duplicate: false });
}
const delivery = (count: number, receipt = `r${count}`) => ({ id: '1-0', token: 't1', count, receipt, intact: true });
const item = (receipt: string) => ({ id: '1-0', receipt });

describe('topic torture model', () => {
  it('passes a lawful history: redelivery after expiry, ack in one subscription, dead letter at the limit in the other', () => {
    const m = model();
    published(m);
    m.delivered('a', 'receive', delivery(1));
    m.delivered('a', 'receive', delivery(2));
    m.settled('a', 'a', 'ack', 'ack', item('r1'), 2, false);
    m.settled('a', 'a', 'ack', 'ack', item('r2'), 2, true);
    m.delivered('b', 'receive', delivery(1, 'b1'));
    m.settled('b', 'a', 'foreign ack', 'ack', item('r2'), 2, false);
    m.deadLettered('b', { id: '1-0', token: 't1', count: 2, intact: true });
    m.pendingSeen('a', m.acked('a'), []);
    m.trimmedSeen('a', 0);
    expect(m.finish()).toBe(1);
    expect(m.violations).toEqual([]);
  });

  it('an acknowledged publication some subscription never completed', () => {
    const m = model();
    published(m);
    m.delivered('a', 'receive', delivery(1));
    m.settled('a', 'a', 'ack', 'ack', item('r1'), 1, true);
    m.finish();
    expect(m.violations.map((v) => [v.rule, v.subject])).toEqual([[TOPIC_RULES.complete, 'b 1-0']]);
  });

  it('an uncertain ack may have completed it', () => {
    const m = model();
    published(m);
    for (const s of SUBS) {
      m.delivered(s, 'receive', delivery(1, `${s}1`));
      m.settled(s, s, 'ack', 'ack', item(`${s}1`), 1, undefined);
    }
    m.finish();
    expect(m.violations).toEqual([]);
  });

  it('a receipt of one subscription accepted by another', () => {
    const m = model();
    published(m);
    m.delivered('a', 'receive', delivery(1));
    m.settled('b', 'a', 'foreign nack', 'nack', item('r1'), 1, true);
    expect(rules(m)).toEqual([TOPIC_RULES.fenced]);
  });

  it('a superseded or used-up receipt accepted', () => {
    const stale = model();
    published(stale);
    stale.delivered('a', 'receive', delivery(1));
    stale.delivered('a', 'receive', delivery(2));
    stale.settled('a', 'a', 'extend', 'extend', item('r1'), 2, true);
    expect(rules(stale)).toEqual([TOPIC_RULES.fenced]);
    const spent = model();
    published(spent);
    spent.delivered('a', 'receive', delivery(1));
    spent.settled('a', 'a', 'nack', 'nack', item('r1'), 1, true);
    spent.settled('a', 'a', 'ack', 'ack', item('r1'), 1, true);
    expect(rules(spent)).toEqual([TOPIC_RULES.fenced]);
  });

  it('a delivery count that does not increase, or passes the limit', () => {
    const m = model();
    published(m);
    m.delivered('a', 'receive', delivery(2));
    m.delivered('a', 'receive', delivery(1));
    m.delivered('b', 'receive', delivery(3));
    expect(m.violations.map((v) => [v.rule, v.subject])).toEqual([
      [TOPIC_RULES.count, 'a 1-0'],
      [TOPIC_RULES.count, 'b 1-0'],
    ]);
  });

  it('a delivery after an ack, and an ack and a dead letter both', () => {
    const m = model();
    published(m);
    m.delivered('a', 'receive', delivery(1));
    m.settled('a', 'a', 'ack', 'ack', item('r1'), 1, true);
    m.delivered('a', 'receive', delivery(2));
    m.deadLettered('a', { id: '1-0', token: 't1', count: 2, intact: true });
    // Reported once per rule and subject, with the history up to the first breach.
    expect(rules(m)).toEqual([TOPIC_RULES.once]);
    expect(m.violations[0]!.history.at(-1)).toBe('receive: delivery 2 of t1 (r2)');
    const both = model();
    published(both);
    both.delivered('a', 'receive', delivery(1));
    both.settled('a', 'a', 'ack', 'ack', item('r1'), 1, true);
    both.deadLettered('a', { id: '1-0', token: 't1', count: 2, intact: true });
    expect(both.violations.map((v) => v.detail)).toEqual(['acked and dead-lettered both']);
  });

  it('a dead letter before the limit', () => {
    const m = model();
    published(m);
    m.deadLettered('a', { id: '1-0', token: 't1', count: 1, intact: true });
    expect(rules(m)).toEqual([TOPIC_RULES.deadLetter]);
  });

  it('deduplication: two appends, two IDs, a duplicate that was appended', () => {
    const m = model();
    m.publishing(['t1'], 'd');
    m.published('p1', 't1', 'd', { id: '1-0', duplicate: false });
    m.publishing(['t2'], 'd');
    m.published('p2', 't2', 'd', { id: '2-0', duplicate: false });
    expect(m.violations.map((v) => v.detail)).toEqual(['its publishes returned 2 IDs: 1-0, 2-0']);
    const appended = model();
    appended.publishing(['t1'], 'd');
    appended.published('p1', 't1', 'd', { id: '1-0', duplicate: false });
    appended.publishing(['t2'], 'd');
    appended.delivered('a', 'receive', { id: '2-0', token: 't2', count: 1, receipt: 'x', intact: true });
    appended.published('p2', 't2', 'd', { id: '1-0', duplicate: true });
    expect(rules(appended)).toEqual([TOPIC_RULES.dedup]);
  });

  it('a delivery nobody published, or with other bytes', () => {
    const m = model();
    m.delivered('a', 'receive', { id: '1-0', token: 'ghost', count: 1, receipt: 'r', intact: false });
    published(m);
    m.delivered('b', 'receive', { ...delivery(1), intact: false });
    expect(m.violations.map((v) => [v.rule, v.subject])).toEqual([
      [TOPIC_RULES.unknown, 'a 1-0'],
      // The same entry ID carried another token before.
      [TOPIC_RULES.unknown, 'entry 1-0'],
      [TOPIC_RULES.unknown, 'b 1-0'],
    ]);
  });

  it('an acknowledged delivery still pending, and a trimmed count without bounds', () => {
    const m = model();
    published(m);
    m.delivered('a', 'receive', delivery(1));
    m.settled('a', 'a', 'ack', 'ack', item('r1'), 1, true);
    m.pendingSeen('a', m.acked('a'), ['1-0']);
    m.trimmedSeen('b', 1);
    expect(rules(m)).toEqual([TOPIC_RULES.pending, TOPIC_RULES.retention]);
  });
});
