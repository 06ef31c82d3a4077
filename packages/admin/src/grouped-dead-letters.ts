// A grouped queue's dead letters: pages, and retry (to the back of each record's group), delete, retry-all and delete-all.
import type { Actor, BulkOptions, BulkResult, DeadLetterOptions, DeadLetterPage, DeadLetterRecord, DeleteResult, ResourceId, RetryResult } from './api.js';
import type { AdminContext } from './context.js';
import { bulk, deleting, retryResult, type RetryStatus } from './dead-letter-actions.js';
import { deadLetterPage } from './dead-letter-pages.js';
import type { GroupedQueueResource, GroupedQueues } from './grouped.js';
import { queueRecord } from './records.js';
import { queueKeys } from './redis.js';
import { toEntryId } from './validate.js';

/** The most bytes of a group ID (the queue's `MAX_GROUP_ID_BYTES`, queue README "Message groups"). */
const MAX_GROUP_ID_BYTES = 1024;

/**
 * Reads a grouped queue's dead-letter record: the queue's format with its `group` (core-scripts'
 * queue dead-letter format). A record without a group (or with an empty one) names no group to retry into: foreign.
 * So is one whose group no send accepts (more than 1,024 bytes, or not well-formed UTF-8): no
 * grouped queue wrote it, and the retry (admin-retry-grouped-dead-letters) refuses it. Both are
 * checked on the stored bytes, not on the decoded text (which replaces what is not UTF-8).
 */
export function groupedRecord(id: string, fields: readonly (readonly [Buffer, Buffer])[]): DeadLetterRecord {
  const record = queueRecord(id, fields);
  if (record.kind !== 'queue' || record.group === undefined || record.group === '') return record.kind === 'queue' ? { kind: 'foreign', id, fields } : record;
  const stored = fields[fields.length - 1]![1];
  return stored.length > MAX_GROUP_ID_BYTES || !Buffer.from(record.group, 'utf8').equals(stored) ? { kind: 'foreign', id, fields } : record;
}

/** One page of a grouped queue's dead letters (see `RespireAdmin.groupedDeadLetters`). */
export function groupedDeadLetters(ctx: AdminContext, grouped: GroupedQueues, id: ResourceId, options?: DeadLetterOptions): Promise<DeadLetterPage> {
  return deadLetterPage(ctx, options, async () => ({ key: (await grouped.get(id)).keys.deadLetter, parse: groupedRecord }));
}

/**
 * Retries records (≤ 1000) with `admin-retry-grouped-dead-letters`, in order, with the queue's
 * configured `groupConcurrency`; unknown, it passes 0, so a group that was idle joins the ready
 * ring when none of its messages is in flight (else the settle of one of them lets it join).
 */
export async function retryGrouped(ctx: AdminContext, r: GroupedQueueResource, ids: readonly string[]): Promise<RetryStatus[]> {
  const k = r.keys;
  const reply = await ctx.redis.script(
    'retryGrouped',
    {
      deadLetterStream: k.deadLetter,
      stream: k.stream,
      ready: k.ready,
      // The ungrouped queue's stream of the same name: the retry refuses while it exists (one name cannot be both).
      ungroupedStream: queueKeys(r.name, r.keyPrefix).stream,
      inflight: k.inflight,
      wake: k.wake,
      backlogPrefix: k.backlogPrefix,
      concurrency: r.groupConcurrency ?? 0,
      recordIds: ids,
    },
    'RespireAdmin retry',
  );
  return reply.map((s) =>
    s.status === 'retried' ? { status: 1, value: s.entryId } : s.status === 'missing' ? { status: 0, value: '' } : { status: -1, value: s.reason },
  );
}

/** Puts a grouped dead letter back at the end of its group and removes it (see `RespireAdmin.retryGroupedDeadLetter`). */
export async function retryGroupedDeadLetter(ctx: AdminContext, grouped: GroupedQueues, actor: Actor, id: ResourceId, recordId: string): Promise<RetryResult> {
  const who = ctx.auditor.operator(actor, 'retry', id, { recordId });
  const rid = toEntryId('recordId', recordId);
  return ctx.auditor.run(who, 'retry', id, { recordId: rid }, async () => {
    const [outcome] = await retryGrouped(ctx, await grouped.get(id), [rid]);
    const value = retryResult(outcome!);
    return {
      value,
      result: value.status === 'retried' ? 'ok' : value.status,
      target: value.status === 'retried' ? { recordId: rid, newId: value.newId } : undefined,
    };
  });
}

/** Deletes one grouped dead-letter record (XDEL). */
export async function deleteGroupedDeadLetter(
  ctx: AdminContext,
  grouped: GroupedQueues,
  actor: Actor,
  id: ResourceId,
  recordId: string,
): Promise<DeleteResult> {
  const who = ctx.auditor.operator(actor, 'delete', id, { recordId });
  const rid = toEntryId('recordId', recordId);
  return ctx.auditor.run(who, 'delete', id, { recordId: rid }, async () => {
    const dead = (await grouped.get(id)).keys.deadLetter;
    const n = Number(await ctx.redis.send(dead, ['XDEL', dead, rid], 'RespireAdmin deleteDeadLetter'));
    const value: DeleteResult = n === 1 ? { status: 'deleted' } : { status: 'missing' };
    return { value, result: n === 1 ? 'ok' : 'missing' };
  });
}

/** Retries every grouped dead letter present when it starts, oldest first, one script call per page. */
export function retryAllGroupedDeadLetters(
  ctx: AdminContext,
  grouped: GroupedQueues,
  actor: Actor,
  id: ResourceId,
  options?: BulkOptions,
): Promise<BulkResult> {
  return bulk(ctx, actor, id, 'retry-all', options, {}, async () => {
    const r = await grouped.get(id);
    return {
      dead: r.keys.deadLetter,
      run: async (ids) => {
        const statuses = await retryGrouped(ctx, r, ids);
        return { done: statuses.filter((s) => s.status === 1).length, failed: statuses.filter((s) => s.status === -1).length };
      },
    };
  });
}

/** Deletes every grouped dead letter present when it starts, oldest first, one XDEL per page. */
export function deleteAllGroupedDeadLetters(
  ctx: AdminContext,
  grouped: GroupedQueues,
  actor: Actor,
  id: ResourceId,
  options?: BulkOptions,
): Promise<BulkResult> {
  return bulk(ctx, actor, id, 'delete-all', options, {}, async () => deleting(ctx, (await grouped.get(id)).keys.deadLetter));
}
