// The contract between the fake server's engine and its commands, and helpers to declare and parse them.
import type { Database } from '../keyspace.js';
import type { Reply } from '../reply.js';
import type { ServerModel } from '../versions.js';
import type { ClientState, Engine } from '../engine.js';
import { CommandError } from '../reply.js';

/** Command flags that change how the engine treats a command. */
export type CommandFlag = 'write' | 'readonly' | 'noscript' | 'blocking' | 'admin' | 'no-auth' | 'no-multi' | 'fast' | 'allow-busy';

/** Everything a handler may use while executing one command. */
export interface CommandContext {
  readonly engine: Engine;
  readonly client: ClientState;
  readonly db: Database;
  /** The command and its arguments as received (latin1 strings); `args[0]` is the name as sent. */
  readonly args: readonly string[];
  readonly model: ServerModel;
  /** Called from a Lua script: blocking commands must not block. */
  readonly inScript: boolean;
  /** Server time, Unix ms with a fraction. */
  nowMs(): number;
}

/** A handler asks to park the client until keys change or the timeout passes. */
export interface BlockRequest {
  readonly kind: 'block';
  /** Keys (in the client's database) whose modification retries the read. */
  readonly keys: readonly string[];
  /** Milliseconds of server time to wait; 0 waits forever. */
  readonly timeoutMs: number;
  /** Retries the read; undefined means keep waiting. May throw CommandError. */
  retry(): Reply | undefined;
  /** The reply on timeout. */
  timeout(): Reply;
}

export type HandlerResult = Reply | BlockRequest;

export function isBlock(result: HandlerResult): result is BlockRequest {
  return typeof result === 'object' && result !== null && !Array.isArray(result) && (result as BlockRequest).kind === 'block';
}

/** One entry of the command table. */
export interface CommandSpec {
  /** Lower-case name, `xgroup|create` for subcommands. */
  readonly name: string;
  /** Redis arity: N exact, -N at least N (the name counts). */
  readonly arity: number;
  readonly flags: readonly CommandFlag[];
  /** ACL categories without `@`, e.g. `['write', 'stream', 'fast']`. */
  readonly categories: readonly string[];
  /** Positions of key arguments in `args` (the name is position 0). */
  keys(args: readonly string[]): number[];
  /** Whether the modelled server has this command. */
  available?(model: ServerModel): boolean;
  /** Subcommands by lower-case name (XGROUP, XINFO, CLIENT, SCRIPT, ...). */
  readonly subcommands?: Readonly<Record<string, CommandSpec>>;
  handler(ctx: CommandContext): HandlerResult;
}

/** Key positions: from `first` to `last` (negative counts from the end) every `step`. */
export function keyRange(first: number, last = first, step = 1): (args: readonly string[]) => number[] {
  return (args) => {
    if (first === 0) return [];
    const end = last < 0 ? args.length + last : last;
    const out: number[] = [];
    for (let i = first; i <= end && i < args.length; i += step) out.push(i);
    return out;
  };
}

const noKeys = (): number[] => [];

type SpecInput = Omit<CommandSpec, 'keys' | 'flags' | 'categories'> & {
  keys?: CommandSpec['keys'];
  flags?: readonly CommandFlag[];
  categories?: readonly string[];
};

/** Declares a command with defaults (no keys, no flags). */
export function command(spec: SpecInput): CommandSpec {
  return { keys: noKeys, flags: [], categories: [], ...spec };
}

/** Declares a container command (XGROUP, XINFO, ...) whose handler dispatches to subcommands. */
export function container(name: string, arity: number, subcommands: Record<string, CommandSpec>, categories: readonly string[] = []): CommandSpec {
  return {
    name,
    arity,
    flags: [],
    categories,
    keys: noKeys,
    subcommands,
    handler: () => {
      throw new Error('container commands are dispatched by the engine');
    },
  };
}

/** Parses a 64-bit signed integer argument. @throws CommandError `ERR value is not an integer or out of range`. */
export function parseInteger(text: string, message = 'ERR value is not an integer or out of range'): number {
  if (!/^-?(0|[1-9]\d{0,18})$/.test(text)) throw new CommandError(message);
  const digits = text.startsWith('-') ? text.slice(1) : text;
  if (digits.length === 19 && digits > '9223372036854775807') throw new CommandError(message);
  return Number(text);
}

/** Parses a float argument as Redis does (`inf`, `-inf`, `+inf` allowed). */
export function parseFloatArg(text: string, message = 'ERR value is not a valid float'): number {
  const lower = text.toLowerCase();
  if (lower === 'inf' || lower === '+inf' || lower === 'infinity' || lower === '+infinity') return Infinity;
  if (lower === '-inf' || lower === '-infinity') return -Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new CommandError(message);
  return Number(text);
}

/** Case-insensitive option match. */
export function is(arg: string | undefined, option: string): boolean {
  return arg !== undefined && arg.length === option.length && arg.toUpperCase() === option;
}
