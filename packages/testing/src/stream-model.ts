// The fake server's streams: entries, IDs, consumer groups and pending entries.
import { CommandError } from './reply.js';

/** A stream entry ID. Both parts are unsigned 64-bit in Redis; here they are safe JS integers. */
export interface StreamId {
  readonly ms: number;
  readonly seq: number;
}

export const ZERO_ID: StreamId = { ms: 0, seq: 0 };
const MAX_ID: StreamId = { ms: Number.MAX_SAFE_INTEGER, seq: Number.MAX_SAFE_INTEGER };
const INVALID_ID = 'ERR Invalid stream ID specified as stream command argument';

export function compareIds(a: StreamId, b: StreamId): number {
  if (a.ms !== b.ms) return a.ms < b.ms ? -1 : 1;
  if (a.seq !== b.seq) return a.seq < b.seq ? -1 : 1;
  return 0;
}

export function formatId(id: StreamId): string {
  return `${id.ms}-${id.seq}`;
}

function parseUint(text: string): number | undefined {
  if (!/^\d{1,20}$/.test(text)) return undefined;
  if (text.length === 20 && text > '18446744073709551615') return undefined;
  return Number(text);
}

/**
 * Parses `ms-seq` or `ms` (seq = `missingSeq`). With `strict`, `-` and `+` are refused.
 * @throws {@link CommandError} `ERR Invalid stream ID ...`
 */
export function parseId(text: string, missingSeq = 0, strict = false): StreamId {
  if (!strict) {
    if (text === '-') return ZERO_ID;
    if (text === '+') return MAX_ID;
  }
  const dash = text.indexOf('-');
  const ms = parseUint(dash < 0 ? text : text.slice(0, dash));
  const seq = dash < 0 ? missingSeq : parseUint(text.slice(dash + 1));
  if (ms === undefined || seq === undefined) throw new CommandError(INVALID_ID);
  return { ms, seq };
}

/** The next ID after `id`, or undefined at the maximum. */
export function nextId(id: StreamId): StreamId | undefined {
  if (id.seq < Number.MAX_SAFE_INTEGER) return { ms: id.ms, seq: id.seq + 1 };
  if (id.ms < Number.MAX_SAFE_INTEGER) return { ms: id.ms + 1, seq: 0 };
  return undefined;
}

/** The ID before `id`, or undefined at 0-0. */
export function previousId(id: StreamId): StreamId | undefined {
  if (id.seq > 0) return { ms: id.ms, seq: id.seq - 1 };
  if (id.ms > 0) return { ms: id.ms - 1, seq: Number.MAX_SAFE_INTEGER };
  return undefined;
}

export interface StreamEntry {
  readonly id: StreamId;
  readonly key: string;
  readonly fields: readonly string[];
  /** Position in insertion order; models the 100-entry radix-tree nodes for `~` trimming. */
  readonly node: number;
}

/** One pending entry of a consumer group. `consumer` is '' for an unowned (XNACKed) entry. */
export interface PendingEntry {
  readonly id: StreamId;
  readonly key: string;
  consumer: string;
  deliveryTimeMs: number;
  deliveryCount: number;
  /** 8.8 XNACK: unowned entries are claimable at once and come first. */
  nacked: boolean;
}

interface Consumer {
  readonly name: string;
  seenTimeMs: number;
  /** Last successful read or claim; -1 when never (XINFO CONSUMERS `inactive` -1). */
  activeTimeMs: number;
}

export class ConsumerGroup {
  readonly pel = new Map<string, PendingEntry>();
  readonly consumers = new Map<string, Consumer>();
  constructor(
    readonly name: string,
    public lastId: StreamId,
    /** Logical read counter; null when unknown. */
    public entriesRead: number | null,
  ) {}

  /** PEL entries in ID order. */
  pendingSorted(): PendingEntry[] {
    return [...this.pel.values()].sort((a, b) => compareIds(a.id, b.id));
  }

  pendingOf(consumer: string): number {
    let n = 0;
    for (const p of this.pel.values()) if (p.consumer === consumer) n++;
    return n;
  }

  consumer(name: string, nowMs: number, create: boolean): Consumer | undefined {
    let c = this.consumers.get(name);
    if (!c && create) {
      c = { name, seenTimeMs: nowMs, activeTimeMs: -1 };
      this.consumers.set(name, c);
    }
    return c;
  }
}

/** Stream `~` trimming removes only whole nodes of this many entries. */
const NODE_ENTRIES = 100;

/** A stream value: entries in ID order, metadata and consumer groups. */
export class Stream {
  entries: StreamEntry[] = [];
  lastId: StreamId = ZERO_ID;
  maxDeletedId: StreamId = ZERO_ID;
  firstId: StreamId = ZERO_ID;
  entriesAdded = 0;
  readonly groups = new Map<string, ConsumerGroup>();
  /** 8.6 IDMP: producer → iid → `{ entry ID, expiry ms }`. */
  readonly idmp = new Map<string, Map<string, { id: StreamId; atMs: number }>>();
  idmpDurationS = 100;
  idmpMaxSize = 100;
  /** 8.6 IDMP counters of XINFO STREAM: appends made with an IID, and duplicates answered. */
  idmpAdded = 0;
  idmpDuplicates = 0;

  get length(): number {
    return this.entries.length;
  }

  /** Index of the first entry with ID at or after `id`. */
  lowerBound(id: StreamId): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareIds(this.entries[mid]!.id, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get(id: StreamId): StreamEntry | undefined {
    const entry = this.entries[this.lowerBound(id)];
    return entry && compareIds(entry.id, id) === 0 ? entry : undefined;
  }

  /** Entries with `start <= ID <= end`, in order (reverse when `reverse`), at most `count` (0/undefined = all). */
  range(start: StreamId, end: StreamId, count?: number, reverse = false): StreamEntry[] {
    const out: StreamEntry[] = [];
    if (compareIds(start, end) > 0) return out;
    const from = this.lowerBound(start);
    let to = from;
    while (to < this.entries.length && compareIds(this.entries[to]!.id, end) <= 0) to++;
    if (!reverse) {
      for (let i = from; i < to && (!count || out.length < count); i++) out.push(this.entries[i]!);
    } else {
      for (let i = to - 1; i >= from && (!count || out.length < count); i--) out.push(this.entries[i]!);
    }
    return out;
  }

  /** Appends an entry with an ID already validated to be after `lastId`. */
  append(id: StreamId, fields: readonly string[]): StreamEntry {
    const entry: StreamEntry = { id, key: formatId(id), fields, node: Math.floor(this.entriesAdded / NODE_ENTRIES) };
    this.entries.push(entry);
    this.lastId = id;
    this.entriesAdded++;
    if (this.entries.length === 1) this.firstId = id;
    return entry;
  }

  /** Deletes one entry (XDEL semantics: updates max-deleted-entry-id). */
  deleteEntry(id: StreamId): boolean {
    const index = this.lowerBound(id);
    const entry = this.entries[index];
    if (!entry || compareIds(entry.id, id) !== 0) return false;
    this.entries.splice(index, 1);
    if (compareIds(id, this.maxDeletedId) > 0) this.maxDeletedId = id;
    this.updateFirstId();
    return true;
  }

  updateFirstId(): void {
    this.firstId = this.entries[0]?.id ?? ZERO_ID;
  }

  /** Removes the first `n` entries (trimming: max-deleted-entry-id is unchanged). Returns them. */
  trimHead(n: number): StreamEntry[] {
    const removed = this.entries.splice(0, n);
    this.updateFirstId();
    return removed;
  }

  /** Whether an XDEL tombstone may lie within [start, end] (Redis streamRangeHasTombstones). */
  hasTombstones(start: StreamId, end: StreamId = MAX_ID): boolean {
    if (this.entries.length === 0 || compareIds(this.maxDeletedId, ZERO_ID) === 0) return false;
    return compareIds(start, this.maxDeletedId) <= 0 && compareIds(this.maxDeletedId, end) <= 0;
  }

  /** Redis streamEstimateDistanceFromFirstEverEntry: the logical read counter of `id`, or null. */
  estimateCounter(id: StreamId): number | null {
    if (this.entriesAdded === 0) return 0;
    if (this.entries.length === 0 && compareIds(id, this.lastId) < 1) return this.entriesAdded;
    const cmpLast = compareIds(id, this.lastId);
    if (cmpLast === 0) return this.entriesAdded;
    if (cmpLast > 0) return null;
    const cmpFirst = compareIds(id, this.firstId);
    if (compareIds(this.maxDeletedId, ZERO_ID) === 0 || compareIds(this.maxDeletedId, this.firstId) < 0) {
      if (cmpFirst < 0) return this.entriesAdded - this.entries.length;
      if (cmpFirst === 0) return this.entriesAdded - this.entries.length + 1;
    }
    return null;
  }

  /** Consumer-group lag as XINFO GROUPS reports it; null when unknown. */
  lag(group: ConsumerGroup): number | null {
    if (this.entriesAdded === 0) return 0;
    if (group.entriesRead !== null && !this.hasTombstones(group.lastId)) return this.entriesAdded - group.entriesRead;
    const read = this.estimateCounter(group.lastId);
    return read === null ? null : this.entriesAdded - read;
  }

  /**
   * Advances a group's last-delivered ID to `id` while tracking entries-read, as XREADGROUP does.
   * `fromLastId` is 7.4+'s rule: the counter is only incremented when the group's previous position
   * is at or after the first entry and no tombstone follows it; before, the new ID was checked.
   */
  advanceGroup(group: ConsumerGroup, id: StreamId, fromLastId = false): void {
    if (compareIds(id, group.lastId) <= 0) return;
    const counting = fromLastId ? compareIds(group.lastId, this.firstId) >= 0 && !this.hasTombstones(group.lastId) : !this.hasTombstones(id);
    if (group.entriesRead !== null && counting) group.entriesRead++;
    else if (this.entriesAdded) group.entriesRead = this.estimateCounter(id);
    group.lastId = id;
  }

  /** Whether any group still references `id` (pending somewhere, or not yet delivered to some group). */
  referenced(id: StreamId): boolean {
    for (const group of this.groups.values()) {
      if (group.pel.has(formatId(id)) || compareIds(group.lastId, id) < 0) return true;
    }
    return false;
  }
}

/** Builds a new stream ID for `*` or `ms-*` given the last ID and the clock. */
export function generateId(last: StreamId, nowMs: number, explicitMs?: number): StreamId {
  if (explicitMs !== undefined) {
    if (explicitMs === last.ms) {
      if (last.seq >= Number.MAX_SAFE_INTEGER) throw new CommandError('ERR The ID specified in XADD is equal or smaller than the target stream top item');
      return { ms: explicitMs, seq: last.seq + 1 };
    }
    if (explicitMs < last.ms) throw new CommandError('ERR The ID specified in XADD is equal or smaller than the target stream top item');
    return { ms: explicitMs, seq: 0 };
  }
  const ms = Math.floor(nowMs);
  if (ms > last.ms) return { ms, seq: 0 };
  return nextId(last) ?? fail();
}

function fail(): never {
  throw new CommandError('ERR The stream has exhausted the last possible ID, unable to add more items');
}
