#!/usr/bin/env node
/**
 * `respire`: the operator's command line over {@link RespireAdmin}. Exit codes: 0 done; 1 failed
 * (a Redis or permission error, or an action that found its record missing, refused it or saw a
 * pending entry change); 2 usage (bad flags or arguments, no URL, a prompt refused).
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { Command, CommanderError, Option } from 'commander';
import { createClient, createCluster } from 'redis';
import type { Actor, DeadLetterRecord, DeleteResult, Overview, Resource, RetryResult } from './api.js';
import { RespireAdmin, type RespireAdminOptions, type StreamConfig } from './admin.js';
import { describeBytes } from './payload.js';
import { isRespireError } from './redis.js';

/** Exit codes of the CLI. */
const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

class UsageError extends Error {}
class ActionFailed extends Error {}

interface GlobalOptions {
  url?: string;
  cluster?: boolean;
  json?: boolean;
  actor?: string;
  yes?: boolean;
  keyPrefix?: string;
  auditStream?: string;
}

interface ResourceOptions {
  queue?: string;
  stream?: string;
  deadLetterStream?: string;
}

const version = (() => {
  try {
    return (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
})();

/** Runs the CLI with `argv` (without `node` and the script); resolves to the exit code. */
async function main(argv: readonly string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process): Promise<number> {
  const out = (s: string) => void io.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
  const err = (s: string) => void io.stderr.write(s.endsWith('\n') ? s : `${s}\n`);
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
    .option('--audit-stream <key>', 'also append an audit record of every action to this stream')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .showHelpAfterError('(run with --help for usage)');
  program.addHelpText(
    'after',
    '\nExit codes: 0 done; 1 failed (Redis or permission error, record missing, entry changed); 2 usage.\n' +
      'Address a queue with --queue NAME, a worker stream with --stream KEY [--dead-letter-stream KEY].',
  );

  const connect = async (cmd: Command, resources: Partial<RespireAdminOptions>): Promise<{ admin: RespireAdmin; g: GlobalOptions; actor: Actor }> => {
    const g = cmd.optsWithGlobals<GlobalOptions>();
    const url = g.url ?? process.env.REDIS_URL;
    if (!url) throw new UsageError('no Redis URL: pass --url redis://host:port or set REDIS_URL');
    const socket = { reconnectStrategy: false as const, connectTimeout: 5000 };
    const client = g.cluster ? createCluster({ rootNodes: [{ url }], defaults: { socket } }) : createClient({ url, socket });
    client.on('error', () => {});
    clients.push(client);
    await client.connect();
    const admin = new RespireAdmin(client, {
      ...resources,
      ...(g.auditStream ? { auditStream: g.auditStream } : {}),
      audit: (record) => {
        if (record.auditStreamError) err(`warning: the audit record was not appended to ${g.auditStream}: ${record.auditStreamError}`);
      },
    });
    return { admin, g, actor: { name: g.actor ?? userInfo().username, role: 'operator' } };
  };

  /** The one resource a command addresses, as admin options and its id. */
  const addressed = (cmd: Command, needDead: boolean): { options: Partial<RespireAdminOptions>; id: string } => {
    const o = cmd.opts<ResourceOptions>();
    const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
    if ((o.queue === undefined) === (o.stream === undefined)) throw new UsageError('address one resource: --queue NAME, or --stream KEY');
    if (o.queue !== undefined) {
      if (o.deadLetterStream !== undefined) throw new UsageError('--dead-letter-stream goes with --stream; a queue has its own');
      const options = { queues: [{ name: o.queue, ...(prefix ? { keyPrefix: prefix } : {}) }] };
      if (/[{}]/.test(o.queue) || o.queue.trim() === '') throw new UsageError(`--queue: a queue name must be nonblank without '{' or '}', got '${o.queue}'`);
      return { options, id: `${prefix ?? ''}{respire-queue:${o.queue}}:stream` };
    }
    if (needDead && o.deadLetterStream === undefined) throw new UsageError('--stream needs --dead-letter-stream KEY for dead letters (a record does not name its source)');
    const stream: StreamConfig = { stream: o.stream!, ...(prefix ? { keyPrefix: prefix } : {}), ...(o.deadLetterStream ? { deadLetterStream: o.deadLetterStream } : {}) };
    return { options: { streams: [stream] }, id: `${prefix ?? ''}${o.stream}` };
  };

  const confirm = async (g: GlobalOptions, question: string): Promise<void> => {
    if (g.yes) return;
    if (!process.stdin.isTTY) throw new UsageError(`refusing to prompt ("${question}") because stdin is not a terminal: pass --yes to confirm`);
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
      if (answer !== 'y' && answer !== 'yes') throw new ActionFailed('not confirmed: nothing was done');
    } finally {
      rl.close();
    }
  };

  const print = (g: GlobalOptions, json: unknown, human: () => string) => out(g.json ? JSON.stringify(json, null, 2) : human());

  const withResource = (cmd: Command, streamOnly = false): Command => {
    if (!streamOnly) cmd.option('--queue <name>', 'a reliable queue (its name)');
    cmd.option('--stream <key>', 'a worker stream (its key)');
    if (!streamOnly) cmd.option('--dead-letter-stream <key>', "the workers' dead-letter stream (with --stream)");
    return cmd;
  };
  const count = (v: string) => parseWhole(v, '--count');

  // ---- status ----
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
      const { admin, g } = await connect(cmd, {
        queues: (o.queue ?? []).map((name) => ({ name, ...kp })),
        streams: (o.stream ?? []).map((stream, i) => ({ stream, ...kp, ...(o.deadLetterStream?.[i] ? { deadLetterStream: o.deadLetterStream[i] } : {}) })),
        discoverQueues: o.discover,
      });
      const overview = await admin.overview();
      print(g, overview, () => renderOverview(overview));
    });

  // ---- dead letters ----
  const dl = program.command('dead-letters').description('list, show, retry, delete or purge dead letters');
  withResource(dl.command('list').description('one page of dead letters, newest first'))
    .option('--count <n>', 'records per page (1..1000)', count, 20)
    .option('--cursor <id>', 'the next cursor printed by the previous page')
    .option('--oldest', 'oldest first')
    .action(async (o: { count: number; cursor?: string; oldest?: boolean }, cmd: Command) => {
      const { options, id } = addressed(cmd, true);
      const { admin, g } = await connect(cmd, options);
      const page = await admin.deadLetters(id, { count: o.count, order: o.oldest ? 'oldest' : 'newest', ...(o.cursor ? { cursor: o.cursor } : {}) });
      print(g, { items: page.items.map((r) => recordJson(r, false)), next: page.next ?? null }, () => {
        const rows = page.items.map((r) => recordRow(r));
        return table(['ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'], rows) + (page.next ? `\nnext page: --cursor ${page.next}` : '');
      });
    });
  withResource(dl.command('show').description('one dead letter in full').argument('<id>', 'record ID'))
    .option('--max-bytes <n>', 'render at most this many bytes of each value', (v) => parseWhole(v, '--max-bytes'), 65_536)
    .action(async (recordId: string, o: { maxBytes: number }, cmd: Command) => {
      const { options, id } = addressed(cmd, true);
      const { admin, g } = await connect(cmd, options);
      const record = await admin.deadLetter(id, recordId);
      if (!record) throw new ActionFailed(`dead letter ${recordId} not found`);
      print(g, recordJson(record, true, o.maxBytes), () => renderRecord(record, o.maxBytes));
    });
  withResource(dl.command('retry').description('put dead letters back where they came from and remove them').argument('[ids...]', 'record IDs'))
    .option('--all', 'every dead letter present now, oldest first, in pages')
    .option('--limit <n>', 'with --all: at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'with --all: records per page (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .action(async (ids: string[], o: { all?: boolean; limit?: number; pageSize: number }, cmd: Command) => {
      const { options, id } = addressed(cmd, true);
      if (o.all === (ids.length > 0)) throw new UsageError('pass record IDs or --all');
      const { admin, g, actor } = await connect(cmd, options);
      if (o.all) {
        await confirm(g, `retry every dead letter of ${id}?`);
        const result = await admin.retryAllDeadLetters(actor, id, bulkOptions(o, err, 'retried'));
        print(g, result, () => `retried ${result.done}, left ${result.failed} foreign record(s) in place${result.aborted ? ' (interrupted)' : ''}`);
        if (result.failed > 0) exitCode = EXIT.failed;
        return;
      }
      const results: ({ id: string } & RetryResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.retryDeadLetter(actor, id, rid)) });
      print(g, { results }, () => results.map((r) => (r.status === 'retried' ? `${r.id}: retried as ${r.newId}` : `${r.id}: ${r.status}${'reason' in r ? ` (${r.reason})` : ''}`)).join('\n'));
      if (results.some((r) => r.status !== 'retried')) exitCode = EXIT.failed;
    });
  withResource(dl.command('delete').description('delete dead letters').argument('<ids...>', 'record IDs')).action(async (ids: string[], _o: unknown, cmd: Command) => {
    const { options, id } = addressed(cmd, true);
    const { admin, g, actor } = await connect(cmd, options);
    await confirm(g, `delete ${ids.length} dead letter(s) of ${id}?`);
    const results: ({ id: string } & DeleteResult)[] = [];
    for (const rid of ids) results.push({ id: rid, ...(await admin.deleteDeadLetter(actor, id, rid)) });
    print(g, { results }, () => results.map((r) => `${r.id}: ${r.status}`).join('\n'));
    if (results.some((r) => r.status !== 'deleted')) exitCode = EXIT.failed;
  });
  withResource(dl.command('purge').description('delete every dead letter present now, oldest first, in pages'))
    .option('--limit <n>', 'at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'records per page (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .action(async (o: { limit?: number; pageSize: number }, cmd: Command) => {
      const { options, id } = addressed(cmd, true);
      const { admin, g, actor } = await connect(cmd, options);
      await confirm(g, `delete every dead letter of ${id}?`);
      const result = await admin.deleteAllDeadLetters(actor, id, bulkOptions(o, err, 'deleted'));
      print(g, result, () => `deleted ${result.done}${result.aborted ? ' (interrupted)' : ''}`);
    });

  // ---- pending ----
  const pending = program.command('pending').description("a worker stream's pending entries (PEL)");
  withResource(pending.command('list').description('one page of pending entries, oldest first'), true)
    .requiredOption('--group <name>', 'consumer group')
    .option('--consumer <name>', 'only this consumer')
    .option('--count <n>', 'entries per page (1..1000)', count, 50)
    .option('--cursor <id>', 'the next cursor printed by the previous page')
    .action(async (o: { group: string; consumer?: string; count: number; cursor?: string }, cmd: Command) => {
      const { options, id } = addressed(cmd, false);
      const { admin, g } = await connect(cmd, options);
      const page = await admin.pending(id, o.group, { count: o.count, ...(o.cursor ? { cursor: o.cursor } : {}), ...(o.consumer ? { consumer: o.consumer } : {}) });
      print(g, { items: page.items, next: page.next ?? null }, () =>
        table(['ID', 'CONSUMER', 'IDLE', 'DELIVERIES'], page.items.map((p) => [p.id, p.consumer, duration(p.idleMs), String(p.deliveryCount)])) +
        (page.next ? `\nnext page: --cursor ${page.next}` : ''),
      );
    });
  const fenced = (name: 'release' | 'ack', description: string) =>
    withResource(pending.command(name).description(description).argument('<id>', 'entry ID'), true)
      .requiredOption('--group <name>', 'consumer group')
      .option('--delivery-count <n>', 'the delivery count you saw (default: the current one, after confirmation)', (v) => parseWhole(v, '--delivery-count'))
      .option('--consumer <name>', 'the owner you saw (default: the current one, after confirmation)');
  const runFenced = async (action: 'release' | 'ack', entryId: string, o: { group: string; deliveryCount?: number; consumer?: string; delete?: boolean }, cmd: Command) => {
    const { options, id } = addressed(cmd, false);
    const { admin, g, actor } = await connect(cmd, options);
    let expected = o.deliveryCount !== undefined && o.consumer !== undefined ? { deliveryCount: o.deliveryCount, consumer: o.consumer } : undefined;
    if (!expected) {
      const row = (await admin.pending(id, o.group, { cursor: previousId(entryId), count: 1 })).items.find((p) => p.id === entryId);
      if (!row) throw new ActionFailed(`${entryId} is not pending in group ${o.group}`);
      if ((o.deliveryCount !== undefined && o.deliveryCount !== row.deliveryCount) || (o.consumer !== undefined && o.consumer !== row.consumer)) {
        throw new ActionFailed(`${entryId} changed: now pending to '${row.consumer}' at delivery count ${row.deliveryCount}`);
      }
      expected = { deliveryCount: row.deliveryCount, consumer: row.consumer };
      await confirm(g, `${action} ${entryId} (pending to '${row.consumer}', delivery count ${row.deliveryCount})${o.delete ? ' and delete it' : ''}?`);
    } else if (action === 'ack') {
      await confirm(g, `ack ${entryId}${o.delete ? ' and delete it' : ''}?`);
    }
    const result =
      action === 'release' ? await admin.releasePending(actor, id, o.group, entryId, expected) : await admin.ackPending(actor, id, o.group, entryId, expected, { deleteEntry: !!o.delete });
    print(g, { id: entryId, ...result }, () =>
      result.status === 'changed' ? `${entryId}: changed — now pending to '${result.consumer}' at delivery count ${result.deliveryCount}; nothing done` : `${entryId}: ${result.status}`,
    );
    if (result.status === 'changed' || result.status === 'missing') exitCode = EXIT.failed;
  };
  fenced('release', 'make a pending entry claimable by the workers at once (its delivery count is kept)').action((entryId: string, o, cmd: Command) => runFenced('release', entryId, o, cmd));
  fenced('ack', 'acknowledge a pending entry (it will not be processed again)')
    .option('--delete', 'also delete the entry from the stream')
    .action((entryId: string, o, cmd: Command) => runFenced('ack', entryId, o, cmd));

  // ---- consumers ----
  const consumers = program.command('consumers').description("a worker stream's consumers");
  withResource(consumers.command('list').description('consumers with pending counts and idle times'), true)
    .requiredOption('--group <name>', 'consumer group')
    .action(async (o: { group: string }, cmd: Command) => {
      const { options, id } = addressed(cmd, false);
      const { admin, g } = await connect(cmd, options);
      const list = await admin.consumers(id, o.group);
      print(g, { consumers: list }, () => table(['CONSUMER', 'PENDING', 'IDLE', 'INACTIVE'], list.map((c) => [c.name, String(c.pending), duration(c.idleMs), c.inactiveMs === null ? '-' : duration(c.inactiveMs)])));
    });
  withResource(consumers.command('prune').description('delete consumers idle at least --min-idle-ms that hold no pending entries'), true)
    .requiredOption('--group <name>', 'consumer group')
    .requiredOption('--min-idle-ms <ms>', 'idle threshold in milliseconds', (v) => parseWhole(v, '--min-idle-ms'))
    .action(async (o: { group: string; minIdleMs: number }, cmd: Command) => {
      const { options, id } = addressed(cmd, false);
      const { admin, g, actor } = await connect(cmd, options);
      await confirm(g, `delete the consumers of ${o.group} idle for ${duration(o.minIdleMs)} or more that hold no pending entries?`);
      const result = await admin.removeIdleConsumers(actor, id, o.group, o.minIdleMs);
      print(g, result, () => `removed ${result.removed.length}: ${result.removed.map(safe).join(', ') || '-'}\nkept (idle, with pending entries): ${result.keptWithPending.map(safe).join(', ') || '-'}`);
    });

  try {
    await program.parseAsync(argv as string[], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    } else {
      const usage = error instanceof UsageError || isRespireError(error, 'INVALID_ARGUMENT');
      const message = error instanceof Error ? error.message : String(error);
      const code = usage ? 'USAGE' : isRespireError(error) ? error.code : error instanceof ActionFailed ? 'NOT_DONE' : 'FAILED';
      err(`respire: ${message}`);
      // With --json, scripts also get one JSON document on stdout.
      if (argv.includes('--json')) out(JSON.stringify({ error: { code, message } }, null, 2));
      exitCode = usage ? EXIT.usage : EXIT.failed;
    }
  } finally {
    for (const c of clients) c.destroy();
  }
  return exitCode;
}

function bulkOptions(o: { limit?: number; pageSize: number }, err: (s: string) => void, verb: string) {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return {
    pageSize: o.pageSize,
    signal: controller.signal,
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    onProgress: (p: { done: number; failed: number }) => err(`${verb} ${p.done}${p.failed ? `, failed ${p.failed}` : ''}…`),
  };
}

function parseWhole(value: string, flag: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} must be a whole number, got '${value}'`);
  return Number(value);
}

/** The entry ID just before `id` (an exclusive XPENDING cursor that includes `id`). */
function previousId(id: string): string {
  const m = /^(\d+)-(\d+)$/.exec(id);
  if (!m) return id;
  const [ms, seq] = [BigInt(m[1]!), BigInt(m[2]!)];
  if (seq > 0n) return `${ms}-${seq - 1n}`;
  return ms > 0n ? `${ms - 1n}-18446744073709551615` : '0-0';
}

/** Text for a terminal: control characters (ANSI escapes, newlines) shown as escapes. */
function safe(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

function table(header: string[], rows: string[][]): string {
  if (rows.length === 0) return '(none)';
  const all = [header, ...rows.map((r) => r.map(safe))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  return all.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${Math.floor((ms % 60_000) / 1000)}s`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)}h${Math.floor((ms % 3_600_000) / 60_000)}m`;
  return `${Math.floor(ms / 86_400_000)}d${Math.floor((ms % 86_400_000) / 3_600_000)}h`;
}

function renderOverview(o: Overview): string {
  const parts: string[] = [];
  parts.push(
    'QUEUES\n' +
      table(
        ['QUEUE', 'LENGTH', 'READY', 'IN FLIGHT', 'DUE', 'DEAD LETTERS'],
        o.queues.map((q) => [label(q.resource), String(q.length), q.ready === null ? 'unknown' : String(q.ready), String(q.inFlight), String(q.due), String(q.deadLetters)]),
      ),
  );
  const rows: string[][] = [];
  for (const s of o.streams) {
    const dead = s.deadLetters === null ? '-' : String(s.deadLetters);
    if (s.groups.length === 0) rows.push([label(s.resource), String(s.length), s.exists ? '-' : '(no stream)', '-', '-', '-', dead]);
    for (const g of s.groups) rows.push([label(s.resource), String(s.length), g.name, g.lag === null ? 'unknown' : String(g.lag), String(g.pending), String(g.consumers), dead]);
  }
  parts.push('STREAMS\n' + table(['STREAM', 'LENGTH', 'GROUP', 'LAG', 'PENDING', 'CONSUMERS', 'DEAD LETTERS'], rows));
  if (o.discoveryTruncated) parts.push('(queue discovery stopped at its page limit: more queues may exist)');
  return parts.join('\n\n');
}

function label(r: Resource): string {
  return r.kind === 'queue' ? `${r.keyPrefix}${r.name}` : r.label;
}

function preview(fields: readonly (readonly [Buffer, Buffer])[]): string {
  const short = (b: Buffer, maxBytes: number) => {
    const view = describeBytes(b, { maxBytes });
    return view.kind === 'json' ? b.toString('utf8') : view.text;
  };
  const text = fields.map(([f, v]) => `${short(f, 40)}=${short(v, 60)}`).join(' ');
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

function recordRow(r: DeadLetterRecord): string[] {
  if (r.kind === 'worker') return [r.id, 'worker', r.sourceId, String(r.attempt), r.exceptionType ? `${r.reason} (${r.exceptionType})` : r.reason, preview(r.fields)];
  if (r.kind === 'queue') return [r.id, 'queue', r.sourceId, String(r.deliveryCount), '-', preview([[Buffer.from('payload'), r.payload]])];
  return [r.id, 'foreign', '-', '-', '-', preview(r.fields)];
}

function bytesJson(b: Buffer, full: boolean, maxBytes = 4096) {
  const view = describeBytes(b, { maxBytes });
  return { kind: view.kind, text: view.text, truncated: view.truncated, totalBytes: view.totalBytes, ...(full ? { base64: b.toString('base64') } : {}) };
}

function recordJson(r: DeadLetterRecord, full: boolean, maxBytes?: number) {
  const fields = (list: readonly (readonly [Buffer, Buffer])[]) => list.map(([f, v]) => ({ field: bytesJson(f, full, maxBytes), value: bytesJson(v, full, maxBytes) }));
  if (r.kind === 'queue') return { kind: r.kind, id: r.id, sourceId: r.sourceId, deliveryCount: r.deliveryCount, payload: bytesJson(r.payload, full, maxBytes) };
  if (r.kind === 'worker') {
    return { kind: r.kind, id: r.id, sourceId: r.sourceId, group: r.group, attempt: r.attempt, reason: r.reason, exceptionType: r.exceptionType, fields: fields(r.fields) };
  }
  return { kind: r.kind, id: r.id, fields: fields(r.fields) };
}

function renderRecord(r: DeadLetterRecord, maxBytes: number): string {
  const lines = [`id: ${r.id}`, `kind: ${r.kind}`];
  const value = (b: Buffer) => {
    const v = describeBytes(b, { maxBytes });
    return `[${v.kind}, ${v.totalBytes} bytes${v.truncated ? `, first ${maxBytes} shown` : ''}]\n${v.text.split('\n').map((l) => `    ${safe(l)}`).join('\n')}`;
  };
  if (r.kind === 'queue') lines.push(`source id: ${r.sourceId}`, `delivery count: ${r.deliveryCount}`, `payload: ${value(r.payload)}`);
  else {
    if (r.kind === 'worker') lines.push(`source id: ${safe(r.sourceId)}`, `group: ${safe(r.group)}`, `attempt: ${r.attempt}`, `reason: ${safe(r.reason)}`, `exception type: ${safe(r.exceptionType) || '-'}`);
    lines.push('fields:');
    for (const [f, v] of r.fields) lines.push(`  ${safe(describeBytes(f, { maxBytes: 256 }).text)}: ${value(v)}`);
  }
  return lines.join('\n');
}

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
