// What the CLI's command groups share: exit codes, global flags, URL, time and actor helpers, "not found" checks.
import type { Command } from 'commander';
import type { Actor } from '../api.js';
import type { RespireAdmin, RespireAdminOptions } from '../admin.js';
import { RespireNotFoundError } from '../not-found.js';

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** Bad flags or arguments, no URL, a prompt that could not be asked: exit 2. */
export class UsageError extends Error {}
/** An action that was not done (missing, refused, changed, not confirmed): exit 1. */
export class ActionFailed extends Error {}

/** The global flags. */
export interface GlobalOptions {
  url?: string;
  timeout: number;
  cluster?: boolean;
  json?: boolean;
  actor?: string;
  yes?: boolean;
  keyPrefix?: string;
  auditStream: string;
  /** False with --no-audit. */
  audit: boolean;
}

/** What the command groups share: connecting, addressing a resource, confirming, printing. */
export interface Cli {
  /** Connects (the client is destroyed when the CLI ends) and builds an admin over `resources`. */
  connect(cmd: Command, resources: Partial<RespireAdminOptions>): Promise<{ admin: RespireAdmin; g: GlobalOptions; actor: Actor }>;
  /** The one resource a command addresses (`--queue` or `--stream`), as admin options and its id. */
  addressed(cmd: Command, needDead: boolean): Addressed;
  /** Asks on the terminal unless `--yes`; without a terminal on stdin it refuses (a usage error). */
  confirm(g: GlobalOptions, question: string): Promise<void>;
  /** One JSON document with `--json`, else the human text. */
  print(g: GlobalOptions, json: unknown, human: () => string): void;
  /** A line on stderr. */
  err(s: string): void;
  /** Marks the run as failed (exit 1) without stopping it. */
  fail(): void;
  /** Adds `--queue` / `--stream` (/ `--dead-letter-stream`) to a command. */
  withResource(cmd: Command, streamOnly?: boolean): Command;
  /** Adds the paging flags (`--count`, `--cursor`, `--before`, `--last`) to a list command. */
  withPaging(cmd: Command, count: number): Command;
}

/** The resource a command addresses. */
export interface Addressed {
  readonly options: Partial<RespireAdminOptions>;
  readonly id: string;
  /** `--queue NAME`, or `--stream KEY`. */
  readonly queue?: string;
  readonly stream?: string;
}

/** The paging flags as the admin API's page options. */
export function pageOptions(o: { cursor?: string; before?: string; last?: boolean }): { cursor?: string; before?: string; last?: boolean } {
  const given = [o.cursor, o.before, o.last].filter((x) => x !== undefined && x !== false).length;
  if (given > 1) throw new UsageError('give at most one of --cursor, --before and --last');
  return { ...(o.cursor ? { cursor: o.cursor } : {}), ...(o.before ? { before: o.before } : {}), ...(o.last ? { last: true } : {}) };
}

/**
 * Fails with "not found" (exit 1) when the addressed queue has no keys at all, or the addressed
 * stream does not exist, naming the nearest that do exist.
 * @throws {@link RespireNotFoundError}
 */
export async function mustExist(admin: RespireAdmin, a: Addressed, g: GlobalOptions): Promise<void> {
  if (a.queue !== undefined) {
    if ((await admin.queueStatus(a.id)).exists) return;
    const where = g.keyPrefix ? `under --key-prefix '${g.keyPrefix}'` : 'without a key prefix';
    throw new RespireNotFoundError(
      { kind: 'queue', name: a.queue, known: await admin.nearestNames('queue', a.queue) },
      `no queue named '${a.queue}' ${where}: none of its keys exist (check --queue and --key-prefix)`,
    );
  }
  // A worker stream whose dead letters remain exists for the dead-letter commands.
  const status = await admin.streamStatus(a.id);
  if (status.exists || (status.deadLetters ?? 0) > 0) return;
  throw new RespireNotFoundError(
    { kind: 'stream', name: a.id, known: await admin.nearestNames('stream', a.id) },
    `no stream '${a.id}': the key does not exist${status.deadLetters === null ? '' : ' and it has no dead letters'} (check --stream and --key-prefix)`,
  );
}

/** Parses a whole-number flag. @throws {@link UsageError} */
export function parseWhole(value: string, flag: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got '${value}'`);
  return Number(value);
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A time flag as ms since the epoch: a duration ago (`90s`, `15m`, `2h`, `7d`, by this host's
 * clock), an ISO 8601 time (`2026-11-30T21:00:00Z`), or ms since the epoch.
 * @throws {@link UsageError}
 */
export function parseTime(value: string, flag: string, nowMs = Date.now()): number {
  const ago = /^(\d+)(ms|s|m|h|d)$/.exec(value);
  if (ago) return Math.max(0, nowMs - Number(ago[1]) * UNITS[ago[2]!]!);
  if (/^\d{10,16}$/.test(value)) return Number(value);
  const parsed = Date.parse(value);
  if (/^\d{4}-\d\d-\d\d/.test(value) && Number.isFinite(parsed)) return parsed;
  throw new UsageError(`${flag} must be a time: a duration ago (15m, 2h, 7d), an ISO time (2026-11-30T21:00:00Z) or ms since the epoch; got '${value}'`);
}

/**
 * The actor of the audit records when `--actor` is not given: the OS user. In a container whose
 * UID has no passwd entry `os.userInfo()` throws; then `$USER`, `$LOGNAME`, else `uid:<n>`.
 */
export function defaultActorName(info: () => { username: string }, env: NodeJS.ProcessEnv, uid: number | undefined): string {
  try {
    const name = info().username;
    if (name) return name;
  } catch {
    // no passwd entry for this UID
  }
  return env.USER || env.LOGNAME || (uid === undefined ? 'unknown' : `uid:${uid}`);
}

/** A Redis URL with its password replaced, for messages. */
export function redactUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1***@');
}

/**
 * Checks `--url` before any connection.
 * @throws {@link UsageError} for anything but a `redis://` or `rediss://` URL with a valid host and port.
 */
export function checkRedisUrl(url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url: not a URL: '${redactUrl(url)}' (expected redis://host:port or rediss://host:port)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new UsageError(`--url: expected a redis:// or rediss:// URL, got '${redactUrl(url)}'`);
  }
}
