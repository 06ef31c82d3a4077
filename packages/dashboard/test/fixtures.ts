// Big fixtures built inside Redis (server-side Lua loops), on a private server of their own: 200,000 dead letters, a 200,000-entry PEL, 5,000 queues.
import { startRedisServer, type RedisServerHandle } from '@respire/harness';
import { createClient } from 'redis';

/** A private redis-server (the harness's binary, so the server matrix applies) and a raw client on it. */
export async function privateRedis(): Promise<{ url: string; raw(args: string[]): Promise<unknown>; close(): Promise<void>; server: RedisServerHandle }> {
  const server = await startRedisServer();
  const client = createClient({ url: server.url });
  client.on('error', () => {});
  await client.connect();
  return {
    url: server.url,
    server,
    raw: (args) => client.sendCommand(args),
    close: async () => {
      client.destroy();
      await server.close();
    },
  };
}

/**
 * `n` worker dead-letter records in `dead` (the five `_respire.*` pairs, then two fields), in
 * loops of 50,000 per script so no script holds the server for long. Reasons cycle through
 * processing-failed, nack, explicit; groups through billing and shipping.
 */
export async function fillWorkerDeadLetters(raw: (args: string[]) => Promise<unknown>, dead: string, n: number): Promise<void> {
  const script =
    "local reasons = { 'processing-failed', 'nack', 'explicit' } local groups = { 'billing', 'shipping' } " +
    "for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do redis.call('XADD', KEYS[1], '*', '_respire.source_id', i .. '-0', '_respire.group', groups[(i % 2) + 1], " +
    "'_respire.attempt', '3', '_respire.reason', reasons[(i % 3) + 1], '_respire.exception_type', (i % 3 == 0) and 'TimeoutError' or '', 'order-id', i, 'note', 'x') end return 0";
  for (let from = 1; from <= n; from += 50_000) await raw(['EVAL', script, '1', dead, String(from), String(Math.min(n, from + 49_999))]);
}

/** `n` entries in `stream`, a group `group` created at 0 and all of them read by two consumers: a PEL of `n`. */
export async function fillPending(raw: (args: string[]) => Promise<unknown>, stream: string, group: string, n: number): Promise<void> {
  for (let from = 1; from <= n; from += 50_000) {
    await raw([
      'EVAL',
      "for i = tonumber(ARGV[1]), tonumber(ARGV[2]) do redis.call('XADD', KEYS[1], '*', 'n', i) end return 0",
      '1',
      stream,
      String(from),
      String(Math.min(n, from + 49_999)),
    ]);
  }
  await raw(['XGROUP', 'CREATE', stream, group, '0']);
  await raw(['XREADGROUP', 'GROUP', group, 'host-1-0', 'COUNT', String(Math.floor(n / 2)), 'STREAMS', stream, '>']);
  await raw(['XREADGROUP', 'GROUP', group, 'host-2-0', 'COUNT', String(n), 'STREAMS', stream, '>']);
}

/**
 * `n` reliable queues named `<prefix>-<i>`, each with one message waiting and one dead letter:
 * found by the admin's discovery (their keys on a standalone server; one script writes them all).
 */
export async function fillQueues(raw: (args: string[]) => Promise<unknown>, prefix: string, n: number): Promise<void> {
  await raw([
    'EVAL',
    "for i = 1, tonumber(ARGV[2]) do local base = '{respire-queue:' .. ARGV[1] .. '-' .. i .. '}:' " +
      "redis.call('XADD', base .. 'stream', '*', 'payload', 'waiting') " +
      "redis.call('XADD', base .. 'dead-letter', '*', 'payload', 'dead', 'source_id', '1-' .. i, 'delivery_count', '5') end return 0",
    '0',
    prefix,
    String(n),
  ]);
}
