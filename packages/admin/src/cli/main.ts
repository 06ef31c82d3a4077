// The `respire` CLI: global flags, connection, the status command and error handling.
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError, Option } from 'commander';
import { createClient, createCluster } from 'redis';
import { RespireAdmin, type StreamConfig } from '../admin.js';
import { DEFAULT_AUDIT_STREAM } from '../audit.js';
import { isNotFound } from '../not-found.js';
import { RespireTransportError, isRespireError, toRespireError } from '../redis.js';
import { deadLetterCommands } from './dead-letters.js';
import { ActionFailed, EXIT, UsageError, checkRedisUrl, defaultActorName, parseWhole, redactUrl, type Cli, type GlobalOptions } from './context.js';
import { findCommand } from './find.js';
import { jsonText, renderOverview, terminalText } from './format.js';
import { groupCommands } from './groups.js';
import { groupedCommands } from './grouped.js';
import { historyCommands } from './history.js';
import { jobCommands } from './jobs.js';
import { messageCommands } from './messages.js';
import { partitionCommands } from './partitions.js';
import { topicCommands } from './topics.js';

interface ResourceOptions {
  queue?: string;
  stream?: string;
  deadLetterStream?: string;
}

/** Where the CLI writes. */
export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * This package's version, from its package.json: one level above the built bin (dist/cli.js,
 * one bundle) and two above this module's source (src/cli/main.ts) or its tsc output.
 */
const version = (() => {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (pkg.name === '@respire/admin' && typeof pkg.version === 'string') return pkg.version;
    } catch {
      // not at this path
    }
  }
  return 'unknown';
})();

/** Runs the CLI with `argv` (without `node` and the script); resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = process): Promise<number> {
  // Everything written passes through terminalText: data from Redis never reaches a terminal raw.
  const line = (s: string) => terminalText(s.endsWith('\n') ? s : `${s}\n`);
  const out = (s: string) => void io.stdout.write(line(s));
  const err = (s: string) => void io.stderr.write(line(s));
  const json = argv.includes('--json');
  let exitCode: number = EXIT.ok;
  const clients: { destroy(): void }[] = [];

  const program = new Command('respire')
    .description('Inspect and repair Respire queues and worker streams on Redis.')
    .version(version)
    .addOption(new Option('--url <url>', 'Redis URL (default: $REDIS_URL)'))
    .option('--cluster', 'treat --url as a root node of a Redis Cluster')
    .option('--json', 'print one JSON document (stable shape) instead of tables')
    .option('--actor <name>', 'operator name for the audit record (default: the OS user)')
    .option('-y, --yes', 'do not ask for confirmation of destructive actions')
    .option('--key-prefix <prefix>', 'key prefix of the queues and streams addressed (their keyPrefix option)')
    .option('--audit-stream <key>', 'append an audit record of every action to this stream', DEFAULT_AUDIT_STREAM)
    .option('--no-audit', 'do not append audit records to a stream')
    .option('--timeout <ms>', 'give up on a connection or command that gets no answer within this many ms', (v) => positive(v, '--timeout'), 5000)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  program.addHelpText(
    'after',
    '\nExit codes: 0 done; 1 failed (Redis or permission error, a queue, stream or group not found, record missing, entry changed, a resource unavailable, too many consumers to list, interrupted); 2 usage.\n' +
      'Address a queue with --queue NAME, a worker stream with --stream KEY [--dead-letter-stream KEY], a topic with --topic NAME.\n' +
      `Actions are audited to the stream --audit-stream (default ${DEFAULT_AUDIT_STREAM}) unless --no-audit.`,
  );

  const cli: Cli = {
    async connect(cmd, resources) {
      const g = cmd.optsWithGlobals<GlobalOptions>();
      const url = g.url ?? process.env.REDIS_URL;
      if (!url) throw new UsageError('no Redis URL: pass --url redis://host:port or set REDIS_URL');
      checkRedisUrl(url);
      const socket = { reconnectStrategy: false as const, connectTimeout: g.timeout };
      let client: ReturnType<typeof createClient> | ReturnType<typeof createCluster>;
      try {
        client = g.cluster ? createCluster({ rootNodes: [{ url }], defaults: { socket } }) : createClient({ url, socket });
      } catch (error) {
        throw new UsageError(`--url '${redactUrl(url)}': ${(error as Error).message}`);
      }
      client.on('error', () => {});
      clients.push(client);
      // A server that accepts the connection but never answers the handshake must not hang the CLI.
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new RespireTransportError(`Redis at ${redactUrl(url)} did not answer within ${g.timeout} ms (--timeout)`, { outcomeUnknown: false })),
          g.timeout,
        );
      });
      try {
        await Promise.race([client.connect(), silent]);
      } catch (error) {
        throw connectError(error, url);
      } finally {
        clearTimeout(timer);
      }
      const admin = new RespireAdmin(client, {
        // Discovery only serves hints (the nearest queue names) unless a command says otherwise.
        discoverQueues: true,
        ...resources,
        commandTimeoutMs: g.timeout,
        ...(g.audit ? { auditStream: g.auditStream } : {}),
        audit: (record) => {
          if (record.auditStreamError) err(`warning: the audit record was not appended to ${g.auditStream}: ${record.auditStreamError}`);
        },
      });
      return { admin, g, actor: { name: g.actor ?? defaultActorName(userInfo, process.env, process.getuid?.()), role: 'operator' } };
    },

    addressed(cmd, needDead) {
      const o = cmd.opts<ResourceOptions>();
      const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
      if ((o.queue === undefined) === (o.stream === undefined)) throw new UsageError('address one resource: --queue NAME, or --stream KEY');
      if (o.queue !== undefined) {
        if (o.deadLetterStream !== undefined) throw new UsageError('--dead-letter-stream goes with --stream; a queue has its own');
        const options = { queues: [{ name: o.queue, ...(prefix ? { keyPrefix: prefix } : {}) }] };
        if (/[{}]/.test(o.queue) || o.queue.trim() === '') throw new UsageError(`--queue: a queue name must be nonblank without '{' or '}', got '${o.queue}'`);
        return { options, id: `${prefix ?? ''}{respire-queue:${o.queue}}:stream`, queue: o.queue };
      }
      if (needDead && o.deadLetterStream === undefined)
        throw new UsageError('--stream needs --dead-letter-stream KEY for dead letters (a record does not name its source)');
      const stream: StreamConfig = {
        stream: o.stream!,
        ...(prefix ? { keyPrefix: prefix } : {}),
        ...(o.deadLetterStream ? { deadLetterStream: o.deadLetterStream } : {}),
      };
      return { options: { streams: [stream] }, id: `${prefix ?? ''}${o.stream}`, stream: o.stream! };
    },

    async confirm(g, question) {
      if (g.yes) return;
      if (!process.stdin.isTTY) throw new UsageError(`refusing to prompt ("${question}") because stdin is not a terminal: pass --yes to confirm`);
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        const answer = (await rl.question(terminalText(`${question} [y/N] `))).trim().toLowerCase();
        if (answer !== 'y' && answer !== 'yes') throw new ActionFailed('not confirmed: nothing was done');
      } finally {
        rl.close();
      }
    },

    print: (g, doc, human) => (g.json ? void io.stdout.write(`${jsonText(doc)}\n`) : out(human())),
    err,
    fail: () => void (exitCode = EXIT.failed),

    withPaging(cmd, count) {
      return cmd
        .option('--count <n>', 'rows per page (1..1000)', (v) => parseWhole(v, '--count'), count)
        .option('--cursor <id>', 'the next page: the cursor printed after the previous page')
        .option('--before <id>', 'the page before: the cursor printed as "previous page"')
        .option('--last', 'the last page');
    },

    withResource(cmd, streamOnly = false) {
      if (!streamOnly) cmd.option('--queue <name>', 'a reliable queue (its name)');
      cmd.option('--stream <key>', 'a worker stream (its key)');
      if (!streamOnly) cmd.option('--dead-letter-stream <key>', "the workers' dead-letter stream (with --stream)");
      return cmd;
    },
  };

  program
    .command('status')
    .description('every queue (configured with --queue, or found by a bounded SCAN) and stream (--stream) with counts')
    .option('--queue <name...>', 'queues to show besides the discovered ones')
    .option('--stream <key...>', 'worker streams to show')
    .option('--dead-letter-stream <key...>', 'dead-letter streams of the --stream keys, in the same order')
    .option('--no-discover', 'do not SCAN for queues')
    .action(async (o: { queue?: string[]; stream?: string[]; deadLetterStream?: string[]; discover: boolean }, cmd: Command) => {
      const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
      const kp = prefix ? { keyPrefix: prefix } : {};
      const { admin, g } = await cli.connect(cmd, {
        queues: (o.queue ?? []).map((name) => ({ name, ...kp })),
        streams: (o.stream ?? []).map((stream, i) => ({ stream, ...kp, ...(o.deadLetterStream?.[i] ? { deadLetterStream: o.deadLetterStream[i] } : {}) })),
        discoverQueues: o.discover,
      });
      const overview = await admin.overview();
      // A name given with --queue or --stream that names nothing: marked, with the nearest names, and exit 1.
      const missing: { kind: 'queue' | 'stream'; name: string; known: string[] }[] = [];
      for (const q of overview.queues) if (!q.exists && !q.resource.discovered) missing.push({ kind: 'queue', name: q.resource.name, known: [] });
      for (const s of overview.streams) if (!s.exists) missing.push({ kind: 'stream', name: s.resource.stream, known: [] });
      for (const m of missing) m.known = await admin.nearestNames(m.kind, m.name);
      cli.print(g, { ...overview, missing }, () => renderOverview(overview, (o.stream ?? []).length > 0, missing));
      if (overview.unavailable.length > 0 || missing.length > 0) cli.fail();
    });
  deadLetterCommands(program, cli);
  groupCommands(program, cli);
  messageCommands(program, cli);
  findCommand(program, cli);
  historyCommands(program, cli);
  jobCommands(program, cli);
  topicCommands(program, cli);
  groupedCommands(program, cli);
  partitionCommands(program, cli);

  try {
    await program.parseAsync(argv as string[], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      // Scripts that asked for --json get one document on stdout for a usage error too.
      if (json && exitCode !== EXIT.ok) io.stdout.write(`${jsonText({ error: { code: 'USAGE', message: error.message.replace(/^error: /, '') } })}\n`);
    } else {
      // A name that names nothing is not a usage error: the command was right, the data is not there.
      const missing = isNotFound(error);
      const usage = !missing && (error instanceof UsageError || isRespireError(error, 'INVALID_ARGUMENT'));
      const message = error instanceof Error ? error.message : String(error);
      const code = missing ? 'NOT_FOUND' : usage ? 'USAGE' : isRespireError(error) ? error.code : error instanceof ActionFailed ? 'NOT_DONE' : 'FAILED';
      err(`respire: ${message}`);
      // With --json, scripts also get one JSON document on stdout.
      if (json) io.stdout.write(`${jsonText({ error: { code, message, ...(missing ? { notFound: missing } : {}) } })}\n`);
      exitCode = usage ? EXIT.usage : EXIT.failed;
    }
  } finally {
    for (const c of clients) c.destroy();
  }
  return exitCode;
}

/**
 * A failed connect as a Respire error, so `--json` reports its code like any other: the server's
 * refusal (`WRONGPASS`, `NOAUTH`, ...) as the server error it is; anything else (refused,
 * unreachable, reset) as TRANSPORT_FAILED with nothing sent.
 */
function connectError(error: unknown, url: string): unknown {
  if (isRespireError(error)) return error; // the --timeout above
  const converted = toRespireError(error, `connecting to Redis at ${redactUrl(url)}`);
  if (converted.code !== 'TRANSPORT_FAILED') return converted;
  const reason = error instanceof Error ? error.message : String(error);
  return new RespireTransportError(`could not connect to Redis at ${redactUrl(url)}: ${reason}`, { cause: error, outcomeUnknown: false });
}

/** A whole number of milliseconds from 1 to 2^31-1. @throws {@link UsageError} */
function positive(value: string, flag: string): number {
  const n = parseWhole(value, flag);
  if (n < 1 || n > 2_147_483_647) throw new UsageError(`${flag} must be from 1 to 2147483647, got '${value}'`);
  return n;
}
