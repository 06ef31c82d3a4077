// The CLI's grouped-queue commands: list grouped queues, show one's groups (largest backlogs, blocked heads), page the ring, one group.
import type { Command } from 'commander';
import type { GroupedQueueStatus } from '../grouped.js';
import type { RespireAdmin } from '../admin.js';
import { RespireNotFoundError, nearest } from '../not-found.js';
import { UsageError, parseWhole, type Cli, type GlobalOptions } from './context.js';
import { duration, pageText, safe, table } from './format.js';

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

/** `respire groups list | show | ready | group` (grouped queues, read-only). */
export function groupedCommands(program: Command, cli: Cli): void {
  const groups = program.command('groups').description("grouped queues' message groups: counts, largest backlogs, blocked heads (read-only)");
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
}
