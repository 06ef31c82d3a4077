// Resolving a resource id for a principal: unknown and hidden ones answer 404 alike.
import { isUnknownResource, type QueueResource, type Resource, type StreamResource } from '@respire/admin';
import { CallbackTimeout, within, type Principal } from './auth.js';
import { HttpError, type Ctx } from './http.js';
import type { Settings } from './options.js';

/**
 * Whether the guard lets this principal see the resource (every resource without a guard).
 * Only `true` shows it: a guard answering `'false'` or `{}` must not fail open.
 */
export async function visible(s: Settings, principal: Principal, resource: Resource): Promise<boolean> {
  if (!s.guard) return true;
  try {
    return (await within(s.guard(principal, resource), s.authorizeTimeoutMs, 'guard')) === true;
  } catch (error) {
    if (error instanceof CallbackTimeout) throw new HttpError(503, 'The access check (guard) did not answer in time. Try again.');
    throw error;
  }
}

/** The resource, if it exists and this principal may see it; else 404 (the same answer for both). */
export async function resolve(s: Settings, c: Ctx, id: string): Promise<Resource> {
  let resource: Resource;
  try {
    resource = await s.admin.resource(id);
  } catch (error) {
    if (isUnknownResource(error)) throw new HttpError(404, 'No such queue or stream.');
    throw error;
  }
  if (!(await visible(s, c.get('principal'), resource))) throw new HttpError(404, 'No such queue or stream.');
  return resource;
}

export async function resolveQueue(s: Settings, c: Ctx, id: string): Promise<QueueResource> {
  const resource = await resolve(s, c, id);
  if (resource.kind !== 'queue') throw new HttpError(404, 'No such queue.');
  return resource;
}

export async function resolveStream(s: Settings, c: Ctx, id: string): Promise<StreamResource> {
  const resource = await resolve(s, c, id);
  if (resource.kind !== 'stream') throw new HttpError(404, 'No such stream.');
  return resource;
}

/** A queue, or a stream with a dead-letter stream configured. */
export async function resolveDeadLetterOwner(s: Settings, c: Ctx, id: string): Promise<QueueResource | StreamResource> {
  const resource = await resolve(s, c, id);
  if (resource.kind === 'stream' && resource.deadLetterStream === undefined) throw new HttpError(404, 'This stream has no dead-letter stream configured.');
  return resource;
}

export async function deadLetterCount(s: Settings, resource: Resource): Promise<number> {
  if (resource.kind === 'queue') return (await s.admin.queueStatus(resource.id)).deadLetters;
  return (await s.admin.streamStatus(resource.id)).deadLetters ?? 0;
}
