/**
 * Script throughput of the fake server: the queue's receive script leasing 10 messages through
 * node-redis. Run with `npx vitest bench --run --dir bench` in this package; it reports
 * executions per second (the goal: 10,000 receive executions per second). Not a test.
 */
import { commandTarget, runScript, scripts } from '@respire/core-scripts';
import { createClient } from 'redis';
import { bench, describe } from 'vitest';
import { FakeRedisServer } from '../src/index.js';

const keys = ['{b}:s', '{b}:d', '{b}:m', '{b}:dl'];
const RECEIVE_ARGS = ['60000', '10', '5', 'TTTTTTTTTTTTTTTT', 'respire'];

async function setup() {
  const server = await FakeRedisServer.start({ commandLogLimit: 100 });
  const client = createClient({ url: server.url, commandOptions: { timeout: 0 } });
  client.on('error', () => {});
  await client.connect();
  return { server, client, target: commandTarget(client) };
}
const ready = setup();
let round = 0;

describe('fake server: queue-receive of 10 messages', () => {
  bench('send 10, receive 10, ack 10 (one round trip each script)', async () => {
    const { client, target } = await ready;
    await Promise.all(Array.from({ length: 10 }, (_, i) => client.sendCommand(['XADD', keys[0]!, '*', 'payload', `m${round}-${i}`])));
    const reply = (await runScript(target, scripts.queueReceive, keys, RECEIVE_ARGS)) as unknown[];
    const ids: string[] = [];
    for (let i = 1; i < reply.length; i += 3) ids.push(String(reply[i]));
    const receipts = (await client.hmGet(keys[2]!, ids)) as string[];
    await runScript(target, scripts.queueAck, keys.slice(0, 3), ['respire', ...ids.flatMap((id, i) => [id, receipts[i]!])]);
    round++;
  });

  bench('receive of 10 (stream pre-filled), 20 calls pipelined per iteration', async () => {
    const { client, target } = await ready;
    await Promise.all(Array.from({ length: 200 }, (_, i) => client.sendCommand(['XADD', keys[0]!, '*', 'payload', `p${round}-${i}`])));
    await Promise.all(Array.from({ length: 20 }, () => runScript(target, scripts.queueReceive, keys, RECEIVE_ARGS)));
    round++;
  });
});
