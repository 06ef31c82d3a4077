// The CLI's job commands: list, show, cancel and resume the bulk jobs kept in Redis.
import type { Command } from 'commander';
import { ActionFailed, parseWhole, type Cli } from './context.js';
import { jobReport, jobsTable } from './format.js';

/** `respire jobs list | show | cancel | resume`. */
export function jobCommands(program: Command, cli: Cli): void {
  const jobs = program.command('jobs').description('bulk jobs (retry or delete of dead letters) started here or from a dashboard');
  jobs
    .command('list')
    .description('recent jobs, newest first')
    .option('--count <n>', 'jobs at most (1..1000)', (v) => parseWhole(v, '--count'), 20)
    .action(async (o: { count: number }, cmd: Command) => {
      const { admin, g } = await cli.connect(cmd, {});
      const list = await admin.jobs({ count: o.count });
      cli.print(g, { jobs: list }, () => jobsTable(list));
    });
  jobs
    .command('show')
    .description("one job's progress, state and report")
    .argument('<job>', 'job ID')
    .action(async (jobId: string, _o: unknown, cmd: Command) => {
      const { admin, g } = await cli.connect(cmd, {});
      const job = await admin.job(jobId);
      if (!job) throw new ActionFailed(`no job ${jobId} (unknown, or expired)`);
      cli.print(g, job, () => `${jobsTable([job])}\n${job.state === 'running' ? `running: ${job.done} done so far` : jobReport(job)}`);
    });
  jobs
    .command('cancel')
    .description('stop a running job after its current page (an interrupted one at once)')
    .argument('<job>', 'job ID')
    .action(async (jobId: string, _o: unknown, cmd: Command) => {
      const { admin, g, actor } = await cli.connect(cmd, {});
      const result = await admin.cancelJob(actor, jobId);
      cli.print(g, result, () =>
        result.status === 'asked'
          ? `job ${jobId}: asked to stop; it stops after its current page`
          : result.status === 'cancelled'
            ? `job ${jobId}: cancelled (it was interrupted: no process ran it)`
            : `job ${jobId}: not running (${result.job?.state ?? 'unknown'}); nothing done`,
      );
      if (result.status === 'not-running') cli.fail();
    });
  jobs
    .command('resume')
    .description('continue an interrupted job here, from its last page (Ctrl-C cancels it)')
    .argument('<job>', 'job ID')
    .action(async (jobId: string, _o: unknown, cmd: Command) => {
      const { admin, g, actor } = await cli.connect(cmd, {});
      const running = await admin.resumeJob(actor, jobId, { onProgress: (j) => cli.err(`${j.action === 'retry' ? 'retried' : 'deleted'} ${j.done}…`) });
      const cancel = () => void admin.cancelJob(actor, jobId).catch(() => {});
      process.once('SIGINT', cancel);
      try {
        const job = await running.finished;
        cli.print(g, job, () => jobReport(job));
        if (job.state !== 'done' || job.failed > 0) cli.fail();
      } finally {
        process.removeListener('SIGINT', cancel);
      }
    });
}
