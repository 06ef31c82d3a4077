// Who is asking: the authorize and guard callbacks, and the anonymous development mode.
import type { Actor, GroupedQueueResource, Resource, TopicResource } from '@respire/admin';

/**
 * Who is asking, as the host application's `authorize` callback decided: `viewer` may read every
 * page it is allowed to see; `operator` may also retry, delete, release, acknowledge and remove
 * idle consumers. The name is the actor recorded by the admin API's audit.
 */
export type Principal = Actor;

/**
 * Decides who sent a request: a principal, or `null`/`undefined` for "not authenticated" (401).
 * Throwing refuses the request (403). Called for every request except the static assets.
 *
 * @example
 * ```ts
 * authorize: async (request) => {
 *   const session = await sessions.fromCookie(request.headers.get('cookie'));
 *   if (!session) return null;
 *   return { name: session.user, role: session.groups.includes('oncall') ? 'operator' : 'viewer' };
 * }
 * ```
 */
export type Authorize = (request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;

/**
 * Per-resource authorization: `false` hides the queue or stream from this principal, and every
 * page and action on it answers 404 as if it did not exist.
 */
export type Guard = (principal: Principal, resource: Resource) => boolean | Promise<boolean>;

/** Per-topic authorization: whether `principal` may see the reliable topic (its subscriptions and their dead letters). */
export type TopicGuard = (principal: Principal, topic: TopicResource) => boolean | Promise<boolean>;

/** Per-grouped-queue authorization: whether `principal` may see the grouped queue (its groups, backlogs and heads in flight). */
export type GroupedQueueGuard = (principal: Principal, queue: GroupedQueueResource) => boolean | Promise<boolean>;

const anonymous = Symbol.for('respire.dashboard.anonymous');

/**
 * Local development only: every request, from anyone who can reach the port, is an operator
 * named `anonymous` who may retry and delete. The dashboard shows a warning banner on every page
 * and emits a process warning when it is created. Never use it on a reachable address.
 */
export function dangerouslyAllowAnonymousOperator(): Authorize {
  const authorize: Authorize = () => ({ name: 'anonymous', role: 'operator' });
  Object.defineProperty(authorize, anonymous, { value: true });
  return authorize;
}

/** True for the callback {@link dangerouslyAllowAnonymousOperator} returned. */
export function isAnonymousOperator(authorize: Authorize): boolean {
  return (authorize as unknown as Record<symbol, unknown>)[anonymous] === true;
}

/** A principal as the callback returned it, checked: anything else is refused. */
export function checkPrincipal(value: unknown): Principal | 'invalid' | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'object') return 'invalid';
  const { name, role } = value as { name?: unknown; role?: unknown };
  if (typeof name !== 'string' || name.length === 0 || name.length > 256) return 'invalid';
  if (role !== 'viewer' && role !== 'operator') return 'invalid';
  return { name, role };
}

/** The host's callback did not answer within `authorizeTimeoutMs`. */
export class CallbackTimeout extends Error {
  override readonly name = 'CallbackTimeout';
}

/** `value`, or a CallbackTimeout after `ms` (a callback that never settles must not hold a request forever). */
export async function within<T>(value: T | Promise<T>, ms: number, what: string): Promise<T> {
  if (typeof (value as { then?: unknown } | null)?.then !== 'function') return value;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      value,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new CallbackTimeout(`${what} did not answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
