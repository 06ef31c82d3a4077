// The CLI's queue message commands: list ready or in-flight messages, show one (due time, headers), release or delete a leased or delayed one.
import type { Command } from 'commander';
import { describeBytes } from '../payload.js';
import { ActionFailed, UsageError, mustExist, pageOptions, parseWhole, type Cli } from './context.js';
import { duration, messageState, pageText, safe, table, waitsForDue } from './format.js';
import { headerLines, headerNames, headersJson } from './headers.js';

/** `respire messages list | show | release | delete` (reliable queues). */
export function messageCommands(program: Command, cli: Cli): void {
  const messages = program.command('messages').description("a queue's messages: ready, leased and delayed");
  const queueOnly = (cmd: Command) => cmd.requiredOption('--queue <name>', 'a reliable queue (its name)');
  cli
    .withPaging(queueOnly(messages.command('list').description('ready messages (not yet delivered), oldest first; --in-flight: leased and delayed ones')), 20)
    .option('--in-flight', 'leased and delayed messages instead, soonest deadline first')
    .option('--newest', 'ready messages newest first')
    .action(
      async (o: { queue: string; inFlight?: boolean; newest?: boolean; count: number; cursor?: string; before?: string; last?: boolean }, cmd: Command) => {
        const a = cli.addressed(cmd, false);
        const { admin, g } = await cli.connect(cmd, a.options);
        await mustExist(admin, a, g);
        if (o.inFlight) {
          if (o.newest) throw new UsageError('--newest goes with ready messages');
          const page = await admin.queueDeliveries(a.id, { count: o.count, ...pageOptions(o) });
          cli.print(
            g,
            { items: page.items, next: page.next ?? null, previous: page.previous ?? null, total: page.total },
            () =>
              `${page.total} leased or delayed\n` +
              pageText(
                table(
                  ['ID', 'STATE', 'DELIVERIES', 'UNTIL (SERVER TIME)', 'REMAINING'],
                  page.items.map((d) => [
                    d.id,
                    // Delivery count 0: a delayed send a receive met before its due time, parked there.
                    d.state === 'delayed' && d.deliveryCount === 0 ? 'delayed send' : d.state,
                    String(d.deliveryCount),
                    new Date(d.untilMs).toISOString(),
                    d.due ? `due ${duration(page.serverTimeMs - d.untilMs)} ago` : duration(d.untilMs - page.serverTimeMs),
                  ]),
                ),
                page.next,
                page.previous,
              ),
          );
          return;
        }
        const page = await admin.queueMessages(a.id, { count: o.count, order: o.newest ? 'newest' : 'oldest', ...pageOptions(o) });
        const preview = (b: Buffer) => {
          const text = describeBytes(b, { maxBytes: 80 }).text.replace(/\s+/g, ' ');
          return text.length > 60 ? `${text.slice(0, 59)}…` : text;
        };
        cli.print(
          g,
          {
            items: page.items.map((m) => ({
              id: m.id,
              state: m.state,
              dueMs: m.dueMs,
              headers: headersJson(m.headers, 4096),
              payload: { ...describeBytes(m.payload, { maxBytes: 4096 }) },
            })),
            next: page.next ?? null,
            previous: page.previous ?? null,
            total: page.total,
          },
          () =>
            `${page.total === null ? 'unknown' : page.total} ready\n` +
            pageText(
              table(
                ['ID', 'STATE', 'HEADERS', 'PAYLOAD'],
                page.items.map((m) => [
                  m.id,
                  waitsForDue(m, page.serverTimeMs) ? `delayed until ${new Date(m.dueMs!).toISOString()}` : 'ready',
                  headerNames(m.headers),
                  preview(m.payload),
                ]),
              ),
              page.next,
              page.previous,
            ),
        );
      },
    );
  queueOnly(messages.command('show').description('one message: its state, due time, headers and payload').argument('<id>', 'entry ID'))
    .option('--max-bytes <n>', 'render at most this many bytes of the payload', (v) => parseWhole(v, '--max-bytes'), 65_536)
    .action(async (entryId: string, o: { queue: string; maxBytes: number }, cmd: Command) => {
      const a = cli.addressed(cmd, false);
      const { admin, g } = await cli.connect(cmd, a.options);
      const m = await admin.queueMessage(a.id, entryId);
      if (!m) {
        await mustExist(admin, a, g);
        throw new ActionFailed(`message ${entryId} is not in queue ${safe(o.queue)} (acknowledged, dead-lettered, or never there)`);
      }
      const view = describeBytes(m.payload, { maxBytes: o.maxBytes });
      cli.print(
        g,
        {
          id: m.id,
          state: m.state,
          deliveryCount: m.deliveryCount,
          untilMs: m.untilMs,
          due: m.due,
          dueMs: m.dueMs,
          headers: headersJson(m.headers),
          payload: { ...view, base64: m.payload.toString('base64') },
        },
        () =>
          [
            `id: ${m.id}`,
            `state: ${messageState(m, m.serverTimeMs)}`,
            `delivery count: ${m.deliveryCount ?? 'unknown'}`,
            ...(m.dueMs !== null ? [`delayed send, due: ${new Date(m.dueMs).toISOString()} (server time)`] : []),
            // A parked delayed send's deadline is its due time, already shown.
            ...(m.untilMs !== null && m.untilMs !== m.dueMs ? [`until: ${new Date(m.untilMs).toISOString()} (server time)`] : []),
            ...headerLines(m.headers),
            `payload: [${view.kind}, ${view.totalBytes} bytes${view.truncated ? `, first ${o.maxBytes} shown` : ''}]`,
            ...view.text.split('\n').map((l) => `    ${safe(l)}`),
          ].join('\n'),
      );
    });
  for (const action of ['release', 'delete'] as const) {
    queueOnly(
      messages
        .command(action)
        .description(
          action === 'release'
            ? 'make a leased or delayed message due now (like a NACK without delay; its holder can no longer ack it)'
            : 'acknowledge a leased or delayed message for good (like an ACK: removed, never delivered again)',
        )
        .argument('<id>', 'entry ID'),
    )
      .option('--delivery-count <n>', 'the delivery count you saw (default: the current one, after confirmation)', (v) => parseWhole(v, '--delivery-count'))
      .option('--until <ms>', 'the deadline you saw, ms since the epoch (default: the current one, after confirmation)', (v) => parseWhole(v, '--until'))
      .action(async (entryId: string, o: { queue: string; deliveryCount?: number; until?: number }, cmd: Command) => {
        const a = cli.addressed(cmd, false);
        const { admin, g, actor } = await cli.connect(cmd, a.options);
        let expected = o.deliveryCount !== undefined && o.until !== undefined ? { deliveryCount: o.deliveryCount, untilMs: o.until } : undefined;
        if (!expected) {
          const m = await admin.queueMessage(a.id, entryId);
          if (!m) {
            await mustExist(admin, a, g);
            throw new ActionFailed(`message ${entryId} is not in queue ${safe(o.queue)}`);
          }
          if (waitsForDue(m, m.serverTimeMs))
            throw new ActionFailed(
              `message ${entryId} is a delayed send due at ${new Date(m.dueMs!).toISOString()} that no receive has met yet: it can be ${action}d once a receive has (it then shows as delayed, delivery count 0)`,
            );
          if (m.state !== 'leased' && m.state !== 'delayed')
            throw new ActionFailed(`message ${entryId} is ${messageState(m, m.serverTimeMs)}: only a leased or delayed one can be ${action}d`);
          expected = { deliveryCount: m.deliveryCount!, untilMs: m.untilMs! };
          await cli.confirm(g, `${action} ${entryId} (${messageState(m, m.serverTimeMs)}, delivery count ${m.deliveryCount})?`);
        } else if (action === 'delete') {
          await cli.confirm(g, `delete ${entryId}?`);
        }
        const result =
          action === 'release'
            ? await admin.releaseQueueMessage(actor, a.id, entryId, expected)
            : await admin.deleteQueueMessage(actor, a.id, entryId, expected);
        cli.print(g, { id: entryId, ...result }, () => {
          if (result.status === 'released')
            return `${entryId}: released — due now; the next receive redelivers it (delivery count ${expected.deliveryCount} kept)`;
          if (result.status === 'deleted') return `${entryId}: deleted — acknowledged for good`;
          if (result.status === 'missing') return `${entryId}: not in flight (acknowledged, dead-lettered, or gone); nothing done`;
          return `${entryId}: changed since you looked (delivered again, NACKed or completed); nothing done`;
        });
        if (result.status === 'changed' || result.status === 'missing') cli.fail();
      });
  }
}
