// What a failure means: which reply it carries, whether it is transient or a lost connection, and its Respire error.
import { describeError, exceptionType, isError, safeGet } from './describe.js';
import {
  RespireKeyTypeError,
  RespirePermissionError,
  RespireServerError,
  RespireStateError,
  RespireTooManyFieldsError,
  RespireTransportError,
  RespireUnsupportedServerError,
  isRespireError,
  type RespireError,
  type RespireErrorOptions,
} from './errors.js';
import type { ScriptErrorCode } from './generated/replies.js';

/**
 * What a failure means, decided in one place: which server reply it carries, whether that reply
 * proves the command did not run (transient), whether it is a dropped connection, and which
 * Respire error it becomes. Every function here answers for any value and never throws.
 */

/**
 * Server replies that prove the command did not run and that the same command may succeed later:
 * `BUSY` (a script or function is running past busy-reply-threshold), `LOADING` (the dataset is
 * loading), `TRYAGAIN` (a multi-key command during a slot migration), `MASTERDOWN` (a replica
 * lost its master link) and `CLUSTERDOWN` (the Cluster is down or a slot is unserved).
 */
export const TRANSIENT_REPLY_CODES: ReadonlySet<string> = new Set(['BUSY', 'LOADING', 'TRYAGAIN', 'MASTERDOWN', 'CLUSTERDOWN']);

/** True for a server error reply (node-redis `ErrorReply` and subclasses, from any installed copy). */
export function isErrorReply(error: unknown): error is Error {
  if (!isError(error)) return false;
  try {
    for (let proto = Object.getPrototypeOf(error) as unknown, depth = 0; proto && depth < 32; proto = Object.getPrototypeOf(proto), depth++) {
      if (safeGet(safeGet(proto, 'constructor'), 'name') === 'ErrorReply') return true;
    }
  } catch {
    // a Proxy in the prototype chain: not a reply
  }
  return false;
}

/** `error` and its causes (as Respire errors keep them), at most four deep. */
function* causeChain(error: unknown): Generator<unknown> {
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = safeGet(e, 'cause'), depth++) yield e;
}

/** The server error reply `error` is or wraps (through `cause`), if any. */
function errorReplyIn(error: unknown): Error | undefined {
  for (const e of causeChain(error)) if (isErrorReply(e)) return e;
  return undefined;
}

const messageOf = (error: unknown): string => {
  const message = safeGet(error, 'message');
  return typeof message === 'string' ? message : '';
};

/**
 * The code of the server error reply that `error` is or wraps: the reply's first word (`NOGROUP`,
 * `BUSYGROUP`, `LOADING`, `ERR`, ...), `''` for a reply without one; `undefined` when no server
 * reply is involved.
 */
export function replyCode(error: unknown): string | undefined {
  const reply = errorReplyIn(error);
  return reply === undefined ? undefined : (/^([A-Z]+)/.exec(messageOf(reply))?.[1] ?? '');
}

/** The code of a transient reply (see {@link TRANSIENT_REPLY_CODES}) that `error` is or wraps, else `undefined`. */
export function transientReplyCode(error: unknown): string | undefined {
  const code = replyCode(error);
  return code !== undefined && TRANSIENT_REPLY_CODES.has(code) ? code : undefined;
}

/**
 * True when the server answered with a reply that proves the command did not run and that it may
 * succeed later: a transient server reply (see {@link TRANSIENT_REPLY_CODES}) or a Respire error
 * marked `retryable` for one. A retryable `RespireTransportError` (not sent for want of a
 * connection) is not counted: the loops that use this treat connections on their own
 * (`isNotSent`, `isConnectionFailure`).
 */
export function isTransient(error: unknown): boolean {
  if (transientReplyCode(error) !== undefined) return true;
  return isRespireError(error) && safeGet(error, 'retryable') === true && safeGet(error, 'code') !== 'TRANSPORT_FAILED';
}

/** node-redis errors that mean the connection is gone, closed or unanswered (not a server reply). */
const CONNECTION_FAILURES = new Set([
  'SocketClosedUnexpectedlyError',
  'ConnectionTimeoutError',
  'SocketTimeoutError',
  'SocketTimeoutDuringMaintenanceError',
  'DisconnectsClientError',
  'ClientClosedError',
  'ClientOfflineError',
  'ReconnectStrategyError',
  'TimeoutError',
  'CommandTimeoutDuringMaintenanceError',
  'ReplyDeadlineError', // the transport's own deadline for a written command
  'NodeNotReadyError', // the transport's own deadline while a Cluster node's connection was not ready
]);

/** True when `error` (or its cause) is a written command that got no reply within its deadline (`replyWithin`). */
export function isUnanswered(error: unknown): boolean {
  for (const e of causeChain(error)) if (exceptionType(e) === 'ReplyDeadlineError') return true;
  return false;
}

/**
 * True when `error` (or its cause) says the connection failed rather than the command: node-redis'
 * socket, timeout and closed-client errors, an operating-system socket error (`ECONNRESET`,
 * `ECONNREFUSED`, `EPIPE`, ...), or no reply within the transport's deadline. A server reply, a
 * bad argument or anything else is not.
 */
export function isConnectionFailure(error: unknown): boolean {
  for (const e of causeChain(error)) {
    if (isErrorReply(e)) return false;
    if (CONNECTION_FAILURES.has(exceptionType(e))) return true;
    const code = safeGet(e, 'code');
    if (typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code) && typeof safeGet(e, 'syscall') === 'string') return true;
  }
  return false;
}

/**
 * node-redis errors that prove the command was never written, why, and whether a later attempt
 * may succeed (`retryable`: the connection was missing for a while; not for a closed client,
 * which fails again, nor for the caller's own abort).
 */
const NOT_SENT: Readonly<Record<string, { readonly why: string; readonly retryable: boolean }>> = {
  ClientClosedError: { why: 'the client is closed; connect it first', retryable: false },
  ClientOfflineError: { why: 'the client is offline (reconnecting, with its offline queue disabled)', retryable: true },
  TimeoutError: { why: 'its timeout expired before it was written (the client was not connected)', retryable: true },
  CommandTimeoutDuringMaintenanceError: { why: 'its timeout expired before it was written (the server was under maintenance)', retryable: true },
  AbortError: { why: 'it was aborted before it was written', retryable: false },
};

/**
 * True when `error` proves the command was never written, so nothing happened and sending it again
 * (over another connection, say) is safe: a `RespireTransportError` with `outcomeUnknown: false`, or
 * a node-redis error that says so (a closed or offline client, a timeout before the write, an abort).
 */
export function isNotSent(error: unknown): boolean {
  if (isRespireError(error, 'TRANSPORT_FAILED')) return safeGet(error, 'outcomeUnknown') === false;
  return Object.hasOwn(NOT_SENT, exceptionType(error));
}

/**
 * Turns what a command rejected with into a Respire error: script codes (`RESPIRE_WRONGTYPE`,
 * `RESPIRE_NOPERM`, `RESPIRE_UNSUPPORTED`, `RESPIRE_TOO_MANY_FIELDS`) and plain server replies
 * (`WRONGTYPE`, `NOPERM`) to their classes, other replies to {@link RespireServerError} (with
 * `retryable` for a transient reply), node-redis errors that prove the command was never written
 * to a {@link RespireTransportError} with `outcomeUnknown: false` (`retryable` unless the client
 * was closed or the call aborted), and everything else (a dropped
 * connection after the write, anything unknown) to one with `outcomeUnknown: true`. Respire errors
 * pass through unchanged. Never throws, whatever it is handed.
 */
export function toRespireError(error: unknown, operation: string): RespireError {
  if (isRespireError(error)) return error;
  if (isErrorReply(error)) return fromReply(error, operation);
  const type = exceptionType(error);
  const notSent = Object.hasOwn(NOT_SENT, type) ? NOT_SENT[type] : undefined;
  if (notSent !== undefined) {
    return new RespireTransportError(`${operation}: not sent: ${notSent.why}; nothing happened`, {
      cause: error,
      outcomeUnknown: false,
      retryable: notSent.retryable,
    });
  }
  if (type === 'DisconnectsClientError') {
    // In a Cluster also a node's connection that node-redis dropped itself (a slot-map refresh that no longer finds a failed master).
    return new RespireTransportError(
      `${operation}: the connection was closed (close() or destroy() of the client, or of a Cluster node's connection after a failover) while the command was pending; the outcome is unknown`,
      {
        cause: error,
      },
    );
  }
  return new RespireTransportError(`${operation}: the outcome is unknown (${describeError(error)})`, { cause: error });
}

/**
 * The error class of each `RESPIRE_*` code the scripts declare (their headers' `Errors` lines): a
 * code added to a header without a class here fails the build.
 */
const SCRIPT_ERRORS: Readonly<Record<ScriptErrorCode, new (message: string, options: RespireErrorOptions) => RespireError>> = {
  RESPIRE_WRONGTYPE: RespireKeyTypeError,
  RESPIRE_NOPERM: RespirePermissionError,
  RESPIRE_UNSUPPORTED: RespireUnsupportedServerError,
  RESPIRE_TOO_MANY_FIELDS: RespireTooManyFieldsError,
  // A topic subscription received from before it was created (or after it was removed).
  RESPIRE_NOGROUP: RespireStateError,
};

const isScriptErrorCode = (code: string): code is ScriptErrorCode => Object.hasOwn(SCRIPT_ERRORS, code);

function fromReply(error: Error, operation: string): RespireError {
  const message = messageOf(error);
  // A script command refused by ACL: "ERR The user executing the script can't run this command
  // or subcommand" (7.0), "ERR ACL failure in script: ..." (7.2+), or NOPERM.
  const aclRefusal = /can't run this command|ACL failure in script|No permissions to/i.test(message);
  // Our scripts' codes may come wrapped (Redis 6.2: "ERR Error running script ...: RESPIRE_X ...").
  const ours = /(RESPIRE_[A-Z_]+?) (.*?)(?: script: .*)?$/s.exec(message);
  // A plain server reply with the same meaning as one of ours: WRONGTYPE, NOPERM.
  const plain = /^(?:ERR )?([A-Z]+)/.exec(message)?.[1];
  const code = aclRefusal ? 'RESPIRE_NOPERM' : (ours?.[1] ?? (plain === 'WRONGTYPE' || plain === 'NOPERM' ? `RESPIRE_${plain}` : undefined));
  const options = { cause: error };
  if (code !== undefined && isScriptErrorCode(code)) {
    const text = ours?.[2] ?? message.replace(/ script: .*$/s, '');
    return new SCRIPT_ERRORS[code](`${operation}: ${text}`, options);
  }
  const transient = TRANSIENT_REPLY_CODES.has(/^([A-Z]+)/.exec(message)?.[1] ?? '');
  return new RespireServerError(`${operation}: ${message}`, { ...options, retryable: transient });
}
