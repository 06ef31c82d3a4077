// The fake server's command table, assembled from each command family.
import { aclCommands } from './acl-commands.js';
import { hashCommands } from './hashes.js';
import { keyCommands } from './keys.js';
import { listCommands } from './lists.js';
import { scriptingCommands } from './scripting.js';
import { serverCommands } from './server.js';
import { streamGroupCommands } from './stream-groups.js';
import { streamPendingCommands } from './stream-pending.js';
import { streamReadCommands } from './stream-read.js';
import { streamCommands } from './streams.js';
import { stringCommands } from './strings.js';
import type { CommandSpec } from './types.js';
import { zsetCommands } from './zsets.js';

/** The full command table, by lower-case name. */
export function commandTable(): Map<string, CommandSpec> {
  const all = [
    ...keyCommands,
    ...stringCommands,
    ...hashCommands,
    ...listCommands,
    ...zsetCommands,
    ...streamCommands,
    ...streamReadCommands,
    ...streamGroupCommands,
    ...streamPendingCommands,
    ...scriptingCommands,
    ...serverCommands,
    ...aclCommands,
  ];
  return new Map(all.map((spec) => [spec.name, spec]));
}

/** Finds the container command of a subcommand spec (for ACL rules such as `+xgroup`). */
export function parentFinder(table: ReadonlyMap<string, CommandSpec>): (spec: { readonly name: string }) => CommandSpec | undefined {
  return (spec) => table.get(spec.name.split('|')[0]!);
}
