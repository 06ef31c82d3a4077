// The CLI's dead-letter commands: list (paged, filtered), show, retry, delete, purge.
import type { Command } from 'commander';
import type { Actor, DeadLetterFilter, DeleteResult, Job, JobSpec, RetryResult } from '../api.js';
import type { RespireAdmin } from '../admin.js';
import { isRespireError } from '../redis.js';
import { ActionFailed, UsageError, mustExist, pageOptions, parseTime, parseWhole, type Cli, type GlobalOptions } from './context.js';
import { jobReport, pageText, recordJson, recordRow, renderRecord, table } from './format.js';

/** The filter flags of `list`, `retry --all` and `purge`. */
interface FilterFlags {
  reason?: string;
  group?: string;
  exceptionType?: string;
  sourceId?: string;
  since?: string;
  until?: string;
}

function withFilter(cmd: Command): Command {
  return cmd
    .option('--reason <reason>', 'only records with this reason (explicit, nack, processing-failed, delivery-limit)')
    .option('--group <name>', 'only worker records of this consumer group (`_respire.group`)')
    .option('--exception-type <type>', 'only worker records with this exception type')
    .option('--source-id <id>', 'only records of this source entry')
    .option('--since <time>', 'only records dead-lettered at or after: 15m, 2h, 7d ago, an ISO time, or ms since the epoch')
    .option('--until <time>', 'only records dead-lettered at or before (same forms as --since)');
}

function filterOf(o: FilterFlags): DeadLetterFilter | undefined {
  const f: { -readonly [K in keyof DeadLetterFilter]: DeadLetterFilter[K] } = {};
  if (o.reason !== undefined) f.reason = o.reason;
  if (o.group !== undefined) f.group = o.group;
  if (o.exceptionType !== undefined) f.exceptionType = o.exceptionType;
  if (o.sourceId !== undefined) f.sourceId = o.sourceId;
  if (o.since !== undefined) f.sinceMs = parseTime(o.since, '--since');
  if (o.until !== undefined) f.untilMs = parseTime(o.until, '--until');
  return Object.keys(f).length === 0 ? undefined : f;
}

/** `respire dead-letters list | show | retry | delete | purge`. */
export function deadLetterCommands(program: Command, cli: Cli): void {
  const dl = program.command('dead-letters').description('list, search, show, retry, delete or purge dead letters');
  withFilter(cli.withPaging(cli.withResource(dl.command('list').description('one page of dead letters, newest first (a search with a filter)')), 20))
    .option('--oldest', 'oldest first')
    .option('--scan-limit <n>', 'with a filter: records read at most per page (1..100000)', (v) => parseWhole(v, '--scan-limit'), 10_000)
    .action(async (o: FilterFlags & { count: number; cursor?: string; before?: string; last?: boolean; oldest?: boolean; scanLimit: number }, cmd: Command) => {
      const a = cli.addressed(cmd, true);
      const { admin, g } = await cli.connect(cmd, a.options);
      const filter = filterOf(o);
      const page = await admin.deadLetters(a.id, {
        count: o.count,
        order: o.oldest ? 'oldest' : 'newest',
        ...pageOptions(o),
        ...(filter ? { filter, scanLimit: o.scanLimit } : {}),
      });
      // An empty first page: the name may be mistyped.
      if (page.items.length === 0 && !o.cursor && !o.before) await mustExist(admin, a, g);
      const searched = filter
        ? `searched ${page.scanned} records${page.complete ? '' : ', stopped at --scan-limit: the next page continues the search'}`
        : undefined;
      const doc = {
        items: page.items.map((r) => recordJson(r, false)),
        next: page.next ?? null,
        previous: page.previous ?? null,
        ...(filter ? { scanned: page.scanned, complete: page.complete } : {}),
      };
      cli.print(g, doc, () =>
        [pageText(table(['ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'], page.items.map(recordRow)), page.next, page.previous), searched]
          .filter(Boolean)
          .join('\n'),
      );
    });
  cli
    .withResource(dl.command('show').description('one dead letter in full').argument('<id>', 'record ID'))
    .option('--max-bytes <n>', 'render at most this many bytes of each value', (v) => parseWhole(v, '--max-bytes'), 65_536)
    .action(async (recordId: string, o: { maxBytes: number }, cmd: Command) => {
      const a = cli.addressed(cmd, true);
      const { admin, g } = await cli.connect(cmd, a.options);
      const record = await admin.deadLetter(a.id, recordId);
      if (!record) {
        await mustExist(admin, a, g);
        throw new ActionFailed(`dead letter ${recordId} not found (retried, deleted, or never there)`);
      }
      cli.print(g, recordJson(record, true, o.maxBytes), () => renderRecord(record, o.maxBytes));
    });
  withFilter(cli.withResource(dl.command('retry').description('put dead letters back where they came from and remove them').argument('[ids...]', 'record IDs')))
    .option('--all', 'every dead letter present now (with the filter flags: every matching one), oldest first, as a job')
    .option('--limit <n>', 'with --all: at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'with --all: records per page (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .option('--rate <n>', 'with --all: records per second at most (0: no limit)', (v) => parseWhole(v, '--rate'), 0)
    .action(async (ids: string[], o: BulkFlags & FilterFlags & { all?: boolean }, cmd: Command) => {
      const a = cli.addressed(cmd, true);
      if (o.all === ids.length > 0) throw new UsageError('pass record IDs or --all');
      const filter = filterOf(o);
      if (filter && !o.all) throw new UsageError('the filter flags go with --all');
      const { admin, g, actor } = await cli.connect(cmd, { ...a.options, jobs: jobSettings(o) });
      await mustExist(admin, a, g);
      if (o.all) {
        await cli.confirm(g, `retry every dead letter of ${a.id}${filter ? ' that matches the filter' : ''}?`);
        return runJob(cli, admin, g, actor, a.id, { action: 'retry', ...(filter ? { filter } : {}), ...(o.limit !== undefined ? { limit: o.limit } : {}) }, o);
      }
      const results: ({ id: string } & RetryResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.retryDeadLetter(actor, a.id, rid)) });
      cli.print(g, { results }, () =>
        results
          .map((r) =>
            r.status === 'retried'
              ? `${r.id}: retried as ${r.newId}`
              : r.status === 'missing'
                ? `${r.id}: missing (retried, deleted, or never there)`
                : `${r.id}: refused (${r.reason})`,
          )
          .join('\n'),
      );
      if (results.some((r) => r.status !== 'retried')) cli.fail();
    });
  cli
    .withResource(dl.command('delete').description('delete dead letters').argument('<ids...>', 'record IDs'))
    .action(async (ids: string[], _o: unknown, cmd: Command) => {
      const a = cli.addressed(cmd, true);
      const { admin, g, actor } = await cli.connect(cmd, a.options);
      await mustExist(admin, a, g);
      await cli.confirm(g, `delete ${ids.length} dead letter(s) of ${a.id}?`);
      const results: ({ id: string } & DeleteResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.deleteDeadLetter(actor, a.id, rid)) });
      cli.print(g, { results }, () =>
        results.map((r) => `${r.id}: ${r.status === 'deleted' ? 'deleted' : 'missing (retried, deleted, or never there)'}`).join('\n'),
      );
      if (results.some((r) => r.status !== 'deleted')) cli.fail();
    });
  withFilter(
    cli.withResource(
      dl.command('purge').description('delete every dead letter present now (with the filter flags: every matching one), oldest first, as a job'),
    ),
  )
    .option('--limit <n>', 'at most this many', (v) => parseWhole(v, '--limit'))
    .option('--page-size <n>', 'records per page (1..1000)', (v) => parseWhole(v, '--page-size'), 100)
    .option('--rate <n>', 'records per second at most (0: no limit)', (v) => parseWhole(v, '--rate'), 0)
    .action(async (o: BulkFlags & FilterFlags, cmd: Command) => {
      const a = cli.addressed(cmd, true);
      const filter = filterOf(o);
      const { admin, g, actor } = await cli.connect(cmd, { ...a.options, jobs: jobSettings(o) });
      await mustExist(admin, a, g);
      await cli.confirm(g, `delete every dead letter of ${a.id}${filter ? ' that matches the filter' : ''}?`);
      return runJob(cli, admin, g, actor, a.id, { action: 'delete', ...(filter ? { filter } : {}), ...(o.limit !== undefined ? { limit: o.limit } : {}) }, o);
    });
}

interface BulkFlags {
  limit?: number;
  pageSize: number;
  rate: number;
}

const jobSettings = (o: BulkFlags) => ({ pageSize: o.pageSize, ratePerSecond: o.rate });

/**
 * Runs a retry or delete job in the foreground: progress on stderr, Ctrl-C cancels it between
 * pages (exit 1). The job is kept in Redis like a dashboard's (`respire jobs`); where the server
 * refuses the job keys (an ACL without them), the same work runs without a job record.
 */
async function runJob(cli: Cli, admin: RespireAdmin, g: GlobalOptions, actor: Actor, id: string, spec: JobSpec, o: BulkFlags): Promise<void> {
  const verb = spec.action === 'retry' ? 'retried' : 'deleted';
  let running;
  try {
    running = await admin.startJob(actor, id, spec, { onProgress: (j) => cli.err(`${verb} ${j.done}${j.failed ? `, left ${j.failed}` : ''}…`) });
  } catch (error) {
    if (!isRespireError(error, 'PERMISSION_DENIED') || spec.filter !== undefined) throw error;
    cli.err(`respire: no job record (the server refused the job keys: ${(error as Error).message}); running without one`);
    return runWithoutJob(cli, admin, g, actor, id, spec, o);
  }
  const cancel = () => void admin.cancelJob(actor, running.job.id).catch(() => {});
  process.once('SIGINT', cancel);
  let job: Job;
  try {
    job = await running.finished;
  } finally {
    process.removeListener('SIGINT', cancel);
  }
  cli.print(
    g,
    {
      done: job.done,
      failed: job.failed,
      missing: job.missing,
      aborted: job.state !== 'done',
      jobId: job.id,
      state: job.state,
      ...(job.error ? { error: job.error } : {}),
    },
    () => jobReport(job),
  );
  if (job.state !== 'done' || job.failed > 0) cli.fail();
}

/** The bounded in-process bulk action, for a user that may not write the job keys. */
async function runWithoutJob(cli: Cli, admin: RespireAdmin, g: GlobalOptions, actor: Actor, id: string, spec: JobSpec, o: BulkFlags): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  const verb = spec.action === 'retry' ? 'retried' : 'deleted';
  try {
    const run = spec.action === 'retry' ? admin.retryAllDeadLetters.bind(admin) : admin.deleteAllDeadLetters.bind(admin);
    const result = await run(actor, id, {
      pageSize: o.pageSize,
      signal: controller.signal,
      ...(spec.limit !== undefined ? { limit: spec.limit } : {}),
      onProgress: (p) => cli.err(`${verb} ${p.done}${p.failed ? `, left ${p.failed}` : ''}…`),
    });
    cli.print(g, { ...result, missing: 0 }, () =>
      result.aborted
        ? `Stopped (Ctrl-C): ${verb} ${result.done} first; the rest are still there.`
        : `${verb[0]!.toUpperCase()}${verb.slice(1)} ${result.done}.${result.failed ? ` ${result.failed} left in place: not records Respire wrote.` : ''}`,
    );
    if (result.aborted || result.failed > 0) cli.fail();
  } finally {
    process.removeListener('SIGINT', stop);
  }
}
