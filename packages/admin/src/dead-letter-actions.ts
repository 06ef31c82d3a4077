// Dead-letter actions: retry, delete, and the bounded retry-all and delete-all.
import type { Actor, BulkOptions, BulkProgress, BulkResult, DeleteResult, Resource, ResourceId, RetryResult } from './api.js';
import type { AdminContext } from './context.js';
import { workerRecord } from './records.js';
import { RespireValidationError, parseEntries, retriedEntries, type AdminScriptReply, type RetriedEntry } from './redis.js';
import { deadLetterKey } from './resources.js';
import { toCount, toEntryId, toOptions } from './validate.js';

/** The outcome of one record of a retry: 1 retried (value = new ID), 0 missing, -1 foreign (value = reason). */
export interface RetryStatus {
  status: number;
  value: string;
}

/** Puts a dead letter back where it came from and removes it (see `RespireAdmin.retryDeadLetter`). */
export async function retryDeadLetter(ctx: AdminContext, actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult> {
  const who = ctx.auditor.operator(actor, 'retry', id, { recordId });
  const rid = toEntryId('recordId', recordId);
  return ctx.auditor.run(who, 'retry', id, { recordId: rid }, async () => {
    const r = await ctx.resources.get(id);
    if (r.kind === 'stream' && r.deadLetterStream === undefined) {
      return { value: { status: 'refused', reason: `'${r.id}' has no dead-letter stream configured` } as const, result: 'refused' as const };
    }
    const [outcome] = await retry(ctx, r, [rid]);
    const value = retryResult(outcome!);
    return {
      value,
      result: value.status === 'retried' ? 'ok' : value.status,
      target: value.status === 'retried' ? { recordId: rid, newId: value.newId } : undefined,
    };
  });
}

/** Retries records (≤ 1000), in order: 1 retried (value = new ID), 0 missing, -1 foreign (value = reason). */
/** One record's {@link RetryStatus} as the API's {@link RetryResult}. */
export function retryResult(outcome: RetryStatus): RetryResult {
  if (outcome.status === 1) return { status: 'retried', newId: outcome.value };
  return outcome.status === 0 ? { status: 'missing' } : { status: 'refused', reason: outcome.value };
}

export async function retry(ctx: AdminContext, r: Resource, ids: readonly string[]): Promise<RetryStatus[]> {
  const op = 'RespireAdmin retry';
  const dead = deadLetterKey(r);
  if (r.kind === 'queue') return parseStatuses(await ctx.redis.script('retryQueue', { deadLetterStream: dead, stream: r.keys.stream, recordIds: ids }, op));
  if (r.retryAtomic) return parseStatuses(await ctx.redis.script('retryWorker', { deadLetterStream: dead, stream: r.stream, recordIds: ids }, op));
  // Another slot: read, append (IDMP on 8.6+), then delete.
  const out: RetryStatus[] = [];
  const append: (RetriedEntry & { index: number })[] = [];
  // The reads are pipelined; an ID repeated in one call counts once (later ones are missing).
  const seen = new Set<string>();
  const first = ids.map((rid) => !seen.has(rid) && seen.add(rid) !== undefined);
  const reads = await Promise.all(
    ids.map((rid, index) => (first[index] ? ctx.redis.send(dead, ['XRANGE', dead, rid, rid, 'COUNT', '1'], op, true) : Promise.resolve([]))),
  );
  for (const [index, rid] of ids.entries()) {
    const [found] = parseEntries(reads[index]);
    const record = found ? workerRecord(found.id, found.fields) : undefined;
    if (!record) out[index] = { status: 0, value: '' };
    else if (record.kind !== 'worker') out[index] = { status: -1, value: 'not a worker dead-letter record (the five _respire.* pairs are not in place)' };
    else append.push({ index, id: rid, fields: record.fields });
  }
  if (append.length > 0) {
    const reply = await ctx.redis.script('append', { stream: r.stream, producer: `respire-admin:${dead}`, entries: retriedEntries(append) }, op);
    await ctx.redis.send(dead, ['XDEL', dead, ...append.map((a) => a.id)], op);
    append.forEach((a, k) => (out[a.index] = { status: 1, value: reply[k]!.entryId }));
  }
  return out;
}

/** Deletes one dead-letter record (XDEL). */
export async function deleteDeadLetter(ctx: AdminContext, actor: Actor, id: ResourceId, recordId: string): Promise<DeleteResult> {
  const who = ctx.auditor.operator(actor, 'delete', id, { recordId });
  const rid = toEntryId('recordId', recordId);
  return ctx.auditor.run(who, 'delete', id, { recordId: rid }, async () => {
    const dead = deadLetterKey(await ctx.resources.get(id));
    const n = Number(await ctx.redis.send(dead, ['XDEL', dead, rid], 'RespireAdmin deleteDeadLetter'));
    const value: DeleteResult = n === 1 ? { status: 'deleted' } : { status: 'missing' };
    return { value, result: n === 1 ? 'ok' : 'missing' };
  });
}

/** Retries every dead letter present when it starts, oldest first, one script call per page. */
export function retryAllDeadLetters(ctx: AdminContext, actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
  return bulk(ctx, actor, id, 'retry-all', options, {}, async () => {
    const r = await ctx.resources.get(id);
    if (r.kind === 'stream' && r.deadLetterStream === undefined) {
      throw new RespireValidationError('resource', `'${r.id}' has no dead-letter stream configured`);
    }
    return {
      dead: deadLetterKey(r),
      run: async (ids) => {
        const statuses = await retry(ctx, r, ids);
        return { done: statuses.filter((s) => s.status === 1).length, failed: statuses.filter((s) => s.status === -1).length };
      },
    };
  });
}

/** Deletes every dead letter present when it starts, oldest first, one XDEL per page. */
export function deleteAllDeadLetters(ctx: AdminContext, actor: Actor, id: ResourceId, options?: BulkOptions): Promise<BulkResult> {
  return bulk(ctx, actor, id, 'delete-all', options, {}, async () => deleting(ctx, deadLetterKey(await ctx.resources.get(id))));
}

/** A bulk action's pages deleted from the dead-letter stream `dead`, one XDEL per page. */
export function deleting(ctx: AdminContext, dead: string): BulkSource {
  return {
    dead,
    run: async (ids) => ({ done: Number(await ctx.redis.send(dead, ['XDEL', dead, ...ids], 'RespireAdmin deleteAllDeadLetters')), failed: 0 }),
  };
}

/** What a bulk action runs over: a dead-letter stream, and what it does with each page of record IDs. */
export interface BulkSource {
  readonly dead: string;
  readonly run: (ids: string[]) => Promise<BulkProgress>;
}

/**
 * Pages oldest first with an exclusive cursor that stops at the last record ID present at the
 * start, at most `limit` records; `signal` stops between pages, `onProgress` reports after each.
 * `open` resolves the dead-letter stream and the page action once authorized (it may throw a
 * refusal); `target` starts the audit record's target (a topic's subscription).
 */
export async function bulk(
  ctx: AdminContext,
  actor: Actor,
  id: ResourceId,
  action: 'retry-all' | 'delete-all',
  options: BulkOptions | undefined,
  target: Record<string, string | number>,
  open: () => Promise<BulkSource>,
): Promise<BulkResult> {
  const who = ctx.auditor.operator(actor, action, id, { ...target });
  const o = toOptions('options', options, ['pageSize', 'limit', 'signal', 'onProgress']);
  const pageSize = toCount('pageSize', o.pageSize, 100);
  const limitOption = o.limit === undefined ? undefined : toCount('limit', o.limit, 0, 1, Number.MAX_SAFE_INTEGER);
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) throw new RespireValidationError('signal', 'must be an AbortSignal');
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') throw new RespireValidationError('onProgress', 'must be a function');
  const progress = { done: 0, failed: 0, aborted: false };
  return ctx.auditor.run(who, action, id, target, async () => {
    const op = `RespireAdmin ${action}`;
    const { dead, run } = await open();
    const [length, last] = await Promise.all([ctx.redis.send(dead, ['XLEN', dead], op), ctx.redis.send(dead, ['XREVRANGE', dead, '+', '-', 'COUNT', '1'], op)]);
    const lastId = parseEntries(last)[0]?.id;
    const limit = limitOption ?? Number(length);
    target.limit = limit;
    let cursor: string | undefined;
    let seen = 0;
    try {
      while (lastId !== undefined && seen < limit) {
        if (o.signal?.aborted) {
          progress.aborted = true;
          break;
        }
        const want = Math.min(pageSize, limit - seen);
        const ids = parseEntries(
          await ctx.redis.send(dead, ['XRANGE', dead, cursor === undefined ? '-' : `(${cursor}`, lastId, 'COUNT', String(want)], op),
        ).map((e) => e.id);
        if (ids.length === 0) break;
        cursor = ids[ids.length - 1];
        seen += ids.length;
        const step = await run(ids);
        progress.done += step.done;
        progress.failed += step.failed;
        try {
          o.onProgress?.({ done: progress.done, failed: progress.failed });
        } catch {
          // a progress callback never breaks the action
        }
      }
    } finally {
      target.done = progress.done;
      target.failed = progress.failed;
      if (progress.aborted) target.aborted = 'true';
    }
    return { value: { ...progress }, result: 'ok' };
  });
}

function parseStatuses(reply: AdminScriptReply<'retryQueue' | 'retryWorker'>): RetryStatus[] {
  return reply.map((r) =>
    r.status === 'retried' ? { status: 1, value: r.entryId } : r.status === 'missing' ? { status: 0, value: '' } : { status: -1, value: r.reason },
  );
}
