// The worker's logger interface, its console default, and logging that never throws.
import { exceptionType as describeType, ignoreRejection } from '@respire/core-scripts/internal';

/**
 * Where the worker writes what it wants an operator to see. Messages never contain payloads,
 * exception messages or stack traces; `context` carries only names, IDs, counts and exception
 * types (README "Results": exceptions are logged as warnings with the exception type only).
 */
export interface StreamWorkerLogger {
  debug?(message: string, context?: Readonly<Record<string, unknown>>): void;
  info?(message: string, context?: Readonly<Record<string, unknown>>): void;
  warn(message: string, context?: Readonly<Record<string, unknown>>): void;
  error(message: string, context?: Readonly<Record<string, unknown>>): void;
}

/** The default logger: warnings and errors to the console, nothing else. */
export const consoleLogger: StreamWorkerLogger = {
  warn: (message, context) => console.warn(`[respire.worker] ${message}`, context ?? ''),
  error: (message, context) => console.error(`[respire.worker] ${message}`, context ?? ''),
};

/**
 * The type name of what a handler, deserializer or scope threw: its class name, never its message.
 * Never throws, whatever the value (a revoked Proxy, throwing getters, ...).
 */
export const exceptionType: (error: unknown) => string = describeType;

/** Calls a logger method, swallowing anything it throws and any rejection it returns. */
export function safeLog(
  logger: StreamWorkerLogger,
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  context?: Readonly<Record<string, unknown>>,
): void {
  try {
    const method = logger[level];
    if (typeof method === 'function') ignoreRejection(method.call(logger, message, context));
  } catch {
    // A logger never changes an outcome.
  }
}
