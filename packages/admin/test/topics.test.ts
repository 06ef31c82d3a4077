// Reliable topics for operators: discovery, subscription backlogs, dead letters and the audited seek, on every target.
import { ReliableTopic, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, isNotFound, isRespireError } from '../src/index.js';
import { operator, recordingAudit, sleep, targets, uniqueQueue, viewer, type Connection } from './support.js';

const idTime = (id: string): number => Number(id.split('-')[0]);

describe.each(targets)('RespireAdmin topics on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  /** A topic with subscriptions `fast` (all acked), `slow` (2 of 5 leased), `late` (created after the publications) and `dl` (one dead letter). */
  async function world(keyPrefix = '') {
    const name = uniqueQueue('t');
    const topic = new ReliableTopic(conn.client, name, { codec: utf8Codec, keyPrefix });
    const fast = topic.subscription('fast', { start: 'earliest' });
    const slow = topic.subscription('slow', { start: 'earliest' });
    const dl = topic.subscription('dl', { start: 'earliest', deliveryLimit: 1 });
    await Promise.all([fast.create(), slow.create(), dl.create()]);
    const ids = await topic.publishMany(['a', 'b', 'c', 'd', 'e']);
    await topic.subscription('late').create();
    await fast.ackMany(await fast.receive(30_000, { max: 10 }));
    const leased = await slow.receive(30_000, { max: 2 });
    // Delivery limit 1: the first delivery lapses, the next receive dead-letters it.
    await dl.receive(1, { max: 1 });
    await sleep(20);
    await dl.receive(30_000, { max: 1 });
    return { name, topic, ids, slow, leased, stream: topic.streamKey };
  }

  it('shows each subscription: position, lag, pending, oldest unacknowledged age on the server clock, dead letters', async () => {
    const { name, ids, stream } = await world();
    const admin = new RespireAdmin(conn.client, { topics: [{ name }] });
    const status = await admin.topic(stream);
    expect(status).toMatchObject({ kind: 'topic', id: stream, name, keyPrefix: '', publications: 5, subscriptions: 4, discovered: false });
    expect(Math.abs(status.serverTimeMs - Date.now())).toBeLessThan(60_000);
    const byName = Object.fromEntries(status.subscriptionList.map((s) => [s.name, s]));
    expect(status.subscriptionList.map((s) => s.name)).toEqual(['dl', 'fast', 'late', 'slow']);
    expect(byName.fast).toMatchObject({ lastDeliveredId: ids[4], lag: 0, pending: 0, oldestUnacknowledgedAgeMs: null, deadLetters: 0, trimmed: 0 });
    expect(byName.late).toMatchObject({ lastDeliveredId: ids[4], lag: 0, pending: 0, oldestUnacknowledgedAgeMs: null, deadLetters: 0 });
    expect(byName.slow).toMatchObject({ lastDeliveredId: ids[1], lag: 3, pending: 2, deadLetters: 0 });
    // The oldest of slow's unacknowledged publications is the first one, leased.
    expect(byName.slow!.oldestUnacknowledgedAgeMs).toBe(Math.max(0, status.serverTimeMs - idTime(ids[0]!)));
    // dl: 'a' dead-lettered (acknowledged in its group), 'b' leased and pending.
    expect(byName.dl).toMatchObject({ lastDeliveredId: ids[1], lag: 3, pending: 1, deadLetters: 1 });
    expect(byName.dl!.oldestUnacknowledgedAgeMs).toBe(Math.max(0, status.serverTimeMs - idTime(ids[1]!)));
    expect(byName.dl!.deadLetterStream).toBe(`{respire-topic:${name}}:dead-letter:dl`);
  });

  it('counts what a retention bound trimmed before a subscription completed it', async () => {
    const name = uniqueQueue('t');
    const topic = new ReliableTopic(conn.client, name, { codec: utf8Codec, maxLength: 2 });
    await topic.subscription('behind', { start: 'earliest' }).create();
    for (const p of ['a', 'b', 'c', 'd', 'e']) await topic.publish(p);
    const admin = new RespireAdmin(conn.client, { topics: [{ name }] });
    const status = await admin.topic(topic.streamKey);
    expect(status.publications).toBe(2);
    expect(status.subscriptionList).toEqual([expect.objectContaining({ name: 'behind', trimmed: 3, pending: 0 })]);
  });

  it('discovers topics by a bounded SCAN (with key prefixes, on every master); an unknown topic is not found, naming the nearest', async () => {
    const { name, stream } = await world('app:');
    expect(stream).toBe(`app:{respire-topic:${name}}:stream`);
    // Other files' keys share the server (the grouped scale test leaves about 10,000): scan enough pages for them.
    const admin = new RespireAdmin(conn.client, { discoverTopics: { scanCount: 1000 } });
    const { topics, discoveryTruncated } = await admin.topics();
    expect(discoveryTruncated).toBe(false);
    expect(topics.filter((t) => t.name === name)).toEqual([
      { kind: 'topic', id: stream, name, keyPrefix: 'app:', stream, discovered: true, publications: 5, subscriptions: 4 },
    ]);
    expect((await admin.topic(stream)).subscriptions).toBe(4);
    const missing = await admin.topic(`app:{respire-topic:${name}x}:stream`).catch((e: unknown) => e);
    expect(isNotFound(missing)?.known).toContain(stream);
    expect((missing as Error).message).toContain(stream);
    // Without discovery, only configured topics are known.
    const plain = new RespireAdmin(conn.client, { topics: [{ name: 'configured-only' }] });
    expect((await plain.topics()).topics.map((t) => [t.id, t.publications, t.subscriptions])).toEqual([['{respire-topic:configured-only}:stream', 0, 0]]);
    expect(isNotFound(await plain.topic(stream).catch((e: unknown) => e))).toMatchObject({ kind: 'resource', name: stream });
  });

  it("pages a subscription's dead letters in the queue's format and deletes one, audited; a viewer is refused before any I/O", async () => {
    const { name, ids, stream } = await world();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { topics: [{ name }], audit });
    const page = await admin.subscriptionDeadLetters(stream, 'dl');
    expect(page.items).toHaveLength(1);
    const record = page.items[0]!;
    expect(record).toMatchObject({ kind: 'queue', sourceId: ids[0], deliveryCount: 1 });
    expect(String((record as { payload: Buffer }).payload)).toBe('a');
    expect((await admin.subscriptionDeadLetters(stream, 'fast')).items).toEqual([]);

    await expect(admin.deleteSubscriptionDeadLetter(viewer, stream, 'dl', record.id)).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await admin.deleteSubscriptionDeadLetter(operator, stream, 'dl', record.id)).toEqual({ status: 'deleted' });
    expect(await admin.deleteSubscriptionDeadLetter(operator, stream, 'dl', record.id)).toEqual({ status: 'missing' });
    expect((await admin.subscriptionDeadLetters(stream, 'dl')).items).toEqual([]);
    expect(records.map((r) => [r.action, r.result, r.role, r.resource, r.target.subscription, r.target.recordId])).toEqual([
      ['delete', 'refused', 'viewer', stream, 'dl', record.id],
      ['delete', 'ok', 'operator', stream, 'dl', record.id],
      ['delete', 'missing', 'operator', stream, 'dl', record.id],
    ]);
    for (const bad of ['', 'a{b}']) {
      const error = await admin.subscriptionDeadLetters(stream, bad).catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
  });

  it('seeks a subscription as an audited operator action: leases discarded (stale receipts), retained publications delivered again from count 1', async () => {
    const { name, ids, slow, leased, stream } = await world();
    const { records, audit } = recordingAudit();
    const admin = new RespireAdmin(conn.client, { topics: [{ name }], audit });

    await expect(admin.seekSubscription(viewer, stream, 'slow', 'earliest')).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    expect(await admin.seekSubscription(operator, stream, 'slow', 'earliest')).toEqual({ status: 'moved', position: '0', discarded: 2 });
    expect(await slow.ackMany(leased)).toEqual([false, false]);
    const again = await slow.receive(30_000, { max: 10 });
    expect(again.map((m) => [m.id, m.payload, m.deliveryCount])).toEqual(ids.map((id, i) => [id, 'abcde'[i], 1]));
    expect(await slow.ackMany(again)).toEqual([true, true, true, true, true]);

    // Forward to an entry ID: what follows it is delivered; nothing was leased.
    expect(await admin.seekSubscription(operator, stream, 'slow', ids[2]!)).toEqual({ status: 'moved', position: ids[2], discarded: 0 });
    expect((await slow.receive(30_000, { max: 10 })).map((m) => m.payload)).toEqual(['d', 'e']);
    expect(await admin.seekSubscription(operator, stream, 'nobody', 'latest')).toEqual({ status: 'missing' });

    expect(records.map((r) => [r.action, r.result, r.role, r.target.subscription, r.target.to])).toEqual([
      ['seek', 'refused', 'viewer', 'slow', 'earliest'],
      ['seek', 'ok', 'operator', 'slow', 'earliest'],
      ['seek', 'ok', 'operator', 'slow', ids[2]],
      ['seek', 'missing', 'operator', 'nobody', 'latest'],
    ]);
    expect(records[1]!.target).toMatchObject({ position: '0', discarded: 2 });

    // Bad targets: refused before any I/O, nothing audited.
    for (const to of ['soon', { timeMs: -1 }, { timeMs: 1, x: 2 }, 42]) {
      const error = await admin.seekSubscription(operator, stream, 'slow', to as never).catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT')).toBe(true);
    }
    expect(records).toHaveLength(4);
  });
});

describe('RespireAdmin topic options', () => {
  it('refuses bad topic configurations and a topic key as the audit stream, before any I/O', () => {
    const client = { sendCommand: () => Promise.reject(new Error('no I/O expected')) };
    for (const options of [
      { topics: [{ name: '' }] },
      { topics: [{ name: 'a{b}' }] },
      { topics: [{ name: 'a' }, { name: 'a' }] },
      { topics: [{ name: 'a', extra: 1 }] },
      { discoverTopics: 'yes' },
      { discoverTopics: { scanCount: 0 } },
      { auditStream: '{respire-topic:orders}:stream' },
      { auditStream: '{respire-topic:orders}:wake:billing' },
    ]) {
      let error: unknown;
      try {
        new RespireAdmin(client, options as never);
      } catch (e) {
        error = e;
      }
      expect(isRespireError(error, 'INVALID_ARGUMENT'), JSON.stringify(options)).toBe(true);
    }
  });
});
