import { commandTarget, runScript, scripts, type CommandTarget } from '@respire/core-scripts/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRedisServer, type FakeRedisServerOptions } from '../../src/index.js';
import { connect, matchingModel, normalizeIds, realUrl, sleep, uniquePrefix, type RawClient } from '../support.js';

async function outcome(run: () => Promise<unknown>): Promise<unknown> {
  try {
    return await run();
  } catch (error) {
    const e = error as { name?: string; code?: string; message?: string };
    return { name: e.name, code: e.code, message: e.message };
  }
}

/** The worker scripts in the order a worker uses them, on one server. Returns every outcome. */
async function scenario(raw: RawClient, target: CommandTarget, prefix: string): Promise<unknown[]> {
  const stream = `{${prefix}}:s`;
  const dead = `{${prefix}}:dead`;
  const log: unknown[] = [];
  const record = async (label: string, run: () => Promise<unknown>) => log.push({ label, value: await outcome(run) });
  const call = (script: typeof scripts.workerAck, keys: string[], args: string[]) => runScript(target, script, keys, args);

  await record('append 1', () => call(scripts.workerAppend, [stream], ['producer', 'a-1', '0', 'f', 'one']));
  await record('append 2', () => call(scripts.workerAppend, [stream], ['producer', 'a-2', '0', 'f', 'two']));
  await record('append 3', () => call(scripts.workerAppend, [stream], ['producer', 'a-3', '0', 'f', 'three']));
  await record('append retry without IDMP', () => call(scripts.workerAppend, [stream], ['producer', 'a-3', '1', 'f', 'three']));
  await raw.send(['XGROUP', 'CREATE', stream, 'g', '0']);
  const read = (await raw.send(['XREADGROUP', 'GROUP', 'g', 'r1', 'STREAMS', stream, '>'])) as unknown;
  log.push({ label: 'read', value: read });
  const ids = ((await raw.send(['XRANGE', stream, '-', '+'])) as Array<[string, string[]]>).map((e) => e[0]);
  await record('ack id1 at count 1', () => call(scripts.workerAck, [stream], ['g', 'r1', ids[0]!, '1', '0']));
  await record('ack id1 again (stale)', () => call(scripts.workerAck, [stream], ['g', 'r1', ids[0]!, '1', '0']));
  await record('ack id2 wrong consumer', () => call(scripts.workerAck, [stream], ['g', 'other', ids[1]!, '1', '0']));
  await record('replay r1 from start', () => call(scripts.workerReplay, [stream], ['g', 'r1', '-', '10']));
  await record('release id2 (not idle yet)', () => call(scripts.workerRelease, [stream], ['g', 'r1', ids[1]!, '1', '60000']));
  await raw.send(['XDEL', stream, ids[2]!]);
  await sleep(30);
  await record('recover idle entries for r2', () => call(scripts.workerRecover, [stream], ['g', 'r2', '10', '0-0', '10']));
  await record('dead-letter id2 as r2', () => call(scripts.workerDeadLetter, [stream, dead], ['g', 'r2', ids[1]!, '3', 'delivery-limit', '']));
  await record('dead-letter id2 again (stale)', () => call(scripts.workerDeadLetter, [stream, dead], ['g', 'r2', ids[1]!, '3', 'delivery-limit', '']));
  log.push({ label: 'dead-letter stream length', value: await raw.send(['XLEN', dead]) });
  log.push({ label: 'pending after', value: await raw.send(['XPENDING', stream, 'g']) });
  await record('recover on a missing group', () => call(scripts.workerRecover, [stream], ['nogroup', 'r2', '10', '0-0', '10']));
  return log;
}

describe('worker scripts conformance', () => {
  const servers: FakeRedisServer[] = [];
  const raws: RawClient[] = [];
  const fakeWith = async (options: FakeRedisServerOptions) => {
    const server = await FakeRedisServer.start(options);
    servers.push(server);
    return server;
  };
  const run = async (url: string, protocol: 2 | 3, prefix = uniquePrefix('w')) => {
    const raw = await connect(url, protocol);
    raws.push(raw);
    return normalizeIds(await scenario(raw, commandTarget(raw.client), prefix));
  };

  let fake: FakeRedisServer;
  beforeAll(async () => {
    fake = await fakeWith({ version: matchingModel() });
  });
  afterAll(async () => {
    for (const raw of raws) raw.close();
    for (const server of servers) await server.close();
  });

  for (const protocol of [2, 3] as const) {
    it(`append, ack, replay, release, recover and dead-letter agree with real Redis (RESP${protocol})`, async () => {
      const prefix = uniquePrefix('w');
      const real = await run(realUrl(), protocol, prefix);
      expect(await run(fake.url, protocol, prefix)).toEqual(real);
      // The scenario reached the paths it names.
      const text = JSON.stringify(real);
      expect(text).toContain('"label":"ack id1 at count 1","value":1');
      expect(text).toContain('"label":"dead-letter stream length","value":1');
    });
  }

  it('the newer server paths run on the fake: 8.2 XACKDEL, 8.4 CLAIM, 8.6 IDMP, 8.8 XNACK, Valkey', async () => {
    for (const options of [{ version: '8.2' }, { version: '8.4' }, { version: '8.6' }, { version: '8.8' }, { flavour: 'valkey' }] as const) {
      const server = await fakeWith(options);
      const log = (await run(server.url, 3)) as Array<{ label: string; value: unknown }>;
      const byLabel = Object.fromEntries(log.map((e) => [e.label, e.value]));
      expect(byLabel['ack id1 at count 1']).toBe(1);
      expect(byLabel['dead-letter stream length']).toBe(1);
      const scriptCalls = server.commandLog.names('script');
      if (options.version === '8.4' || options.version === '8.6' || options.version === '8.8') {
        expect(scriptCalls).toContain('XREADGROUP');
      }
      if (options.version === '8.6' || options.version === '8.8') {
        expect(byLabel['append 1']).toEqual([expect.stringMatching(/^<id\d+>$/), 1]);
        expect(scriptCalls).toContain('XADD');
      }
      if (options.version === '8.8') expect(scriptCalls).not.toContain('XNACK'); // release found nothing idle
    }
  });
});
