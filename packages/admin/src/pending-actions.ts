// Fenced actions on a worker group's pending entries, and the removal of idle consumers.
import type { Actor, IdleConsumerResult, PendingActionResult, PendingExpectation, ResourceId } from './api.js';
import type { AdminContext } from './context.js';
import { groupNotFound, groupsOf } from './groups.js';
import { RELEASE_IDLE_MS } from './pages.js';
import { RespireValidationError, toDurationMs } from './redis.js';
import { toConsumer, toCount, toEntryId, toName, toOptions } from './validate.js';

/**
 * Releases (XCLAIM to the same owner, IDLE 2^31-1, JUSTID) or acknowledges (XACK, and XDEL with
 * `deleteEntry` when no other group still needs the entry) one pending entry, fenced by the delivery count and owner the operator saw.
 */
export async function pendingAction(
  ctx: AdminContext,
  actor: Actor,
  action: 'release' | 'ack',
  id: ResourceId,
  group: string,
  entryId: string,
  expected: PendingExpectation,
  deleteEntry: boolean,
): Promise<PendingActionResult> {
  const who = ctx.auditor.operator(actor, action, id, { group, entryId });
  const g = toName('group', group);
  const e = toEntryId('entryId', entryId);
  if (typeof expected !== 'object' || expected === null) throw new RespireValidationError('expected', 'must be { deliveryCount, consumer }');
  const count = toCount('expected.deliveryCount', expected.deliveryCount, 0, 1, Number.MAX_SAFE_INTEGER);
  const consumer = toConsumer('expected.consumer', expected.consumer);
  const target: Record<string, string | number> = { group: g, entryId: e, consumer, deliveryCount: count };
  if (deleteEntry) target.deleteEntry = 'true';
  return ctx.auditor.run<PendingActionResult>(who, action, id, target, async () => {
    const s = await ctx.resources.stream(id);
    const fence = { stream: s.stream, group: g, id: e, consumer, deliveryCount: count };
    const reply =
      action === 'release'
        ? await ctx.redis.script('releasePending', { ...fence, idleMs: RELEASE_IDLE_MS }, 'RespireAdmin releasePending')
        : await ctx.redis.script('ackPending', { ...fence, deleteEntry }, 'RespireAdmin ackPending');
    const kept = reply.status === 'acknowledged' ? [...reply.keptFor].sort() : [];
    if (kept.length > 0) {
      return {
        value: { status: 'acknowledged', entryKeptFor: kept },
        result: 'ok',
        detail: `entry kept: still needed by group(s) ${kept.map((g) => `'${g}'`).join(', ')}`,
      };
    }
    if (reply.status === 'acknowledged' && action === 'ack' && deleteEntry) {
      return { value: { status: 'acknowledged', entryDeleted: true }, result: 'ok', detail: 'entry deleted from the stream' };
    }
    if (reply.status === 'acknowledged' || reply.status === 'released') return { value: { status: reply.status }, result: 'ok' };
    if (reply.status === 'changed') {
      const value = { status: 'changed', deliveryCount: reply.deliveryCount, consumer: reply.consumer } as const;
      return { value, result: 'changed', detail: `now pending to '${value.consumer}' at delivery count ${value.deliveryCount}` };
    }
    // Not pending: in a group that exists, or the group (or stream) is not there at all.
    if (reply.status === 'notPending') {
      const groups = await groupsOf(ctx, s.stream, `RespireAdmin ${action}`);
      if (!groups?.some((x) => x.name === g)) throw groupNotFound(s, g, groups);
    }
    return { value: { status: 'missing' }, result: 'missing', ...(reply.status === 'deleted' ? { detail: 'its body was deleted: dropped from the PEL' } : {}) };
  });
}

/** Deletes the group's idle consumers that hold no pending entries, checked and deleted in one script. */
export async function removeIdleConsumers(ctx: AdminContext, actor: Actor, id: ResourceId, group: string, minIdleMs: number): Promise<IdleConsumerResult> {
  const who = ctx.auditor.operator(actor, 'remove-idle-consumers', id, { group });
  const g = toName('group', group);
  const idle = toDurationMs('minIdleMs', minIdleMs);
  const target: Record<string, string | number | readonly string[]> = { group: g, minIdleMs: idle };
  return ctx.auditor.run(who, 'remove-idle-consumers', id, target, async () => {
    const s = await ctx.resources.stream(id);
    const reply = await ctx.redis.script('removeIdleConsumers', { stream: s.stream, group: g, minIdleMs: idle }, 'RespireAdmin removeIdleConsumers');
    const value = { removed: reply.removed, keptWithPending: reply.kept };
    if (value.removed.length === 0 && value.keptWithPending.length === 0) {
      const groups = await groupsOf(ctx, s.stream, 'RespireAdmin removeIdleConsumers');
      if (!groups?.some((x) => x.name === g)) throw groupNotFound(s, g, groups);
    }
    target.removed = value.removed;
    target.keptWithPending = value.keptWithPending;
    return { value, result: 'ok' };
  });
}

/** Trims a worker stream's oldest entries every group has acknowledged (the worker-trim script), bounded per call. */
export async function trimAcknowledged(
  ctx: AdminContext,
  actor: Actor,
  id: ResourceId,
  options: { readonly max?: number } = {},
): Promise<{ readonly trimmed: number }> {
  const who = ctx.auditor.operator(actor, 'trim-acknowledged', id, {});
  const { max } = toOptions('options', options, ['max']);
  const limit = toCount('max', max, 1000);
  const target: Record<string, string | number | readonly string[]> = { max: limit };
  return ctx.auditor.run(who, 'trim-acknowledged', id, target, async () => {
    const s = await ctx.resources.stream(id);
    const trimmed = await ctx.redis.script('trimAcknowledged', { stream: s.stream, limit }, 'RespireAdmin trimAcknowledged');
    target.trimmed = trimmed;
    return { value: { trimmed }, result: 'ok' };
  });
}
