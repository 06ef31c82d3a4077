// The CLI's dead-letter commands: list, show, retry, delete, purge.
import type { Command } from 'commander';
import type { BulkOptions, DeleteResult, RetryResult } from '../api.js';
import { ActionFailed, UsageError, parseWhole, type Cli } from './context.js';
import { pageText, recordJson, recordRow, renderRecord, table } from './format.js';

/** `respire dead-letters list | show | retry | delete | purge`. */
export function deadLetterCommands(program: Command, cli: Cli): void {
  const dl = program.command('dead-letters').description('list, show, retry, delete or purge dead letters');
  cli
    .withResource(dl.command('list').description('one page of dead letters, newest first'))
    .option('--count <n>', 'records per page (1..1000)', (v) => parseWhole(v, '--count'), 20)
    .option('--cursor <id>', 'the next cursor printed by the previous page')
    .option('--oldest', 'oldest first')
    .action(async (o: { count: number; cursor?: string; oldest?: boolean; queue?: string }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, true);
      const { admin, g } = await cli.connect(cmd, options);
      const page = await admin.deadLetters(id, { count: o.count, order: o.oldest ? 'oldest' : 'newest', ...(o.cursor ? { cursor: o.cursor } : {}) });
      // An empty page of a queue with no keys at all: most likely a mistyped name or key prefix.
      const missing = o.queue !== undefined && page.items.length === 0 && !(await admin.queueStatus(id)).exists;
      const hint = missing
        ? `no queue named '${o.queue}' was found under this key prefix (${g.keyPrefix ? `--key-prefix '${g.keyPrefix}'` : 'none'}): none of its keys exist; check --queue and --key-prefix`
        : undefined;
      const doc = {
        items: page.items.map((r) => recordJson(r, false)),
        next: page.next ?? null,
        ...(o.queue !== undefined ? { queueExists: !missing } : {}),
        ...(hint ? { hint } : {}),
      };
      cli.print(g, doc, () => pageText(table(['ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'], page.items.map(recordRow)), page.next));
      if (hint && !g.json) cli.err(`respire: ${hint}`);
    });
  cli
    .withResource(dl.command('show').description('one dead letter in full').argument('<id>', 'record ID'))
    .option('--max-bytes <n>', 'render at most this many bytes of each value', (v) => parseWhole(v, '--max-bytes'), 65_536)
    .action(async (recordId: string, o: { maxBytes: number }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, true);
      const { admin, g } = await cli.connect(cmd, options);
      const record = await admin.deadLetter(id, recordId);
      if (!record) throw new ActionFailed(`dead letter ${recordId} not found`);
      cli.print(g, recordJson(record, true, o.maxBytes), () => renderRecord(record, o.maxBytes));
    });
  cli
    .withResource(dl.command('retry').description('put dead letters back where they came from and remove them').argument('[ids...]', 'record IDs'))
    .option('--all', 'every dead letter present now, oldest first, in pages')
    .option('--limit <n>', 'with --all: at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'with --all: records per page (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .action(async (ids: string[], o: { all?: boolean; limit?: number; pageSize: number }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, true);
      if (o.all === ids.length > 0) throw new UsageError('pass record IDs or --all');
      const { admin, g, actor } = await cli.connect(cmd, options);
      if (o.all) {
        await cli.confirm(g, `retry every dead letter of ${id}?`);
        const result = await admin.retryAllDeadLetters(actor, id, bulkOptions(o, cli, 'retried'));
        cli.print(g, result, () => `retried ${result.done}, left ${result.failed} foreign record(s) in place${result.aborted ? ' (interrupted)' : ''}`);
        if (result.failed > 0 || result.aborted) cli.fail();
        return;
      }
      const results: ({ id: string } & RetryResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.retryDeadLetter(actor, id, rid)) });
      cli.print(g, { results }, () =>
        results
          .map((r) => (r.status === 'retried' ? `${r.id}: retried as ${r.newId}` : `${r.id}: ${r.status}${'reason' in r ? ` (${r.reason})` : ''}`))
          .join('\n'),
      );
      if (results.some((r) => r.status !== 'retried')) cli.fail();
    });
  cli
    .withResource(dl.command('delete').description('delete dead letters').argument('<ids...>', 'record IDs'))
    .action(async (ids: string[], _o: unknown, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, true);
      const { admin, g, actor } = await cli.connect(cmd, options);
      await cli.confirm(g, `delete ${ids.length} dead letter(s) of ${id}?`);
      const results: ({ id: string } & DeleteResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.deleteDeadLetter(actor, id, rid)) });
      cli.print(g, { results }, () => results.map((r) => `${r.id}: ${r.status}`).join('\n'));
      if (results.some((r) => r.status !== 'deleted')) cli.fail();
    });
  cli
    .withResource(dl.command('purge').description('delete every dead letter present now, oldest first, in pages'))
    .option('--limit <n>', 'at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'records per page (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .action(async (o: { limit?: number; pageSize: number }, cmd: Command) => {
      const { options, id } = cli.addressed(cmd, true);
      const { admin, g, actor } = await cli.connect(cmd, options);
      await cli.confirm(g, `delete every dead letter of ${id}?`);
      const result = await admin.deleteAllDeadLetters(actor, id, bulkOptions(o, cli, 'deleted'));
      cli.print(g, result, () => `deleted ${result.done}${result.aborted ? ' (interrupted)' : ''}`);
      if (result.aborted) cli.fail();
    });
}

/** Bulk options with progress on stderr and Ctrl-C stopping between pages. */
function bulkOptions(o: { limit?: number; pageSize: number }, cli: Cli, verb: string): BulkOptions {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  return {
    pageSize: o.pageSize,
    signal: controller.signal,
    ...(o.limit !== undefined ? { limit: o.limit } : {}),
    onProgress: (p) => cli.err(`${verb} ${p.done}${p.failed ? `, failed ${p.failed}` : ''}…`),
  };
}
