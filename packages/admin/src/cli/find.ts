// The CLI's find command: an entry ID, a dead-letter record ID, a source ID or a deduplication ID.
import type { Command } from 'commander';
import { mustExist, parseWhole, type Cli } from './context.js';
import { messageState, pendingIdle, recordJson, recordRow, safe, table } from './format.js';

/** `respire find <query> --queue NAME | --stream KEY [--dead-letter-stream KEY]`. */
export function findCommand(program: Command, cli: Cli): void {
  cli
    .withResource(
      program
        .command('find')
        .description('find an entry ID, a dead-letter record ID, the dead letters of a source ID, or (queues) a deduplication ID')
        .argument('<query>', 'the ID to look for'),
    )
    .option('--scan-limit <n>', 'dead letters read at most when searching by source ID (1..100000)', (v) => parseWhole(v, '--scan-limit'), 10_000)
    .action(async (query: string, o: { scanLimit: number }, cmd: Command) => {
      const a = cli.addressed(cmd, false);
      const { admin, g } = await cli.connect(cmd, a.options);
      await mustExist(admin, a, g);
      const found = await admin.find(a.id, query, { scanLimit: o.scanLimit });
      const doc = {
        query: found.query,
        entry: found.entry ? { id: found.entry.id } : null,
        ...(found.message !== undefined
          ? {
              message: found.message
                ? { id: found.message.id, state: found.message.state, deliveryCount: found.message.deliveryCount, untilMs: found.message.untilMs }
                : null,
            }
          : {}),
        ...(found.groups ? { groups: found.groups } : {}),
        deadLetter: found.deadLetter ? recordJson(found.deadLetter, false) : null,
        bySource: found.bySource
          ? { items: found.bySource.items.map((r) => recordJson(r, false)), complete: found.bySource.complete, scanned: found.bySource.scanned }
          : null,
        deduplication: found.deduplication,
      };
      const nothing = !found.entry && !found.deadLetter && !found.bySource?.items.length && !found.deduplication;
      cli.print(g, doc, () => {
        const lines: string[] = [];
        if (found.deduplication)
          lines.push(
            `deduplication ID ${safe(found.query)} names entry ${found.deduplication.entryId}${found.deduplication.expiresInMs !== null ? ` (for ${Math.round(found.deduplication.expiresInMs / 1000)} s more)` : ''}`,
          );
        if (found.entry) {
          lines.push(`entry ${found.entry.id}: in the stream`);
          if (found.message) lines.push(`  ${messageState(found.message, found.serverTimeMs)}, delivery count ${found.message.deliveryCount ?? 'unknown'}`);
          for (const x of found.groups ?? []) {
            lines.push(
              `  group ${safe(x.group)}: ${x.state === 'pending' ? `pending to '${safe(x.pending!.consumer)}', ${pendingIdle(x.pending!)}, delivery count ${x.pending!.deliveryCount}` : x.state === 'done' ? 'delivered and acknowledged' : 'not yet delivered'}`,
            );
          }
        } else if (!found.deduplication || found.bySource) lines.push(`no entry ${safe(found.query)} in the stream`);
        if (found.deadLetter)
          lines.push(
            `dead-letter record ${found.deadLetter.id}:\n${table(['ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'], [recordRow(found.deadLetter)])}`,
          );
        if (found.bySource?.items.length) {
          lines.push(
            `dead letters of source entry ${safe(found.query)}:\n${table(['ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'], found.bySource.items.map(recordRow))}`,
          );
        } else if (found.bySource) {
          lines.push(
            `no dead letter of source entry ${safe(found.query)}${found.bySource.complete ? '' : ` among the ${found.bySource.scanned} records read (--scan-limit)`}`,
          );
        }
        return lines.join('\n');
      });
      if (nothing) cli.fail();
    });
}
