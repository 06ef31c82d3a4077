// Routes of the topics list and one topic's page.
import type { Hono } from 'hono';
import { HttpError, need, pageCount, pageQuery, query, type Env } from '../http.js';
import { noticeOf } from '../notices.js';
import type { Settings } from '../options.js';
import { ctxOf } from '../respond.js';
import { resolveTopic, visibleTopics } from '../topics.js';
import { cursorPaging } from '../views/components.js';
import { SubscriptionDeadLettersPage, TopicPage, TopicsPage } from '../views/topics.js';

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

  routes.get('/subscription-dead-letters', async (c) => {
    const q = query(c);
    const topic = await resolveTopic(s, c.get('principal'), q['id']);
    const subscription = need(q, 'subscription');
    const status = topic.subscriptionList.find((x) => x.name === subscription);
    if (!status) throw new HttpError(404, 'No such subscription.');
    const at = pageQuery(q);
    const page = await s.admin.subscriptionDeadLetters(topic.id, subscription, { count: pageCount(c, s.pageSize), ...at });
    const paging = cursorPaging(ctxOf(s, c), '/subscription-dead-letters', { id: topic.id, subscription }, page);
    return c.html(
      <SubscriptionDeadLettersPage
        ctx={ctxOf(s, c)}
        topic={topic}
        subscription={subscription}
        total={status.deadLetters}
        records={page.items}
        paging={paging}
        notice={noticeOf(q)}
      />,
    );
  });
}
