// The audit of every admin action: one record to the logger and, optionally, an audit stream.
import type { Actor, AuditRecord, ResourceId } from './api.js';
import type { Redis } from './redis.js';
import { isRespireError } from './redis.js';
import { requireOperator, toResourceId } from './validate.js';

/** The audit stream the `respire` CLI and the `respire-dashboard` command write by default. */
export const DEFAULT_AUDIT_STREAM = 'respire:audit';
/** Records an audit stream keeps, about (XADD MAXLEN ~): the oldest are trimmed. */
export const DEFAULT_AUDIT_STREAM_MAX_LENGTH = 100_000;

/** What an audited action reports: its value, and the result (and detail, target) for the record. */
export interface Outcome<T> {
  value: T;
  result: AuditRecord['result'];
  detail?: string;
  target?: AuditRecord['target'] | undefined;
}

/**
 * The audit of every action: one {@link AuditRecord} per action to the logger callback and,
 * optionally, to an audit stream (a separate XADD: when it fails the action stands and the logger
 * gets the record with `auditStreamError`).
 */
export class Auditor {
  readonly #redis: Redis;
  readonly #logger: ((record: AuditRecord) => void) | undefined;
  readonly #stream: string | undefined;
  readonly #maxLength: number;

  constructor(redis: Redis, logger: ((record: AuditRecord) => void) | undefined, stream: string | undefined, maxLength = DEFAULT_AUDIT_STREAM_MAX_LENGTH) {
    this.#redis = redis;
    this.#logger = logger;
    this.#stream = stream;
    this.#maxLength = maxLength;
  }

  /**
   * The checks before any I/O: the resource id's shape, then the operator role (a refused viewer is
   * audited with the host clock).
   */
  operator(actor: Actor, action: AuditRecord['action'], id: ResourceId, target: AuditRecord['target']): Actor {
    toResourceId(id);
    try {
      return requireOperator(actor, action);
    } catch (error) {
      if (isRespireError(error, 'PERMISSION_DENIED')) {
        this.#log({
          atMs: Date.now(),
          actor: actor.name,
          role: actor.role,
          action,
          resource: String(id),
          target: safeTarget(target),
          result: 'refused',
          detail: 'PERMISSION_DENIED: not an operator',
        });
      }
      throw error;
    }
  }

  /**
   * Runs an action and records its outcome (`atMs`: the server clock of the resource's node, the
   * host clock when TIME fails). A thrown error is recorded as `refused` (permission, validation,
   * key type) or `failed`, then rethrown.
   */
  async run<T>(actor: Actor, action: AuditRecord['action'], id: ResourceId, target: AuditRecord['target'], run: () => Promise<Outcome<T>>): Promise<T> {
    const key = typeof id === 'string' && id.length > 0 ? id : 'respire';
    let atMs: number;
    try {
      atMs = await this.#redis.timeMs(key, `RespireAdmin ${action}`);
    } catch {
      atMs = Date.now();
    }
    try {
      const outcome = await run();
      const detail = outcome.detail ? { detail: outcome.detail } : {};
      await this.#record({
        atMs,
        actor: actor.name,
        role: actor.role,
        action,
        resource: id,
        target: outcome.target ?? target,
        result: outcome.result,
        ...detail,
      });
      return outcome.value;
    } catch (error) {
      const code = isRespireError(error) ? error.code : 'ERROR';
      const refused = code === 'PERMISSION_DENIED' || code === 'INVALID_ARGUMENT' || code === 'WRONG_TYPE';
      await this.#record({
        atMs,
        actor: actor.name,
        role: actor.role,
        action,
        resource: id,
        target,
        result: refused ? 'refused' : 'failed',
        detail: `${code}: ${(error as Error).message}`,
      });
      throw error;
    }
  }

  /**
   * Records an outcome that no single call returns (a background job's start, cancel or finish),
   * with the server clock of the resource's node.
   */
  async note(
    actor: Actor,
    action: AuditRecord['action'],
    id: ResourceId,
    target: AuditRecord['target'],
    result: AuditRecord['result'],
    detail?: string,
  ): Promise<void> {
    let atMs: number;
    try {
      atMs = await this.#redis.timeMs(id, `RespireAdmin ${action}`);
    } catch {
      atMs = Date.now();
    }
    await this.#record({ atMs, actor: actor.name, role: actor.role, action, resource: id, target, result, ...(detail ? { detail } : {}) });
  }

  async #record(record: AuditRecord): Promise<void> {
    let logged = record;
    if (this.#stream !== undefined) {
      const s = this.#stream;
      try {
        await this.#redis.send(
          s,
          [
            'XADD',
            s,
            ...(this.#maxLength > 0 ? ['MAXLEN', '~', String(this.#maxLength)] : []),
            '*',
            'at',
            String(record.atMs),
            'actor',
            record.actor,
            'role',
            record.role,
            'action',
            record.action,
            'resource',
            record.resource,
            'target',
            JSON.stringify(record.target),
            'result',
            record.result,
            'detail',
            record.detail ?? '',
          ],
          'RespireAdmin audit stream',
        );
      } catch (error) {
        logged = { ...record, auditStreamError: (error as Error).message };
      }
    }
    this.#log(logged);
  }

  #log(record: AuditRecord): void {
    try {
      this.#logger?.(record);
    } catch {
      // a throwing audit logger never breaks the action
    }
  }
}

function safeTarget(target: AuditRecord['target']): AuditRecord['target'] {
  const out: Record<string, string | number | readonly string[]> = {};
  for (const [k, v] of Object.entries(target)) out[k] = typeof v === 'number' || Array.isArray(v) ? v : String(v);
  return out;
}
