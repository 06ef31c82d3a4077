// Bulk jobs: retry or delete selected or filtered dead letters in the background, with progress, cancel and a final report, kept in Redis.
import { randomBytes } from 'node:crypto';
import type { Actor, DeadLetterFilter, Job, JobSpec, Resource, ResourceId, RunningJob } from './api.js';
import type { AdminContext } from './context.js';
import { matcher } from './dead-letter-pages.js';
import { retry } from './dead-letter-actions.js';
import { queueRecord, workerRecord } from './records.js';
import { RespireValidationError, isRespireError, parseEntries, text } from './redis.js';
import { deadLetterKey } from './resources.js';
import { idRange, readStreamPage } from './stream-pages.js';
import { toCount, toEntryId, toList, toName, toOptions } from './validate.js';

/** How jobs are kept and run (`RespireAdminOptions.jobs`). */
export interface JobSettings {
  /** Prefix of the job keys: `<prefix>{jobs}:index` and `<prefix>{jobs}:job:<id>` (one slot). @defaultValue 'respire:' */
  readonly keyPrefix?: string;
  /** How long a job is kept after it started or finished, ms (1 hour..90 days). @defaultValue 7 days */
  readonly retentionMs?: number;
  /** Records per page (one script call or XDEL each), 1..1000. @defaultValue 500 */
  readonly pageSize?: number;
  /** Records per second at most, 0 for no limit. @defaultValue 0 */
  readonly ratePerSecond?: number;
  /** Records one job handles at most, 1..100,000,000. @defaultValue 10,000,000 */
  readonly maxRecords?: number;
  /** Jobs this process runs at once, 1..100; more are refused (RespireStateError-like validation). @defaultValue 4 */
  readonly maxRunning?: number;
  /** A runner that has not reported for this long is taken for dead: its job reads `interrupted`, ms (3,000..600,000). @defaultValue 30,000 */
  readonly leaseMs?: number;
}

const DAY_MS = 86_400_000;

export function jobSettings(value: unknown): Required<JobSettings> {
  const o = toOptions('jobs', value as JobSettings | undefined, [
    'keyPrefix',
    'retentionMs',
    'pageSize',
    'ratePerSecond',
    'maxRecords',
    'maxRunning',
    'leaseMs',
  ]);
  const keyPrefix = o.keyPrefix === undefined ? 'respire:' : toName('jobs.keyPrefix', o.keyPrefix, 1024);
  if (/[{}]/.test(keyPrefix)) throw new RespireValidationError('jobs.keyPrefix', "must not contain '{' or '}' (the job keys add their own hash tag)");
  return {
    keyPrefix,
    retentionMs: toCount('jobs.retentionMs', o.retentionMs, 7 * DAY_MS, 3_600_000, 90 * DAY_MS),
    pageSize: toCount('jobs.pageSize', o.pageSize, 500, 1, 1000),
    ratePerSecond: toCount('jobs.ratePerSecond', o.ratePerSecond, 0, 0, 1_000_000),
    maxRecords: toCount('jobs.maxRecords', o.maxRecords, 10_000_000, 1, 100_000_000),
    maxRunning: toCount('jobs.maxRunning', o.maxRunning, 4, 1, 100),
    leaseMs: toCount('jobs.leaseMs', o.leaseMs, 30_000, 3000, 600_000),
  };
}

/** The job keys of a prefix. */
export const jobKeys = (prefix: string, jobId?: string) => ({ index: `${prefix}{jobs}:index`, job: `${prefix}{jobs}:job:${jobId ?? ''}` });

/** A job ID: time then randomness, so IDs sort roughly by creation and never collide. */
const JOB_ID = /^[0-9a-z]{6,12}-[0-9a-f]{12}$/;
const newJobId = () => `${Date.now().toString(36)}-${randomBytes(6).toString('hex')}`;

/**
 * The jobs of one admin: kept in Redis (so every dashboard instance and the CLI see the same
 * jobs, and a job outlives the process that started it), run by the process that starts or
 * resumes them, one page at a time, fenced by ownership.
 */
export class Jobs {
  readonly #ctx: AdminContext;
  readonly #s: Required<JobSettings>;
  /** This process's runner token. */
  readonly #owner = randomBytes(12).toString('hex');
  readonly #running = new Map<string, { flags: RunFlags; finished: Promise<Job> }>();

  constructor(ctx: AdminContext, settings: Required<JobSettings>) {
    this.#ctx = ctx;
    this.#s = settings;
  }

  /** Starts a job (see `RespireAdmin.startJob`). */
  async start(actor: Actor, id: ResourceId, spec: JobSpec, onProgress?: (job: Job) => void): Promise<RunningJob> {
    const who = this.#ctx.auditor.operator(actor, 'job-start', id, {});
    const s = toOptions('spec', spec, ['action', 'recordIds', 'filter', 'limit']);
    if (s.action !== 'retry' && s.action !== 'delete')
      throw new RespireValidationError('spec.action', `must be 'retry' or 'delete', got ${JSON.stringify(s.action)}`);
    if (s.recordIds !== undefined && s.filter !== undefined) throw new RespireValidationError('spec', 'give recordIds or a filter, not both');
    const recordIds = s.recordIds === undefined ? undefined : toList('spec.recordIds', s.recordIds).map((r, i) => toEntryId(`spec.recordIds[${i}]`, r));
    if (recordIds !== undefined && (recordIds.length === 0 || recordIds.length > 1000)) {
      throw new RespireValidationError('spec.recordIds', `must hold 1 to 1000 record IDs, got ${recordIds.length}`);
    }
    const filter = recordIds ? undefined : checkedFilter(s.filter);
    const limit = s.limit === undefined ? null : toCount('spec.limit', s.limit, 0, 1, this.#s.maxRecords);
    onProgressCheck(onProgress);
    this.#checkCapacity();
    const r = await this.#ctx.resources.get(id);
    if (r.kind === 'stream' && r.deadLetterStream === undefined) throw new RespireValidationError('resource', `'${r.id}' has no dead-letter stream configured`);
    const dead = deadLetterKey(r);
    const op = 'RespireAdmin startJob';
    // The selection's end: records appended after the job starts are never touched.
    const [length, last] = await Promise.all([
      this.#ctx.redis.send(dead, ['XLEN', dead], op),
      this.#ctx.redis.send(dead, ['XREVRANGE', dead, '+', '-', 'COUNT', '1'], op),
    ]);
    const endId = parseEntries(last)[0]?.id ?? '0-0';
    const jobId = newJobId();
    const selection = recordIds ? { recordIds } : { filter: filter! };
    const fields: Record<string, string> = {
      resource: r.id,
      action: s.action,
      selection: JSON.stringify(selection),
      limit: limit === null ? '' : String(limit),
      actor: who.name,
      role: who.role,
      total: String(recordIds ? recordIds.length : Math.min(Number(length), limit ?? Number.MAX_SAFE_INTEGER)),
      examined: '0',
      done: '0',
      failed: '0',
      missing: '0',
      cursor: '',
      endId,
    };
    const keys = jobKeys(this.#s.keyPrefix, jobId);
    const target = {
      jobId,
      action: s.action,
      ...(recordIds ? { records: recordIds.length } : { filter: JSON.stringify(filter) }),
      ...(limit ? { limit } : {}),
    };
    await this.#ctx.auditor.run(who, 'job-start', r.id, target, async () => {
      const reply = await this.#ctx.redis.script(
        'jobCreate',
        { job: keys.job, index: keys.index, jobId, owner: this.#owner, retentionMs: this.#s.retentionMs, fields: Object.entries(fields).flat() },
        op,
      );
      if (reply.status !== 'created') throw new RespireValidationError('jobId', `job ${jobId} exists already`);
      return { value: undefined, result: 'ok' };
    });
    return this.#run(who, r, jobId, onProgress);
  }

  /** Resumes an interrupted job (see `RespireAdmin.resumeJob`). */
  async resume(actor: Actor, jobId: string, onProgress?: (job: Job) => void): Promise<RunningJob> {
    const j = toJobId(jobId);
    // A viewer is refused before any I/O; the refusal names the job's key, its resource not being read yet.
    const who = this.#ctx.auditor.operator(actor, 'job-start', jobKeys(this.#s.keyPrefix, j).job, { jobId: j, resumed: 'true' });
    onProgressCheck(onProgress);
    const job = await this.get(j);
    if (!job) throw new RespireValidationError('jobId', `no job '${j}' (unknown, or expired)`);
    if (job.state !== 'interrupted') throw new RespireValidationError('jobId', `job ${j} is ${job.state}: only an interrupted job can be resumed`);
    this.#checkCapacity();
    const r = await this.#ctx.resources.get(job.resource);
    await this.#ctx.auditor.run(who, 'job-start', r.id, { jobId: j, resumed: 'true' }, async () => {
      const claimed = await this.#step(j, 'claim', {});
      if (!claimed.mine) throw new RespireValidationError('jobId', `job ${j} is no longer interrupted (${claimed.state || 'gone'})`);
      return { value: undefined, result: 'ok' };
    });
    return this.#run(who, r, j, onProgress);
  }

  /** Asks a job to stop (see `RespireAdmin.cancelJob`). */
  async cancel(actor: Actor, jobId: string): Promise<{ status: 'asked' | 'cancelled' | 'not-running'; job: Job | null }> {
    const j = toJobId(jobId);
    const who = this.#ctx.auditor.operator(actor, 'job-cancel', jobKeys(this.#s.keyPrefix, j).job, { jobId: j });
    const before = await this.get(j);
    const resource = before?.resource ?? jobKeys(this.#s.keyPrefix, j).job;
    const status = await this.#ctx.auditor.run(who, 'job-cancel', resource, { jobId: j }, async () => {
      const reply = await this.#ctx.redis.script(
        'jobCancel',
        { job: jobKeys(this.#s.keyPrefix, j).job, actor: who.name, leaseMs: this.#s.leaseMs, retentionMs: this.#s.retentionMs },
        'RespireAdmin cancelJob',
      );
      if (reply.status === 'notRunning') return { value: 'not-running' as const, result: 'missing', detail: `the job is ${reply.state || 'unknown'}` };
      return { value: reply.status, result: 'ok' };
    });
    // A runner of this process stops before its next page, rather than after its next report.
    const local = this.#running.get(j);
    if (status !== 'not-running' && local) local.flags.cancelled = true;
    return { status, job: await this.get(j) };
  }

  /** One job, with `interrupted` derived from its runner's last report. */
  async get(jobId: string): Promise<Job | null> {
    const j = toJobId(jobId);
    const key = jobKeys(this.#s.keyPrefix, j).job;
    const [reply, now] = await Promise.all([this.#ctx.redis.send(key, ['HGETALL', key], 'RespireAdmin job'), this.#ctx.redis.timeMs(key, 'RespireAdmin job')]);
    return toJob(hashOf(reply), now, this.#s.leaseMs);
  }

  /** Recent jobs, newest first (index entries whose job expired are left out). */
  async list(options?: { readonly resource?: ResourceId; readonly count?: number }): Promise<Job[]> {
    const o = toOptions('options', options, ['resource', 'count']);
    const count = toCount('count', o.count, 50, 1, 1000);
    const { index } = jobKeys(this.#s.keyPrefix);
    const op = 'RespireAdmin jobs';
    // With a resource filter more index entries are read, still bounded.
    const ids = (
      (await this.#ctx.redis.send(index, ['ZRANGE', index, '+inf', '-inf', 'BYSCORE', 'REV', 'LIMIT', '0', String(o.resource ? 1000 : count)], op)) as unknown[]
    ).map(text);
    const now = await this.#ctx.redis.timeMs(index, op);
    const replies = await Promise.all(ids.map((j) => this.#ctx.redis.send(index, ['HGETALL', jobKeys(this.#s.keyPrefix, j).job], op)));
    const jobs = replies.map((reply) => toJob(hashOf(reply), now, this.#s.leaseMs)).filter((x): x is Job => x !== null);
    return (o.resource === undefined ? jobs : jobs.filter((x) => x.resource === o.resource)).slice(0, count);
  }

  /** Stops this process's runners after their current page; their jobs read `interrupted` and can be resumed. */
  async stopAll(): Promise<void> {
    const all = [...this.#running.values()];
    for (const r of all) r.flags.stopped = true;
    await Promise.all(all.map((r) => r.finished));
  }

  #checkCapacity(): void {
    if (this.#running.size >= this.#s.maxRunning) {
      throw new RespireValidationError(
        'jobs',
        `${this.#running.size} jobs are running in this process, the most it runs at once (jobs.maxRunning): wait for one to finish`,
      );
    }
  }

  /** Claims, reports progress or finishes; `mine` false when the job is not running or another runner owns it. */
  async #step(
    jobId: string,
    step: 'claim' | 'progress' | 'finish',
    fields: Record<string, string>,
  ): Promise<{ mine: boolean; cancel: boolean; state: string }> {
    const reply = await this.#ctx.redis.script(
      'jobStep',
      {
        job: jobKeys(this.#s.keyPrefix, jobId).job,
        owner: this.#owner,
        step,
        leaseMs: this.#s.leaseMs,
        retentionMs: this.#s.retentionMs,
        fields: Object.entries(fields).flat(),
      },
      `RespireAdmin job ${step}`,
    );
    return reply.status === 'done' ? { mine: true, cancel: reply.cancel === '1', state: reply.cancel } : { mine: false, cancel: false, state: reply.state };
  }

  /** Runs a claimed job in the background. */
  async #run(actor: Actor, r: Resource, jobId: string, onProgress?: (job: Job) => void): Promise<RunningJob> {
    const flags: RunFlags = { stopped: false, cancelled: false };
    const job = (await this.get(jobId))!;
    const finished = this.#loop(actor, r, job, flags, onProgress)
      .catch(() => undefined)
      .then(async () => (await this.get(jobId).catch(() => null)) ?? job)
      .finally(() => this.#running.delete(jobId));
    this.#running.set(jobId, { flags, finished });
    return { job, finished };
  }

  /** The pages of a job, until its selection ends, its limit, a cancel, a stop or an error. */
  async #loop(actor: Actor, r: Resource, start: Job, flags: RunFlags, onProgress?: (job: Job) => void): Promise<void> {
    const dead = deadLetterKey(r);
    const counts = { examined: start.examined, done: start.done, failed: start.failed, missing: start.missing };
    const raw = hashOf(
      await this.#ctx.redis.send(jobKeys(this.#s.keyPrefix, start.id).job, ['HGETALL', jobKeys(this.#s.keyPrefix, start.id).job], 'RespireAdmin job'),
    );
    let cursor = raw.get('cursor') || undefined;
    const endId = raw.get('endId') ?? '0-0';
    const limit = start.limit ?? this.#s.maxRecords;
    const began = Date.now();
    const startedDone = counts.done + counts.failed + counts.missing;
    // A heartbeat while a page is in flight keeps a slow page from reading as interrupted.
    let lost = false;
    let cancel = false;
    const heartbeat = setInterval(
      () =>
        void this.#step(start.id, 'progress', {}).then(
          (s) => {
            lost ||= !s.mine;
            cancel ||= s.cancel;
          },
          () => {},
        ),
      Math.floor(this.#s.leaseMs / 3),
    );
    heartbeat.unref?.();
    const finish = async (state: 'done' | 'cancelled' | 'failed' | 'interrupted', error?: string) => {
      clearInterval(heartbeat);
      const fields: Record<string, string> = { ...strings(counts), cursor: cursor ?? '' };
      if (state === 'interrupted') fields.owner = '';
      else fields.state = state;
      if (error) fields.error = error;
      const result = await this.#step(start.id, state === 'interrupted' ? 'progress' : 'finish', fields).catch(() => ({ mine: false }));
      if (!result.mine || state === 'interrupted') return;
      await this.#ctx.auditor.note(
        actor,
        'job-finish',
        r.id,
        { jobId: start.id, action: start.action, done: counts.done, failed: counts.failed, missing: counts.missing, state },
        state === 'failed' ? 'failed' : 'ok',
        state === 'cancelled' ? 'cancelled' : error,
      );
    };
    try {
      const pages = pagesOf(this.#ctx, r, dead, start, endId, this.#s.pageSize);
      for (;;) {
        if (lost) return; // another runner took the job over: it reports from now on
        if (cancel || flags.cancelled) return await finish('cancelled');
        if (flags.stopped) return await finish('interrupted');
        const acted = counts.done + counts.failed + counts.missing;
        if (acted >= limit) return await finish('done');
        const page = await pages.next(cursor, limit - acted);
        if (!page) return await finish('done');
        counts.examined += page.examined;
        if (page.ids.length > 0) {
          const outcome = await act(this.#ctx, r, start.action, page.ids);
          counts.done += outcome.done;
          counts.failed += outcome.failed;
          counts.missing += outcome.missing;
        }
        cursor = page.cursor;
        const report = await this.#step(start.id, 'progress', { ...strings(counts), cursor: cursor ?? '' });
        if (!report.mine) return;
        cancel ||= report.cancel;
        if (onProgress) {
          const now = await this.get(start.id).catch(() => null);
          if (now) safely(() => onProgress(now));
        }
        if (this.#s.ratePerSecond > 0) {
          const handled = counts.done + counts.failed + counts.missing - startedDone;
          const ahead = (handled / this.#s.ratePerSecond) * 1000 - (Date.now() - began);
          if (ahead > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(ahead, this.#s.leaseMs / 3)));
        }
      }
    } catch (error) {
      const code = isRespireError(error) ? error.code : 'ERROR';
      await finish('failed', `${code}: ${(error as Error)?.message ?? String(error)}`).catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }
}

/** What stops a runner of this process: `stopAll` (the job reads interrupted) or a cancel made here. */
interface RunFlags {
  stopped: boolean;
  cancelled: boolean;
}

/** The next page of a job's selection: the records to act on, how many were read, the cursor after it. */
interface JobPages {
  next(cursor: string | undefined, room: number): Promise<{ ids: string[]; examined: number; cursor: string } | undefined>;
}

function pagesOf(ctx: AdminContext, r: Resource, dead: string, job: Job, endId: string, pageSize: number): JobPages {
  if ('recordIds' in job.selection) {
    const ids = job.selection.recordIds;
    return {
      async next(cursor, room) {
        // The cursor is the number of IDs handled.
        const from = cursor === undefined ? 0 : Number(cursor);
        if (from >= ids.length) return undefined;
        const page = ids.slice(from, from + Math.min(pageSize, room));
        return { ids: [...page], examined: page.length, cursor: String(from + page.length) };
      },
    };
  }
  const filter = job.selection.filter;
  const match = matcher(filter);
  const parse = r.kind === 'queue' ? queueRecord : workerRecord;
  const plain = filter.reason === undefined && filter.group === undefined && filter.exceptionType === undefined && filter.sourceId === undefined;
  const { low } = idRange(filter.sinceMs, undefined);
  const high = filter.untilMs === undefined ? endId : minId(endId, `${filter.untilMs}-18446744073709551615`);
  return {
    async next(cursor, room) {
      if (endId === '0-0') return undefined;
      const want = Math.min(pageSize, room);
      const found = await readStreamPage(ctx, {
        key: dead,
        order: 'oldest',
        count: want,
        page: cursor === undefined ? { at: 'first' } : { at: 'after', id: cursor },
        low,
        high,
        read: (entry) => {
          const record = parse(entry.id, entry.fields);
          return plain || match(record) ? record.id : undefined;
        },
        // A filtered page reads at most 10 pages' worth of records before it reports progress.
        ...(plain ? {} : { budget: want * 10 }),
        operation: 'RespireAdmin job',
      });
      if (found.items.length === 0 && found.next === undefined) return undefined;
      const examined = plain ? found.items.length : found.scanned;
      // The next page starts after the last record acted on, or after the last one a search read.
      return { ids: found.items, examined, cursor: found.next ?? found.items.at(-1)! };
    },
  };
}

/** The smaller of two entry IDs. */
function minId(a: string, b: string): string {
  const [am, as] = a.split('-').map(BigInt) as [bigint, bigint];
  const [bm, bs] = b.split('-').map(BigInt) as [bigint, bigint];
  return am < bm || (am === bm && as <= bs) ? a : b;
}

/** Retries or deletes one page of records. */
async function act(ctx: AdminContext, r: Resource, action: 'retry' | 'delete', ids: string[]): Promise<{ done: number; failed: number; missing: number }> {
  if (action === 'retry') {
    const statuses = await retry(ctx, r, ids);
    return {
      done: statuses.filter((x) => x.status === 1).length,
      failed: statuses.filter((x) => x.status === -1).length,
      missing: statuses.filter((x) => x.status === 0).length,
    };
  }
  const dead = deadLetterKey(r);
  const deleted = Number(await ctx.redis.send(dead, ['XDEL', dead, ...ids], 'RespireAdmin job delete'));
  return { done: deleted, failed: 0, missing: ids.length - deleted };
}

function checkedFilter(value: unknown): DeadLetterFilter {
  if (value === undefined) return {};
  const f = toOptions('spec.filter', value as DeadLetterFilter, ['reason', 'group', 'exceptionType', 'sourceId', 'sinceMs', 'untilMs']);
  const out: { -readonly [K in keyof DeadLetterFilter]: DeadLetterFilter[K] } = {};
  if (f.reason !== undefined) out.reason = toName('spec.filter.reason', f.reason, 64);
  if (f.group !== undefined) out.group = toName('spec.filter.group', f.group, 65_536);
  if (f.exceptionType !== undefined) out.exceptionType = toName('spec.filter.exceptionType', f.exceptionType, 256);
  if (f.sourceId !== undefined) out.sourceId = toEntryId('spec.filter.sourceId', f.sourceId);
  if (f.sinceMs !== undefined) out.sinceMs = toCount('spec.filter.sinceMs', f.sinceMs, 0, 0, Number.MAX_SAFE_INTEGER);
  if (f.untilMs !== undefined) out.untilMs = toCount('spec.filter.untilMs', f.untilMs, 0, 0, Number.MAX_SAFE_INTEGER);
  return out;
}

function onProgressCheck(onProgress: unknown): void {
  if (onProgress !== undefined && typeof onProgress !== 'function') throw new RespireValidationError('onProgress', 'must be a function');
}

function toJobId(value: unknown): string {
  if (typeof value !== 'string' || !JOB_ID.test(value))
    throw new RespireValidationError('jobId', `must be a job ID such as lq3x9a2b-0a1b2c3d4e5f, got ${JSON.stringify(String(value).slice(0, 40))}`);
  return value;
}

const strings = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, String(v)]));

function safely(call: () => void): void {
  try {
    call();
  } catch {
    // a progress callback never breaks the job
  }
}

/** HGETALL reply (RESP2 flat or RESP3 map) as a Map. */
function hashOf(reply: unknown): Map<string, string> {
  const out = new Map<string, string>();
  if (Array.isArray(reply)) for (let i = 0; i + 1 < reply.length; i += 2) out.set(text(reply[i]), text(reply[i + 1]));
  else if (reply instanceof Map) for (const [k, v] of reply) out.set(text(k), text(v));
  else if (reply && typeof reply === 'object') for (const [k, v] of Object.entries(reply)) out.set(k, text(v));
  return out;
}

/** A job hash as a {@link Job}; null when it is empty (unknown or expired). */
function toJob(h: Map<string, string>, nowMs: number, leaseMs: number): Job | null {
  const id = h.get('id');
  if (!id) return null;
  const n = (name: string) => Number(h.get(name) ?? 0);
  const stored = h.get('state') as Job['state'];
  const heartbeatMs = n('heartbeatMs');
  const interrupted = stored === 'running' && (!h.get('owner') || nowMs - heartbeatMs >= leaseMs);
  let selection: Job['selection'];
  try {
    selection = JSON.parse(h.get('selection') ?? '{}') as Job['selection'];
  } catch {
    selection = { filter: {} };
  }
  const finishedMs = h.get('finishedMs') ? n('finishedMs') : null;
  const handled = n('done') + n('failed') + n('missing');
  const seconds = ((finishedMs ?? heartbeatMs) - n('createdMs')) / 1000;
  return {
    id,
    resource: h.get('resource') ?? '',
    action: h.get('action') === 'delete' ? 'delete' : 'retry',
    selection,
    limit: h.get('limit') ? n('limit') : null,
    actor: h.get('actor') ?? '',
    state: interrupted ? 'interrupted' : stored,
    createdMs: n('createdMs'),
    heartbeatMs,
    finishedMs,
    total: n('total'),
    examined: n('examined'),
    done: n('done'),
    failed: n('failed'),
    missing: n('missing'),
    ratePerSecond: seconds > 0 ? handled / seconds : null,
    cancelRequested: h.get('cancel') === '1',
    cancelledBy: h.get('cancelledBy') ?? null,
    error: h.get('error') ?? null,
  };
}
