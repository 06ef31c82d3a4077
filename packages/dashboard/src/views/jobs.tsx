// Bulk jobs: the list of recent jobs, and one job's progress, cancel, resume and final report.
import type { Job, Resource } from '@respire/admin';
import { count, duration, serverTime } from '../format.js';
import { ref } from '../refs.js';
import { ActionForm, isOperator, num, resourceCrumbs, Table } from './components.js';
import { FilterWords } from './confirm.js';
import { href, Layout, type Notice, type PageContext } from './layout.js';
import { Name } from './name.js';

const STATE: Record<Job['state'], string> = {
  running: 'running',
  interrupted: 'interrupted: the process running it stopped',
  done: 'done',
  cancelled: 'cancelled',
  failed: 'failed',
};

/** How far a job is, 0..1: records handled of the selection (a filtered job: records read of the stream). */
const progressOf = (job: Job) => {
  const handled =
    'recordIds' in job.selection || (Object.keys(job.selection.filter).length === 0 && job.examined === job.done + job.failed + job.missing)
      ? job.done + job.failed + job.missing
      : job.examined;
  return job.total === 0 ? (job.state === 'running' ? 0 : 1) : Math.min(1, handled / job.total);
};

export function JobsPage({
  ctx,
  jobs,
  resource,
  resources,
}: {
  ctx: PageContext;
  jobs: readonly Job[];
  resource: Resource | undefined;
  resources: ReadonlyMap<string, Resource>;
}) {
  return (
    <Layout
      ctx={ctx}
      title="Jobs"
      crumbs={resource && resource.kind !== undefined ? [...resourceCrumbs(ctx, resource), { label: 'Jobs' }] : [{ label: 'Jobs' }]}
    >
      <p class="muted">
        Bulk retries and deletes of dead letters, started from a dashboard or the respire CLI on this Redis server, newest first. Jobs are kept for a week.
      </p>
      {jobs.length === 0 ? (
        <p class="empty">No jobs.</p>
      ) : (
        <Table columns={['Job', 'State', 'Action', 'Of', num('Done'), num('Progress'), 'Started by', 'Started']}>
          <tbody>
            {jobs.map((j) => {
              const r = resources.get(j.resource);
              return (
                <tr>
                  <th scope="row">
                    <a href={href(ctx, '/job', { job: j.id })}>
                      <code>{j.id}</code>
                    </a>
                  </th>
                  <td class={`job-state job-${j.state}`}>{j.state}</td>
                  <td>{j.action}</td>
                  <td>
                    {r ? (
                      <Name value={r.kind === 'queue' ? r.name : r.label} href={href(ctx, '/dead-letters', ref('id', r.id))} max={40} />
                    ) : (
                      <span class="muted">hidden or removed</span>
                    )}
                  </td>
                  <td class="num">{count(j.done)}</td>
                  <td class="num">{Math.round(progressOf(j) * 100)}%</td>
                  <td>
                    <Name value={j.actor} max={40} />
                  </td>
                  <td>{serverTime(j.createdMs)}</td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </Layout>
  );
}

export function JobPage({ ctx, job, resource, notice }: { ctx: PageContext; job: Job; resource: Resource; notice?: Notice }) {
  const share = progressOf(job);
  const running = job.state === 'running';
  const verb = job.action === 'retry' ? 'Retried' : 'Deleted';
  return (
    <Layout
      ctx={ctx}
      title={`Job ${job.id}`}
      crumbs={[...resourceCrumbs(ctx, resource), { label: 'Jobs', href: href(ctx, '/jobs', ref('id', resource.id)) }, { label: job.id }]}
      notice={notice}
      forcePoll={running}
      serverTimeMs={job.heartbeatMs}
    >
      <section class="job" aria-labelledby="job-state">
        <h2 id="job-state">
          {job.action === 'retry' ? 'Retry' : 'Delete'} dead letters: <span class={`job-state job-${job.state}`}>{STATE[job.state]}</span>
        </h2>
        <p>
          {'recordIds' in job.selection ? `${count(job.selection.recordIds.length)} selected records` : <FilterWords filter={job.selection.filter} />}
          {job.limit !== null ? `, at most ${count(job.limit)}` : ''}, started by <Name value={job.actor} /> at {serverTime(job.createdMs)}.
        </p>
        <progress max="1" value={String(share)} aria-label="Progress">
          {Math.round(share * 100)}%
        </progress>{' '}
        <span class="num">{Math.round(share * 100)}%</span>
        <dl class="facts">
          <dt>{verb}</dt>
          <dd>{count(job.done)}</dd>
          <dt>Left in place (not records Respire wrote)</dt>
          <dd class={job.failed > 0 ? 'warn' : ''}>{count(job.failed)}</dd>
          <dt>Already gone</dt>
          <dd>{count(job.missing)}</dd>
          <dt>Records read</dt>
          <dd>
            {count(job.examined)} of {count(job.total)}
          </dd>
          <dt>Rate</dt>
          <dd>{job.ratePerSecond === null ? '–' : `${count(Math.round(job.ratePerSecond))} records per second`}</dd>
          <dt>{running ? 'Running for' : 'Took'}</dt>
          <dd>{duration((job.finishedMs ?? job.heartbeatMs) - job.createdMs)}</dd>
          {job.cancelRequested ? (
            <>
              <dt>Cancelled by</dt>
              <dd>
                <Name value={job.cancelledBy ?? ''} />
              </dd>
            </>
          ) : null}
          {job.error ? (
            <>
              <dt>Error</dt>
              <dd class="danger">{job.error}</dd>
            </>
          ) : null}
        </dl>
        {!running && job.state !== 'interrupted' ? (
          <p class={`notice ${job.state === 'done' && job.failed === 0 ? 'ok' : 'warn'}`} role="status">
            {job.state === 'done'
              ? `${verb} ${count(job.done)} dead letters.`
              : job.state === 'cancelled'
                ? `Cancelled: ${verb.toLowerCase()} ${count(job.done)} dead letters first; the records it did not reach are still there.`
                : `Failed: ${verb.toLowerCase()} ${count(job.done)} dead letters first.`}
            {job.failed > 0 ? ` ${count(job.failed)} left in place.` : ''}
            {job.missing > 0 ? ` ${count(job.missing)} were already gone.` : ''}
          </p>
        ) : null}
        {job.state === 'interrupted' ? (
          <p class="notice warn" role="status">
            The process running this job stopped: it {verb.toLowerCase()} {count(job.done)} dead letters first. Resume it here (it continues from its last page)
            or cancel it.
          </p>
        ) : null}
        {isOperator(ctx) && (running || job.state === 'interrupted') ? (
          <div class="bulk">
            {job.state === 'interrupted' ? (
              <ActionForm ctx={ctx} action="job-resume" fields={{ job: job.id }}>
                <button type="submit" class="button primary">
                  Resume
                </button>
              </ActionForm>
            ) : null}
            {job.cancelRequested && running ? (
              <span class="muted">Stopping after its current page…</span>
            ) : (
              <ActionForm ctx={ctx} action="job-cancel" fields={{ job: job.id }}>
                <button type="submit" class="button danger">
                  Cancel job
                </button>
              </ActionForm>
            )}
          </div>
        ) : null}
        <p>
          <a href={href(ctx, '/dead-letters', ref('id', resource.id))}>Back to the dead letters</a>
        </p>
      </section>
    </Layout>
  );
}
