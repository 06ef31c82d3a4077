import { replyCode } from './classify.js';
import { RespireValidationError } from './errors.js';
import type { CommandTarget, RedisArg, SendOptions } from './transport.js';
import type { ScriptDefinition } from './script.js';

/** A script argument: numbers are sent in decimal, booleans as `'1'` / `'0'` (the headers' flags). */
export type ScriptArg = RedisArg | number | boolean;

export interface RunScriptOptions {
  /** Return bulk strings as Buffers (payload bytes); else as strings. */
  binary?: boolean;
  /** Names the operation in error messages, e.g. `ReliableQueue.receive`. @defaultValue the script name */
  operation?: string;
}

const toArg = (value: ScriptArg): RedisArg => (typeof value === 'number' ? String(value) : typeof value === 'boolean' ? (value ? '1' : '0') : value);

/**
 * The one place scripts run: EVALSHA on the node that serves `keys[0]`, then EVAL with the
 * source on that same node when it answers NOSCRIPT (after SCRIPT FLUSH, a restart or a
 * failover), so the caller never sees NOSCRIPT. Concurrent calls pipeline through the client.
 * Prefer the typed wrappers (`scriptCalls`), which name every key and argument.
 *
 * @throws {RespireValidationError} when `keys` does not match the script's KEYS count (before any I/O).
 * @throws {RespireError} mapped by `toRespireError`: typed script errors, other server replies,
 *   or `RespireTransportError` when the outcome is unknown.
 */
export async function runScript(
  target: CommandTarget,
  script: ScriptDefinition,
  keys: readonly string[],
  args: readonly ScriptArg[],
  options: RunScriptOptions = {},
): Promise<unknown> {
  if (keys.length !== script.numberOfKeys) {
    throw new RespireValidationError('keys', `${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  }
  const firstKey = keys[0]!;
  const tail = [String(keys.length), ...keys, ...args.map(toArg)];
  const send: SendOptions = { binary: options.binary, operation: options.operation ?? script.name };
  try {
    return await target.send(firstKey, ['EVALSHA', script.sha1, ...tail], send);
  } catch (error) {
    if (replyCode(error) !== 'NOSCRIPT') throw error;
    return await target.send(firstKey, ['EVAL', script.source, ...tail], send);
  }
}
