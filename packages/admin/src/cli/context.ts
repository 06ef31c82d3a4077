// What the CLI's command groups share: exit codes, global flags, URL and actor helpers.
import type { Command } from 'commander';
import type { Actor } from '../api.js';
import type { RespireAdmin, RespireAdminOptions } from '../admin.js';

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
  auditStream?: string;
}

/** What the command groups share: connecting, addressing a resource, confirming, printing. */
export interface Cli {
  /** Connects (the client is destroyed when the CLI ends) and builds an admin over `resources`. */
  connect(cmd: Command, resources: Partial<RespireAdminOptions>): Promise<{ admin: RespireAdmin; g: GlobalOptions; actor: Actor }>;
  /** The one resource a command addresses (`--queue` or `--stream`), as admin options and its id. */
  addressed(cmd: Command, needDead: boolean): { options: Partial<RespireAdminOptions>; id: string };
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
}

/** Parses a whole-number flag. @throws {@link UsageError} */
export function parseWhole(value: string, flag: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got '${value}'`);
  return Number(value);
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
