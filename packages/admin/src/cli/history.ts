// The CLI's history commands: a resource's rates and backlogs over time, and recording a sample.
import type { Command } from 'commander';
import { mustExist, parseTime, parseWhole, type Cli } from './context.js';
import { renderHistory } from './format.js';

/** `respire history show | record`. */
export function historyCommands(program: Command, cli: Cli): void {
  const history = program.command('history').description('rates and backlogs over time, from the samples kept in Redis');
  cli
    .withResource(history.command('show').description("a queue's or a stream's history: rates per second (sent, delivered, acked, dead-lettered) and backlogs"))
    .option('--since <time>', 'from: 15m, 2h, 7d ago, an ISO time, or ms since the epoch', '1h')
    .option('--until <time>', 'up to (same forms)')
    .option('--points <n>', 'rows per series at most (2..10000)', (v) => parseWhole(v, '--points'), 30)
    .action(async (o: { since: string; until?: string; points: number }, cmd: Command) => {
      const a = cli.addressed(cmd, false);
      const { admin, g } = await cli.connect(cmd, a.options);
      await mustExist(admin, a, g);
      const h = await admin.history(a.id, {
        sinceMs: parseTime(o.since, '--since'),
        ...(o.until !== undefined ? { untilMs: parseTime(o.until, '--until') } : {}),
        maxPoints: o.points,
      });
      const { resource: _resource, ...doc } = h;
      cli.print(g, doc, () => renderHistory(h));
    });
  history
    .command('record')
    .description('record one sample of every queue found by a bounded SCAN (and each --queue, --stream), unless one is recent (for cron)')
    .option('--queue <name...>', 'queues besides the discovered ones')
    .option('--stream <key...>', 'worker streams')
    .option('--dead-letter-stream <key...>', 'dead-letter streams of the --stream keys, in the same order')
    .option('--min-interval-ms <ms>', 'skip a resource whose last sample is younger', (v) => parseWhole(v, '--min-interval-ms'), 0)
    .action(async (o: { queue?: string[]; stream?: string[]; deadLetterStream?: string[]; minIntervalMs: number }, cmd: Command) => {
      const prefix = cmd.optsWithGlobals<{ keyPrefix?: string }>().keyPrefix;
      const kp = prefix ? { keyPrefix: prefix } : {};
      const { admin, g } = await cli.connect(cmd, {
        queues: (o.queue ?? []).map((name) => ({ name, ...kp })),
        streams: (o.stream ?? []).map((stream, i) => ({ stream, ...kp, ...(o.deadLetterStream?.[i] ? { deadLetterStream: o.deadLetterStream[i] } : {}) })),
      });
      const result = await admin.recordHistory({ minIntervalMs: o.minIntervalMs });
      cli.print(g, result, () =>
        [
          `recorded ${result.recorded}, skipped ${result.skipped} (sampled recently)`,
          ...result.failed.map((f) => `failed: ${f.id}: ${f.code} ${f.message}`),
        ].join('\n'),
      );
      if (result.failed.length > 0) cli.fail();
    });
}
