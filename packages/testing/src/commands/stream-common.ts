// What the fake server's stream commands share: entry replies, stream and group lookups, trimming.
import type { Database } from '../keyspace.js';
import { CommandError, type Reply } from '../reply.js';
import { formatId, type ConsumerGroup, type Stream, type StreamEntry, type StreamId } from '../stream-model.js';
import type { ServerModel } from '../versions.js';
import { command, keyRange, type CommandFlag, type CommandSpec } from './types.js';

/** An entry as replies carry it: `[id, [field, value, ...]]`. */
export function entryReply(entry: StreamEntry): Reply {
  return [entry.key, [...entry.fields]];
}

/** The stream at `key` or undefined. @throws WRONGTYPE. */
export function streamAt(db: Database, key: string): Stream | undefined {
  return db.get(key, 'stream');
}

/** The group, or a NOGROUP error in the wording of the calling command. */
export function groupOrFail(db: Database, key: string, group: string, message: string): { stream: Stream; group: ConsumerGroup } {
  const stream = streamAt(db, key);
  const found = stream?.groups.get(group);
  if (!stream || !found) throw new CommandError(message);
  return { stream, group: found };
}

export const noGroup = (key: string, group: string): string => `NOGROUP No such key '${key}' or consumer group '${group}'`;
export const noGroupForKey = (key: string, group: string): string => `NOGROUP No such consumer group '${group}' for key name '${key}'`;

/** Deletion policy of XADD/XTRIM/XDELEX/XACKDEL on Redis 8.2+. */
export type RefPolicy = 'KEEPREF' | 'DELREF' | 'ACKED';

export function parsePolicy(arg: string | undefined, model: ServerModel): RefPolicy | undefined {
  if (!model.xackdel || arg === undefined) return undefined;
  const upper = arg.toUpperCase();
  return upper === 'KEEPREF' || upper === 'DELREF' || upper === 'ACKED' ? upper : undefined;
}

/** Removes `id` from every group's PEL (DELREF). */
function dropReferences(stream: Stream, id: StreamId): void {
  const key = formatId(id);
  for (const group of stream.groups.values()) group.pel.delete(key);
}

/**
 * Deletes one entry under a policy; returns 1 deleted, -1 missing, 2 kept (ACKED: still referenced).
 * Uses XDEL semantics (max-deleted-entry-id moves).
 */
export function deleteWithPolicy(stream: Stream, id: StreamId, policy: RefPolicy): 1 | -1 | 2 {
  const exists = stream.get(id) !== undefined;
  if (policy === 'ACKED') {
    if (stream.referenced(id)) return 2;
    return exists && stream.deleteEntry(id) ? 1 : -1;
  }
  if (policy === 'DELREF') dropReferences(stream, id);
  return exists && stream.deleteEntry(id) ? 1 : -1;
}

/** Trimming options shared by XADD and XTRIM. */
export interface TrimSpec {
  strategy: 'MAXLEN' | 'MINID';
  approximate: boolean;
  threshold: string;
  limit: number | undefined;
}

/** Trims a stream; returns how many entries were removed. Entries are removed from the head only. */
export function trim(stream: Stream, spec: TrimSpec, policy: RefPolicy = 'KEEPREF'): number {
  let candidates: number;
  if (spec.strategy === 'MAXLEN') {
    candidates = Math.max(0, stream.length - Number(spec.threshold));
  } else {
    const [ms, seq] = spec.threshold.split('-');
    const min: StreamId = { ms: Number(ms), seq: seq === undefined ? 0 : Number(seq) };
    candidates = stream.lowerBound(min);
  }
  if (candidates === 0) return 0;
  const limit = spec.approximate ? (spec.limit ?? 100 * 100) : Infinity;
  let remove = Math.min(candidates, limit);
  if (spec.approximate) {
    // Only whole radix-tree nodes go: stop before the first node that would be split.
    const cut = stream.entries[remove];
    if (cut) {
      let i = remove;
      while (i > 0 && stream.entries[i - 1]!.node === cut.node) i--;
      remove = i;
    }
  }
  if (policy === 'ACKED') {
    let n = 0;
    while (n < remove && !stream.referenced(stream.entries[n]!.id)) n++;
    remove = n;
  }
  const removed = stream.trimHead(remove);
  if (policy === 'DELREF') for (const entry of removed) dropReferences(stream, entry.id);
  return removed.length;
}

/** Parses `MAXLEN|MINID [=|~] threshold [LIMIT count]` starting at `i`; returns the spec and next index. */
export function parseTrim(args: readonly string[], i: number): { spec: TrimSpec; next: number } {
  const strategy = args[i]!.toUpperCase() as TrimSpec['strategy'];
  let j = i + 1;
  let approximate = false;
  if (args[j] === '~' || args[j] === '=') approximate = args[j++] === '~';
  const threshold = args[j++];
  if (threshold === undefined) throw new CommandError('ERR syntax error');
  if (strategy === 'MAXLEN') {
    if (!/^-?\d+$/.test(threshold)) throw new CommandError('ERR value is not an integer or out of range');
    if (Number(threshold) < 0) throw new CommandError('ERR The MAXLEN argument must be >= 0.');
  } else if (!/^\d+(-\d+)?$/.test(threshold)) throw new CommandError('ERR Invalid stream ID specified as stream command argument');
  let limit: number | undefined;
  if (args[j] !== undefined && args[j]!.toUpperCase() === 'LIMIT') {
    const text = args[j + 1];
    if (text === undefined || !/^\d+$/.test(text)) throw new CommandError('ERR The LIMIT argument must be >= 0.');
    limit = Number(text);
    if (!approximate) throw new CommandError('ERR syntax error, LIMIT cannot be used without the special ~ option');
    j += 2;
  }
  return { spec: { strategy, approximate, threshold, limit }, next: j };
}

/** Declares a stream command. */
export function streamCommand(
  name: string,
  arity: number,
  write: boolean,
  handler: CommandSpec['handler'],
  extra: { keys?: CommandSpec['keys']; flags?: CommandFlag[]; available?: (m: ServerModel) => boolean; categories?: string[] } = {},
): CommandSpec {
  return command({
    name,
    arity,
    flags: [write ? 'write' : 'readonly', ...(extra.flags ?? [])],
    categories: ['stream', write ? 'write' : 'read', ...(extra.categories ?? ['fast'])],
    keys: extra.keys ?? keyRange(name.includes('|') ? 2 : 1),
    handler,
    ...(extra.available ? { available: extra.available } : {}),
  });
}
