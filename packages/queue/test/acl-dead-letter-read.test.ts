// A user who may read but not write the dead-letter stream: what works and what is refused.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAclUser } from '@respire/harness';
import { queueKeys } from '@respire/core-scripts/internal';
import { ReliableQueue, isRespireError, utf8Codec } from '@respire/queue';
import { snapshot, standalone, uniqueName, type Connection } from './support.js';

/**
 * Issue 11, kind 6: README statements are tested. The queue README says "A user without XADD on
 * the dead-letter stream can still receive until a message has to be moved." What really happens
 * depends on how XADD is withheld:
 *
 * - a command rule (XADD denied on the dead-letter key, allowed elsewhere): receives work until a
 *   move is due; that receive fails with a RespirePermissionError naming XADD and changes nothing;
 * - a read-only key grant on the dead-letter key (`%R~<key>`): every receive fails, also with
 *   nothing to move, because every receive declares the dead-letter stream among its keys and
 *   Redis checks a script's declared keys for read and write access before it runs.
 *
 * The true rule for the README: every receive needs read and write key access to the dead-letter
 * stream; XADD on it is needed only once a message has to be moved.
 */
let admin: Connection;
beforeAll(async () => void (admin = await standalone(inject('redisUrl'))));
afterAll(async () => admin.close());

async function userQueue(name: string, rules: string[]): Promise<{ conn: Connection; queue: ReliableQueue<string> }> {
  const user = await createAclUser([inject('redisUrl')], `dl-${uniqueName()}`, rules);
  const conn = await standalone(user.urlFor(inject('redisUrl')));
  return { conn, queue: new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 }) };
}

describe('kind 6: a user without XADD on the dead-letter stream', () => {
  it('withheld by a command rule: sends, receives, nacks and acks work until a move is due; that receive is refused naming XADD and changes nothing', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    // Every key, every command, except XADD outside the ready and wake streams (a Redis 7 selector).
    const { conn, queue } = await userQueue(name, ['~*', '+@all', '-xadd', `(~${keys.stream} ~${keys.wake} +xadd)`]);
    try {
      await queue.send('first');
      const [first] = await queue.receive(30_000);
      expect(await queue.ack(first!)).toBe(true);
      await queue.send('poison');
      await queue.send('fine');
      const [poison] = await queue.receive(30_000, { max: 1 });
      expect(poison!.payload).toBe('poison');
      expect(await queue.nack(poison!, 0)).toBe(true); // its one delivery is used up: the next receive must move it
      const before = await snapshot(admin, keys);
      const error = await queue.receive(30_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect({ denied: isRespireError(error, 'PERMISSION_DENIED'), namesXadd: String((error as Error)?.message).includes('XADD') }).toEqual({
        denied: true,
        namesXadd: true,
      });
      expect(await snapshot(admin, keys)).toBe(before);
    } finally {
      await conn.close();
    }
  });

  it('withheld by a read-only key grant (%R~) on the dead-letter stream: every receive is refused, also with nothing to move, and changes nothing; send and ack still work', async () => {
    const name = uniqueName();
    const keys = queueKeys(name, '');
    const { conn, queue } = await userQueue(name, [
      'resetkeys',
      `~${keys.stream}`,
      `~${keys.deadlines}`,
      `~${keys.deduplicationPrefix}*`,
      `%R~${keys.deadLetter}`,
      '+@all',
    ]);
    try {
      const id = await queue.send('x'); // the send touches only the ready stream
      expect(id).toMatch(/^\d+-\d+$/);
      const before = await snapshot(admin, keys);
      const error = await queue.receive(30_000).then(
        () => null,
        (e: unknown) => e,
      );
      expect({ denied: isRespireError(error, 'PERMISSION_DENIED'), message: String((error as Error)?.message) }).toEqual({
        denied: true,
        message: expect.stringMatching(/keys used as arguments|no permissions/i),
      });
      expect(await snapshot(admin, keys)).toBe(before);
      // Only receive declares the dead-letter stream: another client receives, this user acks.
      const owner = new ReliableQueue(admin.client, name, { codec: utf8Codec, deliveryLimit: 1 });
      const [message] = await owner.receive(30_000);
      expect(await queue.ack(message!)).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it('the README states the rule that holds: key access to the dead-letter stream on every receive, XADD only once a move is due', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const permissions = /\*\*Permissions\.\*\*([\s\S]*?)(?=\n- \*\*|\n## )/.exec(readme)?.[1] ?? '';
    expect(permissions, 'the README has a Permissions paragraph').not.toBe('');
    // The old sentence alone is what misled: with a read-only key grant no receive works.
    expect({
      mentionsXadd: /XADD/.test(permissions),
      mentionsKeyAccess: /(read and write|read-only|%R~|%RW~|key (access|permission|pattern))/i.test(permissions),
      mentionsEveryReceive: /every receive|each receive|any receive/i.test(permissions),
    }).toEqual({ mentionsXadd: true, mentionsKeyAccess: true, mentionsEveryReceive: true });
  });
});
