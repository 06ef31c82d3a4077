// Bulk jobs: selected or filtered dead letters retried or deleted in the background, with progress, cancel, resume and a final report.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RespireAdmin, type Job } from '../src/index.js';
import { addQueueRecord, addWorkerRecord, eventually, operator, range, recordingAudit, targets, uniqueKeys, viewer, type Connection } from './support.js';

describe.each(targets)('bulk jobs on $name', (target) => {
  let conn: Connection;
  beforeAll(async () => void (conn = await target.connect()));
  afterAll(async () => conn.close());

  /** An admin over one worker stream whose jobs live under their own key prefix. */
  function world(jobs: Record<string, number> = {}) {
    const { stream, dead, tag } = uniqueKeys('job');
    const { records, audit } = recordingAudit();
    const keyPrefix = `jobs-${randomBytes(4).toString('hex')}:`;
    const admin = (extra: Record<string, number> = {}) =>
      new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], audit, jobs: { keyPrefix, ...jobs, ...extra } });
    return { stream, dead, tag, records, admin: admin(), another: admin };
  }

  /** `n` worker records; every third has reason 'nack', the others 'processing-failed'. */
  async function fill(dead: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push(await addWorkerRecord(conn, dead, `1-${i}`, ['i', String(i)], { reason: i % 3 === 0 ? 'nack' : 'processing-failed' }));
    return ids;
  }

  it('retries selected records in the background and reports what it did: retried, left in place (foreign), already gone', async () => {
    const { stream, dead, admin, records } = world();
    const [a, b] = await fill(dead, 2);
    const foreign = String(await conn.raw(dead, ['XADD', dead, '*', 'not', 'a record']));
    await conn.raw(dead, ['XDEL', dead, b!]);
    const running = await admin.startJob(operator, stream, { action: 'retry', recordIds: [a!, b!, foreign] });
    expect(running.job).toMatchObject({ action: 'retry', state: 'running', total: 3, actor: 'alice', selection: { recordIds: [a, b, foreign] } });
    const done = await running.finished;
    expect(done).toMatchObject({ state: 'done', done: 1, failed: 1, missing: 1, examined: 3, error: null });
    expect(done.finishedMs).toBeGreaterThanOrEqual(done.createdMs);
    expect((await range(conn, dead)).map(([id]) => id)).toEqual([foreign]);
    expect((await range(conn, stream)).map(([, f]) => f)).toEqual([['i', '0']]);
    expect(records.map((r) => [r.action, r.result])).toEqual([
      ['job-start', 'ok'],
      ['job-finish', 'ok'],
    ]);
    expect(records[1]!.target).toMatchObject({ jobId: done.id, done: 1, failed: 1, missing: 1, state: 'done' });
    expect(await admin.job(done.id)).toMatchObject({ id: done.id, state: 'done' });
    expect((await admin.jobs({ resource: stream })).map((j) => j.id)).toEqual([done.id]);
  });

  it('deletes every record matching a filter among those present when it started; records appended meanwhile are untouched', async () => {
    const { stream, dead, admin } = world({ pageSize: 4 });
    const ids = await fill(dead, 20);
    const running = await admin.startJob(operator, stream, { action: 'delete', filter: { reason: 'nack' } });
    const late = await addWorkerRecord(conn, dead, '9-9', ['late', '1'], { reason: 'nack' });
    const done = await running.finished;
    expect(done).toMatchObject({ state: 'done', done: 7, failed: 0, missing: 0, total: 20 });
    expect((await range(conn, dead)).map(([id]) => id)).toEqual([...ids.filter((_, i) => i % 3 !== 0), late]);
    const limited = await (await admin.startJob(operator, stream, { action: 'delete', limit: 5 })).finished;
    expect(limited).toMatchObject({ state: 'done', done: 5, limit: 5 });
  });

  it('reports progress, and stops when any admin on the server cancels it; the records it did not reach stay', async () => {
    const { stream, dead, admin, another, records } = world({ pageSize: 10, ratePerSecond: 200 });
    await fill(dead, 300);
    const seen: Job[] = [];
    const running = await admin.startJob(operator, stream, { action: 'retry' }, { onProgress: (job) => void seen.push(job) });
    await eventually(() => seen.length >= 3);
    const other = another();
    const asked = await other.cancelJob({ name: 'bob', role: 'operator' }, running.job.id);
    expect(asked.status).toBe('asked');
    const final = await running.finished;
    expect(final).toMatchObject({ state: 'cancelled', cancelRequested: true, cancelledBy: 'bob' });
    expect(final.done).toBeGreaterThan(0);
    expect(final.done).toBeLessThan(300);
    expect(await conn.raw(dead, ['XLEN', dead])).toBe(300 - final.done);
    expect(seen.map((j) => j.done)).toEqual([...seen.map((j) => j.done)].sort((x, y) => x - y));
    expect(records.map((r) => r.action)).toEqual(['job-start', 'job-cancel', 'job-finish']);
    expect((await other.cancelJob(operator, running.job.id)).status).toBe('not-running');
  });

  it('a job whose process stopped reads interrupted; another admin resumes it where it stopped, and every record is retried exactly once', async () => {
    const { stream, dead, admin, another } = world({ pageSize: 10, ratePerSecond: 300 });
    await fill(dead, 200);
    const running = await admin.startJob(operator, stream, { action: 'retry' });
    await eventually(async () => ((await admin.job(running.job.id))?.done ?? 0) >= 20);
    await admin.stopJobs();
    const stopped = await running.finished;
    expect(stopped.state).toBe('interrupted');
    expect(stopped.done).toBeLessThan(200);
    const resumed = await another({ ratePerSecond: 0 }).resumeJob(operator, running.job.id);
    const final = await resumed.finished;
    expect(final).toMatchObject({ state: 'done', done: 200, missing: 0, failed: 0 });
    expect(await conn.raw(dead, ['XLEN', dead])).toBe(0);
    const retried = (await range(conn, stream)).map(([, f]) => f[1]);
    expect(retried).toHaveLength(200);
    expect(new Set(retried).size).toBe(200);
    await expect(admin.resumeJob(operator, running.job.id)).rejects.toMatchObject({ argument: 'jobId' });
  });

  it('reads a job as interrupted once its runner is silent for the lease (its process died), and cancels such a job at once', async () => {
    const { stream, dead } = uniqueKeys('job-dead');
    const keyPrefix = `jobs-${randomBytes(4).toString('hex')}:`;
    const admin = new RespireAdmin(conn.client, { streams: [{ stream, deadLetterStream: dead }], jobs: { keyPrefix, leaseMs: 3000 } });
    const id = `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;
    const key = `${keyPrefix}{jobs}:job:${id}`;
    const now = Number(((await conn.raw(key, ['TIME'])) as unknown[])[0]) * 1000;
    // The record a runner leaves when its process dies mid-job: running, owned, last report 2 s ago.
    const fields = {
      id,
      resource: stream,
      action: 'retry',
      selection: '{"filter":{}}',
      actor: 'alice',
      role: 'operator',
      state: 'running',
      owner: 'a-dead-process',
    };
    await conn.raw(key, [
      'HSET',
      key,
      ...Object.entries(fields).flat(),
      'createdMs',
      String(now - 5000),
      'heartbeatMs',
      String(now - 2000),
      'total',
      '9',
      'done',
      '4',
    ]);
    expect(await admin.job(id)).toMatchObject({ state: 'running', done: 4, total: 9 });
    await conn.raw(key, ['HSET', key, 'heartbeatMs', String(now - 4000)]);
    expect(await admin.job(id)).toMatchObject({ state: 'interrupted', done: 4 });
    expect(await admin.cancelJob(operator, id)).toMatchObject({ status: 'cancelled', job: { state: 'cancelled', cancelledBy: 'alice' } });
  });

  it('refuses a viewer before any I/O, a bad spec, and more jobs than maxRunning', async () => {
    const { stream, dead, admin } = world({ maxRunning: 1, ratePerSecond: 5, pageSize: 1 });
    await fill(dead, 20);
    await expect(admin.startJob(viewer, stream, { action: 'retry' })).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
    await expect(admin.startJob(operator, stream, { action: 'purge' as 'retry' })).rejects.toMatchObject({ argument: 'spec.action' });
    await expect(admin.startJob(operator, stream, { action: 'retry', recordIds: [] })).rejects.toMatchObject({ argument: 'spec.recordIds' });
    await expect(admin.startJob(operator, stream, { action: 'retry', recordIds: ['1-1'], filter: {} })).rejects.toMatchObject({ argument: 'spec' });
    const first = await admin.startJob(operator, stream, { action: 'retry' });
    await expect(admin.startJob(operator, stream, { action: 'retry' })).rejects.toMatchObject({ argument: 'jobs' });
    await admin.cancelJob(operator, first.job.id);
    expect((await first.finished).state).toBe('cancelled');
    await expect(admin.job('../etc')).rejects.toMatchObject({ argument: 'jobId' });
  });

  it('runs on a queue too: its dead letters go back to the queue', async () => {
    const name = `jobq-${randomBytes(4).toString('hex')}`;
    const admin = new RespireAdmin(conn.client, { queues: [{ name }], jobs: { keyPrefix: `jobs-${name}:` } });
    const dead = `{respire-queue:${name}}:dead-letter`;
    for (let i = 0; i < 5; i++) await addQueueRecord(conn, dead, `p${i}`);
    const id = `{respire-queue:${name}}:stream`;
    const final = await (await admin.startJob(operator, id, { action: 'retry', filter: { reason: 'delivery-limit' } })).finished;
    expect(final).toMatchObject({ state: 'done', done: 5 });
    expect((await range(conn, id)).map(([, f]) => f[1])).toEqual(['p0', 'p1', 'p2', 'p3', 'p4']);
  });
});
