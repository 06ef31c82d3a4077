// A topic subscription's dead letters retried for that subscription only: atomic, audited, and never lost to retention, on every target.
import type { RedisClientLike } from '@respire/core-scripts';
import { subscriptionKeys, topicKeys } from '@respire/core-scripts/internal';
import { createAclUser, standalone } from '@respire/harness';
import { ReliableTopic, utf8Codec, type TopicSubscription } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RespireAdmin, isRespireError, type AuditRecord } from '../src/index.js';
import { addQueueRecord, onFakeServer, operator, recordingAudit, sleep, targets, uniqueQueue, viewer, type Connection } from './support.js';

describe.each(targets)('RespireAdmin retries a subscription dead letter on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  /** Receives until `sub` dead-letters its next due delivery (delivery limit 1: a lapsed lease, then a receive). */
  async function deadLetterOne(sub: TopicSubscription<string>): Promise<void> {
    expect(await sub.receive(1, { max: 1 })).toHaveLength(1);
    await sleep(20);
    expect(await sub.receive(30_000, { max: 1 })).toEqual([]);
  }

  /** A topic with subscriptions `dl` (delivery limit 1) and `other`, one publication 'a' with a header, dead-lettered by `dl`. */
  async function world() {
    const name = uniqueQueue('t');
    const topic = new ReliableTopic(conn.client, name, { codec: utf8Codec });
    const dl = topic.subscription('dl', { start: 'earliest', deliveryLimit: 1 });
    const other = topic.subscription('other', { start: 'earliest' });
    await Promise.all([dl.create(), other.create()]);
    const id = await topic.publish('a', { headers: { trace: 't-1' } });
    await deadLetterOne(dl);
    const keys = subscriptionKeys(topicKeys(name, ''), 'dl');
    const admin = (audit?: (r: AuditRecord) => void) => new RespireAdmin(conn.client, { topics: [{ name }], ...(audit ? { audit } : {}) });
    const [record] = (await admin().subscriptionDeadLetters(topic.streamKey, 'dl')).items;
    expect(record).toMatchObject({ kind: 'queue', sourceId: id, deliveryCount: 1 });
    return { name, topic, dl, other, id, keys, admin, recordId: record!.id, stream: topic.streamKey };
  }

  const exists = (key: string) => conn.raw(key, ['EXISTS', key]).then(Number);

  it("refuses a grouped queue's record (one with a group field) in a subscription's dead letters; nothing changed", async () => {
    const { keys, admin, recordId, stream } = await world();
    const [, fields] = ((await conn.raw(keys.deadLetter, ['XRANGE', keys.deadLetter, recordId, recordId])) as [string, string[]][])[0]!;
    const grouped = String(await conn.raw(keys.deadLetter, ['XADD', keys.deadLetter, '*', ...fields, 'group', 'g']));
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', grouped)).toEqual({
      status: 'refused',
      reason: expect.stringContaining('group field'),
    });
    expect(Number(await conn.raw(keys.deadLetter, ['XLEN', keys.deadLetter]))).toBe(2);
    expect(await exists(keys.retried)).toBe(0);
  });

  it('redelivers a trimmed publication to that subscription only, from its kept body, with its headers; a repeat is missing; audited', async () => {
    const { topic, dl, other, id, keys, admin, recordId, stream } = await world();
    const { records, audit } = recordingAudit();
    // `other` completes 'a'; nothing needs it any more, so retention trims it.
    await other.ackMany(await other.receive(30_000, { max: 10 }));
    expect(await topic.trim()).toBe(1);
    expect(Number(await conn.raw(stream, ['XLEN', stream]))).toBe(0);

    await expect(admin(audit).retrySubscriptionDeadLetter(viewer, stream, 'dl', recordId)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await admin(audit).retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toEqual({ status: 'retried', publicationId: id });
    expect(await admin(audit).retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toEqual({ status: 'missing' });
    expect((await admin().subscriptionDeadLetters(stream, 'dl')).items).toEqual([]);

    const [again, ...rest] = await dl.receive(30_000, { max: 10 });
    expect(rest).toEqual([]);
    expect(again).toMatchObject({ id, payload: 'a', deliveryCount: 1 });
    expect(String(again!.headers.trace)).toBe('t-1');
    expect(await other.receive(30_000, { max: 10 })).toEqual([]);
    expect(await dl.trimmedCount()).toBe(0);
    expect(await exists(keys.retried)).toBe(1);
    expect(await dl.ack(again!)).toBe(true);
    expect(await exists(keys.retried)).toBe(0);
    expect(await dl.receive(30_000, { max: 10 })).toEqual([]);

    expect(records.map((r) => [r.action, r.result, r.role, r.target.subscription, r.target.recordId])).toEqual([
      ['retry', 'refused', 'viewer', 'dl', recordId],
      ['retry', 'ok', 'operator', 'dl', recordId],
      ['retry', 'missing', 'operator', 'dl', recordId],
    ]);
    expect(records[1]!.target).toMatchObject({ publicationId: id });
  });

  it('holds a retried message through retention while it is leased and released, and dead-letters it again at its limit', async () => {
    const { topic, dl, other, id, keys, admin, recordId, stream } = await world();
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toMatchObject({ status: 'retried' });
    // Retained still (`other` has not completed it): `dl` gets it again, `other` once.
    const [leased] = await dl.receive(30_000, { max: 1 });
    expect(leased).toMatchObject({ id, payload: 'a', deliveryCount: 1 });
    const otherGot = await other.receive(30_000, { max: 10 });
    expect(otherGot.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 1]]);
    expect(await other.ackMany(otherGot)).toEqual([true]);
    // No group needs 'a' now: retention trims it while `dl` holds its retried lease.
    expect(await topic.trim()).toBe(1);
    expect(Number(await conn.raw(stream, ['XLEN', stream]))).toBe(0);
    expect(await dl.nack(leased!)).toBe(true);
    // Redelivered from the kept copy (not counted as trimmed) ...
    const roomier = topic.subscription('dl', { deliveryLimit: 3 });
    const [second] = await roomier.receive(30_000, { max: 1 });
    expect(second).toMatchObject({ id, payload: 'a', deliveryCount: 2 });
    expect(String(second!.headers.trace)).toBe('t-1');
    expect(await roomier.nack(second!)).toBe(true);
    // ... and at the delivery limit dead-lettered again, with its headers; the copy is gone.
    expect(await dl.receive(30_000, { max: 1 })).toEqual([]);
    expect(await dl.trimmedCount()).toBe(0);
    const dead = (await admin().subscriptionDeadLetters(stream, 'dl')).items;
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({ sourceId: id, deliveryCount: 2 });
    expect(String((dead[0] as { payload: Buffer }).payload)).toBe('a');
    expect(await exists(keys.retried)).toBe(0);
    expect(Number(await conn.raw(keys.deadlines, ['ZCARD', keys.deadlines]))).toBe(0);
  });

  it('does not schedule a publication the subscription gets anyway; refuses foreign records, missing subscriptions and bad arguments', async () => {
    const { dl, id, keys, admin, recordId, stream } = await world();
    // After a seek to earliest, 'a' is delivered to `dl` again as new: the retry only deletes the record.
    await admin().seekSubscription(operator, stream, 'dl', 'earliest');
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toEqual({ status: 'retried', publicationId: id });
    expect(Number(await conn.raw(keys.deadlines, ['ZCARD', keys.deadlines]))).toBe(0);
    expect(await exists(keys.retried)).toBe(0);
    expect((await dl.receive(30_000, { max: 10 })).map((m) => m.id)).toEqual([id]);

    const foreign = String(await conn.raw(keys.deadLetter, ['XADD', keys.deadLetter, '*', 'x', 'y']));
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', foreign)).toMatchObject({ status: 'refused' });
    const badSource = await addQueueRecord(conn, keys.deadLetter, 'p', 'not-an-id');
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', badSource)).toEqual({ status: 'refused', reason: 'source_id is not an entry ID' });
    expect(Number(await conn.raw(keys.deadLetter, ['XLEN', keys.deadLetter]))).toBe(2);
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'nobody', foreign)).toMatchObject({
      status: 'refused',
      reason: expect.stringContaining('does not exist'),
    });
    for (const [subscription, record] of [
      ['', '1-1'],
      ['a{b}', '1-1'],
      ['dl', 'x'],
    ] as const) {
      const error = await admin()
        .retrySubscriptionDeadLetter(operator, stream, subscription, record)
        .catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it("wakes the subscription's waiting receive", async () => {
    const { dl, id, admin, recordId, stream } = await world();
    const started = Date.now();
    const waiting = dl.receive(30_000, { max: 1, waitMs: 10_000 });
    await sleep(200);
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toEqual({ status: 'retried', publicationId: id });
    expect((await waiting).map((m) => m.id)).toEqual([id]);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("retries and deletes all of a subscription's dead letters in pages, foreign records counted failed; audited with the subscription", async () => {
    const { topic, dl, other, id, keys, admin, stream } = await world();
    const later = await topic.publishMany(['b', 'c']);
    expect(await dl.receive(1, { max: 10 })).toHaveLength(2);
    await sleep(20);
    expect(await dl.receive(30_000, { max: 10 })).toEqual([]);
    await conn.raw(keys.deadLetter, ['XADD', keys.deadLetter, '*', 'x', 'y']);
    const { records, audit } = recordingAudit();
    const progress: number[] = [];
    expect(await admin(audit).retryAllSubscriptionDeadLetters(operator, stream, 'dl', { pageSize: 2, onProgress: (p) => progress.push(p.done) })).toEqual({
      done: 3,
      failed: 1,
      aborted: false,
    });
    expect(progress).toEqual([2, 3]);
    const again = await dl.receive(30_000, { max: 10 });
    expect(again.map((m) => [m.id, m.deliveryCount]).sort()).toEqual([id, ...later].map((x) => [x, 1]).sort());
    expect((await other.receive(30_000, { max: 10 })).map((m) => m.id)).toEqual([id, ...later]);
    expect(await admin(audit).deleteAllSubscriptionDeadLetters(operator, stream, 'dl')).toEqual({ done: 1, failed: 0, aborted: false });
    expect(Number(await conn.raw(keys.deadLetter, ['XLEN', keys.deadLetter]))).toBe(0);
    await expect(admin(audit).retryAllSubscriptionDeadLetters(viewer, stream, 'dl')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(records.map((r) => [r.action, r.result, r.target.subscription])).toEqual([
      ['retry-all', 'ok', 'dl'],
      ['delete-all', 'ok', 'dl'],
      ['retry-all', 'refused', 'dl'],
    ]);
    expect(records[0]!.target).toMatchObject({ done: 3, failed: 1 });
    await conn.raw(keys.deadLetter, ['XADD', keys.deadLetter, '*', 'payload', 'p', 'source_id', '1-1', 'delivery_count', '1']);
    const missing = await admin()
      .retryAllSubscriptionDeadLetters(operator, stream, 'nobody')
      .catch((e: unknown) => e);
    expect(missing).toEqual({ done: 0, failed: 0, aborted: false });
  });

  it("counts retried messages in the subscription's status (due and leased, not in pending) and in its oldest unacknowledged age, until completed", async () => {
    const { topic, dl, other, id, admin, recordId, stream } = await world();
    const status = async () => (await admin().topic(stream)).subscriptionList.find((s) => s.name === 'dl')!;
    const serverMs = async () => {
      const [s, us] = (await conn.raw(stream, ['TIME'])) as unknown[];
      return Number(s) * 1000 + Math.floor(Number(us) / 1000);
    };
    // `other` completes 'a' and retention trims it: `dl` has nothing outstanding.
    await other.ackMany(await other.receive(30_000, { max: 10 }));
    expect(await topic.trim()).toBe(1);
    expect(await status()).toMatchObject({ pending: 0, lag: 0, retried: 0, oldestUnacknowledgedAgeMs: null, deadLetters: 1 });
    // 'a' had a header: its retried hash holds two fields for one message.
    expect(await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toMatchObject({ status: 'retried' });
    const publishedMs = Number(id.split('-')[0]);
    const before = await serverMs();
    const due = await status();
    const after = await serverMs();
    expect(due).toMatchObject({ pending: 0, lag: 0, retried: 1, deadLetters: 0 });
    expect(due.oldestUnacknowledgedAgeMs).toBeGreaterThanOrEqual(before - publishedMs);
    expect(due.oldestUnacknowledgedAgeMs).toBeLessThanOrEqual(after - publishedMs);
    const [leased] = await dl.receive(30_000, { max: 1 });
    expect(leased).toMatchObject({ id });
    expect(await status()).toMatchObject({ pending: 0, retried: 1 });
    expect(await dl.ack(leased!)).toBe(true);
    expect(await status()).toMatchObject({ pending: 0, retried: 0, oldestUnacknowledgedAgeMs: null });
  });

  it('removing or seeking the subscription discards its retried copies', async () => {
    const { dl, keys, admin, recordId, stream, other } = await world();
    await other.ackMany(await other.receive(30_000, { max: 10 }));
    await admin().retrySubscriptionDeadLetter(operator, stream, 'dl', recordId);
    expect(await exists(keys.retried)).toBe(1);
    expect(await admin().seekSubscription(operator, stream, 'dl', 'latest')).toMatchObject({ status: 'moved', discarded: 1 });
    expect(await exists(keys.retried)).toBe(0);
    expect(await dl.receive(30_000, { max: 10 })).toEqual([]);
    expect(await dl.remove()).toBe(true);
  });
});

/** Faults between the admin and the server, injected by the fake server (which runs the same Lua). */
describe("a subscription's dead-letter retry under faults (fake server)", () => {
  const fake = onFakeServer('7.0');

  async function oneDeadLetter() {
    const name = uniqueQueue('tf');
    const topic = new ReliableTopic(fake.conn.client, name, { codec: utf8Codec });
    const dl = topic.subscription('dl', { start: 'earliest', deliveryLimit: 1 });
    await dl.create();
    const id = await topic.publish('a');
    expect(await dl.receive(1, { max: 1 })).toHaveLength(1);
    await sleep(20);
    expect(await dl.receive(30_000, { max: 1 })).toEqual([]);
    const admin = new RespireAdmin(fake.conn.client, { topics: [{ name }] });
    const [record] = (await admin.subscriptionDeadLetters(topic.streamKey, 'dl')).items;
    return { dl, id, admin, stream: topic.streamKey, recordId: record!.id };
  }

  it('a lost reply: the outcome is unknown; repeating the retry reports missing and the message is delivered once', async () => {
    const { dl, id, admin, stream, recordId } = await oneDeadLetter();
    fake.server.faults.inject({ script: 'admin-retry-subscription-dead-letters', action: { type: 'lost-reply' } });
    await expect(admin.retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).rejects.toMatchObject({ code: 'TRANSPORT_FAILED' });
    await sleep(50); // the client reconnects
    expect(await admin.retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toEqual({ status: 'missing' });
    const again = await dl.receive(30_000, { max: 10 });
    expect(again.map((m) => [m.id, m.deliveryCount])).toEqual([[id, 1]]);
    expect(await dl.ack(again[0]!)).toBe(true);
    expect(await dl.receive(30_000, { max: 10 })).toEqual([]);
  });

  it('BUSY, then NOSCRIPT after SCRIPT FLUSH: a typed error with nothing changed, then the retry works', async () => {
    const { dl, id, admin, stream, recordId } = await oneDeadLetter();
    fake.server.faults.inject({
      script: 'admin-retry-subscription-dead-letters',
      action: { type: 'error', message: 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.' },
    });
    await expect(admin.retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).rejects.toMatchObject({ code: 'SERVER_ERROR' });
    expect((await admin.subscriptionDeadLetters(stream, 'dl')).items.map((r) => r.id)).toEqual([recordId]);
    expect(await dl.receive(30_000, { max: 10 })).toEqual([]);
    await fake.conn.raw(stream, ['SCRIPT', 'FLUSH']);
    expect(await admin.retrySubscriptionDeadLetter(operator, stream, 'dl', recordId)).toEqual({ status: 'retried', publicationId: id });
    expect((await dl.receive(30_000, { max: 10 })).map((m) => m.id)).toEqual([id]);
  });
});

/** ACL refusals on the run's private Redis: the retry checks every write before the first, so a refusal changes nothing. */
describe("a subscription's dead-letter retry refused by an ACL", () => {
  let conn: Connection;
  beforeAll(async () => void (conn = await standalone<RedisClientLike>(inject('redisUrl'))));
  afterAll(async () => conn.close());

  for (const command of ['hset', 'zadd', 'xdel'] as const) {
    it(`a user without ${command.toUpperCase()} gets a typed refusal; the record stays and nothing is scheduled`, async () => {
      const name = uniqueQueue('tacl');
      const topic = new ReliableTopic(conn.client, name, { codec: utf8Codec });
      const dl = topic.subscription('dl', { start: 'earliest', deliveryLimit: 1 });
      await dl.create();
      await topic.publish('a');
      expect(await dl.receive(1, { max: 1 })).toHaveLength(1);
      await sleep(20);
      expect(await dl.receive(30_000, { max: 1 })).toEqual([]);
      const [record] = (await new RespireAdmin(conn.client, { topics: [{ name }] }).subscriptionDeadLetters(topic.streamKey, 'dl')).items;
      const user = await createAclUser([inject('redisUrl')], `u-${uniqueQueue('acl')}`, ['~*', '+@all', `-${command}`]);
      const restricted = await standalone<RedisClientLike>(user.urlFor(inject('redisUrl')));
      try {
        const admin = new RespireAdmin(restricted.client, { topics: [{ name }] });
        const error = await admin.retrySubscriptionDeadLetter(operator, topic.streamKey, 'dl', record!.id).catch((e: unknown) => e);
        expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
        expect((error as Error).message).toContain(command.toUpperCase());
      } finally {
        await restricted.close();
      }
      const keys = subscriptionKeys(topicKeys(name, ''), 'dl');
      expect(Number(await conn.raw(keys.deadLetter, ['XLEN', keys.deadLetter]))).toBe(1);
      expect(Number(await conn.raw(keys.deadlines, ['ZCARD', keys.deadlines]))).toBe(0);
      expect(Number(await conn.raw(keys.retried, ['EXISTS', keys.retried]))).toBe(0);
    });
  }
});
