// Describing user values (thrown errors, codec results, options) in words, without ever throwing.
/**
 * Describing values that came from user code (a handler's throw, a codec's result, an option) in
 * words, without ever throwing. Such a value may be a revoked Proxy, a Proxy whose every trap
 * throws, an object whose `constructor`, `name`, `message` or `toString` getters throw, a
 * null-prototype object, a symbol or a BigInt: reading it the naive way (`instanceof`,
 * `error.constructor.name`, `String(value)`) throws, and a describer that throws turns a contained
 * failure into a fault. Every read here is guarded.
 */

/** Longest exception type kept, in characters (as a worker dead letter's `_respire.exception_type`, at most 256 bytes of ASCII). */
export const MAX_EXCEPTION_TYPE_CHARS = 256;
/** Longest {@link describeThrown} text, in characters; a longer one is cut and ends with `…`. */
export const MAX_DESCRIPTION_CHARS = 500;
/** The longest type name or message fragment the other functions return. */
const MAX_TEXT = MAX_EXCEPTION_TYPE_CHARS;

const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const cap = (text: string): string => cut(text, MAX_TEXT);

/** `value[key]`, or `undefined` when `value` is not an object or the read throws. Never throws. */
export function safeGet(value: unknown, key: PropertyKey): unknown {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return undefined;
  try {
    return (value as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** `value instanceof Error`, false when the check itself throws (a revoked Proxy). Never throws. */
export function isError(value: unknown): value is Error {
  try {
    return value instanceof Error;
  } catch {
    return false;
  }
}

const asText = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? cap(value) : undefined);

/**
 * The type name of a thrown or returned value, never its message (exceptions are logged
 * and dead-lettered with their type only: worker README, "Results"): the class name of an object (`TypeError`,
 * `HttpError`), an Error's `name` when its class has none, `Object` for an object that tells
 * nothing, `null`, or the `typeof` of a primitive (`string`, `symbol`, `bigint`, ...). At most 256
 * characters. Never throws.
 */
export function exceptionType(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value !== 'object') return typeof value;
  const name = asText(safeGet(safeGet(value, 'constructor'), 'name'));
  if (name !== undefined && name !== 'Object') return name;
  if (isError(value)) return asText(safeGet(value, 'name')) ?? 'Error';
  return name ?? 'Object';
}

/**
 * A value for an error message: strings quoted (so `'5'` is not mistaken for `5`, at most 256
 * characters), numbers, booleans, `null`, `undefined`, BigInts (`10n`) and symbols as written,
 * functions and objects by their type (`an object (Date)`), so a bad option is named without
 * calling its `toString`. Never throws.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT)}…` : value);
    case 'bigint':
      return cap(`${value}n`);
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'symbol':
      return cap(Symbol.prototype.toString.call(value));
    case 'function':
      return 'a function';
    default:
      if (value === null) return 'null';
      try {
        if (Array.isArray(value)) return 'an array';
      } catch {
        // a revoked Proxy
      }
      return `an object (${exceptionType(value)})`;
  }
}

/**
 * An error for a message: `Type: message` (just the message for a plain `Error`), or the type of
 * a value that is not an Error. For errors from node-redis and the network, whose messages carry
 * the server's reply or the OS error; never use it for what user code threw (logs carry
 * types only). At most about 512 characters. Never throws.
 */
export function describeError(error: unknown): string {
  const type = exceptionType(error);
  const message = typeof error === 'object' && error !== null ? asText(safeGet(error, 'message')) : undefined;
  if (message === undefined) return type;
  return type === 'Error' ? message : `${type}: ${message}`;
}

/**
 * A thrown value for the caller's error message (a codec's or serializer's failure): the type and
 * message (`TypeError: Unexpected token`), the type alone without a message, a thrown string
 * quoted (`"bad input"`), a primitive with its type (`number 42`). At most
 * {@link MAX_DESCRIPTION_CHARS} characters. Never throws. Logs, dead letters and telemetry take
 * {@link exceptionType} only.
 */
export function describeThrown(thrown: unknown): string {
  switch (typeof thrown) {
    case 'string':
      return cut(JSON.stringify(thrown), MAX_DESCRIPTION_CHARS);
    case 'undefined':
      return 'undefined';
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof thrown} ${String(thrown)}`;
    case 'symbol':
      return cut(`symbol ${Symbol.prototype.toString.call(thrown)}`, MAX_DESCRIPTION_CHARS);
  }
  if (thrown === null) return 'null';
  const type = exceptionType(thrown);
  const message = safeGet(thrown, 'message');
  return cut(typeof message === 'string' && message !== '' ? `${type}: ${message}` : type, MAX_DESCRIPTION_CHARS);
}

/**
 * When `value` is a thenable (a promise an async logger method or hook returned), attaches a
 * rejection handler, so a rejection nobody awaits never becomes an unhandled rejection (which
 * crashes Node.js by default). Never throws.
 */
export function ignoreRejection(value: unknown): void {
  if (typeof safeGet(value, 'then') !== 'function') return;
  try {
    Promise.resolve(value).then(undefined, () => {});
  } catch {
    // a promise whose `constructor` getter throws: nothing can be attached
  }
}
