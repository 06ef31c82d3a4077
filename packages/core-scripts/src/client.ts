// The node-redis clients Respire takes, and the check that tells a caller what to pass instead.
import { exceptionType, safeGet } from './describe.js';
import { RespireValidationError } from './errors.js';

/** A command argument as node-redis takes it. */
export type RedisArg = string | Buffer;

/** A node-redis v5/v6 standalone client (`createClient`), as Respire uses it. */
export interface StandaloneClientLike {
  readonly isOpen: boolean;
  sendCommand(args: readonly RedisArg[], options?: object): Promise<unknown>;
  duplicate?(...args: never[]): unknown;
}

/** A node-redis v5/v6 Cluster client (`createCluster`), as Respire uses it. */
export interface ClusterClientLike {
  readonly isOpen: boolean;
  sendCommand(firstKey: RedisArg | undefined, isReadonly: boolean | undefined, args: readonly RedisArg[], options?: object): Promise<unknown>;
  readonly masters: readonly unknown[];
  duplicate?(...args: never[]): unknown;
}

/** The caller's node-redis client, standalone or Cluster. Respire never closes it. */
export type RedisClientLike = StandaloneClientLike | ClusterClientLike;

const CLIENT_HINT = "pass a connected node-redis v5 or v6 client: `const client = await createClient({ url }).connect()` (or createCluster(...)) from 'redis'";

/**
 * Checks once, when a queue, worker, producer or admin API is created, that `client` is a node-redis
 * v5/v6 client, and otherwise says what was passed and what to pass instead.
 * @throws {@link RespireValidationError} naming `argument`.
 */
export function checkClient(client: unknown, argument: string): void {
  const refuse = (what: string) => {
    throw new RespireValidationError(argument, what);
  };
  let isUrl = false;
  try {
    isUrl = client instanceof URL;
  } catch {
    // A Proxy whose getPrototypeOf throws: not a URL.
  }
  if (typeof client === 'string' || isUrl) {
    // Never echo it: a URL may carry a password.
    refuse(`got a URL ${typeof client === 'string' ? 'string' : 'object'}, not a client; ${CLIENT_HINT}`);
  }
  if ((typeof client !== 'object' && typeof client !== 'function') || client === null) {
    refuse(`got ${client === null ? 'null' : typeof client}; ${CLIENT_HINT}`);
  }
  const candidate = client as object;
  if (typeof safeGet(candidate, 'then') === 'function') {
    refuse(`got a Promise: is an \`await\` missing? \`createClient().connect()\` returns a promise of the connected client; ${CLIENT_HINT}`);
  }
  const sendCommand = safeGet(candidate, 'sendCommand');
  if (typeof sendCommand === 'function' && typeof safeGet(candidate, 'isOpen') === 'boolean') {
    // node-redis v4 has the same sendCommand and isOpen but public executeScript / executeFunction and
    // no withTypeMapping (v5 made the former private and added the latter); its replies differ in shape.
    if (typeof safeGet(candidate, 'executeScript') === 'function' && typeof safeGet(candidate, 'withTypeMapping') !== 'function') {
      refuse("is a node-redis v4 client; Respire needs node-redis v5 or v6 (v4's replies have other shapes): upgrade `redis` to ^5 or ^6");
    }
    return;
  }
  if (typeof sendCommand === 'function' && typeof safeGet(candidate, 'status') === 'string') {
    refuse(`looks like an ioredis client, which Respire does not support (it needs node-redis); ${CLIENT_HINT}`);
  }
  if (['url', 'socket', 'rootNodes'].some((name) => safeGet(candidate, name) !== undefined)) {
    refuse(`got client options, not a client; ${CLIENT_HINT.replace('{ url }', 'options')}`);
  }
  refuse(`${exceptionType(candidate)} is not a node-redis client (it has no sendCommand and isOpen); ${CLIENT_HINT}`);
}
