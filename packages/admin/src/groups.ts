// Consumer groups of a stream (XINFO GROUPS): their status, and "not found" for a group that does not exist.
import type { GroupStatus, StreamResource } from './api.js';
import type { AdminContext } from './context.js';
import { RespireNotFoundError, nearest } from './not-found.js';
import { hasInfoField, infoField, missingOrThrow, numberOrNull, text } from './redis.js';

/** One XINFO GROUPS item as a {@link GroupStatus}. */
export function groupStatusOf(item: unknown): GroupStatus {
  return {
    name: text(infoField(item, 'name')),
    consumers: Number(text(infoField(item, 'consumers'))),
    pending: Number(text(infoField(item, 'pending'))),
    lag: hasInfoField(item, 'lag') ? numberOrNull(infoField(item, 'lag')) : null,
    lastDeliveredId: text(infoField(item, 'last-delivered-id')),
    entriesRead: hasInfoField(item, 'entries-read') ? numberOrNull(infoField(item, 'entries-read')) : null,
  };
}

/**
 * Every group of the stream (XINFO GROUPS: one item per group, no entries), or null when the
 * stream does not exist.
 */
export async function groupsOf(ctx: AdminContext, stream: string, operation: string): Promise<GroupStatus[] | null> {
  const reply = await ctx.redis.trySend(stream, ['XINFO', 'GROUPS', stream], operation, true);
  if (!Array.isArray(reply)) return missingOrThrow(reply, null, operation);
  return reply.map(groupStatusOf);
}

/**
 * The group's status.
 * @throws {@link RespireNotFoundError} (`group`) when the stream has no such group (or does not
 *   exist), naming the nearest groups it has.
 */
export async function groupOf(ctx: AdminContext, s: StreamResource, group: string, operation: string): Promise<GroupStatus> {
  const groups = await groupsOf(ctx, s.stream, operation);
  const found = groups?.find((g) => g.name === group);
  if (found) return found;
  throw groupNotFound(s, group, groups);
}

/** The error for a group the stream does not have (`groups`: its groups, or null for a missing stream). */
export function groupNotFound(s: StreamResource, group: string, groups: readonly GroupStatus[] | null): RespireNotFoundError {
  const names = (groups ?? []).map((g) => g.name);
  const why =
    groups === null
      ? `the stream '${s.stream}' does not exist`
      : names.length === 0
        ? `the stream '${s.stream}' has no consumer groups`
        : `the stream '${s.stream}' has ${names.length} other group${names.length === 1 ? '' : 's'}`;
  return new RespireNotFoundError(
    { kind: 'group', name: group, known: nearest(group, names) },
    `no consumer group '${group.length > 200 ? `${group.slice(0, 200)}…` : group}': ${why}`,
  );
}
