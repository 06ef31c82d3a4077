// The one place scripts run: EVALSHA, then EVAL on NOSCRIPT, on the node serving the first key.
import { replyCode } from './classify.js';
import { RespireValidationError } from './errors.js';
import type { RedisArg } from './client.js';
import type { CommandTarget, SendOptions } from './transport.js';
import type { ScriptDefinition } from './script.js';

/** A script argument: numbers are sent in decimal, booleans as `'1'` / `'0'` (the headers' flags). */
export type ScriptArg = RedisArg | number | boolean;

export interface RunScriptOptions extends ScriptCallOptions {
  /** Return bulk strings as Buffers (payload bytes); else as strings. The wrappers set it from the script's `binaryReply`. */
  binary?: boolean;
}

/** Options of a generated script wrapper (`scriptCalls.<name>`); its reply decides binary mode. */
export interface ScriptCallOptions {
  /** Names the operation in error messages, e.g. `ReliableQueue.receive`. @defaultValue the script name */
  operation?: string;
  /**
   * Where EVAL goes after a NOSCRIPT reply: a target that reaches the same node over a connection no
   * blocking read holds (the worker sends completions on a reader's connection, written together
   * with its next read, and the fallback must not queue behind that read). @defaultValue `target`
   */
  noScriptTarget?: CommandTarget;
  /** Repeating this call cannot apply it twice; see `SendOptions.retrySafe` (the durability option). */
  retrySafe?: boolean;
  /** The script writes nothing: no durability wait follows it; see `SendOptions.readOnly`. */
  readOnly?: boolean;
}

const toArg = (value: ScriptArg): RedisArg => (typeof value === 'number' ? String(value) : typeof value === 'boolean' ? (value ? '1' : '0') : value);

/**
 * The one place scripts run: EVALSHA on the node that serves `keys[0]`, then EVAL with the
 * source on that same node when it answers NOSCRIPT (after SCRIPT FLUSH, a restart or a
 * failover), so the caller never sees NOSCRIPT (`noScriptTarget` may name another connection to
 * that node for the EVAL). Concurrent calls pipeline through the client.
 * Prefer the typed wrappers (`scriptCalls`), which name every key and argument.
 *
 * @throws {@link RespireValidationError} when `keys` does not match the script's KEYS count (before any I/O).
 * @throws {@link RespireError} mapped by `toRespireError`: typed script errors, other server replies,
 *   or `RespireTransportError` when the outcome is unknown.
 */
export async function runScript(
  target: CommandTarget,
  script: ScriptDefinition,
  keys: readonly string[],
  args: readonly ScriptArg[],
  options: RunScriptOptions = {},
): Promise<unknown> {
  if (script.variadicKeys === true ? keys.length < script.numberOfKeys : keys.length !== script.numberOfKeys) {
    const takes = script.variadicKeys === true ? `at least ${script.numberOfKeys}` : String(script.numberOfKeys);
    throw new RespireValidationError('keys', `${script.name} takes ${takes} keys, got ${keys.length}`);
  }
  const firstKey = keys[0]!;
  // One array for the command (a batch of completions carries a few hundred arguments).
  const command: RedisArg[] = ['EVALSHA', script.sha1, String(keys.length)];
  for (const key of keys) command.push(key);
  for (const arg of args) command.push(toArg(arg));
  const send: SendOptions = { binary: options.binary, operation: options.operation ?? script.name, retrySafe: options.retrySafe, readOnly: options.readOnly };
  try {
    return await target.send(firstKey, command, send);
  } catch (error) {
    if (replyCode(error) !== 'NOSCRIPT') throw error;
    const fallback = command.slice(); // the first command's arguments may still be read (traces)
    fallback[0] = 'EVAL';
    fallback[1] = script.source;
    return await (options.noScriptTarget ?? target).send(firstKey, fallback, send);
  }
}
