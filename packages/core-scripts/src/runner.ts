import type { CommandTarget, RedisArg } from './client.js';
import { isErrorReply, toRespireError } from './errors.js';
import type { ScriptDefinition } from './script.js';

export interface RunScriptOptions {
  /** Return bulk strings as Buffers (payload bytes); else as strings. */
  binary?: boolean;
  /** Names the operation in error messages, e.g. `ReliableQueue.receive`. */
  operation?: string;
}

/**
 * The one place scripts run: EVALSHA on the node that serves `keys[0]`, then EVAL with the
 * source on that same node when it answers NOSCRIPT (after SCRIPT FLUSH, a restart or a
 * failover), so the caller never sees NOSCRIPT. Concurrent calls pipeline through the client.
 *
 * @throws {RespireError} mapped by `toRespireError`: typed script errors, other server replies,
 *   or `RespireTransportError` when the outcome is unknown.
 */
export async function runScript(
  target: CommandTarget,
  script: ScriptDefinition,
  keys: readonly string[],
  args: readonly RedisArg[],
  options: RunScriptOptions = {},
): Promise<unknown> {
  if (keys.length !== script.numberOfKeys) {
    throw new Error(`${script.name} takes ${script.numberOfKeys} keys, got ${keys.length}`);
  }
  const firstKey = keys[0]!;
  const tail = [String(keys.length), ...keys, ...args];
  try {
    try {
      return await target.send(firstKey, ['EVALSHA', script.sha1, ...tail], options.binary);
    } catch (error) {
      if (!isErrorReply(error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await target.send(firstKey, ['EVAL', script.source, ...tail], options.binary);
    }
  } catch (error) {
    throw toRespireError(error, options.operation ?? script.name);
  }
}
