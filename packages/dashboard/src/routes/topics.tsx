// Routes of the topics list and one topic's page.
import type { Hono } from 'hono';
import { query, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { ctxOf } from '../respond.js';
import { resolveTopic, visibleTopics } from '../topics.js';
import { TopicPage, TopicsPage } from '../views/topics.js';

export function topicRoutes(routes: Hono<Env>, s: Settings): void {
  routes.get('/topics', async (c) => {
    const { topics, discoveryTruncated } = await visibleTopics(s, c.get('principal'));
    return c.html(<TopicsPage ctx={ctxOf(s, c)} topics={topics} discoveryTruncated={discoveryTruncated} />);
  });

  routes.get('/topic', async (c) => {
    const q = query(c);
    const topic = await resolveTopic(s, c.get('principal'), q['id']);
    return c.html(<TopicPage ctx={ctxOf(s, c)} topic={topic} notice={noticeOf(q)} />);
  });
}
