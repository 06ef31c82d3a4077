// Respire's typed errors: one class per code, and isRespireError.
import { isError, safeGet } from './describe.js';

/**
 * Every error Respire throws is a {@link RespireError} with a readonly `code`. Server error
 * replies (key types, permissions, unsupported servers, other replies) are kept apart from
 * client-side failures (bad input, codecs, user code, lifecycle) and transport failures.
 */
export type RespireErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_STATE'
  | 'CROSS_SLOT'
  | 'WRONG_TYPE'
  | 'PERMISSION_DENIED'
  | 'UNSUPPORTED_SERVER'
  | 'TOO_MANY_FIELDS'
  | 'SERVER_ERROR'
  | 'TRANSPORT_FAILED'
  | 'NOT_DURABLE'
  | 'CODEC_FAILED'
  | 'SCOPE_FAILED'
  | 'CANCELED';

export interface RespireErrorOptions {
  cause?: unknown;
  /** Sets {@link RespireError.retryable}. @defaultValue false */
  retryable?: boolean;
}

/**
 * Base class of Respire's errors: `name`, a readonly `code`, `retryable`, and the `cause` when
 * there is one.
 */
export class RespireError extends Error {
  override name = 'RespireError';
  readonly code: RespireErrorCode;
  /**
   * True only when the command provably did not run and a later attempt may succeed. Either the
   * server answered with a reply that says so: `BUSY` (a script or function is running), `LOADING`
   * (the dataset is loading after a restart), `TRYAGAIN` (a Cluster slot is migrating),
   * `MASTERDOWN` (a replica lost its master) or `CLUSTERDOWN`; or the command never reached the
   * server because its connection was not there in time (a `RespireTransportError` with
   * `outcomeUnknown: false`: not connected before the deadline, offline client, a Cluster node's
   * connection not ready during a failover). Repeating the same call is then safe; back off first.
   * False for everything else: contract errors (`WRONGTYPE`, `NOPERM`, bad input) will fail
   * again, a closed client or a call the client refused fails again the same way, an aborted call
   * was the caller's choice, and a lost reply (`outcomeUnknown: true`) may have run.
   */
  readonly retryable: boolean;

  constructor(code: RespireErrorCode, message: string, options: RespireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.retryable = options.retryable === true;
  }
}

/** Bad input, thrown before any I/O: nothing was sent, nothing changed. Code `INVALID_ARGUMENT`. */
export class RespireValidationError extends RespireError {
  override name = 'RespireValidationError';
  /** The argument or option that was wrong, e.g. `visibilityTimeoutMs`. */
  readonly argument: string;

  constructor(argument: string, message: string) {
    super('INVALID_ARGUMENT', `${argument}: ${message}`);
    this.argument = argument;
  }
}

/**
 * A call the object's life cycle does not allow at this point (for example `start()` on a running
 * worker, or adding a worker to a started host); nothing was done. Code `INVALID_STATE`.
 */
export class RespireStateError extends RespireError {
  override name = 'RespireStateError';
  constructor(message: string) {
    super('INVALID_STATE', message);
  }
}

/** Resolved keys that are not all in one Cluster slot or not distinct; thrown before any I/O. Code `CROSS_SLOT`. */
export class RespireCrossSlotError extends RespireError {
  override name = 'RespireCrossSlotError';
  constructor(message: string) {
    super('CROSS_SLOT', message);
  }
}

/** A key already holds a value of another type (server `WRONGTYPE`); nothing changed. Code `WRONG_TYPE`. */
export class RespireKeyTypeError extends RespireError {
  override name = 'RespireKeyTypeError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('WRONG_TYPE', message, options);
  }
}

/** The ACL user may not run a command on a key (server `NOPERM`); nothing changed. Code `PERMISSION_DENIED`. */
export class RespirePermissionError extends RespireError {
  override name = 'RespirePermissionError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('PERMISSION_DENIED', message, options);
  }
}

/** The server lacks something the operation requires (for example Redis older than 7.0). Code `UNSUPPORTED_SERVER`. */
export class RespireUnsupportedServerError extends RespireError {
  override name = 'RespireUnsupportedServerError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('UNSUPPORTED_SERVER', message, options);
  }
}

/**
 * A stream entry has more field/value pairs than the operation allows (a worker with a
 * dead-letter stream takes at most 1,024); found at run time, nothing changed and the
 * entry stays pending. Code `TOO_MANY_FIELDS` (script code `RESPIRE_TOO_MANY_FIELDS`).
 */
export class RespireTooManyFieldsError extends RespireError {
  override name = 'RespireTooManyFieldsError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('TOO_MANY_FIELDS', message, options);
  }
}

/** Any other error reply from the server; `cause` is the reply. Code `SERVER_ERROR`. */
export class RespireServerError extends RespireError {
  override name = 'RespireServerError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('SERVER_ERROR', message, options);
  }
}

/**
 * The command failed between the client and the server. `outcomeUnknown` tells the two cases
 * apart: the command may have run (the connection failed, closed or timed out after it was
 * written: never retried blindly), or it was never sent (the client was closed or offline, the
 * command timed out before it was written, a connection could not be opened or was not ready in
 * time). A command never sent for want of a connection is `retryable` (see
 * {@link RespireError.retryable}); one refused by a closed client or the client itself is not.
 * Code `TRANSPORT_FAILED`.
 */
export class RespireTransportError extends RespireError {
  override name = 'RespireTransportError';
  /**
   * False when the command was never sent: the client refused it before writing it (closed or
   * offline client, or node-redis' per-command timeout expired while it waited to be written), or
   * a connection could not be opened. Then nothing happened. True when it may have run.
   */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options?: RespireErrorOptions & { outcomeUnknown?: boolean }) {
    super('TRANSPORT_FAILED', message, options);
    this.outcomeUnknown = options?.outcomeUnknown ?? true;
  }
}

/**
 * A write that WAS applied on the master but whose durability target (the `durability` option:
 * `WAIT` / `WAITAOF`) was not confirmed within its timeout, or whose wait failed. The write is not
 * undone: a failover before it reaches a replica may still lose it. Code `NOT_DURABLE`;
 * `retryable` is false (the write ran). Repeating the call repeats the write unless it is
 * idempotent: `retrySafe` says when it is (a send with a deduplication ID).
 */
export class RespireNotDurableError extends RespireError {
  override name = 'RespireNotDurableError';
  /** Always true: the write was applied on the master before the wait. */
  readonly applied = true;
  /** The write's own reply (for a plain XADD the entry ID), as the server sent it. */
  readonly reply: unknown;
  /** Replicas that had to acknowledge the write. */
  readonly replicasRequired: number;
  /** Replicas that did within the timeout (`WAIT`'s or `WAITAOF`'s count; 0 when the wait itself failed). */
  readonly replicasReached: number;
  /** True when the master had to fsync the write to its AOF (`WAITAOF` numlocal 1). */
  readonly localAofRequired: boolean;
  /** True when it did within the timeout. */
  readonly localAofReached: boolean;
  /** True when repeating the call cannot apply the write twice (a send with a deduplication ID). */
  readonly retrySafe: boolean;

  constructor(
    message: string,
    details: {
      reply: unknown;
      replicasRequired: number;
      replicasReached: number;
      localAofRequired: boolean;
      localAofReached: boolean;
      retrySafe: boolean;
    },
    options?: RespireErrorOptions,
  ) {
    super('NOT_DURABLE', message, options);
    this.reply = details.reply;
    this.replicasRequired = details.replicasRequired;
    this.replicasReached = details.replicasReached;
    this.localAofRequired = details.localAofRequired;
    this.localAofReached = details.localAofReached;
    this.retrySafe = details.retrySafe;
  }
}

/** A codec's encode or decode threw; `cause` is what it threw. Code `CODEC_FAILED`. */
export class RespireCodecError extends RespireError {
  override name = 'RespireCodecError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('CODEC_FAILED', message, options);
  }
}

/**
 * A per-delivery scope failed: the scope factory threw or resolved no handler, or its dispose
 * threw; `cause` is what it threw. A worker fault (worker README, "Faults, shutdown and
 * failover"). Code `SCOPE_FAILED`.
 */
export class RespireScopeError extends RespireError {
  override name = 'RespireScopeError';
  constructor(message: string, options?: RespireErrorOptions) {
    super('SCOPE_FAILED', message, options);
  }
}

/**
 * The work was canceled by shutdown: the reason of a handler's AbortSignal when the worker's
 * shutdown timeout expires. Code `CANCELED`.
 */
export class RespireCanceledError extends RespireError {
  override name = 'RespireCanceledError';
  constructor(message: string) {
    super('CANCELED', message);
  }
}

const CODES = new Set<string>([
  'INVALID_ARGUMENT',
  'INVALID_STATE',
  'CROSS_SLOT',
  'WRONG_TYPE',
  'PERMISSION_DENIED',
  'UNSUPPORTED_SERVER',
  'TOO_MANY_FIELDS',
  'SERVER_ERROR',
  'TRANSPORT_FAILED',
  'NOT_DURABLE',
  'CODEC_FAILED',
  'SCOPE_FAILED',
  'CANCELED',
] satisfies RespireErrorCode[]);

/**
 * True when `error` is a Respire error (optionally with `code`). Checks `name` and `code`
 * rather than `instanceof`, so it holds across two installed copies of the package.
 */
export function isRespireError(error: unknown, code?: RespireErrorCode): error is RespireError {
  // Whatever it is handed (a revoked Proxy, throwing getters), it answers and never throws.
  if (!isError(error)) return false;
  const found = safeGet(error, 'code');
  const name = safeGet(error, 'name');
  if (typeof name !== 'string' || !name.startsWith('Respire') || typeof found !== 'string' || !CODES.has(found)) return false;
  return code === undefined || found === code;
}
