/**
 * What a thrown value is, as text, for error messages and telemetry. Codecs, serializers,
 * handlers and hooks are user code and may throw anything: a string, `null`, a frozen object, a
 * Proxy whose every trap throws, an Error whose `message` getter throws. Nothing here throws back.
 */

/** Longest exception type kept, in characters (as the seed's `_respire.exception_type`, at most 256 bytes of ASCII). */
export const MAX_EXCEPTION_TYPE_CHARS = 256;
/** Longest description kept, in characters; a longer one is cut and ends with `…`. */
export const MAX_DESCRIPTION_CHARS = 500;

/** `fn()`, or `fallback` when it throws. */
function attempt<R>(fn: () => R, fallback: R): R {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A string property of an object, or undefined (also when reading it throws). */
function stringProperty(value: object, name: 'message' | 'name'): string | undefined {
  const found = attempt(() => (value as Record<string, unknown>)[name], undefined);
  return typeof found === 'string' ? found : undefined;
}

/**
 * The type of a thrown value, never its message: the class name (`TypeError`,
 * `RespireKeyTypeError`), an Error's `name` when its class has none, `Object` for a plain or
 * null-prototype object, `typeof` for a primitive (`string`, `number`, ...), `null` for null.
 * Never throws; at most {@link MAX_EXCEPTION_TYPE_CHARS} characters. Seed 002: logs, dead letters
 * and telemetry carry the exception type only.
 */
export function exceptionType(thrown: unknown): string {
  if (thrown === null) return 'null';
  if (typeof thrown !== 'object' && typeof thrown !== 'function') return typeof thrown;
  const constructorName = attempt(() => {
    const ctor = (thrown as { constructor?: unknown }).constructor;
    return typeof ctor === 'function' && typeof ctor.name === 'string' ? ctor.name : undefined;
  }, undefined);
  if (constructorName && constructorName !== 'Object') return cut(constructorName, MAX_EXCEPTION_TYPE_CHARS);
  const isError = attempt(() => thrown instanceof Error, false);
  if (isError) return cut(stringProperty(thrown, 'name') || 'Error', MAX_EXCEPTION_TYPE_CHARS);
  return typeof thrown === 'function' ? 'function' : 'Object';
}

/**
 * A thrown value as text for an error message: `TypeError: Unexpected token`, the type alone
 * when there is no message, a thrown string quoted (`"bad input"`), a primitive as `number 42`.
 * Never throws, whatever the value; at most {@link MAX_DESCRIPTION_CHARS} characters.
 * For callers' error messages only: logs, dead letters and telemetry take {@link exceptionType}.
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
      return cut(`symbol ${attempt(() => thrown.toString(), '')}`, MAX_DESCRIPTION_CHARS);
  }
  if (thrown === null) return 'null';
  const type = exceptionType(thrown);
  const message = stringProperty(thrown as object, 'message');
  return cut(message ? `${type}: ${message}` : type, MAX_DESCRIPTION_CHARS);
}
