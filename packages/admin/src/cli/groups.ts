// The CLI's pending-entry and consumer commands of worker streams.
import type { Command } from 'commander';
import type { PendingExpectation } from '../api.js';
import { previousEntryId, toEntryId } from '../validate.js';
import { ActionFailed, parseWhole, type Cli } from './context.js';
import { duration, pageText, safe, table } from './format.js';

interface FencedOptions {
  group: string;
  deliveryCount?: number;
  consumer?: string;
  delete?: boolean;
}

/** `respire pending list | release | ack` and `respire consumers list | prune` (worker streams). */
export function groupCommands(program: Command, cli: Cli): void {
  const pending = program.command('pending').description("a worker stream's pending entries (PEL)");
  cli
    .withResource(pending.command('list').description('one page of pending entries, oldest first'), true)
    .requiredOption('--group <name>', 'consumer group')
    .option('--consumer <name>', 'only this consumer')
    .option('--count <n>', 'entries per page (1..1000)', (v) => parseWhole(v, '--count'), 50)
    .option('--cursor <id>', 'the next cursor printed by the previous page')
    .action(async (o: { group: string; consumer?: string; count: number; cursor?: string }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, false);
      const { admin, g } = await cli.connect(cmd, options);
      const page = await admin.pending(id, o.group, {
        count: o.count,
        ...(o.cursor ? { cursor: o.cursor } : {}),
        ...(o.consumer ? { consumer: o.consumer } : {}),
      });
      cli.print(g, { items: page.items, next: page.next ?? null }, () =>
        pageText(
          table(
            ['ID', 'CONSUMER', 'IDLE', 'DELIVERIES'],
            page.items.map((p) => [p.id, p.consumer, duration(p.idleMs), String(p.deliveryCount)]),
          ),
          page.next,
        ),
      );
    });
  const fenced = (name: 'release' | 'ack', description: string) =>
    cli
      .withResource(pending.command(name).description(description).argument('<id>', 'entry ID'), true)
      .requiredOption('--group <name>', 'consumer group')
      .option('--delivery-count <n>', 'the delivery count you saw (default: the current one, after confirmation)', (v) => parseWhole(v, '--delivery-count'))
      .option('--consumer <name>', 'the owner you saw (default: the current one, after confirmation)');
  const runFenced = async (action: 'release' | 'ack', entryId: string, o: FencedOptions, cmd: Command) => {
    const { options, id } = cli.addressed(cmd, false);
    const { admin, g, actor } = await cli.connect(cmd, options);
    let expected: PendingExpectation | undefined =
      o.deliveryCount !== undefined && o.consumer !== undefined ? { deliveryCount: o.deliveryCount, consumer: o.consumer } : undefined;
    if (!expected) {
      const wanted = toEntryId('id', entryId);
      const before = previousEntryId(wanted);
      const row = (await admin.pending(id, o.group, { ...(before === undefined ? {} : { cursor: before }), count: 1 })).items.find((p) => p.id === wanted);
      if (!row) throw new ActionFailed(`${entryId} is not pending in group ${o.group}`);
      if ((o.deliveryCount !== undefined && o.deliveryCount !== row.deliveryCount) || (o.consumer !== undefined && o.consumer !== row.consumer)) {
        throw new ActionFailed(`${entryId} changed: now pending to '${safe(row.consumer)}' at delivery count ${row.deliveryCount}`);
      }
      expected = { deliveryCount: row.deliveryCount, consumer: row.consumer };
      await cli.confirm(
        g,
        `${action} ${entryId} (pending to '${safe(row.consumer)}', delivery count ${row.deliveryCount})${o.delete ? ' and delete it' : ''}?`,
      );
    } else if (action === 'ack') {
      await cli.confirm(g, `ack ${entryId}${o.delete ? ' and delete it' : ''}?`);
    }
    const result =
      action === 'release'
        ? await admin.releasePending(actor, id, o.group, entryId, expected)
        : await admin.ackPending(actor, id, o.group, entryId, expected, { deleteEntry: !!o.delete });
    cli.print(g, { id: entryId, ...result }, () =>
      result.status === 'changed'
        ? `${entryId}: changed — now pending to '${safe(result.consumer)}' at delivery count ${result.deliveryCount}; nothing done`
        : `${entryId}: ${result.status}${'entryKeptFor' in result && result.entryKeptFor ? ` (entry kept: still needed by group(s) ${result.entryKeptFor.map(safe).join(', ')})` : ''}`,
    );
    if (result.status === 'changed' || result.status === 'missing') cli.fail();
  };
  fenced('release', 'make a pending entry claimable by the workers at once (its delivery count is kept)').action(
    (entryId: string, o: FencedOptions, cmd: Command) => runFenced('release', entryId, o, cmd),
  );
  fenced('ack', 'acknowledge a pending entry (it will not be processed again)')
    .option('--delete', 'also delete the entry from the stream (kept while another group still needs it)')
    .action((entryId: string, o: FencedOptions, cmd: Command) => runFenced('ack', entryId, o, cmd));

  const consumers = program.command('consumers').description("a worker stream's consumers");
  cli
    .withResource(consumers.command('list').description('consumers with pending counts and idle times'), true)
    .requiredOption('--group <name>', 'consumer group')
    .option('--limit <n>', 'list nothing (exit 1) when the group has more consumers than this (1..100000)', (v) => parseWhole(v, '--limit'), 1000)
    .action(async (o: { group: string; limit: number }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, false);
      const { admin, g } = await cli.connect(cmd, options);
      const list = await admin.consumers(id, o.group, { limit: o.limit });
      cli.print(g, { consumers: list.items, total: list.total, truncated: list.truncated }, () =>
        list.truncated
          ? `group ${safe(o.group)} has ${list.total} consumers, more than --limit ${o.limit}: not listed (XINFO CONSUMERS cannot page). ` +
            'Remove the idle ones with `respire consumers prune`, or raise --limit.'
          : table(
              ['CONSUMER', 'PENDING', 'IDLE', 'INACTIVE'],
              list.items.map((c) => [c.name, String(c.pending), duration(c.idleMs), c.inactiveMs === null ? '-' : duration(c.inactiveMs)]),
            ),
      );
      if (list.truncated) cli.fail();
    });
  cli
    .withResource(consumers.command('prune').description('delete consumers idle at least --min-idle-ms that hold no pending entries'), true)
    .requiredOption('--group <name>', 'consumer group')
    .requiredOption('--min-idle-ms <ms>', 'idle threshold in milliseconds', (v) => parseWhole(v, '--min-idle-ms'))
    .action(async (o: { group: string; minIdleMs: number }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, false);
      const { admin, g, actor } = await cli.connect(cmd, options);
      await cli.confirm(g, `delete the consumers of ${o.group} idle for ${duration(o.minIdleMs)} or more that hold no pending entries?`);
      const result = await admin.removeIdleConsumers(actor, id, o.group, o.minIdleMs);
      cli.print(
        g,
        result,
        () =>
          `removed ${result.removed.length}: ${result.removed.map(safe).join(', ') || '-'}\nkept (idle, with pending entries): ${result.keptWithPending.map(safe).join(', ') || '-'}`,
      );
    });
}
