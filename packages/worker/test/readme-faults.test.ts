// The README's fault section states the deadlines and backoff the code uses.
import { readFileSync } from 'node:fs';
import { RETRY_INITIAL_DELAY_MS, RETRY_MAX_DELAY_MS } from '@respire/core-scripts/internal';
import { describe, expect, it } from 'vitest';
import { CONNECT_DEADLINE_MS } from '../src/reader.js';
import { TRANSIENT_RETRY_DEADLINE_MS } from '../src/retry.js';

/**
 * Issue 11, kind 6: the README's "Faults, shutdown and failover" section states the deadlines and
 * the backoff the code uses (the behaviour itself is tested in transient-replies, connections,
 * server-reasons and clock-steps): a number changed on one side fails here.
 */
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = /## Faults, shutdown and failover([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
const bullet = (title: string) => new RegExp(`- \\*\\*${title}\\*\\*([\\s\\S]*?)(?=\\n- \\*\\*|$)`).exec(section)?.[1]?.replace(/\s+/g, ' ') ?? '';

describe('kind 6: the worker README states the fault handling the code does', () => {
  it('transient replies: the five replies, the backoff and the deadline', () => {
    const text = bullet('Transient replies');
    expect({
      replies: ['BUSY', 'LOADING', 'TRYAGAIN', 'MASTERDOWN', 'CLUSTERDOWN'].filter((code) => !text.includes(`\`${code}\``)),
      backoff: text.includes(`${RETRY_INITIAL_DELAY_MS} ms doubling to ${RETRY_MAX_DELAY_MS / 1000} s`),
      deadline: text.includes(`up to ${TRANSIENT_RETRY_DEADLINE_MS / 1000} s after the first such reply`),
      neverLost: /never after a lost one/.test(text),
    }).toEqual({ replies: [], backoff: true, deadline: true, neverLost: true });
  });

  it('dropped connections: the reconnect deadline', () => {
    expect(bullet('Dropped connections')).toContain(`within ${CONNECT_DEADLINE_MS / 1000} s, the worker faults`);
  });
});
