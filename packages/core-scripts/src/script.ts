// The shape of one generated script definition (src/generated/scripts.ts).

/** One Lua operation from `lua/<name>.lua`, flattened at build time. */
export interface ScriptDefinition {
  /** File name without `.lua`, e.g. `queue-receive`. */
  readonly name: string;
  /** How many of the arguments are keys (the header's KEYS[i] count); with {@link variadicKeys}, the fixed ones before the rest. */
  readonly numberOfKeys: number;
  /** True when the header's last KEYS line is variadic (`KEYS[2..]`): any number of keys follow the fixed ones. */
  readonly variadicKeys?: boolean;
  /** True when the reply holds bytes (its header's `Reply` type has `bytes`): its wrapper reads it in binary mode. */
  readonly binaryReply?: boolean;
  /** SHA1 of {@link source}, as EVALSHA expects. */
  readonly sha1: string;
  /** The flattened source, includes inlined. */
  readonly source: string;
}
