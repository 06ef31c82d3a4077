/**
 * Describing values that came from user code (a handler's throw, a codec's result, an option) in
 * words, without ever throwing. Such a value may be a revoked Proxy, a Proxy whose every trap
 * throws, an object whose `constructor`, `name`, `message` or `toString` getters throw, a
 * null-prototype object, a symbol or a BigInt: reading it the naive way (`instanceof`,
 * `error.constructor.name`, `String(value)`) throws, and a describer that throws turns a contained
 * failure into a fault. Every read here is guarded.
 */

/** The longest type name or message fragment these functions return. */
const MAX_TEXT = 256;

const cap = (text: string): string => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text);

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
 * The type name of a thrown or returned value, never its message (seed 002: exceptions are
 * logged and dead-lettered with their type only): the class name of an object (`TypeError`,
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
 * the server's reply or the OS error; never use it for what user code threw (seed 002 logs types
 * only). At most about 512 characters. Never throws.
 */
export function describeError(error: unknown): string {
  const type = exceptionType(error);
  const message = typeof error === 'object' && error !== null ? asText(safeGet(error, 'message')) : undefined;
  if (message === undefined) return type;
  return type === 'Error' ? message : `${type}: ${message}`;
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
