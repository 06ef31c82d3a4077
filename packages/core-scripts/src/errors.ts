import { describeThrown, exceptionType } from './describe.js';

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
  | 'CODEC_FAILED'
  | 'SCOPE_FAILED'
  | 'CANCELED';

export interface RespireErrorOptions {
  cause?: unknown;
}

/** Base class of Respire's errors: `name`, a readonly `code`, and the `cause` when there is one. */
export class RespireError extends Error {
  override name = 'RespireError';
  readonly code: RespireErrorCode;

  constructor(code: RespireErrorCode, message: string, options: RespireErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
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
 * A stream entry has more field/value pairs than the operation allows (seed 002 "1,024-field
 * limit": with a dead-letter stream, at most 1,024); found at run time, nothing changed and the
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
 * The command may or may not have run: the connection failed, closed or timed out after it was
 * written. Never retried blindly. Code `TRANSPORT_FAILED`.
 */
export class RespireTransportError extends RespireError {
  override name = 'RespireTransportError';
  /**
   * False when the client refused the command before writing it (closed or offline client), or a
   * connection could not be opened: then nothing happened. True when it may have run.
   */
  readonly outcomeUnknown: boolean;

  constructor(message: string, options?: RespireErrorOptions & { outcomeUnknown?: boolean }) {
    super('TRANSPORT_FAILED', message, options);
    this.outcomeUnknown = options?.outcomeUnknown ?? true;
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
 * threw; `cause` is what it threw. A worker fault (seed 002 "Faults": DI activation and scope
 * disposal). Code `SCOPE_FAILED`.
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
  'INVALID_ARGUMENT', 'INVALID_STATE', 'CROSS_SLOT', 'WRONG_TYPE', 'PERMISSION_DENIED', 'UNSUPPORTED_SERVER',
  'TOO_MANY_FIELDS', 'SERVER_ERROR', 'TRANSPORT_FAILED', 'CODEC_FAILED', 'SCOPE_FAILED', 'CANCELED',
] satisfies RespireErrorCode[]);

/**
 * True when `error` is a Respire error (optionally with `code`). Checks `name` and `code`
 * rather than `instanceof`, so it holds across two installed copies of the package.
 */
export function isRespireError(error: unknown, code?: RespireErrorCode): error is RespireError {
  if (!(error instanceof Error)) return false;
  const found = (error as { code?: unknown }).code;
  if (!error.name.startsWith('Respire') || typeof found !== 'string' || !CODES.has(found)) return false;
  return code === undefined || found === code;
}

/** True for a server error reply (node-redis `ErrorReply` and subclasses, from any installed copy). */
export function isErrorReply(error: unknown): error is Error {
  for (let proto = error instanceof Error ? Object.getPrototypeOf(error) : null; proto; proto = Object.getPrototypeOf(proto)) {
    if ((proto as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true;
  }
  return false;
}

/** The server error reply `error` is or wraps (through `cause`, as Respire errors keep it), if any. */
function errorReplyIn(error: unknown): Error | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (isErrorReply(e)) return e;
  }
  return undefined;
}

/**
 * The code of the server error reply that `error` is or wraps: the reply's first word (`NOGROUP`,
 * `BUSYGROUP`, `LOADING`, `ERR`, ...); `undefined` when no server reply is involved.
 */
export function replyCode(error: unknown): string | undefined {
  const reply = errorReplyIn(error);
  return reply === undefined ? undefined : /^([A-Z]+)/.exec(reply.message)?.[1];
}

/**
 * Turns what a command rejected with into a Respire error: script codes (`RESPIRE_WRONGTYPE`,
 * `RESPIRE_NOPERM`, `RESPIRE_UNSUPPORTED`, `RESPIRE_TOO_MANY_FIELDS`) and plain server replies
 * (`WRONGTYPE`, `NOPERM`) to their classes, other replies to {@link RespireServerError},
 * everything else to {@link RespireTransportError}. Respire errors pass through unchanged.
 */
export function toRespireError(error: unknown, operation: string): RespireError {
  if (isRespireError(error)) return error;
  if (!isErrorReply(error)) {
    // node-redis refuses these before writing anything: the command did not run.
    if (/^Client(Closed|Offline)Error$/.test(exceptionType(error))) {
      return new RespireTransportError(`${operation}: not sent (${describeThrown(error)}); connect the client first`, { cause: error, outcomeUnknown: false });
    }
    return new RespireTransportError(`${operation}: the outcome is unknown (${describeThrown(error)})`, { cause: error });
  }
  const message = error.message;
  // A script command refused by ACL: "ERR The user executing the script can't run this command
  // or subcommand" (7.0), "ERR ACL failure in script: ..." (7.2+), or NOPERM.
  const aclRefusal = /can't run this command|ACL failure in script|No permissions to/i.test(message);
  // Our scripts' codes may come wrapped (Redis 6.2: "ERR Error running script ...: RESPIRE_X ...").
  const ours = /RESPIRE_([A-Z_]+?) (.*?)(?: script: .*)?$/s.exec(message);
  const code = aclRefusal ? 'NOPERM' : (ours?.[1] ?? /^(?:ERR )?([A-Z]+)/.exec(message)?.[1]);
  const text = ours?.[2] ?? message.replace(/ script: .*$/s, '');
  const options = { cause: error };
  switch (code) {
    case 'WRONGTYPE':
      return new RespireKeyTypeError(`${operation}: ${text}`, options);
    case 'NOPERM':
      return new RespirePermissionError(`${operation}: ${text}`, options);
    case 'UNSUPPORTED':
      return new RespireUnsupportedServerError(`${operation}: ${text}`, options);
    case 'TOO_MANY_FIELDS':
      return new RespireTooManyFieldsError(`${operation}: ${text}`, options);
    default:
      return new RespireServerError(`${operation}: ${message}`, options);
  }
}
