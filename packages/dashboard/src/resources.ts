// Resolving a resource, group or consumer a request names for a principal: unknown and hidden ones answer 404 alike, with the nearest visible names.
import { isNotFound, isUnknownResource, nearest, type QueueResource, type Resource, type StreamResource } from '@respire/admin';
import { CallbackTimeout, within, type Principal } from './auth.js';
import { HttpError, param, type Ctx, type HintLink } from './http.js';
import type { Settings } from './options.js';
import { DIGEST, digestOf, ref } from './refs.js';
import { href } from './views/layout.js';

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

const label = (r: Resource) => (r.kind === 'queue' ? `${r.keyPrefix}${r.name}` : r.label);
const pageOf = (r: Resource) => (r.kind === 'queue' ? '/queue' : '/stream');

/** Resources by the digest of their id, refreshed from the admin API at most every 2 s on a miss. */
export class ResourceIndex {
  #byDigest = new Map<string, Resource>();
  #at = 0;
  constructor(private readonly load: () => Promise<readonly Resource[]>) {}

  async find(digest: string): Promise<Resource | undefined> {
    const hit = this.#byDigest.get(digest);
    if (hit || Date.now() - this.#at < 2000) return hit;
    this.#at = Date.now();
    this.#byDigest = new Map((await this.load()).map((r) => [digestOf(r.id), r]));
    return this.#byDigest.get(digest);
  }
}

/**
 * The 404 of a resource this principal cannot see, unknown or hidden alike: links to the visible
 * resources whose ids are nearest to the one asked for (never a hidden one).
 */
async function noSuchResource(s: Settings, c: Ctx, id: string): Promise<HttpError> {
  let resources: readonly Resource[];
  try {
    ({ resources } = await s.admin.resources());
  } catch {
    return new HttpError(404, 'No such queue or stream.'); // the hints are a courtesy: never a reason to fail
  }
  // Every guard call at once (as the overview does); hidden resources never compete for a hint.
  const allowed = await Promise.all(resources.map((r) => (r.id === id ? false : visible(s, c.get('principal'), r))));
  const shown = resources.filter((_, i) => allowed[i]);
  const byId = new Map(shown.map((r) => [r.id, r]));
  const hints = nearest(id, byId.keys()).map((near): HintLink => {
    const r = byId.get(near)!;
    return { label: label(r), href: href({ base: s.base }, pageOf(r), ref('id', r.id)) };
  });
  return new HttpError(404, 'No such queue or stream.', hints);
}

/** The resource, if it exists and this principal may see it; else 404 (the same answer for both). */
export async function resolve(s: Settings, c: Ctx, id: string): Promise<Resource> {
  let resource: Resource;
  try {
    resource = await s.admin.resource(id);
  } catch (error) {
    if (isUnknownResource(error)) throw await noSuchResource(s, c, id);
    throw error;
  }
  if (!(await visible(s, c.get('principal'), resource))) throw await noSuchResource(s, c, id);
  return resource;
}

/** The resource a query or form names: `id`, or `idh` (the digest of a long id). */
export async function resolveRef(s: Settings, c: Ctx, source: Record<string, unknown>): Promise<Resource> {
  const digest = param(source, 'idh', { optional: true, pattern: DIGEST });
  if (digest === undefined) return resolve(s, c, param(source, 'id') as string);
  const found = await s.resources.find(digest);
  if (!found || !(await visible(s, c.get('principal'), found))) throw new HttpError(404, 'No such queue or stream.');
  return found;
}

export async function resolveQueue(s: Settings, c: Ctx, source: Record<string, unknown>): Promise<QueueResource> {
  const resource = await resolveRef(s, c, source);
  if (resource.kind !== 'queue') throw new HttpError(404, 'No such queue.');
  return resource;
}

export async function resolveStream(s: Settings, c: Ctx, source: Record<string, unknown>): Promise<StreamResource> {
  const resource = await resolveRef(s, c, source);
  if (resource.kind !== 'stream') throw new HttpError(404, 'No such stream.');
  return resource;
}

/** A queue, or a stream with a dead-letter stream configured. */
export async function resolveDeadLetterOwner(s: Settings, c: Ctx, source: Record<string, unknown>): Promise<QueueResource | StreamResource> {
  const resource = await resolveRef(s, c, source);
  if (resource.kind === 'stream' && resource.deadLetterStream === undefined) throw new HttpError(404, 'This stream has no dead-letter stream configured.');
  return resource;
}

/**
 * The group a query or form names (`group`, or `grouph`: the digest of a long name). A group the
 * stream does not have is a 404 that names the stream's groups nearest to it.
 */
export async function resolveGroup(s: Settings, stream: StreamResource, source: Record<string, unknown>): Promise<string> {
  const digest = param(source, 'grouph', { optional: true, pattern: DIGEST });
  const name = digest === undefined ? (param(source, 'group') as string) : undefined;
  const { groups } = await s.admin.streamStatus(stream.id);
  const found = groups.find((g) => (name !== undefined ? g.name === name : digestOf(g.name) === digest));
  if (found) return found.name;
  const missing = name ?? '(a long name)';
  let known: readonly string[] = [];
  try {
    await s.admin.group(stream.id, missing);
  } catch (error) {
    known = isNotFound(error)?.known ?? [];
  }
  throw new HttpError(
    404,
    groups.length === 0
      ? `No consumer group ${name === undefined ? '' : `'${preview(name)}' `}: this stream has no consumer groups.`
      : `No consumer group ${name === undefined ? 'by that name' : `'${preview(name)}'`} on this stream.`,
    known.map((g) => ({ label: g, href: href({ base: s.base }, '/group', { ...ref('id', stream.id), ...ref('group', g) }) })),
  );
}

const preview = (name: string) => (name.length > 80 ? `${name.slice(0, 80)}…` : name);

export async function deadLetterCount(s: Settings, resource: Resource): Promise<number> {
  if (resource.kind === 'queue') return (await s.admin.queueStatus(resource.id)).deadLetters;
  return (await s.admin.streamStatus(resource.id)).deadLetters ?? 0;
}
