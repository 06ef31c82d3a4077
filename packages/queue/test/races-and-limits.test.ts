// ReliableQueue under races and at its limits, on every target; tests named "DEFECT:" pin fixed contract violations.
/**
 * ReliableQueue under races and at its limits: receipts racing each other and
 * redeliveries, ill-formed and extreme inputs, deadlines past 2^31 ms, the largest batches, and
 * refusals that must change nothing. Tests named "DEFECT:" pin contract violations found and fixed.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAclUser } from '@respire/harness';
import { keySlot, queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, isRespireError, jsonCodec, utf8Codec, type QueueOperationEnd, type QueueOperationStart, type ReceivedMessage } from '@respire/queue';
import { describeOnTargets, queueFixture, snapshot, standalone, targets, uniqueName, untilAllDue, type Connection } from './support.js';

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (e: unknown) => e,
  );

describeOnTargets('ReliableQueue races and limits', targets, (_target, connection) => {
  const queueOf = queueFixture(connection);

  // ---------------------------------------------------------------- confirmed defects

  it('the receipt of one message cannot ack or nack a different message of the same batch', async () => {
    const queue = queueOf();
    await queue.send('a');
    await queue.send('b');
    const [a, b] = await queue.receive(30_000, { max: 2 });
    // ReceivedMessage.receipt: "Opaque receipt fencing this delivery; only it can ACK or NACK this delivery."
    expect(await queue.ack({ id: b!.id, receipt: a!.receipt })).toBe(false);
    expect(await queue.nack({ id: b!.id, receipt: a!.receipt }, 0)).toBe(false);
    expect(await queue.ack(b!)).toBe(true);
  });

  it('refuses ill-formed deduplication IDs and queue names (lone surrogates) before any I/O', async () => {
    const queue = queueOf();
    for (const id of ['order-\uD800', 'order-\uDBFF', '\uDC00x']) {
      const error = await queue.sendWithResult('x', { deduplicationId: id }).catch((e: unknown) => e);
      expect(isRespireError(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
    }
    expect(await queue.receive(30_000)).toEqual([]);
    expect(() => queueOf({}, `${uniqueName()}-\uD800`)).toThrow(/well-formed/);
    expect(() => queueOf({ keyPrefix: 'p\uDFFF:' })).toThrow(/well-formed/);
    // Well-formed astral characters are fine.
    expect((await queue.sendWithResult('emoji', { deduplicationId: 'order-\u{1F680}' })).duplicate).toBe(false);
  });

  it('a deadLettered count reaches instrumentation even when the same receive then fails to decode', async () => {
    const name = uniqueName();
    const writer = queueOf({ deliveryLimit: 1 }, name);
    await writer.send('{"ok":true}');
    const [leased] = await writer.receive(30_000);
    await writer.nack(leased!, 0); // exhausted: the next receive moves it
    await writer.send('not json');
    const ends: QueueOperationEnd[] = [];
    const reader = new ReliableQueue(connection().client, name, {
      codec: jsonCodec<{ ok: boolean }>(),
      deliveryLimit: 1,
      instrumentation: { startOperation: () => ({ end: (result) => void ends.push(result) }) },
    });
    const error = await errorOf(reader.receive(30_000));
    expect(isRespireError(error, 'CODEC_FAILED')).toBe(true);
    expect(await connection().raw(reader.deadLetterStreamKey, ['XLEN', reader.deadLetterStreamKey])).toBe(1);
    // The move is permanent, so QueueOperationEnd.deadLettered ("Exhausted messages this receive moved") must say 1.
    expect(ends).toHaveLength(1);
    expect(ends[0]!.deadLettered).toBe(1);
  });

  it('many receivers racing never lease one message twice, and every message is delivered exactly once', async () => {
    const queue = queueOf();
    const ids = new Set<string>();
    for (let i = 0; i < 200; i++) ids.add(await queue.send(`m${i}`));
    const receivers = Array.from({ length: 8 }, () => queueOf({}, queue.name));
    const seen: string[] = [];
    await Promise.all(
      receivers.map(async (r) => {
        for (;;) {
          const batch = await r.receive(30_000, { max: 7 });
          if (batch.length === 0) return;
          seen.push(...batch.map((m) => m.id));
          expect(await r.ackMany(batch)).toEqual(batch.map(() => true));
        }
      }),
    );
    expect(seen).toHaveLength(200);
    expect(new Set(seen)).toEqual(ids);
    const keys = queueKeys(queue.name, '');
    expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(0);
  });

  it('ack racing with nack on the same receipt: exactly one wins', async () => {
    const queue = queueOf();
    for (let i = 0; i < 30; i++) await queue.send(`m${i}`);
    const batch = await queue.receive(30_000, { max: 30 });
    const results = await Promise.all(batch.map((m) => Promise.all([queue.ack(m), queue.nack(m, 0)])));
    for (const [acked, nacked] of results) expect(Number(acked) + Number(nacked)).toBe(1);
    const nackedCount = results.filter(([, n]) => n).length;
    const again = await queue.receive(30_000, { max: 30 });
    expect(again).toHaveLength(nackedCount);
    expect(again.every((m) => m.deliveryCount === 2)).toBe(true);
  });

  it('a stale receipt racing a redelivery never completes the newer delivery', async () => {
    const queue = queueOf({ deliveryLimit: 100 });
    await queue.send('x');
    let stale = (await queue.receive(1))[0]!;
    for (let round = 0; round < 20; round++) {
      await untilAllDue(connection(), queue);
      const [fresh, staleAck] = await Promise.all([queue.receive(1), queue.ack(stale)]);
      expect(staleAck).toBe(false);
      expect(fresh).toHaveLength(1);
      expect(fresh[0]!.receipt).not.toBe(stale.receipt);
      stale = fresh[0]!;
    }
  });

  it('batch ack with duplicate, stale-then-valid and foreign-queue receipts', async () => {
    const queue = queueOf();
    const other = queueOf();
    await queue.send('a');
    await other.send('b');
    const [a] = await queue.receive(30_000);
    const [b] = await other.receive(30_000);
    const forged = { id: a!.id, receipt: `1.${'Z'.repeat(16)}.1` };
    expect(await queue.ackMany([forged, b!, a!, a!])).toEqual([false, false, true, false]);
    expect(await other.ack(b!)).toBe(true);
  });

  it('deduplication IDs with braces, colons, globs and non-BMP unicode stay in the queue slot and are independent per prefix', async () => {
    const name = uniqueName();
    const ids = ['{x}', 'a}b{c', 'a:b:c', '*?[]', '\u{1F600}\u00e9', '}{', 'x'.repeat(1024)];
    const plain = queueOf({}, name);
    const prefixed = queueOf({ keyPrefix: '{tenant}:' }, name);
    for (const id of ids) {
      const key = queueKeys(name, '').deduplicationPrefix + id;
      expect(keySlot(key)).toBe(keySlot(plain.streamKey));
      const one = await plain.sendWithResult(`p-${id}`, { deduplicationId: id });
      const two = await prefixed.sendWithResult(`q-${id}`, { deduplicationId: id });
      expect(one.duplicate).toBe(false);
      expect(two.duplicate).toBe(false);
      expect(await plain.sendWithResult('dup', { deduplicationId: id })).toEqual({ id: one.id, duplicate: true });
    }
    expect(await plain.receive(30_000, { max: 100 })).toHaveLength(ids.length);
    expect(await prefixed.receive(30_000, { max: 100 })).toHaveLength(ids.length);
  });

  it('round-trips an empty payload, also through the dead-letter stream', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    const id = await queue.send('');
    const [m] = await queue.receive(30_000);
    expect(m).toMatchObject({ id, payload: '', deliveryCount: 1 });
    await queue.nack(m!, 0);
    expect(await queue.receive(30_000)).toEqual([]);
    expect(await connection().raw(queue.deadLetterStreamKey, ['XLEN', queue.deadLetterStreamKey])).toBe(1);
  });

  it('stores deadlines past 2^31 ms exactly for the longest visibility and NACK delay', async () => {
    const queue = queueOf({ deliveryLimit: 2_147_483_647 });
    const keys = queueKeys(queue.name, '');
    await queue.send('x');
    const serverNow = async () => {
      const [s, us] = (await connection().raw(keys.stream, ['TIME'])) as [string, string];
      return Number(s) * 1000 + Number(us) / 1000;
    };
    const before = await serverNow();
    const [m] = await queue.receive(2_147_483_647);
    const after = await serverNow();
    const score = Number(await connection().raw(keys.deadlines, ['ZSCORE', keys.deadlines, `${m!.id}:${m!.receipt}`]));
    expect(Number.isInteger(score)).toBe(true);
    expect(score).toBeGreaterThanOrEqual(before + 2_147_483_647);
    expect(score).toBeLessThanOrEqual(Math.ceil(after) + 2_147_483_647);
    expect(await queue.nack(m!, 2_147_483_647)).toBe(true);
    const nackScore = Number(await connection().raw(keys.deadlines, ['ZSCORE', keys.deadlines, `${m!.id}:1`]));
    expect(nackScore).toBeGreaterThanOrEqual(score);
    expect(await connection().raw(keys.deadlines, ['ZRANGE', keys.deadlines, '0', '-1'])).toEqual([`${m!.id}:1`]);
    expect(await queue.receive(30_000)).toEqual([]);
  });

  it('moves 1000 exhausted messages in one receive (max 1000) without a Lua unpack limit', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    const ends: QueueOperationEnd[] = [];
    const watched = new ReliableQueue(connection().client, queue.name, {
      codec: utf8Codec,
      deliveryLimit: 1,
      instrumentation: { startOperation: () => ({ end: (r) => void ends.push(r) }) },
    });
    await Promise.all(Array.from({ length: 1000 }, (_, i) => queue.send(`m${i}`)));
    const leased = await queue.receive(30_000, { max: 1000 });
    expect(leased).toHaveLength(1000);
    expect(await queue.nackMany(leased, 0)).toEqual(leased.map(() => true));
    expect(await watched.receive(30_000, { max: 1000 })).toEqual([]);
    expect(ends.at(-1)!.deadLettered).toBe(1000);
    expect(await connection().raw(queue.deadLetterStreamKey, ['XLEN', queue.deadLetterStreamKey])).toBe(1000);
    const keys = queueKeys(queue.name, '');
    expect(await connection().raw(keys.stream, ['XLEN', keys.stream])).toBe(0);
    expect(await connection().raw(keys.deadlines, ['EXISTS', keys.deadlines])).toBe(0);
  });

  it('drops a leased message whose body was deleted externally, without a dead letter or a batch slot', async () => {
    const queue = queueOf({ deliveryLimit: 1 });
    const keys = queueKeys(queue.name, '');
    const gone = await queue.send('gone');
    const [m] = await queue.receive(30_000);
    await connection().raw(keys.stream, ['XDEL', keys.stream, gone]);
    await queue.nack(m!, 0);
    const fresh = await queue.send('fresh');
    expect((await queue.receive(30_000, { max: 1 })).map((x) => x.id)).toEqual([fresh]);
    const members = (await connection().raw(keys.deadlines, ['ZRANGE', keys.deadlines, '0', '-1'])) as string[];
    expect(members.map((member) => member.split(':')[0])).toEqual([fresh]);
    expect(await connection().raw(queue.deadLetterStreamKey, ['EXISTS', queue.deadLetterStreamKey])).toBe(0);
  });

  it('NACK never dead-letters and records the delivery count; the dead letter carries the final count', async () => {
    const queue = queueOf({ deliveryLimit: 2 });
    const id = await queue.send('x');
    const [one] = await queue.receive(30_000);
    await queue.nack(one!, 0);
    const [two] = await queue.receive(30_000);
    expect(two!.deliveryCount).toBe(2);
    expect(await queue.nack(two!, 0)).toBe(true);
    expect(await connection().raw(queue.deadLetterStreamKey, ['EXISTS', queue.deadLetterStreamKey])).toBe(0);
    expect(await queue.receive(30_000)).toEqual([]);
    const entries = (await connection().raw(queue.deadLetterStreamKey, ['XRANGE', queue.deadLetterStreamKey, '-', '+'])) as [string, string[]][];
    expect(entries).toHaveLength(1);
    expect(entries[0]![1]).toEqual(['payload', 'x', 'source_id', id, 'delivery_count', '2']);
  });
});

describe('refusals and validation', () => {
  let admin: Connection;
  beforeAll(async () => {
    admin = await standalone(inject('redisUrl'));
  });
  afterAll(async () => {
    await admin.close();
  });

  async function restricted(name: string, rules: string[]) {
    const user = await createAclUser([inject('redisUrl')], `u-${uniqueName()}`, rules);
    const conn = await standalone(user.urlFor(inject('redisUrl')));
    return { conn, queue: new ReliableQueue(conn.client, name, { codec: utf8Codec }) };
  }

  it.each([
    ['TIME', 'receive', ['-time']],
    ['TYPE', 'receive', ['-type']],
    ['GET', 'send with a deduplication ID', ['-get']],
  ] as const)('DEFECT: an ACL that denies %s makes %s fail as PERMISSION_DENIED (not SERVER_ERROR), changing nothing', async (_cmd, op, rules) => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec });
    await owner.send('x');
    const { conn, queue } = await restricted(name, ['~*', '+@all', ...rules]);
    try {
      const before = await snapshot(admin, keys);
      const error = await errorOf(op === 'receive' ? queue.receive(30_000) : queue.send('y', { deduplicationId: 'd' }));
      expect(isRespireError(error, 'PERMISSION_DENIED'), String(error)).toBe(true);
      expect(await snapshot(admin, keys)).toBe(before);
    } finally {
      await conn.close();
    }
  });

  it('a user allowed everything but XADD on the dead-letter key can still ack and nack', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const { conn, queue } = await restricted(name, ['~*', '+@all', '-xadd', `(~${keys.stream} ~${keys.wake} +xadd)`]);
    try {
      await queue.send('a');
      await queue.send('b');
      const [a, b] = await queue.receive(30_000, { max: 2 });
      expect(await queue.ack(a!)).toBe(true);
      expect(await queue.nack(b!, 0)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it('null options are refused with a RespireValidationError, not a TypeError', async () => {
    const sent: unknown[] = [];
    const queue = new ReliableQueue({ isOpen: true, sendCommand: async (args: unknown) => void sent.push(args) }, 'q', { codec: utf8Codec });
    const sendError = await errorOf(queue.send('x', null as never));
    const receiveError = await errorOf(queue.receive(1000, null as never));
    expect(isRespireError(sendError, 'INVALID_ARGUMENT'), String(sendError)).toBe(true);
    expect(isRespireError(receiveError, 'INVALID_ARGUMENT'), String(receiveError)).toBe(true);
    expect(sent).toEqual([]);
  });

  it('a forged message whose ID is no entry ID (past 2^64) is refused before any I/O; one that is an entry ID returns false; nothing changed', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const queue = new ReliableQueue(admin.client, name, { codec: utf8Codec });
    await queue.send('x');
    await queue.receive(30_000);
    const before = await snapshot(admin, keys);
    const receipt = `1.${'A'.repeat(16)}.1`;
    for (const id of ['99999999999999999999999-0', '18446744073709551616-0', '0-18446744073709551616']) {
      expect(isRespireError(await errorOf(queue.ack({ id, receipt })), 'INVALID_ARGUMENT')).toBe(true);
      expect(isRespireError(await errorOf(queue.nack({ id, receipt })), 'INVALID_ARGUMENT')).toBe(true);
    }
    const greatest = { id: '18446744073709551615-18446744073709551615', receipt };
    expect(await queue.ack(greatest)).toBe(false);
    expect(await queue.nack(greatest)).toBe(false);
    expect(await snapshot(admin, keys)).toBe(before);
  });
});

export type { ReceivedMessage, QueueOperationStart };

// Standalone only: TIME and the receive must run in order on one connection, which a Cluster
// client does not promise for a keyless command.
describe('lease deadlines on a single connection', () => {
  let conn: Connection;
  beforeAll(async () => {
    conn = await targets[0]!.connect();
  });
  afterAll(async () => {
    await conn.close();
  });
  const queueOf = queueFixture(() => conn);

  it('a lease is never shorter than requested: the deadline rounds up from the server clock in microseconds', async () => {
    // TIME is pipelined just before the receive, so it reads the clock a few microseconds earlier.
    // A deadline of floor(now_ms) + timeout would fall below TIME + timeout whenever both land in the
    // same millisecond with a fraction; the deadline must cover the full timeout.
    const queue = queueOf({ deliveryLimit: 1000 });
    const keys = queueKeys(queue.name, '');
    for (let i = 0; i < 50; i++) {
      await queue.send(`m${i}`);
      const [time, batch] = await Promise.all([conn.raw(keys.stream, ['TIME']) as Promise<[string, string]>, queue.receive(1)]);
      const before = Number(time[0]) * 1000 + Number(time[1]) / 1000;
      const score = Number(await conn.raw(keys.deadlines, ['ZSCORE', keys.deadlines, `${batch[0]!.id}:${batch[0]!.receipt}`]));
      expect(score).toBeGreaterThanOrEqual(before + 1);
      await untilAllDue(conn, queue);
      for (const m of await queue.receive(30_000, { max: 1000 })) await queue.ack(m);
    }
  });
});
