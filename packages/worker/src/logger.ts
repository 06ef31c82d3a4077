/**
 * Where the worker writes what it wants an operator to see. Messages never contain payloads,
 * exception messages or stack traces; `context` carries only names, IDs, counts and exception
 * types (seed 002 "Results": exceptions are logged as warnings with the exception type only).
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

/** The type name of what a handler, deserializer or scope threw: its class name, never its message. */
export function exceptionType(error: unknown): string {
  if (error instanceof Error) {
    const name = error.constructor?.name;
    return name && name !== 'Object' ? name : error.name || 'Error';
  }
  if (error === null) return 'null';
  if (typeof error === 'object') return (error as object).constructor?.name ?? 'Object';
  return typeof error;
}

/** Calls a logger method and swallows anything it throws. */
export function safeLog(
  logger: StreamWorkerLogger,
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  context?: Readonly<Record<string, unknown>>,
): void {
  try {
    logger[level]?.(message, context);
  } catch {
    // A logger never changes an outcome.
  }
}
