// Grouped queues: the list, and one queue's groups (counts, largest backlogs, the heads in flight). Group IDs are user data: always escaped by JSX.
import type { DeadLetterPage, GroupedQueueStatus, GroupedQueueSummary, InFlightHead } from '@respire/admin';
import { count, duration, maybeCount, serverTime } from '../format.js';
import { Count, num, Pager, Table, type Paging } from './components.js';
import { GROUPED_RETRY_TEXT, GroupedDeadLetterBulk, GroupedDeadLettersTable } from './grouped-dead-letters.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';

/** Every grouped queue this principal sees: messages, groups with messages, ready groups, in flight, dead letters. */
export function GroupedQueuesPage({
  ctx,
  queues,
  discoveryTruncated,
}: {
  ctx: PageContext;
  queues: readonly GroupedQueueSummary[];
  discoveryTruncated: boolean;
}) {
  return (
    <Layout ctx={ctx} title="Grouped queues" crumbs={[{ label: 'Grouped queues' }]}>
      <p class="muted">Queues with message groups: one message of a group in flight at a time (ordered groups), groups served round robin.</p>
      {discoveryTruncated ? <p class="notice warn">Discovery stopped at its page limit: some grouped queues may be missing.</p> : null}
      {queues.length === 0 ? (
        <p class="empty">No grouped queues.</p>
      ) : (
        <Table columns={['Queue', 'Key prefix', num('Messages'), num('Groups'), num('Ready'), num('In flight'), num('Dead letters')]} caption="Grouped queues">
          <tbody>
            {queues.map((q) => (
              <tr>
                <th scope="row">
                  <Name value={q.name} href={href(ctx, '/grouped-queue', { id: q.id })} />
                </th>
                <td>
                  <code>{q.keyPrefix}</code>
                </td>
                <td class="num">{count(q.messages)}</td>
                <Count value={q.groups} />
                <td class="num">{count(q.readyGroups)}</td>
                <td class="num">{count(q.inFlight)}</td>
                <Count value={q.deadLetters} alert="danger" />
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Layout>
  );
}

function headState(h: InFlightHead, nowMs: number): string {
  if (h.due) return `due ${duration(nowMs - h.deadlineMs)} ago`;
  return h.leased ? `leased, ${duration(h.deadlineMs - nowMs)} left` : `NACKed, due in ${duration(h.deadlineMs - nowMs)}`;
}

/** One grouped queue: its counts, its largest backlogs, one page of its heads in flight (ordered groups: the blocked groups), and its newest dead letters. */
export function GroupedQueuePage({
  ctx,
  queue,
  heads,
  paging,
  deadLetters,
  notice,
}: {
  ctx: PageContext;
  queue: GroupedQueueStatus;
  heads: { readonly items: readonly InFlightHead[]; readonly serverTimeMs: number };
  paging: Paging;
  deadLetters: DeadLetterPage;
  notice?: Notice;
}) {
  const label = `${queue.keyPrefix}${queue.name}`;
  const largest = queue.largestBacklogs;
  return (
    <Layout
      ctx={ctx}
      title={`Grouped queue ${label}`}
      heading={
        <>
          Grouped queue <Name value={label} />
        </>
      }
      crumbs={[
        { label: 'Grouped queues', href: href(ctx, '/grouped-queues') },
        { kind: 'Grouped queue', label },
      ]}
      serverTimeMs={queue.serverTimeMs}
      notice={notice}
    >
      <dl class="facts">
        <dt>Groups with messages</dt>
        <dd class="group-count">{maybeCount(queue.groups)}</dd>
        <dt>Ready groups</dt>
        <dd>{count(queue.readyGroups)}</dd>
        <dt>{queue.fair ? 'Messages in flight' : 'Blocked groups'}</dt>
        <dd>{count(queue.inFlight)}</dd>
        <dt>Messages</dt>
        <dd>{count(queue.messages)}</dd>
        <dt>Dead letters</dt>
        <dd>{count(queue.deadLetters)}</dd>
      </dl>
      {queue.fair ? <p class="muted">Fair groups: a group may be ready and have messages in flight at once, so the number of groups is not counted.</p> : null}
      <h2>Largest backlogs</h2>
      <p class="muted">
        Of {count(largest.groupsRead)} groups read at {serverTime(largest.computedAtMs)} (server time; refreshed at most every few seconds)
        {largest.truncated ? '; the walk stopped at its limit' : ''}.
      </p>
      {largest.items.length === 0 ? (
        <p class="empty">No backlogs.</p>
      ) : (
        <Table columns={['Group', num('Backlog')]} caption="Largest backlogs" class="backlogs">
          <tbody>
            {largest.items.map((b) => (
              <tr>
                <th scope="row">
                  <Name value={b.groupId} />
                </th>
                <td class="num">{count(b.backlog)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <h2>{queue.fair ? 'Messages in flight' : 'Blocked groups'}</h2>
      <p class="muted">
        {queue.fair ? 'Each message in flight' : "Each blocked group's head"}, soonest deadline first: it is redelivered when its deadline passes, and
        dead-lettered at the delivery limit.
      </p>
      {heads.items.length === 0 ? (
        <p class="empty">Nothing in flight.</p>
      ) : (
        <Table
          columns={['Group', 'Head entry ID', num('Deliveries'), 'Deadline', 'State']}
          caption={queue.fair ? 'Messages in flight' : 'Blocked heads'}
          class="heads"
        >
          <tbody>
            {heads.items.map((h) => (
              <tr>
                <th scope="row">{h.groupId === null ? <span class="muted">settled</span> : <Name value={h.groupId} />}</th>
                <td>
                  <code>{h.entryId}</code>
                </td>
                <td class="num">{count(h.deliveryCount)}</td>
                <td>{serverTime(h.deadlineMs)}</td>
                <td class={h.due ? 'warn' : ''}>{headState(h, heads.serverTimeMs)}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager paging={paging} label={queue.fair ? 'Messages in flight' : 'Blocked heads'} />
      <h2 id="dead-letters">Dead letters</h2>
      <p class="muted">Messages given up on at the delivery limit, newest first, each with its group. {GROUPED_RETRY_TEXT}</p>
      <div class="toolbar">
        <p>
          <strong>{count(queue.deadLetters)}</strong> dead letters
          {deadLetters.next ? (
            <>
              ; the newest shown. <a href={href(ctx, '/grouped-dead-letters', { id: queue.id })}>All dead letters</a>
            </>
          ) : (
            '.'
          )}
        </p>
        <GroupedDeadLetterBulk ctx={ctx} queue={queue} />
      </div>
      <GroupedDeadLettersTable ctx={ctx} queue={queue} records={deadLetters.items} />
    </Layout>
  );
}
