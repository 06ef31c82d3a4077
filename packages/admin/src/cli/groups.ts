// The CLI's pending-entry and consumer commands of worker streams.
import type { Command } from 'commander';
import type { PendingExpectation } from '../api.js';
import { previousEntryId, toEntryId } from '../validate.js';
import { ActionFailed, pageOptions, parseWhole, type Cli } from './context.js';
import { duration, pageText, pendingIdle, safe, table } from './format.js';

interface FencedOptions {
  group: string;
  deliveryCount?: number;
  consumer?: string;
  delete?: boolean;
}

/** `respire pending list | release | ack`, `respire consumers list | prune` and `respire trim-acknowledged` (worker streams). */
export function groupCommands(program: Command, cli: Cli): void {
  const pending = program.command('pending').description("a worker stream's pending entries (PEL)");
  cli
    .withPaging(cli.withResource(pending.command('list').description('one page of pending entries, oldest first'), true), 50)
    .requiredOption('--group <name>', 'consumer group')
    .option('--consumer <name>', 'only this consumer')
    .option('--min-idle-ms <ms>', 'only entries idle at least this long', (v) => parseWhole(v, '--min-idle-ms'))
    .action(
      async (o: { group: string; consumer?: string; minIdleMs?: number; count: number; cursor?: string; before?: string; last?: boolean }, cmd: Command) => {
        const { options, id } = cli.addressed(cmd, false);
        const { admin, g } = await cli.connect(cmd, options);
        const [group, page] = await Promise.all([
          admin.group(id, o.group),
          admin.pending(id, o.group, {
            count: o.count,
            ...pageOptions(o),
            ...(o.consumer !== undefined ? { consumer: o.consumer } : {}),
            ...(o.minIdleMs !== undefined ? { minIdleMs: o.minIdleMs } : {}),
          }),
        ]);
        cli.print(
          g,
          { items: page.items, next: page.next ?? null, previous: page.previous ?? null, total: group.pending },
          () =>
            `${group.pending} pending in group ${safe(o.group)}\n` +
            pageText(
              table(
                ['ID', 'CONSUMER', 'IDLE', 'DELIVERIES'],
                page.items.map((p) => [p.id, p.consumer, pendingIdle(p), String(p.deliveryCount)]),
              ),
              page.next,
              page.previous,
            ),
        );
      },
    );
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
      if (!row) throw new ActionFailed(`${entryId} is not pending in group ${safe(o.group)}`);
      if ((o.deliveryCount !== undefined && o.deliveryCount !== row.deliveryCount) || (o.consumer !== undefined && o.consumer !== row.consumer)) {
        throw new ActionFailed(`${entryId} changed: now pending to '${safe(row.consumer)}' at delivery count ${row.deliveryCount}`);
      }
      expected = { deliveryCount: row.deliveryCount, consumer: row.consumer };
      await cli.confirm(
        g,
        `${action} ${entryId} (pending to '${safe(row.consumer)}', delivery count ${row.deliveryCount}${row.released ? ', released' : ''})${o.delete ? ' and delete it' : ''}?`,
      );
    } else if (action === 'ack') {
      await cli.confirm(g, `ack ${entryId}${o.delete ? ' and delete it' : ''}?`);
    }
    const result =
      action === 'release'
        ? await admin.releasePending(actor, id, o.group, entryId, expected)
        : await admin.ackPending(actor, id, o.group, entryId, expected, { deleteEntry: !!o.delete });
    cli.print(g, { id: entryId, ...result }, () => {
      if (result.status === 'changed')
        return `${entryId}: changed — now pending to '${safe(result.consumer)}' at delivery count ${result.deliveryCount}; nothing done`;
      if (result.status === 'missing')
        return `${entryId}: not pending in group ${safe(o.group)} (acknowledged or released meanwhile, or its body was deleted); nothing done`;
      if (result.status === 'released')
        return `${entryId}: released — claimable now by any worker's next recovery (delivery count ${expected!.deliveryCount} kept)`;
      if (result.entryKeptFor?.length) {
        return `${entryId}: acknowledged in group ${safe(o.group)}; the entry was kept in the stream: still needed by group(s) ${result.entryKeptFor.map(safe).join(', ')}`;
      }
      if (result.entryDeleted) return `${entryId}: acknowledged in group ${safe(o.group)} and deleted from the stream`;
      return `${entryId}: acknowledged in group ${safe(o.group)} (the entry stays in the stream)`;
    });
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
              list.items.map((c) => [c.name, String(c.pending), duration(c.idleMs), c.inactiveMs === null ? 'unknown (Redis < 7.2)' : duration(c.inactiveMs)]),
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
      cli.print(g, result, () =>
        [
          result.removed.length === 0
            ? `No consumer of group ${safe(o.group)} was idle for ${duration(o.minIdleMs)} without pending entries: none removed.`
            : `Removed ${result.removed.length}: ${result.removed.map(safe).join(', ')}.`,
          ...(result.keptWithPending.length > 0
            ? [`Kept ${result.keptWithPending.length} idle consumer(s) that still hold pending entries: ${result.keptWithPending.map(safe).join(', ')}.`]
            : []),
        ].join('\n'),
      );
    });

  cli
    .withResource(
      program
        .command('trim-acknowledged')
        .description("trim a worker stream's oldest entries that every consumer group has acknowledged (worker README: Trimming acknowledged entries)"),
      true,
    )
    .option('--max <n>', 'most entries trimmed by this call (1..1000)', (v) => parseWhole(v, '--max'), 1000)
    .action(async (o: { max: number }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, false);
      const { admin, g, actor } = await cli.connect(cmd, options);
      await cli.confirm(g, `trim up to ${o.max} of the oldest entries that every group of ${safe(id)} has acknowledged?`);
      const result = await admin.trimAcknowledged(actor, id, { max: o.max });
      cli.print(g, result, () =>
        result.trimmed === o.max
          ? `Trimmed ${result.trimmed} entries (the limit): run it again for more.`
          : `Trimmed ${result.trimmed} entries: none left that every group has acknowledged.`,
      );
    });
}
