// Plays raw command cases on the real server and on the fake, over RESP2 and RESP3, and compares the replies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer } from '../../src/index.js';
import { connect, matchingModel, normalizeIds, realUrl, uniquePrefix, type RawClient } from '../support.js';
import type { Case, Step } from './cases.js';

/** RESP3 sets (COMMAND INFO's flags and categories) as arrays, so both protocols compare alike. */
const plain = (value: unknown): unknown => (value instanceof Set ? [...value] : value);

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
  // The fake's COMMAND INFO has the 7 elements of Redis 6 (name to categories), not tips, key specs and subcommands.
  if (kind === 'command-info' && Array.isArray(reply)) {
    return reply.map((info) => (Array.isArray(info) ? info.slice(0, 7).map(plain) : info));
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

/** Declares one test per case and protocol: every reply of the fake equals the real server's. */
export function describeConformance(title: string, cases: readonly Case[]): void {
  describe(title, () => {
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
}
