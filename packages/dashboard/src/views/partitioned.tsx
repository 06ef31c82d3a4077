// Partitioned queues: the list, and one queue as one queue: its partitions, its masters, and the dead letters of all partitions.
import type { PartitionedDeadLetter, PartitionedQueueStatus, PartitionedQueueSummary, PartitionTotals, UnavailablePartitionedQueue } from '@respire/admin';
import { count, entryTime, serverTime } from '../format.js';
import { ActionForm, Count, isOperator, num, Pager, Table, type Paging } from './components.js';
import { ConfirmPage } from './confirm.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';
import { recordPreview } from './payload.js';

const COUNT_COLUMNS = [num('Messages'), num('Ready'), num('In flight'), num('Due'), num('Dead letters')];

/** The counts cells of a partition, a master or a queue. */
function Counts({ t }: { t: PartitionTotals }) {
  return (
    <>
      <td class="num">{count(t.length)}</td>
      <Count value={t.ready} />
      <td class="num">{count(t.inFlight)}</td>
      <Count value={t.due} alert="warn" />
      <Count value={t.deadLetters} alert="danger" />
    </>
  );
}

/** Every partitioned queue this principal sees: its partition count and the counts of all its partitions together. */
export function PartitionedQueuesPage({
  ctx,
  queues,
  discoveryTruncated,
  unavailable = [],
}: {
  ctx: PageContext;
  queues: readonly PartitionedQueueSummary[];
  discoveryTruncated: boolean;
  unavailable?: readonly UnavailablePartitionedQueue[];
}) {
  return (
    <Layout ctx={ctx} title="Partitioned queues" crumbs={[{ label: 'Partitioned queues' }]}>
      <p class="muted">Queues spread over several ordinary queues (partitions), each in its own hash tag, so over the masters of a Cluster.</p>
      {discoveryTruncated ? <p class="notice warn">Discovery stopped at its page limit: some partitioned queues may be missing.</p> : null}
      {unavailable.map((u) => (
        <p class="notice warn">
          Could not read partitioned queue <Name value={`${u.resource.keyPrefix}${u.resource.name}`} /> ({u.code}): {u.message}
        </p>
      ))}
      {queues.length === 0 ? (
        <p class="empty">No partitioned queues.</p>
      ) : (
        <Table columns={['Queue', 'Key prefix', num('Partitions'), ...COUNT_COLUMNS]} caption="Partitioned queues">
          <tbody>
            {queues.map((q) => (
              <tr>
                <th scope="row">
                  <Name value={q.name} href={href(ctx, '/partitioned-queue', { id: q.id })} />
                </th>
                <td>
                  <code>{q.keyPrefix}</code>
                </td>
                {q.partitions !== null && q.allPartitions > q.partitions ? (
                  <td class="num">
                    {count(q.partitions)} <span class="muted">+{count(q.allPartitions - q.partitions)} draining</span>
                  </td>
                ) : (
                  <Count value={q.partitions} />
                )}
                <Counts t={q.totals} />
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Layout>
  );
}

function crumbs(ctx: PageContext, queue: PartitionedQueueStatus) {
  return [
    { label: 'Partitioned queues', href: href(ctx, '/partitioned-queues') },
    { kind: 'Partitioned queue', label: `${queue.keyPrefix}${queue.name}`, href: href(ctx, '/partitioned-queue', { id: queue.id }) },
  ];
}

/** One partitioned queue: its partitions (queue, slot, master, counts), the totals per master, and one page of the dead letters of all partitions. */
export function PartitionedQueuePage({
  ctx,
  queue,
  deadLetters,
  paging,
  notice,
}: {
  ctx: PageContext;
  queue: PartitionedQueueStatus;
  deadLetters: readonly PartitionedDeadLetter[];
  paging: Paging;
  notice?: Notice;
}) {
  const label = `${queue.keyPrefix}${queue.name}`;
  const operator = isOperator(ctx);
  return (
    <Layout
      ctx={ctx}
      title={`Partitioned queue ${label}`}
      heading={
        <>
          Partitioned queue <Name value={label} />
        </>
      }
      crumbs={[
        { label: 'Partitioned queues', href: href(ctx, '/partitioned-queues') },
        { kind: 'Partitioned queue', label },
      ]}
      serverTimeMs={queue.serverTimeMs}
      notice={notice}
    >
      {queue.partitions === null ? (
        <p class="notice warn">
          {queue.unreadable === null ? (
            'No partition count is recorded: the queue was never used.'
          ) : (
            <>
              Its metadata key <code>{queue.metadataKey}</code> holds <code>{queue.unreadable}</code>, not a partition count this dashboard reads.
            </>
          )}
        </p>
      ) : (
        <p class="muted">
          {count(queue.partitions)} partitions recorded in <code>{queue.metadataKey}</code>
          {queue.grouped ? ' (grouped)' : ''}
          {queue.history !== null && queue.history.length > 1
            ? ` (grown ${queue.history.map((g) => g.count).join(' → ')}: ${count(queue.allPartitions)} partitions in all, ${count(
                queue.allPartitions - queue.partitions,
              )} of earlier counts still drained by receives)`
            : ''}
          : {count(queue.totals.length)} messages, {count(queue.totals.inFlight)} in flight, {count(queue.totals.deadLetters)} dead letters. Read at{' '}
          {serverTime(queue.serverTimeMs)} (server time), one partition after another.
        </p>
      )}
      {queue.partitionList.length > 0 ? <h2>Partitions</h2> : null}
      {queue.partitionList.length > 0 ? (
        <Table columns={[num('Partition'), 'Queue', num('Slot'), 'Master', 'State', ...COUNT_COLUMNS]} caption="Partitions" class="partitions">
          <tbody>
            {queue.partitionList.map((p) => (
              <tr>
                <td class="num">{p.index}</td>
                <th scope="row">
                  <Name value={p.queue} />
                </th>
                <td class="num">{p.slot}</td>
                <td>{p.master === null ? <span class="muted">this server</span> : <code>{p.master}</code>}</td>
                <td>{p.current ? 'current' : <span class="muted">draining</span>}</td>
                <Counts t={p.status} />
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
      {queue.masters !== null ? <h2>Per master</h2> : null}
      {queue.masters !== null ? (
        <Table columns={['Master', 'Partitions served', ...COUNT_COLUMNS]} caption="Per master" class="masters">
          <tbody>
            {queue.masters.map((m) => (
              <tr>
                <th scope="row">
                  <code>{m.master}</code>
                </th>
                <td>{`${m.partitions.length === 1 ? 'partition' : 'partitions'} ${m.partitions.join(', ')}`}</td>
                <Counts t={m} />
              </tr>
            ))}
          </tbody>
        </Table>
      ) : null}
      <h2>Dead letters</h2>
      {deadLetters.length === 0 ? (
        <p class="empty">No dead letters on this page.</p>
      ) : (
        <Table
          columns={[num('Partition'), 'Record', 'Dead-lettered', 'Source ID', num('Deliveries'), 'Preview', ...(operator ? ['Actions'] : [])]}
          caption="Dead letters of all partitions, newest first"
          class="dead-letters"
        >
          <tbody>
            {deadLetters.map((d) => (
              <tr>
                <td class="num">{d.partition}</td>
                <td>
                  <code>{d.record.id}</code>
                </td>
                <td>{serverTime(entryTime(d.record.id))}</td>
                <td>{d.record.kind === 'queue' ? <code>{d.record.sourceId}</code> : ''}</td>
                <td class="num">{d.record.kind === 'queue' ? count(d.record.deliveryCount) : ''}</td>
                <td class="preview">
                  <code>{recordPreview(d.record)}</code>
                </td>
                {operator ? (
                  <td class="actions">
                    {d.record.kind === 'queue' ? (
                      <ActionForm ctx={ctx} action="partition-retry" fields={{ id: queue.id, partition: d.partition, record: d.record.id }}>
                        <button type="submit" class="button primary small" aria-label={`Retry dead letter ${d.record.id} of partition ${d.partition}`}>
                          Retry
                        </button>
                      </ActionForm>
                    ) : null}
                    <a
                      class="button danger small"
                      href={href(ctx, '/confirm/partition-delete', { id: queue.id, partition: d.partition, record: d.record.id })}
                      aria-label={`Delete dead letter ${d.record.id} of partition ${d.partition}`}
                    >
                      Delete…
                    </a>
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager paging={paging} label="Dead letters" />
      <p class="muted">
        Each partition is an ordinary queue with its own dead letters; here they are one list. Retry sends a record back to its own partition as a fresh
        message.
      </p>
    </Layout>
  );
}

/** The confirmation of deleting one dead letter of a partition. */
export function ConfirmPartitionDeletePage({
  ctx,
  queue,
  partition,
  record,
}: {
  ctx: PageContext;
  queue: PartitionedQueueStatus;
  partition: number;
  record: string;
}) {
  return (
    <ConfirmPage
      ctx={ctx}
      title="Delete this dead letter?"
      crumbs={[...crumbs(ctx, queue), { label: 'Delete' }]}
      action="partition-delete"
      fields={{ id: queue.id, partition, record }}
      danger
      submitLabel="Delete"
      cancelHref={href(ctx, '/partitioned-queue', { id: queue.id })}
    >
      <p>
        Dead letter <code>{record}</code> of partition {partition} of <Name value={`${queue.keyPrefix}${queue.name}`} /> is deleted for good.
      </p>
    </ConfirmPage>
  );
}
