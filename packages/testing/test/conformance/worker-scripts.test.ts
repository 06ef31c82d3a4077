// The worker scripts give the same replies on real Redis and on the fake server.
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
  const call = (script: typeof scripts.workerComplete, keys: string[], args: string[]) => runScript(target, script, keys, args);
  /** One worker-complete call for `consumer`: completions are [id, count, action, ...dead-letter details]. */
  const complete = (consumer: string, completions: string[][], keys = [stream, stream]) => {
    const ids = completions.map((c) => c[0]!).sort(); // same-length IDs here: text order is ID order
    return call(scripts.workerComplete, keys, ['g', consumer, '0', '60000', ids[0]!, ids.at(-1)!, ...completions.flat()]);
  };

  await record('append 1', () => call(scripts.workerAppend, [stream], ['producer', 'a-1', '0', 'f', 'one']));
  await record('append 2', () => call(scripts.workerAppend, [stream], ['producer', 'a-2', '0', 'f', 'two']));
  await record('append 3', () => call(scripts.workerAppend, [stream], ['producer', 'a-3', '0', 'f', 'three']));
  await record('append retry without IDMP', () => call(scripts.workerAppend, [stream], ['producer', 'a-3', '1', 'f', 'three']));
  await raw.send(['XGROUP', 'CREATE', stream, 'g', '0']);
  const read = (await raw.send(['XREADGROUP', 'GROUP', 'g', 'r1', 'STREAMS', stream, '>'])) as unknown;
  log.push({ label: 'read', value: read });
  const ids = ((await raw.send(['XRANGE', stream, '-', '+'])) as Array<[string, string[]]>).map((e) => e[0]);
  await record('ack id1 at count 1', () => complete('r1', [[ids[0]!, '1', 'ack']]));
  await record('ack id1 again (stale)', () => complete('r1', [[ids[0]!, '1', 'ack']]));
  await record('ack id2 wrong consumer', () => complete('other', [[ids[1]!, '1', 'ack']]));
  await record('replay r1 from start', () => call(scripts.workerReplay, [stream], ['g', 'r1', '-', '10']));
  await record('release id2 (not idle yet)', () => complete('r1', [[ids[1]!, '2', 'release']]));
  await raw.send(['XDEL', stream, ids[2]!]);
  await sleep(30);
  await record('recover idle entries for r2', () => call(scripts.workerRecover, [stream], ['g', 'r2', '10', '0-0', '10']));
  await record('dead-letter id2 as r2', () => complete('r2', [[ids[1]!, '3', 'dead-letter', 'delivery-limit', '']], [stream, dead]));
  await record('dead-letter id2 again (stale)', () => complete('r2', [[ids[1]!, '3', 'dead-letter', 'delivery-limit', '']], [stream, dead]));
  log.push({ label: 'dead-letter stream length', value: await raw.send(['XLEN', dead]) });
  log.push({ label: 'pending after', value: await raw.send(['XPENDING', stream, 'g']) });
  await record('recover on a missing group', () => call(scripts.workerRecover, [stream], ['nogroup', 'r2', '10', '0-0', '10']));

  // A batch: one stale (claimed by another consumer), a repeated ID, a release, a dead letter, and
  // a range that holds other entries of the same consumer, so the fence pages through them.
  const batch = `{${prefix}}:batch`;
  await raw.send(['XGROUP', 'CREATE', batch, 'g', '0', 'MKSTREAM']);
  for (let i = 1; i <= 9; i++) await raw.send(['XADD', batch, `1-${i}`, 'n', String(i)]);
  await raw.send(['XREADGROUP', 'GROUP', 'g', 'r1', 'COUNT', '9', 'STREAMS', batch, '>']);
  await raw.send(['XCLAIM', batch, 'g', 'other', '0', '1-2']);
  const batchCall = (completions: string[][], first: string, last: string) =>
    call(scripts.workerComplete, [batch, dead], ['g', 'r1', '0', '60000', first, last, ...completions.flat()]);
  await record('batch: ack, stale, repeated, release, dead letter', () =>
    batchCall(
      [
        ['1-1', '1', 'ack'],
        ['1-2', '1', 'ack'],
        ['1-1', '1', 'ack'],
        ['1-4', '1', 'release'],
        ['1-5', '1', 'dead-letter', 'explicit', ''],
      ],
      '1-1',
      '1-5',
    ),
  );
  await record('batch: two IDs around six other pending entries', () =>
    batchCall(
      [
        ['1-3', '1', 'ack'],
        ['1-9', '1', 'ack'],
      ],
      '1-3',
      '1-9',
    ),
  );
  await record('batch: an ID outside the given range is stale', () =>
    batchCall(
      [
        ['1-6', '1', 'ack'],
        ['1-7', '1', 'ack'],
      ],
      '1-6',
      '1-6',
    ),
  );
  const left = (await raw.send(['XPENDING', batch, 'g', '-', '+', '20'])) as unknown[][];
  log.push({ label: 'batch: pending after (id, owner, count)', value: left.map((p) => [p[0], p[1], p[3]]) });
  log.push({ label: 'batch: dead letters', value: await raw.send(['XLEN', dead]) });
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
    it(`append, batched completion (ack, release, dead letter, stale), replay and recover agree with real Redis (RESP${protocol})`, async () => {
      const prefix = uniquePrefix('w');
      const real = await run(realUrl(), protocol, prefix);
      expect(await run(fake.url, protocol, prefix)).toEqual(real);
      // The scenario reached the paths it names.
      const text = JSON.stringify(real);
      expect(text).toContain('"label":"ack id1 at count 1","value":[1]');
      expect(text).toContain('"label":"dead-letter stream length","value":1');
      expect(text).toContain('"label":"batch: ack, stale, repeated, release, dead letter","value":[1,-1,-1,0,3]');
      expect(text).toContain('"label":"batch: two IDs around six other pending entries","value":[1,1]');
      expect(text).toContain('"label":"batch: an ID outside the given range is stale","value":[1,-1]');
    });
  }

  it('the newer server paths run on the fake: 8.2 XACKDEL, 8.4 CLAIM, 8.6 IDMP, 8.8 XNACK, Valkey', async () => {
    for (const options of [{ version: '8.2' }, { version: '8.4' }, { version: '8.6' }, { version: '8.8' }, { flavour: 'valkey' }] as const) {
      const server = await fakeWith(options);
      const log = (await run(server.url, 3)) as Array<{ label: string; value: unknown }>;
      const byLabel = Object.fromEntries(log.map((e) => [e.label, e.value]));
      expect(byLabel['ack id1 at count 1']).toEqual([1]);
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
