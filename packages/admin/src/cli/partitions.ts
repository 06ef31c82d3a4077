// The CLI's partitioned-queue command: list partitioned queues, or show one with its partitions, masters and dead letters.
import type { Command } from 'commander';
import type { RespireAdmin } from '../admin.js';
import { RespireNotFoundError, nearest } from '../not-found.js';
import type { PartitionTotals, PartitionedQueueStatus } from '../partitioned.js';
import { UsageError, parseWhole, type Cli, type GlobalOptions } from './context.js';
import { pageText, recordJson, recordRow, safe, table } from './format.js';

/** The counts columns of a partition, a master or a queue. */
function counts(t: PartitionTotals): string[] {
  return [String(t.length), t.ready === null ? '?' : String(t.ready), String(t.inFlight), String(t.due), String(t.deadLetters)];
}

const COUNTS = ['MESSAGES', 'READY', 'IN FLIGHT', 'DUE', 'DEAD LETTERS'];

/**
 * The status; "not found" (exit 1, with the nearest partitioned queues) when its metadata key does
 * not exist (the name is configured, so the admin answers with no partition count recorded).
 */
async function existing(admin: RespireAdmin, id: string, name: string, g: GlobalOptions): Promise<PartitionedQueueStatus> {
  const status = await admin.partitionedQueue(id);
  if (status.partitions !== null || status.unreadable !== null) return status;
  const found = (await admin.partitionedQueues()).partitionedQueues.filter((q) => q.discovered).map((q) => q.name);
  const where = g.keyPrefix ? `under --key-prefix '${safe(g.keyPrefix)}'` : 'without a key prefix';
  throw new RespireNotFoundError(
    { kind: 'resource', name, known: nearest(name, found) },
    `no partitioned queue named '${safe(name)}' ${where}: its metadata key does not exist (check the name and --key-prefix)`,
  );
}

/** `6 partitions (grown 3 → 6; 9 in all, 3 draining)`, or `3 partitions` before any grow; `grouped` when so. */
function countText(s: Pick<PartitionedQueueStatus, 'partitions' | 'history' | 'grouped' | 'allPartitions'>): string {
  const grouped = s.grouped ? ' (grouped)' : '';
  if (s.history === null || s.history.length < 2) return `${s.partitions} partitions${grouped}`;
  const draining = s.allPartitions - s.partitions!;
  return `${s.partitions} partitions (grown ${s.history.map((g) => g.count).join(' → ')}; ${s.allPartitions} in all, ${draining} draining)${grouped}`;
}

function detail(s: PartitionedQueueStatus): string {
  const head =
    s.partitions === null
      ? `partitioned queue ${safe(s.name)}: ${s.unreadable === null ? 'no partition count recorded' : `metadata key holds '${safe(s.unreadable)}', not a partition count`}`
      : `partitioned queue ${safe(s.name)}: ${countText(s)}, ${s.totals.length} messages, ${s.totals.ready ?? '?'} ready, ${s.totals.inFlight} in flight, ${s.totals.deadLetters} dead letters`;
  const lines = [
    head,
    table(
      ['PARTITION', 'QUEUE', 'SLOT', 'MASTER', 'STATE', ...COUNTS],
      s.partitionList.map((p) => [String(p.index), safe(p.queue), String(p.slot), p.master ?? '-', p.current ? 'current' : 'draining', ...counts(p.status)]),
    ),
  ];
  if (s.masters !== null)
    lines.push(
      'per master:',
      table(
        ['MASTER', 'PARTITIONS', ...COUNTS],
        s.masters.map((m) => [m.master, m.partitions.join(','), ...counts(m)]),
      ),
    );
  return lines.join('\n');
}

/** `respire partitions [name]`: every partitioned queue, or one with its partitions (and, with --cluster, its masters). */
export function partitionCommands(program: Command, cli: Cli): void {
  program
    .command('partitions')
    .description(
      'partitioned queues: without a name every one (found by a bounded SCAN of their metadata keys) with its partition count and totals; with a name its partitions (queue, slot, master, counts), the totals per master on a Cluster, and with --dead-letters one page of the dead letters of all partitions',
    )
    .argument('[name]', 'a partitioned queue (its name; --key-prefix applies)')
    .option('--no-discover', 'list: do not SCAN (only the named queue is shown)')
    .option('--dead-letters', 'with a name: also one page of its dead letters, newest first, each with its partition')
    .option('--count <n>', 'dead letters per page (1..1000)', (v) => parseWhole(v, '--count'), 20)
    .option('--cursor <cursor>', "the dead-letter page after this one (a page's 'next page' cursor)")
    .action(async (name: string | undefined, o: { discover: boolean; deadLetters?: boolean; count: number; cursor?: string }, cmd: Command) => {
      const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
      if (name === undefined) {
        if (o.deadLetters || o.cursor !== undefined) throw new UsageError('--dead-letters and --cursor need a partitioned queue name');
        const { admin, g } = await cli.connect(cmd, { discoverPartitionedQueues: o.discover });
        const list = await admin.partitionedQueues();
        cli.print(g, list, () =>
          [
            table(
              ['QUEUE', 'KEY PREFIX', 'PARTITIONS', ...COUNTS],
              list.partitionedQueues.map((q) => [
                safe(q.name),
                safe(q.keyPrefix),
                q.partitions === null
                  ? '?'
                  : q.allPartitions > q.partitions
                    ? `${q.partitions} (+${q.allPartitions - q.partitions} draining)`
                    : String(q.partitions),
                ...counts(q.totals),
              ]),
            ),
            list.discoveryTruncated ? 'discovery stopped at its page limit: some partitioned queues may be missing' : '',
            ...list.unavailable.map((u) => `could not read partitioned queue ${safe(u.resource.name)} (${u.code}): ${safe(u.message)}`),
          ]
            .filter(Boolean)
            .join('\n'),
        );
        if (list.unavailable.length > 0) cli.fail();
        return;
      }
      if (/[{}]/.test(name) || name.trim() === '') throw new UsageError(`a partitioned queue name must be nonblank without '{' or '}', got '${safe(name)}'`);
      if (prefix !== undefined && /[{}]/.test(prefix)) throw new UsageError("--key-prefix: a partitioned queue's key prefix has no '{' or '}'");
      if (!o.deadLetters && o.cursor !== undefined) throw new UsageError('--cursor pages the dead letters: give --dead-letters');
      // Discovery serves only the "not found" hint: the nearest partitioned queues that exist.
      const { admin, g } = await cli.connect(cmd, {
        partitionedQueues: [{ name, ...(prefix ? { keyPrefix: prefix } : {}) }],
        discoverPartitionedQueues: true,
      });
      const id = `${prefix ?? ''}{respire-partitioned:${name}}:partitions`;
      const status = await existing(admin, id, name, g);
      if (!o.deadLetters) {
        cli.print(g, status, () => detail(status));
        return;
      }
      const page = await admin.partitionedDeadLetters(id, { count: o.count, ...(o.cursor ? { cursor: o.cursor } : {}) });
      const json = {
        ...status,
        deadLetters: { items: page.items.map((r) => ({ partition: r.partition, queue: r.queue, ...recordJson(r.record, false) })), next: page.next ?? null },
      };
      cli.print(g, json, () =>
        [
          detail(status),
          'dead letters, newest first:',
          pageText(
            table(
              ['PARTITION', 'ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'],
              page.items.map((r) => [String(r.partition), ...recordRow(r.record)]),
            ),
            page.next,
          ),
        ].join('\n'),
      );
    });
}
