// The fake server's keyspace: databases, typed values, expiry.
import { CommandError, WRONGTYPE } from './reply.js';
import type { Stream } from './stream-model.js';
import type { SortedSet } from './zset-model.js';

/** The data types the fake stores, named as TYPE reports them. */
type ValueType = 'string' | 'hash' | 'list' | 'zset' | 'stream';

/** A list holds its elements head first (index 0 is LINDEX 0), latin1 strings like every value. */
type StoredValue =
  | { type: 'string'; value: string }
  | { type: 'hash'; value: Map<string, string> }
  | { type: 'list'; value: string[] }
  | { type: 'zset'; value: SortedSet }
  | { type: 'stream'; value: Stream };

interface Slot {
  data: StoredValue;
  /** Unix ms at which the key expires, or undefined. */
  expiresAtMs: number | undefined;
}

type ValueOf<T extends ValueType> = Extract<StoredValue, { type: T }>['value'];

/**
 * One logical database (SELECT index): keys with lazy expiry on the server clock.
 * Keys and string values are latin1 strings (one char per byte).
 */
export class Database {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly now: () => number,
    private readonly onTouch: (key: string) => void,
  ) {}

  private live(key: string): Slot | undefined {
    const slot = this.slots.get(key);
    if (!slot) return undefined;
    if (slot.expiresAtMs !== undefined && slot.expiresAtMs <= this.now()) {
      this.slots.delete(key);
      return undefined;
    }
    return slot;
  }

  /** The value at `key`, or undefined when missing or expired. */
  lookup(key: string): StoredValue | undefined {
    return this.live(key)?.data;
  }

  /** Whether the key exists (not expired). */
  has(key: string): boolean {
    return this.live(key) !== undefined;
  }

  /** The value of `key` when it has type `type`; undefined when missing. @throws WRONGTYPE otherwise. */
  get<T extends ValueType>(key: string, type: T): ValueOf<T> | undefined {
    const data = this.live(key)?.data;
    if (!data) return undefined;
    if (data.type !== type) throw new CommandError(WRONGTYPE);
    return data.value as ValueOf<T> | undefined;
  }

  /** Like {@link get}, creating an empty value with `create` when missing. */
  getOrCreate<T extends ValueType>(key: string, type: T, create: () => ValueOf<T>): ValueOf<T> {
    const found = this.get(key, type);
    if (found !== undefined) return found;
    const value = create();
    this.slots.set(key, { data: { type, value } as StoredValue, expiresAtMs: undefined });
    return value;
  }

  /** Stores a value, clearing any expiry unless `keepTtl`. */
  set(key: string, data: StoredValue, keepTtl = false): void {
    const old = keepTtl ? this.live(key) : undefined;
    this.slots.set(key, { data, expiresAtMs: old?.expiresAtMs });
    this.onTouch(key);
  }

  /** Deletes a key; true when it existed. */
  delete(key: string): boolean {
    const existed = this.live(key) !== undefined;
    this.slots.delete(key);
    if (existed) this.onTouch(key);
    return existed;
  }

  /** Signals a modification of `key` (wakes blocked readers, dirties WATCH). */
  touch(key: string): void {
    this.onTouch(key);
  }

  /** Unix ms of expiry, or undefined (persistent or missing: check {@link has}). */
  expiresAt(key: string): number | undefined {
    return this.live(key)?.expiresAtMs;
  }

  /** Sets or clears the expiry of an existing key; false when the key is missing. */
  setExpiry(key: string, atMs: number | undefined): boolean {
    const slot = this.live(key);
    if (!slot) return false;
    slot.expiresAtMs = atMs;
    if (atMs !== undefined && atMs <= this.now()) this.delete(key);
    else this.onTouch(key);
    return true;
  }

  /** Removes the key when an emptied collection leaves it empty, as Redis does. */
  deleteIfEmpty(key: string, size: number): void {
    if (size === 0) this.delete(key);
  }

  /** Every live key, in insertion order. */
  keys(): string[] {
    const out: string[] = [];
    for (const key of [...this.slots.keys()]) if (this.live(key)) out.push(key);
    return out;
  }

  get size(): number {
    return this.keys().length;
  }

  clear(): void {
    for (const key of this.slots.keys()) this.onTouch(key);
    this.slots.clear();
  }
}

/** Redis glob matching (`*`, `?`, `[a-z]`, `[^a]`, `\x`), as KEYS and SCAN MATCH use it. */
export function globMatch(pattern: string, text: string): boolean {
  return globToRegExp(pattern).test(text);
}

const globCache = new Map<string, RegExp>();

function globToRegExp(pattern: string): RegExp {
  let cached = globCache.get(pattern);
  if (cached) return cached;
  let re = '^';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') re += '[\\s\\S]*';
    else if (c === '?') re += '[\\s\\S]';
    else if (c === '\\' && i + 1 < pattern.length) re += escapeRe(pattern[++i]!);
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) re += '\\[';
      else {
        let body = pattern.slice(i + 1, end);
        const negate = body.startsWith('^');
        if (negate) body = body.slice(1);
        re += `[${negate ? '^' : ''}${body.replace(/[\]\\]/g, '\\$&')}]`;
        i = end;
      }
    } else re += escapeRe(c);
  }
  cached = new RegExp(`${re}$`);
  if (globCache.size > 1000) globCache.clear();
  globCache.set(pattern, cached);
  return cached;
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
