// The CLI's topic commands: list topics, show a topic's subscriptions, seek a subscription, its dead letters.
import type { Command } from 'commander';
import type { DeleteResult } from '../api.js';
import type { RespireAdmin } from '../admin.js';
import { RespireNotFoundError, nearest } from '../not-found.js';
import type { SeekTarget, SubscriptionRetryResult, TopicStatus } from '../topics.js';
import { UsageError, pageOptions, parseTime, type Cli, type GlobalOptions } from './context.js';
import { duration, pageText, recordJson, recordRow, table } from './format.js';

/** The topic a command addresses, as admin options and its id (its stream key). */
function addressed(cmd: Command): { options: { topics: { name: string; keyPrefix?: string }[]; discoverTopics: true }; id: string; name: string } {
  const { topic } = cmd.opts<{ topic: string }>();
  const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
  if (/[{}]/.test(topic) || topic.trim() === '') throw new UsageError(`--topic: a topic name must be nonblank without '{' or '}', got '${topic}'`);
  // Discovery serves only the "not found" hint: the nearest topics that exist.
  return {
    options: { topics: [{ name: topic, ...(prefix ? { keyPrefix: prefix } : {}) }], discoverTopics: true },
    id: `${prefix ?? ''}{respire-topic:${topic}}:stream`,
    name: topic,
  };
}

/** The topic's status; "not found" (exit 1, with the nearest topics) when its stream does not exist. */
async function existing(admin: RespireAdmin, id: string, name: string, g: GlobalOptions): Promise<TopicStatus> {
  const status = await admin.topic(id);
  if (status.publications > 0 || status.subscriptions > 0) return status;
  const found = (await admin.topics()).topics.filter((t) => t.discovered).map((t) => t.name);
  const where = g.keyPrefix ? `under --key-prefix '${g.keyPrefix}'` : 'without a key prefix';
  throw new RespireNotFoundError(
    { kind: 'resource', name, known: nearest(name, found) },
    `no topic named '${name}' ${where}: its stream does not exist (check --topic and --key-prefix)`,
  );
}

function subscriptionRows(status: TopicStatus): string[][] {
  return status.subscriptionList.map((s) => [
    s.name,
    s.lastDeliveredId,
    s.lag === null ? '?' : String(s.lag),
    String(s.pending),
    String(s.retried),
    s.oldestUnacknowledgedAgeMs === null ? '-' : duration(s.oldestUnacknowledgedAgeMs),
    String(s.deadLetters),
    String(s.trimmed),
  ]);
}

/** `respire topics list | show | seek | dead-letters | retry-dead-letters | delete-dead-letters`. */
export function topicCommands(program: Command, cli: Cli): void {
  const topics = program.command('topics').description('reliable topics: list them, show their subscriptions, seek, dead letters');
  topics
    .command('list')
    .description('every topic (found by a bounded SCAN, or given with --topic) with its publications and subscriptions')
    .option('--topic <name...>', 'topics to show besides the discovered ones')
    .option('--no-discover', 'do not SCAN for topics')
    .action(async (o: { topic?: string[]; discover: boolean }, cmd: Command) => {
      const prefix = cmd.optsWithGlobals<GlobalOptions>().keyPrefix;
      const { admin, g } = await cli.connect(cmd, {
        topics: (o.topic ?? []).map((name) => ({ name, ...(prefix ? { keyPrefix: prefix } : {}) })),
        discoverTopics: o.discover,
      });
      const list = await admin.topics();
      cli.print(g, list, () =>
        [
          table(
            ['TOPIC', 'KEY PREFIX', 'PUBLICATIONS', 'SUBSCRIPTIONS'],
            list.topics.map((t) => [t.name, t.keyPrefix, String(t.publications), String(t.subscriptions)]),
          ),
          list.discoveryTruncated ? 'discovery stopped at its page limit: some topics may be missing' : '',
        ]
          .filter(Boolean)
          .join('\n'),
      );
    });
  topics
    .command('show')
    .description(
      "a topic's subscriptions: position, lag (not yet delivered), pending, retried dead letters not yet completed, oldest unacknowledged age, dead letters, trimmed",
    )
    .requiredOption('--topic <name>', 'the topic (its name)')
    .action(async (_o: unknown, cmd: Command) => {
      const a = addressed(cmd);
      const { admin, g } = await cli.connect(cmd, a.options);
      const status = await existing(admin, a.id, a.name, g);
      cli.print(g, status, () =>
        [
          `topic ${status.name}: ${status.publications} publications retained, ${status.subscriptions} subscriptions`,
          table(['SUBSCRIPTION', 'POSITION', 'LAG', 'PENDING', 'RETRIED', 'OLDEST UNACKED', 'DEAD LETTERS', 'TRIMMED'], subscriptionRows(status)),
        ].join('\n'),
      );
    });
  topics
    .command('seek')
    .description(
      "move a subscription to 'earliest', 'latest', an entry ID, or --time: its leased deliveries are discarded (their receipts go stale) and the retained publications after the new position are delivered again",
    )
    .requiredOption('--topic <name>', 'the topic (its name)')
    .requiredOption('--subscription <name>', 'the subscription')
    .argument('[to]', "'earliest', 'latest' or an entry ID")
    .option('--time <time>', 'instead of [to]: publications from this time on (15m, 2h, 7d ago, an ISO time, or ms since the epoch)')
    .action(async (to: string | undefined, o: { subscription: string; time?: string }, cmd: Command) => {
      if ((to === undefined) === (o.time === undefined)) throw new UsageError("give one of [to] ('earliest', 'latest' or an entry ID) and --time");
      const target: SeekTarget = o.time !== undefined ? { timeMs: parseTime(o.time, '--time') } : to!;
      const a = addressed(cmd);
      const { admin, g, actor } = await cli.connect(cmd, a.options);
      const status = await existing(admin, a.id, a.name, g);
      const sub = status.subscriptionList.find((s) => s.name === o.subscription);
      if (!sub) {
        throw new RespireNotFoundError(
          {
            kind: 'group',
            name: o.subscription,
            known: nearest(
              o.subscription,
              status.subscriptionList.map((s) => s.name),
            ),
          },
          `topic '${a.name}' has no subscription '${o.subscription}'`,
        );
      }
      const shown = typeof target === 'string' ? target : `${new Date(target.timeMs).toISOString()}`;
      await cli.confirm(
        g,
        `move subscription '${sub.name}' of topic '${a.name}' from ${sub.lastDeliveredId} to ${shown}? its ${sub.pending} pending deliveries are discarded and redelivered only if after the new position`,
      );
      const result = await admin.seekSubscription(actor, a.id, sub.name, target);
      cli.print(g, result, () =>
        result.status === 'moved'
          ? `subscription '${sub.name}' moved to ${result.position}; ${result.discarded} leased deliveries discarded`
          : `subscription '${sub.name}' is gone: nothing was done`,
      );
      if (result.status !== 'moved') cli.fail();
    });
  cli
    .withPaging(
      topics
        .command('dead-letters')
        .description("one page of a subscription's dead letters, newest first")
        .requiredOption('--topic <name>', 'the topic (its name)')
        .requiredOption('--subscription <name>', 'the subscription'),
      20,
    )
    .option('--oldest', 'oldest first')
    .action(async (o: { subscription: string; count: number; cursor?: string; before?: string; last?: boolean; oldest?: boolean }, cmd: Command) => {
      const a = addressed(cmd);
      const { admin, g } = await cli.connect(cmd, a.options);
      const page = await admin.subscriptionDeadLetters(a.id, o.subscription, { count: o.count, order: o.oldest ? 'oldest' : 'newest', ...pageOptions(o) });
      if (page.items.length === 0 && !o.cursor && !o.before) await existing(admin, a.id, a.name, g);
      cli.print(g, { items: page.items.map((r) => recordJson(r, false)), next: page.next ?? null, previous: page.previous ?? null }, () =>
        pageText(table(['ID', 'KIND', 'SOURCE ID', 'ATTEMPTS', 'REASON', 'CONTENT'], page.items.map(recordRow)), page.next, page.previous),
      );
    });
  topics
    .command('retry-dead-letters')
    .description(
      "deliver records of a subscription's dead letters to that subscription again (only it: the topic's other subscriptions do not see them again) and remove them",
    )
    .requiredOption('--topic <name>', 'the topic (its name)')
    .requiredOption('--subscription <name>', 'the subscription')
    .argument('[ids...]', 'record IDs')
    .option('--all', 'every record present when it starts, oldest first, in pages of 100')
    .action(async (ids: string[], o: { subscription: string; all?: boolean }, cmd: Command) => {
      if ((ids.length === 0) === !o.all) throw new UsageError('give record IDs or --all');
      const a = addressed(cmd);
      const { admin, g, actor } = await cli.connect(cmd, a.options);
      await existing(admin, a.id, a.name, g);
      if (o.all) {
        await cli.confirm(g, `retry every dead letter of subscription '${o.subscription}' of topic '${a.name}'?`);
        const result = await admin.retryAllSubscriptionDeadLetters(actor, a.id, o.subscription);
        cli.print(g, result, () => `${result.done} retried, ${result.failed} left in place (not in the queue's record format)`);
        if (result.failed > 0) cli.fail();
        return;
      }
      await cli.confirm(g, `retry ${ids.length} dead letter(s) of subscription '${o.subscription}' of topic '${a.name}'?`);
      const results: ({ id: string } & SubscriptionRetryResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.retrySubscriptionDeadLetter(actor, a.id, o.subscription, rid)) });
      cli.print(g, { results }, () =>
        results
          .map(
            (r) =>
              `${r.id}: ${r.status === 'retried' ? `retried (publication ${r.publicationId})` : r.status === 'missing' ? 'missing (retried or deleted already, or never there)' : `refused: ${r.reason}`}`,
          )
          .join('\n'),
      );
      if (results.some((r) => r.status !== 'retried')) cli.fail();
    });
  topics
    .command('delete-dead-letters')
    .description("delete records of a subscription's dead letters")
    .requiredOption('--topic <name>', 'the topic (its name)')
    .requiredOption('--subscription <name>', 'the subscription')
    .argument('[ids...]', 'record IDs')
    .option('--all', 'every record present when it starts, oldest first, in pages of 100')
    .action(async (ids: string[], o: { subscription: string; all?: boolean }, cmd: Command) => {
      if ((ids.length === 0) === !o.all) throw new UsageError('give record IDs or --all');
      const a = addressed(cmd);
      const { admin, g, actor } = await cli.connect(cmd, a.options);
      await existing(admin, a.id, a.name, g);
      if (o.all) {
        await cli.confirm(g, `delete every dead letter of subscription '${o.subscription}' of topic '${a.name}'? Their payloads are gone for good.`);
        const result = await admin.deleteAllSubscriptionDeadLetters(actor, a.id, o.subscription);
        cli.print(g, result, () => `${result.done} deleted`);
        return;
      }
      await cli.confirm(g, `delete ${ids.length} dead letter(s) of subscription '${o.subscription}' of topic '${a.name}'?`);
      const results: ({ id: string } & DeleteResult)[] = [];
      for (const rid of ids) results.push({ id: rid, ...(await admin.deleteSubscriptionDeadLetter(actor, a.id, o.subscription, rid)) });
      cli.print(g, { results }, () => results.map((r) => `${r.id}: ${r.status === 'deleted' ? 'deleted' : 'missing (deleted, or never there)'}`).join('\n'));
      if (results.some((r) => r.status !== 'deleted')) cli.fail();
    });
}
