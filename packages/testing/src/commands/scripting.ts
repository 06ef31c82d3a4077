// Scripting commands of the fake server (EVAL, EVALSHA, SCRIPT).
import { CommandError, OK, fail, type Reply } from '../reply.js';
import { command, container, parseInteger, type CommandContext, type CommandSpec } from './types.js';

function evalKeys(args: readonly string[]): number[] {
  const n = Number(args[2]);
  if (!Number.isInteger(n) || n <= 0) return [];
  return Array.from({ length: Math.min(n, args.length - 3) }, (_, i) => 3 + i);
}

function runScript(ctx: CommandContext, bySha: boolean, readOnly: boolean): Reply {
  const [, scriptOrSha, numKeysText] = ctx.args as [string, string, string];
  const numKeys = parseInteger(numKeysText);
  if (numKeys < 0) throw new CommandError("ERR Number of keys can't be negative");
  if (numKeys > ctx.args.length - 3) throw new CommandError("ERR Number of keys can't be greater than number of args");
  const keys = ctx.args.slice(3, 3 + numKeys);
  const argv = ctx.args.slice(3 + numKeys);
  let sha: string;
  let body: string;
  if (bySha) {
    sha = scriptOrSha.toLowerCase();
    const found = ctx.engine.scripts.body(sha);
    if (found === undefined) throw new CommandError('NOSCRIPT No matching script. Please use EVAL.');
    body = found;
  } else {
    body = scriptOrSha;
    sha = ctx.engine.scripts.load(body);
  }
  return ctx.engine.scripts.run(ctx.client, sha, body, keys, argv, readOnly);
}

const scriptCommand = (name: string, bySha: boolean, readOnly: boolean): CommandSpec =>
  command({
    name,
    arity: -3,
    flags: ['noscript', ...(readOnly ? (['readonly'] as const) : [])],
    categories: ['scripting', 'slow'],
    keys: evalKeys,
    available: (m) => !readOnly || m.redis7,
    handler: (ctx) => runScript(ctx, bySha, readOnly),
  });

export const scriptingCommands: CommandSpec[] = [
  scriptCommand('eval', false, false),
  scriptCommand('evalsha', true, false),
  scriptCommand('eval_ro', false, true),
  scriptCommand('evalsha_ro', true, true),
  container(
    'script',
    -2,
    {
      load: command({
        name: 'script|load',
        arity: 3,
        flags: ['noscript'],
        categories: ['scripting', 'slow'],
        handler: (ctx) => ctx.engine.scripts.load(ctx.args[2]!),
      }),
      exists: command({
        name: 'script|exists',
        arity: -3,
        flags: ['noscript'],
        categories: ['scripting', 'slow'],
        handler: (ctx) => ctx.args.slice(2).map((sha) => (ctx.engine.scripts.has(sha) ? 1 : 0)),
      }),
      flush: command({
        name: 'script|flush',
        arity: -2,
        flags: ['noscript'],
        categories: ['scripting', 'slow'],
        handler: (ctx) => {
          if (ctx.args.length > 3 || (ctx.args[2] !== undefined && !/^(a?sync)$/i.test(ctx.args[2]))) fail('ERR SCRIPT FLUSH only support SYNC|ASYNC option');
          ctx.engine.scripts.flush();
          return OK;
        },
      }),
      kill: command({
        name: 'script|kill',
        arity: 2,
        flags: ['noscript', 'allow-busy'],
        categories: ['scripting', 'slow'],
        handler: () => {
          throw new CommandError('NOTBUSY No scripts in execution right now.');
        },
      }),
    },
    ['scripting', 'slow'],
  ),
];
