// Values built to break naive code that describes them, for tests of user-code containment.
/**
 * Values user code can throw, reject with or return that break naive code describing them:
 * reading `constructor`, `name`, `message` or `stack`, converting to a string, `instanceof`,
 * `Array.isArray`, or awaiting them. Each `make()` builds a fresh value.
 *
 * Never hand these to `expect(...)` or a test title: a failing assertion would try to print them.
 */
export interface HostileValue {
  readonly label: string;
  make(): unknown;
}

const thrower = (what: string) => () => {
  throw new Error(`hostile ${what}`);
};

function revokedProxy(target: object = {}): unknown {
  const { proxy, revoke } = Proxy.revocable(target, {});
  revoke();
  return proxy;
}

/** A Proxy every one of whose traps throws. */
function trappedProxy(): unknown {
  const trap = thrower('trap');
  return new Proxy(
    {},
    {
      get: trap,
      has: trap,
      ownKeys: trap,
      getPrototypeOf: trap,
      getOwnPropertyDescriptor: trap,
      set: trap,
      defineProperty: trap,
      deleteProperty: trap,
      isExtensible: trap,
      preventExtensions: trap,
      setPrototypeOf: trap,
    },
  );
}

/**
 * An object whose constructor, name, message, stack, toString, valueOf and Symbol.toPrimitive all
 * throw. `stack` goes first: V8 formats an Error's lazy stack (reading `name` and `message`)
 * when the property is redefined.
 */
function allGettersThrow(base: object): object {
  for (const key of ['stack', 'constructor', 'name', 'message', 'toString', 'valueOf', Symbol.toPrimitive, Symbol.toStringTag]) {
    Object.defineProperty(base, key, { get: thrower(String(key)), configurable: true });
  }
  return base;
}

class HostileError extends Error {}

/** A frozen instance of an Error subclass whose name, message and stack getters throw. */
function frozenHostileError(): Error {
  const error = new HostileError('x');
  for (const key of ['stack', 'name', 'message']) Object.defineProperty(error, key, { get: thrower(key) });
  return Object.freeze(error);
}

/** Two errors whose causes point at each other. */
function cyclicCause(): Error {
  const a = new Error('a');
  const b = new Error('b', { cause: a });
  (a as { cause?: unknown }).cause = b;
  return a;
}

/** The hostile values, each with a label for test titles. */
export function hostileValues(): readonly HostileValue[] {
  return [
    { label: 'a revoked Proxy', make: () => revokedProxy() },
    { label: 'a revoked Proxy of an Error', make: () => revokedProxy(new Error('x')) },
    { label: 'a Proxy whose every trap throws', make: trappedProxy },
    {
      label: 'an object whose constructor getter throws',
      make: () => ({
        get constructor() {
          throw new Error('hostile constructor');
        },
      }),
    },
    { label: 'an Error whose constructor getter throws', make: () => Object.defineProperty(new Error('x'), 'constructor', { get: thrower('constructor') }) },
    {
      label: "an object whose constructor's name getter throws",
      make: () => ({
        constructor: {
          get name() {
            throw new Error('hostile name');
          },
        },
      }),
    },
    { label: 'an object whose constructor/name/message/stack/toString/Symbol.toPrimitive getters throw', make: () => allGettersThrow({}) },
    { label: 'an Error whose constructor/name/message/stack/toString/Symbol.toPrimitive getters throw', make: () => allGettersThrow(new Error('x')) },
    { label: 'a frozen Error subclass instance with throwing name, message and stack getters', make: frozenHostileError },
    { label: 'an Error whose cause cycles', make: cyclicCause },
    { label: 'a null-prototype object', make: () => Object.create(null) },
    { label: 'a symbol', make: () => Symbol('hostile') },
    { label: 'a BigInt', make: () => 10n ** 30n },
    {
      label: 'a thenable whose then getter throws',
      make: () => ({
        get then() {
          throw new Error('hostile then');
        },
      }),
    },
    {
      label: 'a thenable that rejects with a revoked Proxy',
      make: () => ({ then: (_resolve: unknown, reject: (e: unknown) => void) => reject(revokedProxy()) }),
    },
    { label: 'null', make: () => null },
    { label: 'undefined', make: () => undefined },
  ];
}

/**
 * Reads `name`, `code`, `message`, `outcomeUnknown` and `retryable` of what a promise rejected
 * with, each guarded, so assertions never touch the value itself.
 */
export function errorSummary(error: unknown): { name?: unknown; code?: unknown; message?: unknown; outcomeUnknown?: unknown; retryable?: unknown } {
  const read = (key: string): unknown => {
    try {
      const value = (error as Record<string, unknown>)[key];
      return typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number'
        ? value
        : value === undefined
          ? undefined
          : '<not a primitive>';
    } catch {
      return '<throws>';
    }
  };
  if (typeof error !== 'object' && typeof error !== 'function') return { name: `<${typeof error}>` };
  if (error === null) return { name: '<null>' };
  return { name: read('name'), code: read('code'), message: read('message'), outcomeUnknown: read('outcomeUnknown'), retryable: read('retryable') };
}
