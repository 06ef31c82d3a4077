// Raw commands answer on the fake server as on the real one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../../src/index.js';
import { connect, matchingModel, normalizeIds, realUrl, uniquePrefix, type RawClient } from '../support.js';
import { cases, type Step } from './cases.js';

function mask(reply: unknown, kind: Step['mask']): unknown {
  if (kind === 'sorted' && Array.isArray(reply)) return [...reply].sort();
  if (kind === 'pending-idle' && Array.isArray(reply)) {
    return reply.map((entry) => (Array.isArray(entry) ? [entry[0], entry[1], '<idle>', entry[3]] : entry));
  }
  if (kind === 'consumer-idle' && Array.isArray(reply)) {
    return reply.map((consumer) => {
      if (Array.isArray(consumer)) return consumer.map((v, i) => (consumer[i - 1] === 'idle' || consumer[i - 1] === 'inactive' ? '<t>' : v));
      if (consumer && typeof consumer === 'object') {
        const copy = { ...(consumer as Record<string, unknown>) };
        for (const field of ['idle', 'inactive']) if (field in copy) copy[field] = '<t>';
        return copy;
      }
      return consumer;
    });
  }
  return reply;
}

async function play(client: RawClient, steps: readonly (readonly string[] | Step)[], prefix: string): Promise<unknown[]> {
  const replies: unknown[] = [];
  const ids = new Map<string, string>();
  for (const step of steps) {
    const { args, mask: kind } = Array.isArray(step) ? { args: step as readonly string[], mask: undefined } : (step as Step);
    const reply = await client.capture(args.map((a) => a.replaceAll('{p}', prefix)));
    const normalized = normalizeIds(mask(reply, kind), ids);
    replies.push(JSON.parse(JSON.stringify(normalized, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v)).replaceAll(prefix, '{p}')));
  }
  return replies;
}

describe('raw command conformance: the fake answers as the real server does', () => {
  let fake: FakeRedisServer;
  const clients: Record<string, RawClient> = {};

  beforeAll(async () => {
    fake = await FakeRedisServer.start({ version: matchingModel() });
    for (const protocol of [2, 3] as const) {
      clients[`real${protocol}`] = await connect(realUrl(), protocol);
      clients[`fake${protocol}`] = await connect(fake.url, protocol);
    }
  });

  afterAll(async () => {
    for (const client of Object.values(clients)) client.close();
    await fake.close();
  });

  for (const protocol of [2, 3] as const) {
    describe(`RESP${protocol} (node-redis ${protocol === 3 ? 6 : 5})`, () => {
      for (const testCase of cases) {
        it(testCase.name, async () => {
          const prefix = uniquePrefix(`c${protocol}`);
          const real = await play(clients[`real${protocol}`]!, testCase.steps, prefix);
          const fakeReplies = await play(clients[`fake${protocol}`]!, testCase.steps, prefix);
          const steps = testCase.steps.map((step) => (Array.isArray(step) ? step : (step as Step).args).join(' '));
          const table = (replies: unknown[]) => replies.map((reply, i) => ({ step: steps[i], reply }));
          expect(table(fakeReplies)).toEqual(table(real));
        });
      }
    });
  }
});
