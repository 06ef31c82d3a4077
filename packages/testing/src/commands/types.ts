// Helpers to declare and parse the fake server's commands (the contract with the engine is in engine.ts).
import type { CommandFlag, CommandSpec } from '../engine.js';
import { CommandError } from '../reply.js';

// The contract between the engine and its commands is declared beside the engine (engine.ts).
export type { BlockRequest, CommandContext, CommandFlag, CommandSpec, HandlerResult } from '../engine.js';

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

/**
 * Parses a 64-bit signed integer argument as Redis's string2ll does: no sign on 0 (`-0` is
 * refused), no `+`, from -2^63 to 2^63 - 1 (beyond 2^53 the number is rounded).
 * @throws CommandError `ERR value is not an integer or out of range` (or `message`).
 */
export function parseInteger(text: string, message = 'ERR value is not an integer or out of range'): number {
  if (!/^(0|-?[1-9]\d{0,18})$/.test(text)) throw new CommandError(message);
  const negative = text.startsWith('-');
  const digits = negative ? text.slice(1) : text;
  if (digits.length === 19 && digits > (negative ? '9223372036854775808' : '9223372036854775807')) throw new CommandError(message);
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
