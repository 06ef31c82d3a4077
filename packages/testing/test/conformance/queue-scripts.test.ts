// The queue scripts give the same replies on real Redis and on the fake server.
import { createAclUser } from '@respire/harness';
import { commandTarget, queueKeys, runScript, scripts, type CommandTarget, type QueueKeys } from '@respire/core-scripts/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../../src/index.js';
import { connect, matchingModel, normalizeIds, realUrl, sleep, uniquePrefix, type RawClient } from '../support.js';

const TOKEN_A = 'AAAAAAAAAAAAAAAA';
const TOKEN_B = 'BBBBBBBBBBBBBBBB';
const TOKEN_C = 'CCCCCCCCCCCCCCCC';

/** Runs one script and records its reply or its error (name, code, message). */
async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    const reply = await run();
    const text = (v: Buffer) => (/^[\x20-\x7e]*$/.test(v.toString('latin1')) ? v.toString('latin1') : `hex:${v.toString('hex')}`);
    return Array.isArray(reply) ? reply.map((v) => (Buffer.isBuffer(v) ? text(v) : v)) : reply;
  } catch (error) {
    const e = error as { name?: string; code?: string; message?: string };
    return { name: e.name, code: e.code, message: e.message };
  }
}

interface Queue {
  keys: QueueKeys;
  target: CommandTarget;
  raw: RawClient;
}

const send = (q: Queue, payload: string | Buffer, dedupId: string, windowMs = 60_000) =>
  outcome(() => runScript(q.target, scripts.queueSend, [q.keys.stream, `${q.keys.deduplicationPrefix}${dedupId}`], [payload, String(windowMs)]));
const receive = (q: Queue, opts: { visibilityMs?: number; max?: number; limit?: number; token: string }) =>
  outcome(() =>
    runScript(
      q.target,
      scripts.queueReceive,
      [q.keys.stream, q.keys.deadlines, q.keys.deadLetter],
      [String(opts.visibilityMs ?? 60_000), String(opts.max ?? 10), String(opts.limit ?? 5), opts.token, 'respire'],
      { binary: true },
    ),
  );
const ack = (q: Queue, pairs: string[]) => outcome(() => runScript(q.target, scripts.queueAck, [q.keys.stream, q.keys.deadlines], ['respire', ...pairs]));
const nack = (q: Queue, delayMs: number, pairs: string[]) =>
  outcome(() => runScript(q.target, scripts.queueNack, [q.keys.deadlines, q.keys.wake], [String(delayMs), ...pairs]));

/** Entry IDs in a receive reply: { deadLettered, id, payload, count, headers, ... }. */
function idsOf(reply: unknown): string[] {
  const items = reply as unknown[];
  const ids: string[] = [];
  for (let i = 1; i < items.length; i += 4) ids.push(String(items[i]));
  return ids;
}

/** The scenario: the same calls, in the same order, on one server. Returns every outcome. */
async function scenario(q: Queue): Promise<unknown[]> {
  const log: unknown[] = [];
  const record = (label: string, value: unknown) => log.push({ label, value });
  record('send a', await send(q, 'first', 'a'));
  record('send b', await send(q, Buffer.from([0, 1, 2, 255, 254, 13, 10]), 'b'));
  record('send a again (duplicate)', await send(q, 'ignored', 'a'));
  record('send c', await send(q, 'third', 'c'));
  const first = await receive(q, { max: 2, token: TOKEN_A });
  record('receive 2', first);
  const [id1, id2] = idsOf(first);
  // Receipts as the queue builds them: <count>.<token>.<position in the batch>.
  const receipt1 = `1.${TOKEN_A}.1`;
  const receipt2 = `1.${TOKEN_A}.2`;
  record('receipts', [receipt1, receipt2]);
  record('ack id1', await ack(q, [id1!, receipt1]));
  record('ack id1 again', await ack(q, [id1!, receipt1]));
  record('ack id2 wrong receipt', await ack(q, [id2!, receipt2.replace(TOKEN_A, TOKEN_B)]));
  record('nack id2 now', await nack(q, 0, [id2!, receipt2]));
  record('nack id2 again', await nack(q, 0, [id2!, receipt2]));
  // The NACK that released a lease appended one entry to the wake stream; the one that released nothing did not.
  record('raw XLEN wake', await q.raw.send(['XLEN', q.keys.wake]));
  const second = await receive(q, { max: 10, token: TOKEN_B, visibilityMs: 20 });
  record('receive redelivers id2, then c', second);
  record('raw XLEN', await q.raw.send(['XLEN', q.keys.stream]));
  record('raw ZRANGE deadlines', await q.raw.send(['ZRANGE', q.keys.deadlines, '0', '-1']));
  // Visibility timeout: a short lease expires and the entry comes back with a higher count.
  await sleep(80);
  record('receive after leases expired (limit 2: id2 dead-lettered)', await receive(q, { max: 10, limit: 2, token: TOKEN_C, visibilityMs: 1 }));
  record('dead-letter stream', await q.raw.send(['XLEN', q.keys.deadLetter]));
  record(
    'dead-letter record fields',
    ((await q.raw.send(['XRANGE', q.keys.deadLetter, '-', '+'])) as unknown[][]).map((e) => e[1]),
  );
  record('stream after dead-lettering', await q.raw.send(['XLEN', q.keys.stream]));
  // Wrong key type: refused before any write.
  await q.raw.send(['DEL', q.keys.deadlines]);
  await q.raw.send(['SET', q.keys.deadlines, 'not a zset']);
  record('receive on a wrong-type key', await receive(q, { token: TOKEN_A }));
  record('ack on a wrong-type key', await ack(q, [id2!, receipt2]));
  return log;
}

/** One sendMany item: payload, deduplication key index (0: none), window (ms), delay (ms), headers. */
interface Item {
  payload: string | Buffer;
  key?: number;
  windowMs?: number;
  delayMs?: number;
  headers?: string | Buffer;
}
const sendMany = (q: Queue, dedupIds: string[], items: Item[]) =>
  outcome(() =>
    runScript(
      q.target,
      scripts.queueSendMany,
      [q.keys.stream, ...dedupIds.map((id) => `${q.keys.deduplicationPrefix}${id}`)],
      items.flatMap((item) => [item.payload, String(item.key ?? 0), String(item.windowMs ?? 60_000), String(item.delayMs ?? 0), item.headers ?? '']),
    ),
  );
const extend = (q: Queue, visibilityMs: number, pairs: string[]) =>
  outcome(() => runScript(q.target, scripts.queueExtend, [q.keys.deadlines], [String(visibilityMs), ...pairs]));
const waitState = (q: Queue) => outcome(() => runScript(q.target, scripts.queueWaitState, [q.keys.stream, q.keys.deadlines, q.keys.wake], ['respire']));

/** The server clock of `q`'s server, in ms. */
async function nowOf(q: Queue): Promise<number> {
  const [seconds, micros] = (await q.raw.send(['TIME'])) as [string, string];
  return Number(seconds) * 1000 + Number(micros) / 1000;
}

/**
 * A time (ms, server clock) as an offset from `now` rounded to whole seconds, so that two servers
 * whose calls run at different moments compare: `+30s` is a deadline 30 s after the call.
 */
const offset = (time: unknown, now: number) => `${Math.round((Number(time) - now) / 1000) >= 0 ? '+' : ''}${Math.round((Number(time) - now) / 1000)}s`;

/** A queue-wait-state reply with its clock read as an offset: [now − TIME, next due, cursor, wake cursor]. */
async function waitStateAt(q: Queue): Promise<unknown> {
  const now = await nowOf(q);
  const reply = await waitState(q);
  if (!Array.isArray(reply)) return reply;
  const [nowMs, nextDueMs, cursor, wakeCursor] = reply as [number, number, string, string];
  return [Math.abs(nowMs - now) < 1000 ? 'now' : `off by ${nowMs - now}`, nextDueMs < 0 ? nextDueMs : offset(nextDueMs, now), cursor, wakeCursor];
}

/** The deadlines index as member → deadline offset from the server clock. */
async function deadlinesAt(q: Queue): Promise<unknown> {
  const now = await nowOf(q);
  const flat = ((await q.raw.send(['ZRANGE', q.keys.deadlines, '0', '-1', 'WITHSCORES'])) as unknown[]).flat() as string[];
  const members: [string, string][] = [];
  for (let i = 0; i < flat.length; i += 2) members.push([flat[i]!, offset(flat[i + 1], now)]);
  return members;
}

/** The stream's entries as field lists, `due` read as an offset from the server clock. */
async function entriesAt(q: Queue): Promise<unknown> {
  const now = await nowOf(q);
  const entries = (await q.raw.send(['XRANGE', q.keys.stream, '-', '+'])) as [string, unknown][];
  return entries.map(([id, fields]) => {
    const flat = (Array.isArray(fields) ? fields : Object.entries(fields as object).flat()) as string[];
    return [id, flat.map((value, i) => (flat[i - 1] === 'due' ? offset(value, now) : value))];
  });
}

/** The calls beyond the contract: sendMany (delays, headers, deduplication), extend and the wait state, with the receive that parks and delivers delayed entries. */
async function beyondScenario(q: Queue): Promise<unknown[]> {
  const log: unknown[] = [];
  const record = (label: string, value: unknown) => log.push({ label, value });
  const headers = Buffer.from([1, 0, 0, 0, 1, 97, 0, 0, 0, 2, 115, 120, 255]); // bytes Lua copies, never reads
  record('wait state of a missing queue', await waitStateAt(q));
  record(
    'sendMany: plain, headers, delayed, a duplicate within the batch, a repeat key',
    await sendMany(
      q,
      ['a', 'b'],
      [
        { payload: 'plain' },
        { payload: Buffer.from([0, 255, 13, 10]), headers, key: 2 },
        { payload: 'later', delayMs: 90_000, key: 3 },
        { payload: 'ignored', key: 2 },
        { payload: 'soon', delayMs: 1 },
      ],
    ),
  );
  record(
    'sendMany: a key seen in an earlier batch',
    await sendMany(
      q,
      ['b', 'c'],
      [
        { payload: 'ignored', key: 2 },
        { payload: 'new', key: 3, headers: 'h' },
      ],
    ),
  );
  record('entries with due and headers', await entriesAt(q));
  record('wait state before any receive (no group yet)', await waitStateAt(q));
  await sleep(10); // 'soon' is due
  const first = await receive(q, { max: 10, visibilityMs: 30_000, token: TOKEN_A });
  record('receive: ready ones (headers as stored), the due one, the delayed one parked', first);
  record('deadlines after the receive', await deadlinesAt(q));
  record('wait state: the earliest deadline and the cursor', await waitStateAt(q));
  const ids = idsOf(first);
  const receipt = (i: number) => `1.${TOKEN_A}.${i + 1}`;
  record('extend the first to 120 s, the second to 1 ms', [await extend(q, 120_000, [ids[0]!, receipt(0)]), await extend(q, 1, [ids[1]!, receipt(1)])]);
  record('extend: a wrong receipt, the same ID twice, an unknown ID', [
    await extend(q, 60_000, [ids[2]!, receipt(2).replace(TOKEN_A, TOKEN_B)]),
    await extend(q, 60_000, [ids[2]!, receipt(2), ids[2]!, receipt(2)]),
    await extend(q, 60_000, ['1-1', receipt(0)]),
  ]);
  record('deadlines after the extends', await deadlinesAt(q));
  await sleep(20); // the 1 ms lease has expired
  record('extend an expired lease', await extend(q, 60_000, [ids[1]!, receipt(1)]));
  record('ack the first, then extend it', [await ack(q, [ids[0]!, receipt(0)]), await extend(q, 60_000, [ids[0]!, receipt(0)])]);
  record('nack the third, then extend it', [await nack(q, 60_000, [ids[2]!, receipt(2)]), await extend(q, 60_000, [ids[2]!, receipt(2)])]);
  const second = await receive(q, { max: 10, visibilityMs: 30_000, token: TOKEN_B });
  record('receive redelivers the expired one', second);
  record('the stale receipt of that one extends nothing', await extend(q, 60_000, [ids[1]!, receipt(1)]));
  record('deadlines at the end', await deadlinesAt(q));
  record('wait state at the end', await waitStateAt(q));
  // Wrong key types: refused before any write.
  await q.raw.send(['HSET', `${q.keys.deduplicationPrefix}hash`, 'f', 'v']);
  record('sendMany with a deduplication key of another type', await sendMany(q, ['hash'], [{ payload: 'x' }, { payload: 'y', key: 2 }]));
  record('stream length after the refused sendMany', await q.raw.send(['XLEN', q.keys.stream]));
  await q.raw.send(['DEL', q.keys.deadlines]);
  await q.raw.send(['SET', q.keys.deadlines, 'not a zset']);
  record('extend on a wrong-type key', await extend(q, 1000, [ids[0]!, receipt(0)]));
  record('wait state on a wrong-type key', await waitState(q));
  return log;
}

describe('queue scripts conformance: runScript gives the same replies on real Redis and on the fake', () => {
  let fake: FakeRedisServer;
  const raws: RawClient[] = [];

  beforeAll(async () => {
    fake = await FakeRedisServer.start({ version: matchingModel() });
  });
  afterAll(async () => {
    for (const raw of raws) raw.close();
    await fake.close();
  });

  async function queueOn(url: string, protocol: 2 | 3, name: string): Promise<Queue> {
    const raw = await connect(url, protocol);
    raws.push(raw);
    return { keys: queueKeys(name, ''), target: commandTarget(raw.client), raw };
  }

  for (const protocol of [2, 3] as const) {
    it(`send, receive, ack, nack, visibility timeout, dead letter and type errors agree (RESP${protocol})`, async () => {
      const name = uniquePrefix(`q${protocol}`);
      const real = normalizeIds(await scenario(await queueOn(realUrl(), protocol, name)));
      const fakeLog = normalizeIds(await scenario(await queueOn(fake.url, protocol, name)));
      expect(fakeLog).toEqual(real);
      // The scenario really exercised the paths it names.
      const text = JSON.stringify(real);
      expect(text).toContain('"label":"ack id1","value":[1]');
      expect(text).toContain('"label":"nack id2 now","value":[1]');
      expect(text).toContain('"label":"raw XLEN wake","value":1');
      expect(text).toContain('"label":"dead-letter stream","value":1');
      expect(text).toContain('"code":"WRONG_TYPE"');
    });
  }

  for (const protocol of [2, 3] as const) {
    it(`sendMany, delayed entries, headers, extend and the wait state agree (RESP${protocol}; beyond the contract)`, async () => {
      const name = uniquePrefix(`b${protocol}`);
      const real = normalizeIds(await beyondScenario(await queueOn(realUrl(), protocol, name)));
      const fakeLog = normalizeIds(await beyondScenario(await queueOn(fake.url, protocol, name)));
      expect(fakeLog).toEqual(real);
      // The scenario really exercised the paths it names.
      const text = JSON.stringify(real);
      expect(text).toContain('"label":"extend an expired lease","value":[0]');
      expect(text).toContain('"+90s"');
      expect(text).toContain('"code":"WRONG_TYPE"');
      expect(text).not.toContain('off by');
    });
  }

  it('EVALSHA falls back to EVAL on NOSCRIPT on both, and the SHA matches the generated registry', async () => {
    for (const url of [realUrl(), fake.url]) {
      const raw = await connect(url, 3);
      raws.push(raw);
      await raw.send(['SCRIPT', 'FLUSH']);
      expect(await raw.send(['SCRIPT', 'EXISTS', scripts.queueAck.sha1])).toEqual([0]);
      const q: Queue = { keys: queueKeys(uniquePrefix('sha'), ''), target: commandTarget(raw.client), raw };
      expect(await ack(q, ['1-1', `1.${TOKEN_A}`])).toEqual([0]);
      expect(await raw.send(['SCRIPT', 'EXISTS', scripts.queueAck.sha1])).toEqual([1]);
    }
  });

  it('permissions: a user without ZADD is refused by receive and extend before any write, on both', async () => {
    const name = uniquePrefix('acl');
    const user = await createAclUser([realUrl(), fake.url], `limited-${name.slice(-8)}`, ['~*', '+@all', '-zadd']);
    const results: unknown[] = [];
    for (const url of [realUrl(), fake.url]) {
      const admin = await queueOn(url, 3, name);
      expect(await send(admin, 'x', 'acl')).toMatchObject([expect.any(String), 0]);
      const limited = await queueOn(user.urlFor(url), 3, name);
      const refused = await receive(limited, { token: TOKEN_A });
      const untouched = await admin.raw.send(['XINFO', 'GROUPS', admin.keys.stream]);
      // Beyond the contract: extend needs ZADD too; the wait state only reads.
      const leased = await receive(admin, { token: TOKEN_C });
      const extendRefused = await extend(limited, 60_000, [idsOf(leased)[0]!, `1.${TOKEN_C}.1`]);
      const waitStateAllowed = Array.isArray(await waitState(limited));
      results.push({ refused, untouched, extendRefused, waitStateAllowed });
    }
    expect(results[0]).toMatchObject({
      refused: { code: 'PERMISSION_DENIED' },
      untouched: [],
      extendRefused: { code: 'PERMISSION_DENIED' },
      waitStateAllowed: true,
    });
    expect(normalizeIds(results[1])).toEqual(normalizeIds(results[0]));
  });
});
