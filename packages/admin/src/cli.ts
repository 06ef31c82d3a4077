#!/usr/bin/env node
// The `respire` binary's entry point.
/**
 * `respire`: the operator's command line over {@link RespireAdmin}. Exit codes: 0 done; 1 failed
 * (a Redis or permission error, or an action that found its record missing, refused it or saw a
 * pending entry change); 2 usage (bad flags or arguments, no URL, a prompt refused).
 */
import { main } from './cli/main.js';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
  // The clients are destroyed; a socket node-redis still holds (a Cluster client given up on
  // mid-handshake) must not keep the process alive. Output is flushed first.
  setTimeout(() => process.stdout.write('', () => process.stderr.write('', () => process.exit(code))), 200).unref();
});
