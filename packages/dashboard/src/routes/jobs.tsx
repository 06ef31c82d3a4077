// Routes of the jobs list and one job's page.
import type { Hono } from 'hono';
import type { Resource } from '@respire/admin';
import { HttpError, query, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { resolveRef, visible } from '../resources.js';
import { ctxOf } from '../respond.js';
import { JobPage, JobsPage } from '../views/jobs.js';

/** A job ID as the admin writes them. */
export const JOB_ID = /^[0-9a-z]{6,12}-[0-9a-f]{12}$/;

export function jobRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/jobs', async (c) => {
    const q = query(c);
    const resource = q['id'] !== undefined || q['idh'] !== undefined ? await resolveRef(s, c, q) : undefined;
    const [jobs, { resources }] = await Promise.all([s.admin.jobs({ count: 100, ...(resource ? { resource: resource.id } : {}) }), s.admin.resources()]);
    // Jobs of resources this principal may not see are left out, as the resources are.
    const byId = new Map<string, Resource>();
    for (const r of resources) if (await visible(s, c.get('principal'), r)) byId.set(r.id, r);
    return c.html(<JobsPage ctx={ctxOf(s, c)} jobs={jobs.filter((j) => byId.has(j.resource))} resource={resource} resources={byId} />);
  });

  routes.get('/job', async (c) => {
    const q = query(c);
    const id = q['job'] ?? '';
    if (!JOB_ID.test(id)) throw new HttpError(400, 'Invalid job.');
    const job = await s.admin.job(id);
    if (!job) throw new HttpError(404, 'No such job (unknown, or expired after a week).');
    // A job of a hidden resource answers like an unknown one.
    let resource: Resource;
    try {
      resource = await resolveRef(s, c, { id: job.resource });
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) throw new HttpError(404, 'No such job (unknown, or expired after a week).');
      throw error;
    }
    return c.html(<JobPage ctx={ctxOf(s, c)} job={job} resource={resource} notice={noticeOf(q)} />);
  });
}
