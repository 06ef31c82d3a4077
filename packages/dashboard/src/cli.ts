#!/usr/bin/env node
// The `respire-dashboard` binary's entry point and its flags.
/**
 * `respire-dashboard`: the dashboard as a standalone server with its own Redis connection.
 * Secure by default: it needs a credential and binds 127.0.0.1 unless --host says otherwise.
 * Exit codes: 0 stopped by a signal; 1 failed at start (Redis, port); 2 usage.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_AUDIT_STREAM, isRespireError, type QueueConfig, type StreamConfig, type TopicConfig } from '@respire/admin';
import { startStandaloneDashboard, type StandaloneUser } from './standalone.js';

class UsageError extends Error {}

/** A whole-number flag in `min..max`. */
function whole(value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) throw new InvalidArgumentError(`a whole number from ${min} to ${max}`);
  return n;
}

interface ConfigFile {
  url?: string;
  cluster?: boolean;
  queues?: QueueConfig[];
  streams?: StreamConfig[];
  discoverQueues?: boolean;
  topics?: TopicConfig[];
  discoverTopics?: boolean;
  groupedQueues?: QueueConfig[];
  discoverGroupedQueues?: boolean;
  partitionedQueues?: QueueConfig[];
  discoverPartitionedQueues?: boolean;
  auditStream?: string;
}

/** This package's version, from its package.json: one level above src/cli.ts and dist/cli.js alike. */
const version = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
    if (pkg.name === '@respire/dashboard' && typeof pkg.version === 'string') return pkg.version;
  } catch {
    // not there
  }
  return 'unknown';
})();

/**
 * A JSON file as an object. Errors name the file and the problem, never its content: V8's
 * syntax errors quote the text, and these files hold Redis URLs and token digests.
 */
function readJson<T extends object>(path: string, what: string): Partial<T> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read the ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const at = /at position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new UsageError(`the ${what} ${path} is not valid JSON${at ? ` (at position ${at})` : ''}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`the ${what} ${path} must hold a JSON object`);
  return value as Partial<T>;
}

/** Runs the command with `argv` (without `node` and the script). Resolves once the server listens. */
async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // --stream and --dead-letter-stream pair up in argv order: each dead-letter stream belongs to the stream before it.
  const streams: { stream: string; deadLetterStream?: string; keyPrefix?: string; label?: string }[] = [];
  const queues: QueueConfig[] = [];
  const program = new Command('respire-dashboard')
    .description('The Respire dashboard: queues, consumer groups, pending entries and dead letters, with retry and delete.')
    .version(version)
    .addOption(new Option('--url <url>', 'Redis URL (default: $REDIS_URL)'))
    .option('--cluster', 'treat --url as a root node of a Redis Cluster')
    .option('--host <address>', 'interface to listen on', '127.0.0.1')
    .option(
      '--port <port>',
      'port to listen on (0: any free port)',
      (v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('a port number from 0 to 65535');
        return n;
      },
      7373,
    )
    .option('--base-path <path>', 'serve under this path, e.g. /respire', '/')
    .option('--queue <name>', 'a reliable queue to show (repeatable)', (name: string) => {
      queues.push({ name });
      return name;
    })
    .option('--key-prefix <prefix>', 'key prefix of the --queue and --stream entries (their keyPrefix option)')
    .option('--stream <key>', 'a worker stream to show (repeatable)', (stream: string) => {
      streams.push({ stream });
      return stream;
    })
    .option('--dead-letter-stream <key>', 'dead-letter stream of the --stream before it (retries go back to that stream)', (key: string) => {
      const last = streams.at(-1);
      if (!last) throw new InvalidArgumentError('give --stream KEY before its --dead-letter-stream');
      if (last.deadLetterStream !== undefined) throw new InvalidArgumentError(`--stream ${last.stream} already has a dead-letter stream`);
      last.deadLetterStream = key;
      return key;
    })
    .option('--discover-queues', 'also find reliable queues with a bounded SCAN of the key space')
    .option('--discover-topics', 'also find reliable topics with a bounded SCAN of the key space')
    .option('--discover-grouped-queues', 'also find grouped queues (queues with message groups) with a bounded SCAN of the key space')
    .option('--discover-partitioned-queues', 'also find partitioned queues (by their metadata keys) with a bounded SCAN of the key space')
    .option(
      '--config <file>',
      'JSON file: { url, cluster, queues: [{ name, keyPrefix }], streams: [{ stream, deadLetterStream, keyPrefix, label }], discoverQueues, topics: [{ name, keyPrefix }], discoverTopics, groupedQueues: [{ name, keyPrefix }], discoverGroupedQueues, partitionedQueues: [{ name, keyPrefix }], discoverPartitionedQueues, auditStream }',
    )
    .option('--users <file>', 'JSON file of users: { "users": [{ "name", "role": "viewer" | "operator", "tokenSha256" }] }')
    .option('--token-env <name>', 'environment variable holding the operator token (user "operator")', 'RESPIRE_DASHBOARD_TOKEN')
    .option('--viewer-token-env <name>', 'environment variable holding a read-only token (user "viewer")', 'RESPIRE_DASHBOARD_VIEWER_TOKEN')
    .option('--audit-stream <key>', 'append an audit record of every action to this stream (as the respire CLI does)', DEFAULT_AUDIT_STREAM)
    .option('--no-audit-stream', 'do not append audit records to a stream (they still go to stdout)')
    .option('--poll-interval-ms <ms>', 'auto-refresh interval offered on every page (0: no auto-refresh)', (v) => Number(v))
    .option('--secure-cookies', 'mark the session cookie Secure (when served over HTTPS, e.g. behind a TLS proxy)')
    .option(
      '--allowed-host <name>',
      'a host name the server answers to (repeatable; default: the bound address, localhost, 127.0.0.1, ::1)',
      (name: string, all: string[] = []) => [...all, name],
    )
    .option('--history-interval-ms <ms>', 'record a history sample of every resource this often', (v) => whole(v, 1000, 86_400_000), 60_000)
    .option('--no-history', 'do not record history samples (the history pages then show what others recorded)')
    .option('--job-page-size <n>', 'records a bulk job handles per page (1..1000)', (v) => whole(v, 1, 1000), 500)
    .option('--job-rate <n>', 'records per second a bulk job handles at most (0: no limit)', (v) => whole(v, 0, 1_000_000), 0)
    .option('--job-max-records <n>', 'records one bulk job handles at most', (v) => whole(v, 1, 100_000_000), 10_000_000)
    .option('--max-running-jobs <n>', 'bulk jobs this server runs at once (1..100)', (v) => whole(v, 1, 100), 4)
    .exitOverride()
    .showHelpAfterError('(run with --help for usage)');
  program.addHelpText(
    'after',
    '\nCredentials: set RESPIRE_DASHBOARD_TOKEN (at least 16 characters) for an operator, and/or\n' +
      'RESPIRE_DASHBOARD_VIEWER_TOKEN for a read-only user, or pass --users FILE. Sign in on the page\n' +
      'with the user name and token, or send "Authorization: Bearer <token>".\n\n' +
      'Example:\n  RESPIRE_DASHBOARD_TOKEN=$(openssl rand -hex 24) respire-dashboard --url redis://localhost:6379 \\\n' +
      '    --queue notifications --stream orders --dead-letter-stream orders-dead',
  );

  try {
    program.parse(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  const o = program.opts<{
    url?: string;
    cluster?: boolean;
    host: string;
    port: number;
    basePath: string;
    keyPrefix?: string;
    discoverQueues?: boolean;
    discoverTopics?: boolean;
    discoverGroupedQueues?: boolean;
    discoverPartitionedQueues?: boolean;
    config?: string;
    users?: string;
    tokenEnv: string;
    viewerTokenEnv: string;
    auditStream: string | false;
    pollIntervalMs?: number;
    secureCookies?: boolean;
    allowedHost?: string[];
    history: boolean;
    historyIntervalMs: number;
    jobPageSize: number;
    jobRate: number;
    jobMaxRecords: number;
    maxRunningJobs: number;
  }>();

  try {
    const config: ConfigFile = o.config ? readJson<ConfigFile>(o.config, 'config file') : {};
    const url = o.url ?? config.url ?? env.REDIS_URL;
    if (!url) throw new UsageError('no Redis URL: pass --url redis://host:port, set it in --config, or set REDIS_URL');

    const users: StandaloneUser[] = [];
    if (o.users) {
      const file = readJson<{ users: StandaloneUser[] }>(o.users, 'users file');
      if (!Array.isArray(file.users)) throw new UsageError(`the users file ${o.users} needs a "users" array`);
      users.push(...file.users);
    }
    const operatorToken = env[o.tokenEnv];
    if (operatorToken) users.push({ name: 'operator', role: 'operator', token: operatorToken });
    const viewerToken = env[o.viewerTokenEnv];
    if (viewerToken) users.push({ name: 'viewer', role: 'viewer', token: viewerToken });
    if (users.length === 0) {
      throw new UsageError(
        `no credential: set ${o.tokenEnv} (an operator token of at least 16 characters; e.g. export ${o.tokenEnv}=$(openssl rand -hex 24)), ${o.viewerTokenEnv}, or pass --users FILE. There is no anonymous mode.`,
      );
    }

    const prefix = o.keyPrefix ? { keyPrefix: o.keyPrefix } : {};
    const allQueues = [...(config.queues ?? []), ...queues.map((q) => ({ ...q, ...prefix }))];
    const allStreams = [...(config.streams ?? []), ...streams.map((s) => ({ ...s, ...prefix }))];
    const discover = o.discoverQueues ?? config.discoverQueues ?? false;
    // The audit stream: --no-audit-stream turns it off; a config file's auditStream stands in for the default.
    const auditStream =
      o.auditStream === false ? undefined : o.auditStream !== DEFAULT_AUDIT_STREAM ? o.auditStream : (config.auditStream ?? DEFAULT_AUDIT_STREAM);
    const jobs = { pageSize: o.jobPageSize, ratePerSecond: o.jobRate, maxRecords: o.jobMaxRecords, maxRunning: o.maxRunningJobs };
    const pollIntervalMs = o.pollIntervalMs ?? 10_000;
    const dashboard = await startStandaloneDashboard({
      url,
      cluster: o.cluster ?? config.cluster ?? false,
      host: o.host,
      port: o.port,
      basePath: o.basePath,
      users,
      queues: allQueues,
      streams: allStreams,
      discoverQueues: discover,
      topics: config.topics ?? [],
      discoverTopics: o.discoverTopics ?? config.discoverTopics ?? false,
      groupedQueues: config.groupedQueues ?? [],
      discoverGroupedQueues: o.discoverGroupedQueues ?? config.discoverGroupedQueues ?? false,
      partitionedQueues: config.partitionedQueues ?? [],
      discoverPartitionedQueues: o.discoverPartitionedQueues ?? config.discoverPartitionedQueues ?? false,
      ...(auditStream ? { auditStream } : {}),
      pollIntervalMs,
      secureCookies: o.secureCookies ?? false,
      ...(o.allowedHost ? { allowedHosts: o.allowedHost } : {}),
      history: o.history ? { intervalMs: o.historyIntervalMs } : false,
      jobs,
    });
    const who = users.map((u) => `${u.name} (${u.role})`).join(', ');
    const counted = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;
    const seconds = (ms: number) => `${ms % 1000 === 0 ? ms / 1000 : (ms / 1000).toFixed(1)} s`;
    // Everything the configuration turned on, so that nothing runs unseen.
    console.log(`Respire dashboard listening on ${dashboard.url}`);
    console.log(
      `  Redis ${url.replace(/\/\/[^@]*@/, '//***@')}${o.cluster || config.cluster ? ' (Cluster)' : ''}; ${counted(allQueues.length, 'queue')}, ${counted(allStreams.length, 'stream')} configured${discover ? ', discovering queues (bounded SCAN)' : ''}`,
    );
    console.log(
      `  sign in as ${who}; sessions ${o.secureCookies ? 'in a Secure __Host- cookie' : 'in an HttpOnly cookie (not Secure: plain HTTP)'}; answers to ${dashboard.allowedHosts.join(', ')}`,
    );
    console.log(
      `  audit: stdout${auditStream ? ` and the stream ${auditStream}` : ' only (--no-audit-stream)'}; history: ${o.history ? `a sample every ${seconds(o.historyIntervalMs)}` : 'not recorded here (--no-history)'}; auto-refresh: ${pollIntervalMs > 0 ? `offered every ${seconds(pollIntervalMs)}` : 'off'}`,
    );
    console.log(
      `  bulk jobs: ${o.jobPageSize} records a page, ${o.jobRate > 0 ? `at most ${o.jobRate} a second` : 'no rate limit'}, at most ${o.jobMaxRecords} records a job, ${o.maxRunningJobs} at once`,
    );
    if (!/^(127\.\d+\.\d+\.\d+|localhost|::1)$/.test(o.host)) {
      console.error(
        `respire-dashboard: warning: listening on ${o.host}, reachable from other machines. Serve it over HTTPS only (a TLS proxy)` +
          (o.secureCookies ? '.' : ' and pass --secure-cookies.'),
      );
    }
    const stop = () => {
      void dashboard.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || isRespireError(error, 'INVALID_ARGUMENT')) {
      console.error(`respire-dashboard: ${error.message}`);
      return 2;
    }
    console.error(`respire-dashboard: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exit(code);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
