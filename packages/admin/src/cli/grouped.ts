// The CLI's grouped-queue commands: list grouped queues, show one's groups (largest backlogs, blocked heads), page the ring, one group, its dead letters.
import type { Command } from 'commander';
import type { BulkResult, DeleteResult, RetryResult } from '../api.js';
import type { GroupedQueueStatus } from '../grouped.js';
import type { RespireAdmin } from '../admin.js';
import { RespireNotFoundError, nearest } from '../not-found.js';
import { UsageError, pageOptions, parseWhole, type Cli, type GlobalOptions } from './context.js';
import { duration, groupedRecordRow, pageText, recordJson, safe, table } from './format.js';

/** The grouped queue a command addresses (`--queue` and the global `--key-prefix`), as admin options and its id. */
function addressed(cmd: Command): {
  options: { groupedQueues: { name: string; keyPrefix?: string }[]; discoverGroupedQueues: true };
  id: string;
  name: string;
} {
  const { queue } = cmd.opts<{ queue: string }>();
  const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
  if (/[{}]/.test(queue) || queue.trim() === '') throw new UsageError(`--queue: a queue name must be nonblank without '{' or '}', got '${safe(queue)}'`);
  // Discovery serves only the "not found" hint: the nearest grouped queues that exist.
  return {
    options: { groupedQueues: [{ name: queue, ...(prefix ? { keyPrefix: prefix } : {}) }], discoverGroupedQueues: true },
    id: `${prefix ?? ''}{respire-queue:${queue}}:groups:stream`,
    name: queue,
  };
}

/** The status; "not found" (exit 1, with the nearest grouped queues) when the queue has no grouped keys. */
async function existing(admin: RespireAdmin, id: string, name: string, g: GlobalOptions, top: number): Promise<GroupedQueueStatus> {
  const status = await admin.groupedQueue(id, { top, maxAgeMs: 0 });
  if (status.messages > 0 || status.readyGroups > 0 || status.inFlight > 0 || status.deadLetters > 0) return status;
  const found = (await admin.groupedQueues()).groupedQueues.filter((q) => q.discovered && q.keyPrefix === (g.keyPrefix ?? '')).map((q) => q.name);
  const where = g.keyPrefix ? `under --key-prefix '${safe(g.keyPrefix)}'` : 'without a key prefix';
  throw new RespireNotFoundError(
    { kind: 'resource', name, known: nearest(name, found) },
    `no grouped queue named '${safe(name)}' ${where}: it has no messages, groups or dead letters (check --queue and --key-prefix)`,
  );
}

const count = (v: string): number => parseWhole(v, '--count');

/** `respire groups list | show | ready | group | dead-letters | retry-dead-letters | delete-dead-letters` (grouped queues). */
export function groupedCommands(program: Command, cli: Cli): void {
  const groups = program.command('groups').description("grouped queues' message groups: counts, largest backlogs, blocked heads; their dead letters");
  groups
    .command('list')
    .description('every grouped queue (found by a bounded SCAN, or given with --queue) with its messages, groups and dead letters')
    .option('--queue <name...>', 'grouped queues to show besides the discovered ones')
    .option('--no-discover', 'do not SCAN for grouped queues')
    .action(async (o: { queue?: string[]; discover: boolean }, cmd: Command) => {
      const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
      const { admin, g } = await cli.connect(cmd, {
        groupedQueues: (o.queue ?? []).map((name) => ({ name, ...(prefix ? { keyPrefix: prefix } : {}) })),
        discoverGroupedQueues: o.discover,
      });
      const list = await admin.groupedQueues();
      cli.print(g, list, () =>
        [
          table(
            ['QUEUE', 'KEY PREFIX', 'MESSAGES', 'GROUPS', 'READY', 'IN FLIGHT', 'DEAD LETTERS'],
            list.groupedQueues.map((q) => [
              q.name,
              q.keyPrefix,
              String(q.messages),
              q.groups === null ? '?' : String(q.groups),
              String(q.readyGroups),
              String(q.inFlight),
              String(q.deadLetters),
            ]),
          ),
          list.discoveryTruncated ? 'discovery stopped at its page limit: some grouped queues may be missing' : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
  groups
    .command('show')
    .description(
      "a grouped queue's counts, its largest backlogs, and one page of its messages in flight (ordered groups: each blocked group's head), soonest deadline first",
    )
    .requiredOption('--queue <name>', 'the grouped queue (its name)')
    .option('--top <n>', 'largest backlogs to list (1..100)', (v) => parseWhole(v, '--top'), 10)
    .option('--count <n>', 'heads in flight per page (1..1000)', count, 20)
    .option('--cursor <cursor>', "the page after this one (a page's 'next page' cursor)")
    .action(async (o: { top: number; count: number; cursor?: string }, cmd: Command) => {
      const a = addressed(cmd);
      const { admin, g } = await cli.connect(cmd, a.options);
      const status = await existing(admin, a.id, a.name, g, o.top);
      const heads = await admin.groupsInFlight(a.id, { count: o.count, cursor: o.cursor });
      cli.print(g, { ...status, inFlightPage: heads }, () =>
        [
          `grouped queue ${safe(status.name)}${status.fair ? ' (fair groups)' : ''}: ${status.messages} messages, ` +
            `${status.groups === null ? `${status.readyGroups} groups ready and some in flight` : `${status.groups} groups with messages (${status.readyGroups} ready, ${status.inFlight} blocked)`}, ` +
            `${status.deadLetters} dead letters`,
          `largest backlogs (of ${status.largestBacklogs.groupsRead} groups read${status.largestBacklogs.truncated ? ', walk truncated' : ''}):`,
          table(
            ['GROUP', 'BACKLOG'],
            status.largestBacklogs.items.map((b) => [b.groupId, String(b.backlog)]),
          ),
          status.fair ? 'messages in flight:' : 'blocked heads:',
          pageText(
            table(
              ['GROUP', 'ENTRY ID', 'DELIVERIES', 'DEADLINE', 'STATE'],
              heads.items.map((h) => [
                h.groupId ?? '(settled)',
                h.entryId,
                String(h.deliveryCount),
                new Date(h.deadlineMs).toISOString(),
                h.due
                  ? `due ${duration(heads.serverTimeMs - h.deadlineMs)} ago`
                  : h.leased
                    ? `leased, ${duration(h.deadlineMs - heads.serverTimeMs)} left`
                    : `nacked, due in ${duration(h.deadlineMs - heads.serverTimeMs)}`,
              ]),
            ),
            heads.next,
          ),
        ].join('\n'),
      );
    });
  groups
    .command('ready')
    .description("one page of a grouped queue's ready groups, in the order receives take them, with their backlogs")
    .requiredOption('--queue <name>', 'the grouped queue (its name)')
    .option('--count <n>', 'groups per page (1..1000)', count, 50)
    .option('--cursor <cursor>', "the page after this one (a page's 'next page' cursor)")
    .action(async (o: { count: number; cursor?: string }, cmd: Command) => {
      const a = addressed(cmd);
      const { admin, g } = await cli.connect(cmd, a.options);
      const page = await admin.readyGroups(a.id, { count: o.count, cursor: o.cursor });
      cli.print(g, page, () =>
        pageText(
          table(
            ['GROUP', 'BACKLOG'],
            page.items.map((r) => [r.groupId, String(r.backlog)]),
          ),
          page.next,
        ),
      );
    });
  groups
    .command('group')
    .description('one group of a grouped queue: its state, backlog and head')
    .requiredOption('--queue <name>', 'the grouped queue (its name)')
    .argument('<groupId>', 'the group ID')
    .action(async (groupId: string, _o: unknown, cmd: Command) => {
      const a = addressed(cmd);
      const { admin, g } = await cli.connect(cmd, a.options);
      const d = await admin.messageGroup(a.id, groupId);
      cli.print(g, d, () =>
        [`group ${safe(d.groupId)}: ${d.state}`, `backlog: ${d.backlog}`, `head: ${d.headId ?? '-'}`, `in flight: ${d.inFlight}`].join('\n'),
      );
    });
  cli
    .withPaging(groups.command('dead-letters').description("one page of a grouped queue's dead letters, newest first, each with its group"), 20)
    .requiredOption('--queue <name>', 'the grouped queue (its name)')
    .option('--oldest', 'oldest first')
    .option('--group <groupId>', 'only records of this message group (a search)')
    .option('--scan-limit <n>', 'with --group: records read at most per page (1..100000)', (v) => parseWhole(v, '--scan-limit'), 10_000)
    .action(
      async (o: { count: number; cursor?: string; before?: string; last?: boolean; oldest?: boolean; group?: string; scanLimit: number }, cmd: Command) => {
        const a = addressed(cmd);
        const { admin, g } = await cli.connect(cmd, a.options);
        const page = await admin.groupedDeadLetters(a.id, {
          count: o.count,
          order: o.oldest ? 'oldest' : 'newest',
          ...pageOptions(o),
          ...(o.group !== undefined ? { filter: { group: o.group }, scanLimit: o.scanLimit } : {}),
        });
        // An empty first page: the name may be mistyped.
        if (page.items.length === 0 && !o.cursor && !o.before) await existing(admin, a.id, a.name, g, 1);
        const searched =
          o.group !== undefined
            ? `searched ${page.scanned} records${page.complete ? '' : ', stopped at --scan-limit: the next page continues the search'}`
            : undefined;
        const doc = {
          items: page.items.map((r) => recordJson(r, false)),
          next: page.next ?? null,
          previous: page.previous ?? null,
          ...(o.group !== undefined ? { scanned: page.scanned, complete: page.complete } : {}),
        };
        cli.print(g, doc, () =>
          [pageText(table(['ID', 'GROUP', 'SOURCE ID', 'DELIVERIES', 'PAYLOAD'], page.items.map(groupedRecordRow)), page.next, page.previous), searched]
            .filter(Boolean)
            .join('\n'),
        );
      },
    );
  groups
    .command('retry-dead-letters')
    .description("put a grouped queue's dead letters back at the end of their groups (fresh messages) and remove them")
    .requiredOption('--queue <name>', 'the grouped queue (its name)')
    .option('--id <ids...>', 'record IDs')
    .option('--all', 'every dead letter present now, oldest first (asks first unless --yes)')
    .option('--limit <n>', 'with --all: at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'with --all: records per script call (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .action(async (o: BulkFlags, cmd: Command) => {
      const a = addressed(cmd);
      const ids = o.id ?? [];
      if (Boolean(o.all) === ids.length > 0) throw new UsageError('pass --id ID... or --all');
      const { admin, g, actor } = await cli.connect(cmd, a.options);
      await existing(admin, a.id, a.name, g, 1);
      if (o.all) {
        await cli.confirm(g, `retry every dead letter of grouped queue ${safe(a.name)} into its group?`);
        return bulkAll(cli, g, 'retried', (options) => admin.retryAllGroupedDeadLetters(actor, a.id, options), o);
      }
      const results: ({ id: string } & RetryResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.retryGroupedDeadLetter(actor, a.id, rid)) });
      cli.print(g, { results }, () =>
        results
          .map((r) =>
            r.status === 'retried'
              ? `${r.id}: retried as ${r.newId}`
              : r.status === 'missing'
                ? `${r.id}: missing (retried, deleted, or never there)`
                : `${r.id}: refused (${safe(r.reason)})`,
          )
          .join('\n'),
      );
      if (results.some((r) => r.status !== 'retried')) cli.fail();
    });
  groups
    .command('delete-dead-letters')
    .description("delete a grouped queue's dead letters (asks first unless --yes)")
    .requiredOption('--queue <name>', 'the grouped queue (its name)')
    .option('--id <ids...>', 'record IDs')
    .option('--all', 'every dead letter present now, oldest first')
    .option('--limit <n>', 'with --all: at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'with --all: records per XDEL (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .action(async (o: BulkFlags, cmd: Command) => {
      const a = addressed(cmd);
      const ids = o.id ?? [];
      if (Boolean(o.all) === ids.length > 0) throw new UsageError('pass --id ID... or --all');
      const { admin, g, actor } = await cli.connect(cmd, a.options);
      await existing(admin, a.id, a.name, g, 1);
      if (o.all) {
        await cli.confirm(g, `delete every dead letter of grouped queue ${safe(a.name)}?`);
        return bulkAll(cli, g, 'deleted', (options) => admin.deleteAllGroupedDeadLetters(actor, a.id, options), o);
      }
      await cli.confirm(g, `delete ${ids.length} dead letter(s) of grouped queue ${safe(a.name)}?`);
      const results: ({ id: string } & DeleteResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.deleteGroupedDeadLetter(actor, a.id, rid)) });
      cli.print(g, { results }, () =>
        results.map((r) => `${r.id}: ${r.status === 'deleted' ? 'deleted' : 'missing (retried, deleted, or never there)'}`).join('\n'),
      );
      if (results.some((r) => r.status !== 'deleted')) cli.fail();
    });
}

interface BulkFlags {
  id?: string[];
  all?: boolean;
  limit?: number;
  pageSize: number;
}

/** A bounded retry-all or delete-all in the foreground: progress on stderr, Ctrl-C stops it between pages (exit 1). */
async function bulkAll(
  cli: Cli,
  g: GlobalOptions,
  verb: 'retried' | 'deleted',
  run: (options: { pageSize: number; limit?: number; signal: AbortSignal; onProgress: (p: { done: number; failed: number }) => void }) => Promise<BulkResult>,
  o: BulkFlags,
): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  try {
    const result = await run({
      pageSize: o.pageSize,
      signal: controller.signal,
      ...(o.limit !== undefined ? { limit: o.limit } : {}),
      onProgress: (p) => cli.err(`${verb} ${p.done}${p.failed ? `, left ${p.failed}` : ''}…`),
    });
    cli.print(g, result, () =>
      result.aborted
        ? `Stopped (Ctrl-C): ${verb} ${result.done} first; the rest are still there.`
        : `${verb[0]!.toUpperCase()}${verb.slice(1)} ${result.done}.${result.failed ? ` ${result.failed} left in place: not records of a grouped queue (no group to retry into).` : ''}`,
    );
    if (result.aborted || result.failed > 0) cli.fail();
  } finally {
    process.removeListener('SIGINT', stop);
  }
}
