// The durability option: WAIT / WAITAOF pipelined right after a write, on the write's connection.
import { describeError } from './describe.js';
import { RespireNotDurableError, RespireUnsupportedServerError, RespireValidationError, isRespireError } from './errors.js';
import { MAX_INT32, toDurationMs, toIntegerInRange, toOptions } from './options.js';
import type { RedisArg } from './client.js';

/**
 * How durable each write must be before the call resolves (queue README "Durability"). Redis
 * replicates asynchronously; this waits, after each write, until `replicas` replicas acknowledged
 * it (`WAIT`) and/or it was fsynced to the AOF (`WAITAOF`, Redis 7.2+ and Valkey 8+), for at most
 * `timeoutMs`. It does not make Redis strongly consistent: a write that times out stays applied,
 * and a failover may still promote a replica that missed a write acknowledged by another one.
 */
export interface DurabilityOptions {
  /**
   * Replicas that must acknowledge each write, 0..2^31-1. With `aof: true` they must also have
   * fsynced it to their AOF. @defaultValue 0
   */
  replicas?: number;
  /**
   * `'local'`: the master must have fsynced the write to its AOF (`WAITAOF 1 0`; its `appendonly`
   * must be on), and the replicas acknowledge it in memory (`WAIT`, a second wait of up to
   * `timeoutMs`). `true`: the master and `replicas` replicas must have fsynced it
   * (`WAITAOF 1 <replicas>`). False or undefined: replicas only (`WAIT`). `WAITAOF` on a server
   * without it (Redis 7.0) is refused with `RespireUnsupportedServerError` before the first write.
   * @defaultValue false
   */
  aof?: boolean | 'local';
  /** How long each wait may take, in ms (1..2^31-1, fractions round up). Required: Redis's 0 would wait forever. */
  timeoutMs: number;
}

/** A validated {@link DurabilityOptions}: the commands to pipeline after each write. */
export interface Durability {
  readonly replicas: number;
  readonly localAof: boolean;
  readonly timeoutMs: number;
  /** Sent right after each write, in order, on its connection. */
  readonly waits: readonly (readonly RedisArg[])[];
  /** True when `waits` holds a `WAITAOF`, which needs probing before the first write. */
  readonly usesWaitAof: boolean;
}

const DURABILITY_OPTIONS = ['replicas', 'aof', 'timeoutMs'] as const satisfies readonly (keyof DurabilityOptions)[];

/**
 * Validates a `durability` option (undefined: none).
 * @throws {@link RespireValidationError} naming `durability.<option>`: not an object, an unknown
 *   option, `replicas` not a whole number 0..2^31-1, `aof` not a boolean or `'local'`, a missing
 *   or bad `timeoutMs`, or nothing to wait for (`replicas: 0` without `aof`).
 */
export function toDurability(value: unknown): Durability | undefined {
  if (value === undefined) return undefined;
  const options = toOptions('durability', value as DurabilityOptions, DURABILITY_OPTIONS);
  const replicas = toIntegerInRange('durability.replicas', options.replicas ?? 0, 0, MAX_INT32);
  const aof = options.aof ?? false;
  if (aof !== true && aof !== false && aof !== 'local') {
    throw new RespireValidationError('durability.aof', `must be true, false or 'local', got ${typeof aof === 'string' ? `'${aof}'` : typeof aof}`);
  }
  if (options.timeoutMs === undefined) {
    throw new RespireValidationError('durability.timeoutMs', 'is required: how long each write may wait for its replicas or fsync, in ms');
  }
  const timeoutMs = toDurationMs('durability.timeoutMs', options.timeoutMs);
  if (replicas === 0 && aof === false) {
    throw new RespireValidationError('durability', 'waits for nothing: set replicas to 1 or more, or aof');
  }
  const timeout = String(timeoutMs);
  const waits: RedisArg[][] = [];
  if (aof === true) waits.push(['WAITAOF', '1', String(replicas), timeout]);
  else {
    if (aof === 'local') waits.push(['WAITAOF', '1', '0', timeout]);
    if (replicas > 0) waits.push(['WAIT', String(replicas), timeout]);
  }
  return { replicas, localAof: aof !== false, timeoutMs, waits, usesWaitAof: aof !== false };
}

/** The probe sent once before the first write when `WAITAOF` is used: it needs no write and waits at most 1 ms. */
export const WAITAOF_PROBE: readonly RedisArg[] = ['WAITAOF', '1', '0', '1'];

/**
 * What the probe's failure means: Redis 7.0 has no `WAITAOF` (`ERR unknown command`), and a
 * server without `appendonly yes` refuses numlocal.
 */
export function waitAofRefusal(error: unknown, operation: string): Error {
  const text = describeError(error);
  const why = /unknown command/i.test(text)
    ? 'the server has no WAITAOF (it needs Redis 7.2+ or Valkey 8+); use durability without aof'
    : /appendonly/i.test(text)
      ? "the server's appendonly is off, so WAITAOF cannot wait for an fsync; turn it on (CONFIG SET appendonly yes) or drop aof"
      : undefined;
  if (why === undefined) return error instanceof Error ? error : new Error(text);
  return new RespireUnsupportedServerError(`${operation}: durability.aof: ${why}; nothing was written`, { cause: error });
}

/** What the waits answered: the replicas and local fsyncs reached. */
function reached(durability: Durability, replies: readonly unknown[]): { replicas: number; localAof: boolean } {
  let replicas = durability.replicas === 0 ? 0 : Number.POSITIVE_INFINITY;
  let localAof = false;
  durability.waits.forEach((wait, i) => {
    const reply = replies[i];
    if (wait[0] === 'WAITAOF') {
      const [local, remote] = Array.isArray(reply) ? reply.map(Number) : [0, 0];
      localAof = (local ?? 0) >= 1;
      if (wait[2] !== '0') replicas = Math.min(replicas, remote ?? 0);
    } else replicas = Math.min(replicas, Number(reply));
  });
  return { replicas: Number.isFinite(replicas) ? replicas : 0, localAof };
}

/**
 * Checks what the waits after an applied write answered.
 * @throws {@link RespireNotDurableError} when a target was not reached, or a wait failed (`cause`).
 */
export function checkDurable(
  durability: Durability,
  outcomes: readonly PromiseSettledResult<unknown>[],
  writeReply: unknown,
  operation: string,
  retrySafe: boolean,
): void {
  const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
  const got = failed
    ? { replicas: 0, localAof: false }
    : reached(
        durability,
        outcomes.map((o) => (o as PromiseFulfilledResult<unknown>).value),
      );
  if (!failed && got.replicas >= durability.replicas && (got.localAof || !durability.localAof)) return;
  const wanted: string[] = [];
  if (durability.localAof) wanted.push(`the master's AOF fsync ${got.localAof ? 'done' : 'not confirmed'}`);
  if (durability.replicas > 0) wanted.push(`${got.replicas} of ${durability.replicas} replicas acknowledged it`);
  const retry = retrySafe
    ? 'retrying with the same deduplication ID is safe (it cannot append twice)'
    : 'do not repeat the call blindly: it would apply the write again';
  const what = failed
    ? `the wait failed (${isRespireError(failed.reason) ? failed.reason.message : describeError(failed.reason)}), so nothing is known about its replicas or fsync`
    : `${wanted.join('; ')} within ${durability.timeoutMs} ms`;
  throw new RespireNotDurableError(
    `${operation}: the write WAS applied on the master but is not confirmed durable: ${what}; a failover now may lose it; ${retry}`,
    {
      reply: writeReply,
      replicasRequired: durability.replicas,
      replicasReached: got.replicas,
      localAofRequired: durability.localAof,
      localAofReached: got.localAof,
      retrySafe,
    },
    failed ? { cause: failed.reason } : undefined,
  );
}
