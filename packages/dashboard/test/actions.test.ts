// The dashboard's actions against real Redis.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  addWorkerDeadLetter,
  bearer,
  csrfFor,
  eventually,
  deadLetterQueueMessages,
  get,
  pendingRows,
  post,
  q,
  queueOf,
  range,
  readAsConsumer,
  sleep,
  startWorld,
  TOKENS,
  xadd,
  xlen,
  type World,
} from './support.js';

/** Each action's effect on the keys, its audit record, and the fencing of pending-entry actions. */
let world: World;
let token: string;

beforeEach(async () => {
  world = await startWorld({ label: 'act', admin: { jobs: { keyPrefix: `jobs-${Math.random().toString(36).slice(2)}:`, pageSize: 2 } } });
  token = await csrfFor(world);
});
afterEach(() => world.close());

const location = (headers: Headers) => decodeURIComponent(headers.get('location') ?? '');

describe('dead letters', () => {
  it('retries a worker dead letter: the original fields go back to the source stream, the record is removed, the action is audited', async () => {
    const source = await xadd(world, world.stream.key, ['order-id', '42', 'status', 'paid']);
    const record = await addWorkerDeadLetter(world, source, ['order-id', '42', 'status', 'paid']);
    const response = await post(world, '/actions/retry', { id: world.stream.id, record, _csrf: token });
    expect(response.status).toBe(303);
    expect(location(response.headers)).toContain('n=retried');
    expect(await xlen(world, world.stream.dead)).toBe(0);
    const entries = await range(world, world.stream.key);
    expect(entries).toHaveLength(2);
    expect(entries[1]![1]).toEqual(['order-id', '42', 'status', 'paid']);
    expect(world.audits).toContainEqual(
      expect.objectContaining({ actor: 'alice', role: 'operator', action: 'retry', resource: world.stream.id, result: 'ok' }),
    );

    const after = await get(world, location(response.headers).replace(world.base, ''));
    expect(after.body).toContain(`Retried dead letter ${record}: appended again as entry ${entries[1]![0]}.`);
  });

  it('retries a queue dead letter: the payload is sent to the queue again and received', async () => {
    await deadLetterQueueMessages(world, ['order 7 shipped']);
    const [record] = await range(world, world.queue.deadKey);
    const response = await post(world, '/actions/retry', { id: world.queue.id, record: record![0], _csrf: token });
    expect(response.status).toBe(303);
    expect(await xlen(world, world.queue.deadKey)).toBe(0);
    const received = await queueOf(world, 5).receive(10_000, { max: 10 });
    expect(received.map((m) => m.payload)).toEqual(['order 7 shipped']);
  });

  it('deletes a dead letter through the confirmation step', async () => {
    const record = await addWorkerDeadLetter(world, '1-1', ['a', 'b']);
    const confirm = await get(world, `/confirm/delete${q({ id: world.stream.id, record })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('Delete dead letter');
    expect(confirm.body).toMatch(/<form method="post" action="\/ops\/respire\/actions\/delete"/);
    const response = await post(world, '/actions/delete', { id: world.stream.id, record, _csrf: token });
    expect(response.status).toBe(303);
    expect(await xlen(world, world.stream.dead)).toBe(0);
    expect(world.audits).toContainEqual(expect.objectContaining({ action: 'delete', actor: 'alice', result: 'ok' }));
  });

  it('answers 409 "already gone" when the record was retried or deleted meanwhile', async () => {
    const record = await addWorkerDeadLetter(world, '1-1', ['a', 'b']);
    await world.raw(world.stream.dead, ['XDEL', world.stream.dead, record]);
    const retry = await post(world, '/actions/retry', { id: world.stream.id, record, _csrf: token });
    expect(retry.status).toBe(409);
    expect(retry.body).toContain('no longer there');
    expect((await post(world, '/actions/delete', { id: world.stream.id, record, _csrf: token })).status).toBe(409);
  });

  it('retries all as a background job: a confirmation, then the job page with its progress and report; the job is audited', async () => {
    for (let i = 0; i < 5; i++) await addWorkerDeadLetter(world, await xadd(world, world.stream.key, ['n', String(i)]), ['n', String(i)]);
    const confirm = await get(world, `/confirm/job${q({ id: world.stream.id, action: 'retry' })}`);
    expect(confirm.status).toBe(200);
    expect(confirm.body).toContain('Retry every dead letter (5 now)');
    const started = await post(world, '/actions/job', { id: world.stream.id, action: 'retry', _csrf: token });
    expect(started.status).toBe(303);
    const jobPath = location(started.headers).replace(world.base, '');
    expect(jobPath).toMatch(/^\/job\?job=[\w-]+$/);
    await eventually(async () => (await xlen(world, world.stream.dead)) === 0);
    const report = await eventually(async () => {
      const page = await get(world, jobPath);
      return page.body.includes('Retried 5 dead letters.') ? page : undefined;
    });
    expect(report!.body).toContain('<span class="job-state job-done">done</span>');
    expect((await range(world, world.stream.key)).slice(5).map(([, f]) => f[1])).toEqual(['0', '1', '2', '3', '4']);
    await eventually(() => world.audits.some((a) => a.action === 'job-finish'));
    expect(world.audits.filter((a) => a.action.startsWith('job-')).map((a) => [a.action, a.result])).toEqual([
      ['job-start', 'ok'],
      ['job-finish', 'ok'],
    ]);
  });

  it('deletes the selected records as a job (a POST of the selection, then a confirmation), and those matching a search', async () => {
    await deadLetterQueueMessages(world, ['a', 'b', 'c', 'd']);
    const ids = (await range(world, world.queue.deadKey)).map(([id]) => id);
    const body = new URLSearchParams([
      ['id', world.queue.id],
      ['action', 'delete'],
      ['_csrf', token],
      ...ids.slice(0, 2).map((id): [string, string] => ['record', id]),
    ]);
    const confirm = await fetch(`${world.url}/confirm/job`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: world.origin, ...bearer(TOKENS.operator) },
      body: body.toString(),
    });
    expect(confirm.status).toBe(200);
    const html = await confirm.text();
    expect(html).toContain('Delete 2 selected dead letters');
    expect(html).toContain(`name="records" value="${ids[0]},${ids[1]}"`);
    const started = await post(world, '/actions/job', { id: world.queue.id, action: 'delete', records: `${ids[0]},${ids[1]}`, _csrf: token });
    expect(started.status).toBe(303);
    await eventually(async () => (await xlen(world, world.queue.deadKey)) === 2);
    expect((await range(world, world.queue.deadKey)).map(([id]) => id)).toEqual(ids.slice(2));
    const searched = await post(world, '/actions/job', { id: world.queue.id, action: 'delete', reason: 'delivery-limit', _csrf: token });
    expect(searched.status).toBe(303);
    await eventually(async () => (await xlen(world, world.queue.deadKey)) === 0);
  });
});

describe('pending entries', () => {
  it('releases a pending entry for redelivery, carrying the delivery count and owner shown', async () => {
    const id = await xadd(world, world.stream.key, ['order-id', '1']);
    await readAsConsumer(world, 'c-1', 1);
    const page = await get(world, `/group${q({ id: world.stream.id, group: world.stream.group })}`);
    expect(page.body).toContain(`name="deliveryCount" value="1"`);
    expect(page.body).toContain(`name="consumer" value="c-1"`);
    const response = await post(world, '/actions/release', {
      id: world.stream.id,
      group: world.stream.group,
      entry: id,
      deliveryCount: 1,
      consumer: 'c-1',
      _csrf: token,
    });
    expect(response.status).toBe(303);
    expect(location(response.headers)).toContain('n=released');
    // Released: claimable at once by any reader (its idle time is past every minimum idle time).
    const claimed = (await world.raw(world.stream.key, [
      'XAUTOCLAIM',
      world.stream.key,
      world.stream.group,
      'c-2',
      '60000',
      '0-0',
      'COUNT',
      '10',
    ])) as unknown[];
    expect(((claimed[1] as unknown[][]) ?? []).map((e) => String(e[0]))).toEqual([id]);
    expect(world.audits).toContainEqual(expect.objectContaining({ action: 'release', actor: 'alice', result: 'ok' }));
  });

  it('refuses to release or ack an entry whose delivery count or owner changed since the page was rendered, and says so', async () => {
    const id = await xadd(world, world.stream.key, ['order-id', '1']);
    await readAsConsumer(world, 'c-1', 1);
    // Shown: c-1, 1 delivery. Meanwhile another reader claims it (delivery count 2, owner c-2).
    await world.raw(world.stream.key, ['XCLAIM', world.stream.key, world.stream.group, 'c-2', '0', id]);
    for (const action of ['release', 'ack']) {
      const response = await post(world, `/actions/${action}`, {
        id: world.stream.id,
        group: world.stream.group,
        entry: id,
        deliveryCount: 1,
        consumer: 'c-1',
        _csrf: token,
      });
      expect(response.status).toBe(409);
      expect(response.body).toContain('Changed since the page was rendered');
      expect(response.body).toContain('Nothing was done');
      expect(response.body).toMatch(/owner <span class="name">c-2<\/span>, 2 deliveries/);
    }
    expect(await pendingRows(world, world.stream.key, world.stream.group)).toEqual([expect.objectContaining({ id, consumer: 'c-2', count: 2 })]);
    expect(world.audits.filter((a) => a.result === 'changed')).toHaveLength(2);
  });

  it('deletes nothing when an ack with "also delete" finds the entry changed', async () => {
    const id = await xadd(world, world.stream.key, ['order-id', '7']);
    await readAsConsumer(world, 'c-1', 1);
    await world.raw(world.stream.key, ['XCLAIM', world.stream.key, world.stream.group, 'c-2', '0', id]);
    const response = await post(world, '/actions/ack', {
      id: world.stream.id,
      group: world.stream.group,
      entry: id,
      deliveryCount: 1,
      consumer: 'c-1',
      deleteEntry: '1',
      _csrf: token,
    });
    expect(response.status).toBe(409);
    expect((await range(world, world.stream.key)).map(([entry]) => entry)).toEqual([id]);
    expect(await pendingRows(world, world.stream.key, world.stream.group)).toEqual([expect.objectContaining({ id, consumer: 'c-2' })]);
  });

  it('acks a pending entry, and with "also delete" removes it from the stream', async () => {
    const a = await xadd(world, world.stream.key, ['n', 'a']);
    const b = await xadd(world, world.stream.key, ['n', 'b']);
    await readAsConsumer(world, 'c-1', 2);
    const confirm = await get(world, `/confirm/ack${q({ id: world.stream.id, group: world.stream.group, entry: a, deliveryCount: 1, consumer: 'c-1' })}`);
    expect(confirm.body).toContain('Also delete the entry from the stream');
    expect(
      (await post(world, '/actions/ack', { id: world.stream.id, group: world.stream.group, entry: a, deliveryCount: 1, consumer: 'c-1', _csrf: token })).status,
    ).toBe(303);
    const ack2 = await post(world, '/actions/ack', {
      id: world.stream.id,
      group: world.stream.group,
      entry: b,
      deliveryCount: 1,
      consumer: 'c-1',
      deleteEntry: '1',
      _csrf: token,
    });
    expect(ack2.status).toBe(303);
    expect(await pendingRows(world, world.stream.key, world.stream.group)).toEqual([]);
    expect((await range(world, world.stream.key)).map(([id]) => id)).toEqual([a]);
    const again = await post(world, '/actions/ack', {
      id: world.stream.id,
      group: world.stream.group,
      entry: a,
      deliveryCount: 1,
      consumer: 'c-1',
      _csrf: token,
    });
    expect(again.status).toBe(409);
    expect(again.body).toContain('no longer pending');
  });

  it('removes idle consumers without pending entries and keeps those that hold some', async () => {
    await xadd(world, world.stream.key, ['n', '1']);
    await readAsConsumer(world, 'busy', 1);
    await world.raw(world.stream.key, ['XGROUP', 'CREATECONSUMER', world.stream.key, world.stream.group, 'idle-one']);
    await world.raw(world.stream.key, ['XGROUP', 'CREATECONSUMER', world.stream.key, world.stream.group, 'idle-two']);
    // Threshold of one minute: nobody is that idle yet, nothing is removed.
    const none = await post(world, '/actions/remove-idle-consumers', { id: world.stream.id, group: world.stream.group, minIdleMs: 60_000, _csrf: token });
    expect(location(none.headers)).toMatch(/n\.n=0/);
    expect((await world.admin.consumers(world.stream.id, world.stream.group)).items.map((c) => c.name).sort()).toEqual(['busy', 'idle-one', 'idle-two']);
    // Below the one-second floor the form is refused.
    expect((await post(world, '/actions/remove-idle-consumers', { id: world.stream.id, group: world.stream.group, minIdleMs: 999, _csrf: token })).status).toBe(
      400,
    );
    await sleep(1100);
    const removed = await post(world, '/actions/remove-idle-consumers', { id: world.stream.id, group: world.stream.group, minIdleMs: 1000, _csrf: token });
    expect(location(removed.headers)).toMatch(/n\.n=2.*n\.kept=1/);
    expect((await world.admin.consumers(world.stream.id, world.stream.group)).items.map((c) => c.name)).toEqual(['busy']);
    expect(await pendingRows(world, world.stream.key, world.stream.group)).toHaveLength(1);
    const notice = await get(world, location(removed.headers).replace(world.base, ''));
    expect(notice.body).toContain('Removed 2 idle consumers; kept 1 that still hold pending entries.');
    expect(world.audits).toContainEqual(expect.objectContaining({ action: 'remove-idle-consumers', actor: 'alice', result: 'ok' }));
    const review = await get(world, `/confirm/remove-idle-consumers${q({ id: world.stream.id, group: world.stream.group, minIdleMinutes: 1 })}`);
    expect(review.status).toBe(200);
    expect(review.body).toContain('Would be removed now (0)');
  });
});

describe('scripted clients', () => {
  it('GET /api/token answers the CSRF token as JSON; an action posted with it and Accept: application/json answers its result as JSON (409 when refused)', async () => {
    const answer = await get(world, '/api/token');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    const { principal, csrfToken, expiresInMs } = JSON.parse(answer.body) as { principal: unknown; csrfToken: string; expiresInMs: number };
    expect(principal).toEqual({ name: 'alice', role: 'operator' });
    expect(expiresInMs).toBe(12 * 3600 * 1000);
    const source = await xadd(world, world.stream.key, ['order-id', '7']);
    const record = await addWorkerDeadLetter(world, source, ['order-id', '7']);
    // A script sends the token as a header, no Sec-Fetch-Site, the dashboard's Origin.
    const headers = { 'x-csrf-token': csrfToken, accept: 'application/json', 'sec-fetch-site': '' };
    const retried = await post(world, '/actions/retry', { id: world.stream.id, record }, { headers });
    expect(retried.status).toBe(200);
    expect(JSON.parse(retried.body)).toEqual({ status: 'retried', newId: expect.stringMatching(/^\d+-\d+$/) });
    const again = await post(world, '/actions/retry', { id: world.stream.id, record }, { headers });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body)).toEqual({ status: 'missing' });
    // Without the token nothing happens, JSON or not.
    const forged = await post(world, '/actions/delete', { id: world.stream.id, record }, { headers: { accept: 'application/json', 'sec-fetch-site': '' } });
    expect(forged.status).toBe(403);
    // A viewer gets a token too (for reads), and its actions are refused all the same.
    const viewer = JSON.parse((await get(world, '/api/token', TOKENS.viewer)).body) as { principal: unknown; csrfToken: string };
    expect(viewer.principal).toEqual({ name: 'victor', role: 'viewer' });
    const refused = await post(
      world,
      '/actions/delete',
      { id: world.stream.id, record },
      { token: TOKENS.viewer, headers: { ...headers, 'x-csrf-token': viewer.csrfToken } },
    );
    expect(refused.status).toBe(403);
  });
});
