// Which topics a principal sees, and the topic a request names: unknown and hidden ones answer 404 alike.
import { isNotFound, nearest, type TopicResource, type TopicStatus, type TopicSummary } from '@respire/admin';
import { CallbackTimeout, within, type Principal } from './auth.js';
import { HttpError, type HintLink } from './http.js';
import type { Settings } from './options.js';
import { href } from './views/layout.js';

/**
 * Whether this principal sees the topic: `topicGuard` decides when given; without one, every topic
 * is visible unless a `guard` is set (a guard written for queues and streams never saw a topic, so
 * topics stay hidden: fail closed). Only `true` shows it.
 */
export async function topicVisible(s: Settings, principal: Principal, topic: TopicResource): Promise<boolean> {
  if (!s.topicGuard) return s.guard === undefined;
  try {
    return (await within(s.topicGuard(principal, topic), s.authorizeTimeoutMs, 'topicGuard')) === true;
  } catch (error) {
    if (error instanceof CallbackTimeout) throw new HttpError(503, 'The access check (topicGuard) did not answer in time. Try again.');
    throw error;
  }
}

/** The topics this principal sees, and whether discovery stopped at its page limit. */
export async function visibleTopics(s: Settings, principal: Principal): Promise<{ topics: TopicSummary[]; discoveryTruncated: boolean }> {
  const { topics, discoveryTruncated } = await s.admin.topics();
  const allowed = await Promise.all(topics.map((t) => topicVisible(s, principal, t)));
  return { topics: topics.filter((_, i) => allowed[i]), discoveryTruncated };
}

/** The topic the `id` query names (its stream key), when this principal sees it. @throws {@link HttpError} 404 (with the nearest visible topics) or 400. */
export async function resolveTopic(s: Settings, principal: Principal, id: string | undefined): Promise<TopicStatus> {
  if (id === undefined || id === '' || id.length > 65_536) throw new HttpError(400, 'Name a topic.');
  let topic: TopicStatus | undefined;
  try {
    topic = await s.admin.topic(id);
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  if (topic && (await topicVisible(s, principal, topic))) return topic;
  let hints: HintLink[] = [];
  try {
    const { topics } = await visibleTopics(s, principal);
    const byId = new Map(topics.map((t) => [t.id, t]));
    hints = nearest(id, byId.keys()).map((near) => ({
      label: `${byId.get(near)!.keyPrefix}${byId.get(near)!.name}`,
      href: href({ base: s.base }, '/topic', { id: near }),
    }));
  } catch {
    // the hints are a courtesy: never a reason to fail
  }
  throw new HttpError(404, 'No such topic.', hints);
}
