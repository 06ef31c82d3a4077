// The built `respire` binary against the harness's Redis.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { standalone, startRedisServer } from '@respire/harness';
import { createCluster } from 'redis';
import type { RedisClientLike } from '@respire/core-scripts';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { groupedCommandTests } from './cli-grouped.js';
import { partitionCommandTests } from './cli-partitions.js';
import { topicCommandTests } from './cli-topics.js';
import { addWorkerRecord, pendingRows, range, sleep, uniqueKeys, uniqueQueue, type Connection } from './support.js';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const cli = join(pkg, 'dist', 'cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `respire` binary with no terminal on stdin. */
function respire(args: string[], env: Record<string, string | undefined> = {}, started?: (child: ChildProcess) => void): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, REDIS_URL: inject('redisUrl'), ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdin.end();
    started?.(child);
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The `respire` CLI: the real built binary against the harness's Redis. */
describe('respire CLI', { timeout: 60_000 }, () => {
  let conn: Connection;
  beforeAll(async () => {
    // Build what the binary runs: core-scripts' and the admin package's dist.
    const tsc = join(pkg, 'node_modules', 'typescript', 'bin', 'tsc');
    for (const project of [join(pkg, '..', 'core-scripts', 'tsconfig.build.json'), join(pkg, 'tsconfig.build.json')]) {
      const build = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
      if (build.status !== 0) throw new Error(`build of ${project} failed:\n${build.stdout}${build.stderr}`);
    }
    conn = await standalone<RedisClientLike>(inject('redisUrl'));
  }, 120_000);
  afterAll(async () => conn?.close());

  describe('topics', () => topicCommandTests(respire, () => conn));
  describe('grouped queues', () => groupedCommandTests(respire, () => conn));
  describe('partitioned queues', () => partitionCommandTests(respire, () => conn));

  it('status --json: one JSON document with the queue and stream counts', async () => {
    const name = uniqueQueue('cli');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    await queue.send('a');
    await queue.send('b');
    await queue.receive(60_000, { max: 1 });
    const { stream, dead } = uniqueKeys('cli');
    await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await addWorkerRecord(conn, dead, '1-0', ['k', 'v']);
    const run = await respire(['status', '--json', '--queue', name, '--no-discover', '--stream', stream, '--dead-letter-stream', dead]);
    expect(run.code).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.queues).toHaveLength(1);
    expect(doc.queues[0]).toMatchObject({ length: 2, ready: 1, inFlight: 1, due: 0, deadLetters: 0, resource: { name } });
    expect(doc.streams[0]).toMatchObject({ length: 1, deadLetters: 1, groups: [{ name: 'g', lag: 1, pending: 0 }] });
    const human = await respire(['status', '--stream', stream, '--dead-letter-stream', dead]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/STREAMS\n.*\n.*g +1 +0 +0 +1/);
  });

  it('dead-letters list / show / retry / delete with exit codes; hostile bytes are escaped for the terminal', async () => {
    const { stream, dead } = uniqueKeys('cli');
    const address = ['--stream', stream, '--dead-letter-stream', dead];
    const hostile = await addWorkerRecord(conn, dead, '1-0', ['note', '\u001b[31m<script>', 'bin', Buffer.from([0xff, 0x00])]);
    const other = await addWorkerRecord(conn, dead, '1-1', ['k', 'v']);
    const list = await respire(['dead-letters', 'list', ...address, '--json', '--oldest']);
    expect(list.code).toBe(0);
    const doc = JSON.parse(list.stdout);
    expect(doc.next).toBeNull();
    expect(doc.items.map((r: { id: string }) => r.id)).toEqual([hostile, other]);
    expect(doc.items[0].fields[1].value).toEqual({ kind: 'hex', text: 'ff 00', truncated: false, totalBytes: 2 });
    const table = await respire(['dead-letters', 'list', ...address]);
    expect(table.stdout).not.toContain('\u001b');
    expect(table.stdout).toContain('\\x1b[31m<script>');
    const show = await respire(['dead-letters', 'show', hostile, ...address, '--json']);
    expect(JSON.parse(show.stdout).fields[1].value.base64).toBe(Buffer.from([0xff, 0x00]).toString('base64'));

    const retry = await respire(['dead-letters', 'retry', hostile, ...address, '--json', '--actor', 'bob']);
    expect(retry.code).toBe(0);
    expect(JSON.parse(retry.stdout).results[0]).toMatchObject({ id: hostile, status: 'retried' });
    expect((await range(conn, stream)).map(([, f]) => f[0])).toEqual(['note']);
    const again = await respire(['dead-letters', 'retry', hostile, ...address]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain('missing');

    const refused = await respire(['dead-letters', 'delete', other, ...address]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/stdin is not a terminal: pass --yes/);
    expect(await range(conn, dead)).toHaveLength(1);
    const deleted = await respire(['dead-letters', 'delete', other, ...address, '--yes']);
    expect(deleted.code).toBe(0);
    expect(await range(conn, dead)).toHaveLength(0);
  });

  it('a queue with no keys under the key prefix is not found: exit 1, the nearest queue names that exist, NOT_FOUND with --json', async () => {
    const name = uniqueQueue('cli');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    await queue.send('a');
    for (const m of await queue.receive(60_000)) await queue.ack(m);
    const typo = `${name}x`;
    const human = await respire(['dead-letters', 'list', '--queue', typo]);
    expect(human).toMatchObject({ code: 1, stdout: '' });
    expect(human.stderr).toContain(
      `respire: queue: no queue named '${typo}' without a key prefix: none of its keys exist (check --queue and --key-prefix); nearest that exist: '${name}'`,
    );
    const json = await respire(['dead-letters', 'list', '--queue', typo, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: 'NOT_FOUND', notFound: { kind: 'queue', name: typo, known: expect.arrayContaining([name]) } });
    for (const args of [
      ['messages', 'list', '--queue', typo],
      ['history', 'show', '--queue', typo],
      ['dead-letters', 'purge', '--queue', typo, '--yes'],
    ]) {
      const run = await respire(args);
      expect([args.join(' '), run.code]).toEqual([args.join(' '), 1]);
      expect(run.stderr).toContain(`no queue named '${typo}'`);
    }

    // A queue that exists (sent to, then drained) lists nothing and exits 0; under another key prefix it is not found.
    const found = await respire(['dead-letters', 'list', '--queue', name]);
    expect(found).toMatchObject({ code: 0, stdout: '(none)\n', stderr: '' });
    expect(JSON.parse((await respire(['dead-letters', 'list', '--queue', name, '--json'])).stdout)).toEqual({ items: [], next: null, previous: null });
    const prefixed = await respire(['dead-letters', 'list', '--queue', name, '--key-prefix', 'other:']);
    expect(prefixed.code).toBe(1);
    expect(prefixed.stderr).toContain(`no queue named '${name}' under --key-prefix 'other:'`);

    // A mistyped stream or group: not found, with the names that exist.
    const { stream } = uniqueKeys('cli');
    await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']);
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'fulfilment', '0']);
    const group = await respire(['pending', 'list', '--stream', stream, '--group', 'fulfillment']);
    expect(group.code).toBe(1);
    expect(group.stderr).toContain("no consumer group 'fulfillment'");
    expect(group.stderr).toContain("nearest that exist: 'fulfilment'");
    const prune = await respire(['consumers', 'prune', '--stream', stream, '--group', 'nope', '--min-idle-ms', '1', '--yes', '--json']);
    expect(prune.code).toBe(1);
    expect(JSON.parse(prune.stdout).error).toMatchObject({ code: 'NOT_FOUND', notFound: { kind: 'group', name: 'nope' } });
    const noStream = await respire(['status', '--no-discover', '--stream', `${stream}x`]);
    expect(noStream.code).toBe(1);
    expect(noStream.stdout).toContain(`${stream}x (missing)`);
    expect(noStream.stdout).toMatch(new RegExp(`NOT FOUND.*\\n.*\\nstream +${stream.replace(/[{}]/g, '\\$&')}x +.*${stream.replace(/[{}]/g, '\\$&')}`));
  });

  it("a queue dead letter's reason is 'delivery limit' (as in the dashboard): it is always a move at the delivery limit", async () => {
    const name = uniqueQueue('cli');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    await queue.send('poison');
    await queue.receive(1, { max: 1 });
    await sleep(20);
    expect(await queue.receive(60_000)).toEqual([]); // the expired lease is at the limit: moved to the dead-letter stream
    const list = await respire(['dead-letters', 'list', '--queue', name]);
    expect(list.code).toBe(0);
    const [header, row] = list.stdout.trim().split('\n');
    const column = header!.indexOf('REASON');
    expect(row!.slice(column, header!.indexOf('CONTENT')).trim()).toBe('delivery limit');
    const id = row!.split(' ')[0]!;
    expect((await respire(['dead-letters', 'show', id, '--queue', name])).stdout).toContain('\nreason: delivery limit\n');
  });

  it('status without --stream says that worker streams are named with --stream (they are configured, not discovered)', async () => {
    const run = await respire(['status', '--no-discover']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'STREAMS\n(none named: worker streams are configured, not discovered; name them with --stream KEY [--dead-letter-stream KEY])',
    );
    const { stream } = uniqueKeys('cli');
    const named = await respire(['status', '--no-discover', '--stream', stream]);
    expect(named.stdout).not.toContain('none named');
    expect(named.stdout).toMatch(/STREAMS\nSTREAM +LENGTH/);
  });

  it('--version prints the version of the package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await respire(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('dead-letters retry --all and purge of a queue: progress on stderr, audit stream, confirmation', async () => {
    const name = uniqueQueue('cli');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    const deadKey = `{respire-queue:${name}}:dead-letter`;
    for (let i = 0; i < 5; i++) await conn.raw(deadKey, ['XADD', deadKey, '*', 'payload', `m${i}`, 'source_id', '1-1', 'delivery_count', '1']);
    const audit = `{respire-queue:${name}}:audit`;
    const retried = await respire([
      'dead-letters',
      'retry',
      '--all',
      '--queue',
      name,
      '--page-size',
      '2',
      '--yes',
      '--audit-stream',
      audit,
      '--actor',
      'carol',
    ]);
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/^Retried 5 dead letters\. \(job [\w-]+\)\n$/);
    expect(retried.stderr.trim().split('\n')).toEqual(['retried 2…', 'retried 4…', 'retried 5…']);
    expect((await queue.receive(60_000, { max: 10 })).map((m) => m.payload)).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);
    const audited = (await range(conn, audit)).map(([, f]) => f);
    expect(audited.map((f) => f[f.indexOf('action') + 1])).toEqual(['job-start', 'job-finish']);
    expect(audited[1]).toEqual(expect.arrayContaining(['actor', 'carol', 'role', 'operator', 'result', 'ok']));
    // The job is kept like a dashboard's: respire jobs shows it.
    const jobId = /\(job ([\w-]+)\)/.exec(retried.stdout)![1]!;
    expect(JSON.parse((await respire(['jobs', 'show', jobId, '--json'])).stdout)).toMatchObject({ id: jobId, state: 'done', done: 5, actor: 'carol' });
    const nothing = await respire(['dead-letters', 'retry', '--all', '--queue', name, '--yes']);
    expect(nothing.stdout).toMatch(/^No dead letters to retry\. /);

    for (let i = 0; i < 3; i++) await conn.raw(deadKey, ['XADD', deadKey, '*', 'payload', `x${i}`, 'source_id', '1-1', 'delivery_count', '1']);
    expect((await respire(['dead-letters', 'purge', '--queue', name])).code).toBe(2);
    const purged = await respire(['dead-letters', 'purge', '--queue', name, '--yes', '--json']);
    expect(purged.code).toBe(0);
    expect(JSON.parse(purged.stdout)).toMatchObject({ done: 3, failed: 0, missing: 0, aborted: false, state: 'done' });
    expect(Number(await conn.raw(deadKey, ['XLEN', deadKey]))).toBe(0);
  });

  it('pending list / release (fenced) / ack and consumers list / prune', async () => {
    const { stream } = uniqueKeys('cli');
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c1', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XGROUP', 'CREATECONSUMER', stream, 'g', 'gone']);
    const list = await respire(['pending', 'list', '--stream', stream, '--group', 'g', '--json']);
    expect(JSON.parse(list.stdout)).toMatchObject({ items: [{ id, consumer: 'c1', idleMs: expect.any(Number), deliveryCount: 1, released: false }], total: 1 });

    const stale = await respire(['pending', 'release', id, '--stream', stream, '--group', 'g', '--delivery-count', '2', '--consumer', 'c1']);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/changed — now pending to 'c1' at delivery count 1; nothing done/);
    const released = await respire(['pending', 'release', id, '--stream', stream, '--group', 'g', '--delivery-count', '1', '--consumer', 'c1']);
    expect(released.code).toBe(0);
    expect((await pendingRows(conn, stream, 'g'))[0]).toMatchObject({ count: 1, idle: expect.any(Number) });
    expect((await pendingRows(conn, stream, 'g'))[0]!.idle).toBeGreaterThan(2_000_000_000);
    expect(released.stdout).toContain(`${id}: released — claimable now by any worker's next recovery (delivery count 1 kept)`);
    // A released entry says so instead of an idle time of 24 days.
    const after = await respire(['pending', 'list', '--stream', stream, '--group', 'g']);
    expect(after.stdout).toMatch(new RegExp(`${id} +c1 +released, claimable now +1`));
    expect(after.stdout).not.toMatch(/24d/);

    expect((await respire(['pending', 'ack', id, '--stream', stream, '--group', 'g'])).code).toBe(2); // would prompt
    const acked = await respire(['pending', 'ack', id, '--stream', stream, '--group', 'g', '--yes', '--delete']);
    expect(acked.code).toBe(0);
    expect(acked.stdout).toBe(`${id}: acknowledged in group g and deleted from the stream\n`);
    expect(await pendingRows(conn, stream, 'g')).toEqual([]);
    expect(await range(conn, stream)).toEqual([]);

    const consumers = await respire(['consumers', 'list', '--stream', stream, '--group', 'g', '--json']);
    expect(
      JSON.parse(consumers.stdout)
        .consumers.map((c: { name: string }) => c.name)
        .sort(),
    ).toEqual(['c1', 'gone']);
    // More consumers than --limit: nothing listed (XINFO CONSUMERS cannot page), exit 1.
    const declined = await respire(['consumers', 'list', '--stream', stream, '--group', 'g', '--limit', '1', '--json']);
    expect(declined.code).toBe(1);
    expect(JSON.parse(declined.stdout)).toEqual({ consumers: [], total: 2, truncated: true });
    const declinedText = await respire(['consumers', 'list', '--stream', stream, '--group', 'g', '--limit', '1']);
    expect(declinedText.code).toBe(1);
    expect(declinedText.stdout).toMatch(/group g has 2 consumers, more than --limit 1: not listed/);
    const pruned = await respire(['consumers', 'prune', '--stream', stream, '--group', 'g', '--min-idle-ms', '1', '--yes', '--json']);
    expect(pruned.code).toBe(0);
    expect(JSON.parse(pruned.stdout).removed.sort()).toEqual(['c1', 'gone']);
    const none = await respire(['consumers', 'prune', '--stream', stream, '--group', 'g', '--min-idle-ms', '1', '--yes']);
    expect(none).toMatchObject({ code: 0, stdout: 'No consumer of group g was idle for 1ms without pending entries: none removed.\n' });

    // Three entries group g has read and acknowledged: trimmed two at a time.
    const added: string[] = [];
    for (let i = 0; i < 3; i++) added.push(String(await conn.raw(stream, ['XADD', stream, '*', 'i', String(i)])));
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', 'c9', 'STREAMS', stream, '>']);
    await conn.raw(stream, ['XACK', stream, 'g', ...added]);
    const trimmed = await respire(['trim-acknowledged', '--stream', stream, '--max', '2', '--yes']);
    expect(trimmed).toMatchObject({ code: 0, stdout: 'Trimmed 2 entries (the limit): run it again for more.\n' });
    const rest = await respire(['trim-acknowledged', '--stream', stream, '--yes', '--json']);
    expect(JSON.parse(rest.stdout)).toEqual({ trimmed: 1 });
    expect(await range(conn, stream)).toEqual([]);
  });

  it('--cluster: discovers queues on every master and retries a queue dead letter on its node', async () => {
    const client = createCluster({ rootNodes: inject('clusterUrls').map((url) => ({ url })) });
    client.on('error', () => {});
    await client.connect();
    const cluster = { raw: (key: string, args: string[]) => client.sendCommand(key, false, args), close: async () => void client.destroy() };
    try {
      const name = uniqueQueue('cli');
      await new ReliableQueue(client, name, { codec: utf8Codec }).send('x');
      const deadKey = `{respire-queue:${name}}:dead-letter`;
      const rid = String(await cluster.raw(deadKey, ['XADD', deadKey, '*', 'payload', 'again', 'source_id', '1-1', 'delivery_count', '5']));
      const root = ['--cluster', '--url', inject('clusterUrls')[1]!];
      const status = await respire([...root, 'status', '--json']);
      expect(status.code).toBe(0);
      expect(JSON.parse(status.stdout).queues.find((q: { resource: { name: string } }) => q.resource.name === name)).toMatchObject({
        length: 1,
        deadLetters: 1,
      });
      const retried = await respire([...root, 'dead-letters', 'retry', rid, '--queue', name]);
      expect(retried.code).toBe(0);
      expect(Number(await cluster.raw(deadKey, ['XLEN', deadKey]))).toBe(0);
      expect(Number(await cluster.raw(`{respire-queue:${name}}:stream`, ['XLEN', `{respire-queue:${name}}:stream`]))).toBe(2);
    } finally {
      await cluster.close();
    }
  });

  it('usage errors exit 2, failures exit 1', async () => {
    expect((await respire(['status'], { REDIS_URL: undefined })).stderr).toMatch(/no Redis URL: pass --url/);
    expect((await respire(['status'], { REDIS_URL: undefined })).code).toBe(2);
    expect((await respire(['dead-letters', 'list'])).code).toBe(2);
    expect((await respire(['dead-letters', 'list', '--queue', 'q', '--stream', 's'])).code).toBe(2);
    expect((await respire(['dead-letters', 'show', 'not-an-id', '--queue', 'q'])).code).toBe(2);
    expect((await respire(['pending', 'list', '--stream', 's'])).code).toBe(2); // --group is required
    expect((await respire(['nope'])).code).toBe(2);
    expect((await respire(['--help'])).code).toBe(0);
    const down = await respire(['status', '--url', 'redis://127.0.0.1:1']);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^respire: could not connect to Redis at redis:\/\/127\.0\.0\.1:1: .*ECONNREFUSED/);
    // A refused connection has the Respire error code of any other transport failure.
    const json = await respire(['dead-letters', 'show', '1-1', '--queue', 'q', '--json', '--url', 'redis://127.0.0.1:1']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'TRANSPORT_FAILED', message: expect.stringMatching(/^could not connect to Redis at redis:\/\/127\.0\.0\.1:1: /) },
    });
    // A server that refuses the handshake: its reply, as a server error.
    const locked = await startRedisServer({ args: ['--requirepass', 'right-password'] });
    try {
      const url = locked.url.replace('redis://', 'redis://:wrong-password@');
      const wrongpass = await respire(['status', '--json', '--url', url]);
      expect(wrongpass.code).toBe(1);
      expect(JSON.parse(wrongpass.stdout).error).toEqual({
        code: 'SERVER_ERROR',
        message: expect.stringMatching(/^connecting to Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: WRONGPASS /),
      });
    } finally {
      await locked.close();
    }
    const usage = await respire(['dead-letters', 'show', 'x', '--queue', 'q', '--json']);
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stdout).error).toMatchObject({ code: 'USAGE', message: expect.stringMatching(/recordId/) });
  });

  it('a server that accepts connections but never answers: a prompt failure (exit 1, JSON error), not a hang — standalone and --cluster', async () => {
    const silent: Server = createServer((socket) => socket.on('data', () => {}));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `redis://127.0.0.1:${(silent.address() as { port: number }).port}`;
    try {
      let started = Date.now();
      const byDefault = await respire(['status', '--url', url, '--json']);
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(byDefault.code).toBe(1);
      expect(JSON.parse(byDefault.stdout).error).toMatchObject({ code: 'TRANSPORT_FAILED', message: expect.stringMatching(/did not answer within 5000 ms/) });
      started = Date.now();
      const cluster = await respire(['--cluster', '--url', url, '--timeout', '500', 'status', '--json']);
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(cluster.code).toBe(1);
      expect(JSON.parse(cluster.stdout).error.code).toBe('TRANSPORT_FAILED');
      expect((await respire(['--timeout', '0', 'status'])).code).toBe(2);
    } finally {
      silent.close();
    }
  });

  it('control characters and escapes from Redis never reach the terminal raw (source_id of a queue record, consumer names in results, prompts and errors); JSON escapes C1 and bidi controls', async () => {
    const name = uniqueQueue('cli');
    const deadKey = `{respire-queue:${name}}:dead-letter`;
    const evil = '\u001b]0;pwned\u0007\u009b2J\u202eevil';
    const rid = String(await conn.raw(deadKey, ['XADD', deadKey, '*', 'payload', evil, 'source_id', evil, 'delivery_count', '5']));
    const show = await respire(['dead-letters', 'show', rid, '--queue', name]);
    expect(show.code).toBe(0);
    // eslint-disable-next-line no-control-regex
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
    expect(show.stdout).not.toMatch(raw);
    expect(show.stdout).toContain('\\x1b]0;pwned');
    const json = await respire(['dead-letters', 'show', rid, '--queue', name, '--json']);
    expect(json.stdout).not.toMatch(raw);
    expect(JSON.parse(json.stdout).sourceId).toBe(evil);

    const { stream } = uniqueKeys('cli');
    const id = String(await conn.raw(stream, ['XADD', stream, '*', 'k', 'v']));
    await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0']);
    await conn.raw(stream, ['XREADGROUP', 'GROUP', 'g', evil, 'STREAMS', stream, '>']);
    const stale = await respire(['pending', 'release', id, '--stream', stream, '--group', 'g', '--delivery-count', '9', '--consumer', 'x']);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/changed/);
    const prompt = await respire(['pending', 'ack', id, '--stream', stream, '--group', 'g']);
    expect(prompt.code).toBe(2);
    const mismatch = await respire(['pending', 'ack', id, '--stream', stream, '--group', 'g', '--consumer', 'other']);
    expect(mismatch.code).toBe(1);
    for (const run of [stale, prompt, mismatch]) {
      expect(run.stdout + run.stderr).not.toMatch(raw);
      expect(run.stdout + run.stderr).toContain('\\x1b]0;pwned');
    }
    expect(await pendingRows(conn, stream, 'g')).toHaveLength(1);
  });

  it('status names a resource whose status could not be read (a key of another type) and exits 1; the others are shown', async () => {
    const good = uniqueQueue('cli');
    const bad = uniqueQueue('cli');
    await conn.raw(`{respire-queue:${good}}:stream`, ['XADD', `{respire-queue:${good}}:stream`, '*', 'payload', 'x']);
    await conn.raw(`{respire-queue:${bad}}:deadlines`, ['SET', `{respire-queue:${bad}}:deadlines`, 'x']);
    const run = await respire(['status', '--no-discover', '--queue', good, '--queue', bad]);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(new RegExp(`QUEUES\\n.*\\n${good} +1 `));
    expect(run.stdout).toMatch(new RegExp(`UNAVAILABLE.*\\n.*\\n${bad} +WRONG_TYPE `));
    const json = await respire(['status', '--no-discover', '--queue', good, '--queue', bad, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).unavailable).toEqual([expect.objectContaining({ code: 'WRONG_TYPE' })]);
  });

  it('on a terminal a destructive action asks first: "n" (or Ctrl-C) does nothing and exits 1, "y" does it', async () => {
    const name = uniqueQueue('cli');
    const deadKey = `{respire-queue:${name}}:dead-letter`;
    await conn.raw(deadKey, ['XADD', deadKey, '*', 'payload', 'p', 'source_id', '1-1', 'delivery_count', '5']);
    /** The CLI on a pseudo-terminal (util-linux `script`), with `input` typed into it. */
    const onTerminal = (input: string) =>
      new Promise<Run>((resolve, reject) => {
        const command = [process.execPath, cli, 'dead-letters', 'purge', '--queue', name].map((a) => `'${a}'`).join(' ');
        const child = spawn('script', ['-qec', command, '/dev/null'], {
          env: { ...process.env, REDIS_URL: inject('redisUrl') },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        let typed = false;
        child.stdin.on('error', () => {});
        child.stdout.on('data', (d: Buffer) => {
          stdout += d.toString();
          if (!typed && stdout.includes('[y/N]')) {
            typed = true;
            child.stdin.write(input);
          }
        });
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr: '' }));
      });
    const no = await onTerminal('n\r');
    expect(no.stdout).toMatch(/delete every dead letter of .*\? \[y\/N\]/);
    expect(no.stdout).toMatch(/not confirmed: nothing was done/);
    expect(no.code).toBe(1);
    const interrupted = await onTerminal('\u0003'); // exit 1 (readline's abort) or 130 (SIGINT): never 0
    expect([1, 130]).toContain(interrupted.code);
    expect(Number(await conn.raw(deadKey, ['XLEN', deadKey]))).toBe(1);
    const yes = await onTerminal('y\r');
    expect(yes.code).toBe(0);
    expect(yes.stdout).toMatch(/Deleted 1 dead letter\./);
    expect(Number(await conn.raw(deadKey, ['XLEN', deadKey]))).toBe(0);
  });

  it('a bad URL is a usage error (exit 2) that does not echo the password; with --json every usage error is a JSON document on stdout', async () => {
    for (const url of ['not a url', 'http://127.0.0.1:6', 'redis://user:s3cret@127.0.0.1:99999']) {
      const run = await respire(['status', '--url', url, '--json']);
      expect([url, run.code]).toEqual([url, 2]);
      expect(JSON.parse(run.stdout).error.code).toBe('USAGE');
      expect(run.stdout + run.stderr).not.toContain('s3cret');
    }
    for (const args of [
      ['--json', 'nope'],
      ['--json', 'pending', 'list', '--stream', 's'],
      ['dead-letters', 'list', '--queue', 'q', '--count', '5', '--bogus', '--json'],
    ]) {
      const run = await respire(args);
      expect([args.join(' '), run.code]).toEqual([args.join(' '), 2]);
      expect(JSON.parse(run.stdout)).toEqual({ error: { code: 'USAGE', message: expect.any(String) } });
    }
  });

  it('actions are audited to respire:audit by default, to --audit-stream KEY when given, and not with --no-audit', async () => {
    const { stream, dead } = uniqueKeys('cli-audit');
    const address = ['--stream', stream, '--dead-letter-stream', dead, '--yes'];
    const records = await Promise.all([0, 1, 2].map((i) => addWorkerRecord(conn, dead, `1-${i}`, ['k', String(i)])));
    const before = Number(await conn.raw('respire:audit', ['XLEN', 'respire:audit']));
    expect((await respire(['dead-letters', 'delete', records[0]!, ...address, '--actor', 'dana'])).code).toBe(0);
    const [, last] = ((await conn.raw('respire:audit', ['XREVRANGE', 'respire:audit', '+', '-', 'COUNT', '1'])) as unknown[][])[0]! as [unknown, unknown[]];
    expect(last.map(String)).toEqual(expect.arrayContaining(['actor', 'dana', 'action', 'delete', 'resource', stream, 'result', 'ok']));
    expect((await respire(['dead-letters', 'delete', records[1]!, ...address, '--no-audit'])).code).toBe(0);
    expect(Number(await conn.raw('respire:audit', ['XLEN', 'respire:audit']))).toBe(before + 1);
    const own = `{${stream}}:audit`;
    expect((await respire(['dead-letters', 'delete', records[2]!, ...address, '--audit-stream', own])).code).toBe(0);
    expect(await range(conn, own)).toHaveLength(1);
  });

  it('messages list / show / release / delete of a queue: ready and in-flight pages, state, fenced actions', async () => {
    const name = uniqueQueue('cli-msg');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await queue.send(`{"order":${i}}`));
    const [held] = await queue.receive(60_000, { max: 1 });
    const ready = await respire(['messages', 'list', '--queue', name, '--json']);
    expect(JSON.parse(ready.stdout)).toMatchObject({ total: 3, items: ids.slice(1).map((id) => ({ id, state: 'ready' })) });
    const inFlight = await respire(['messages', 'list', '--queue', name, '--in-flight']);
    expect(inFlight.stdout).toMatch(new RegExp(`${held!.id} +leased +1 `));
    const show = await respire(['messages', 'show', held!.id, '--queue', name]);
    expect(show.stdout).toMatch(/state: leased for \d/);
    expect(show.stdout).toContain('"order": 0');
    const refused = await respire(['messages', 'release', ids[1]!, '--queue', name, '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/is ready \(not yet delivered\): only a leased or delayed one can be released/);
    const released = await respire(['messages', 'release', held!.id, '--queue', name, '--yes']);
    expect(released).toMatchObject({ code: 0, stdout: `${held!.id}: released — due now; the next receive redelivers it (delivery count 1 kept)\n` });
    expect(await queue.ack(held!)).toBe(false);
    const [again] = await queue.receive(60_000, { max: 1 });
    expect(again).toMatchObject({ id: held!.id, deliveryCount: 2 });
    const deleted = await respire(['messages', 'delete', again!.id, '--queue', name, '--yes', '--json']);
    expect(JSON.parse(deleted.stdout)).toEqual({ id: again!.id, status: 'deleted' });
    expect(await queue.ack(again!)).toBe(false);
  });

  it("messages list / show: a delayed send's due time and state, its headers inert for the terminal (markup, ANSI escapes, a long value, bytes) and whole in --json", async () => {
    const name = uniqueQueue('cli-hdr');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    const long = `${'v'.repeat(5000)}<tail>`;
    const ansi = '\u001b[31mred\u001b]0;pwned\u0007\u009b2J\u202e\nforged: line';
    const id = await queue.send('later', {
      delayMs: 600_000,
      headers: { '<script>': 'alert(1)', ansi, [`k\u001b[2J`]: 'v', long, raw: Buffer.from([0xff, 0x00, 0x1b]), ['__proto__']: 'p' },
    });
    // eslint-disable-next-line no-control-regex
    const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

    const list = await respire(['messages', 'list', '--queue', name]);
    expect(list.code).toBe(0);
    expect(list.stdout).not.toMatch(raw);
    expect(list.stdout).toMatch(new RegExp(`${id} +delayed until \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +<script>, ansi, k\\\\x1b\\[2J, long,… +later`));

    const show = await respire(['messages', 'show', id, '--queue', name]);
    expect(show.code).toBe(0);
    expect(show.stdout).not.toMatch(raw);
    const lines = show.stdout.split('\n');
    expect(lines[1]).toMatch(/^state: delayed until \d{4}-[\d-]+T[\d:.]+Z \(in 9m5\ds; a delayed send, not yet delivered\)$/);
    expect(lines).toContain('delivery count: 0');
    expect(lines.find((l) => l.startsWith('delayed send, due: '))).toMatch(/^delayed send, due: [\dT:.Z-]+ \(server time\)$/);
    const at = lines.indexOf('headers (6):');
    expect(lines.slice(at + 1, at + 7)).toEqual([
      '    <script>: alert(1)',
      '    ansi: \\x1b[31mred\\x1b]0;pwned\\x07\\x9b2J\\u{202e}\\x0aforged: line',
      '    k\\x1b[2J: v',
      `    long: ${'v'.repeat(200)}… (5,006 characters; --json has it all)`,
      '    raw: [bytes, hex, 3 bytes] ff 00 1b',
      '    __proto__: p',
    ]);
    // A header never forges a line of its own.
    expect(lines.filter((l) => l.startsWith('forged'))).toEqual([]);

    const json = await respire(['messages', 'show', id, '--queue', name, '--json']);
    expect(json.stdout).not.toMatch(raw);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({ id, state: 'ready', deliveryCount: 0, untilMs: null });
    expect(doc.dueMs).toBeGreaterThan(Date.now() + 500_000);
    expect(doc.headers).toEqual([
      { name: '<script>', type: 'string', value: 'alert(1)' },
      { name: 'ansi', type: 'string', value: ansi },
      { name: 'k\u001b[2J', type: 'string', value: 'v' },
      { name: 'long', type: 'string', value: long },
      { name: 'raw', type: 'bytes', kind: 'hex', text: 'ff 00 1b', truncated: false, totalBytes: 3, base64: '/wAb' },
      { name: '__proto__', type: 'string', value: 'p' },
    ]);

    // A delayed send no receive has met cannot be released yet; once a receive parks it, it shows as delayed with delivery count 0.
    const early = await respire(['messages', 'release', id, '--queue', name, '--yes']);
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/is a delayed send due at [\dT:.Z-]+ that no receive has met yet: it can be released once a receive has/);
    expect(await queue.receive(60_000)).toEqual([]);
    const parked = await respire(['messages', 'show', id, '--queue', name]);
    expect(parked.stdout).toMatch(/\nstate: delayed until [\dT:.Z-]+ \(in 9m5\ds; a delayed send, not yet delivered\)\n/);
    expect(parked.stdout).not.toContain('\nuntil: ');
    const inFlight = await respire(['messages', 'list', '--queue', name, '--in-flight']);
    expect(inFlight.stdout).toMatch(new RegExp(`${id} +delayed send +0 `));
  });

  it('find: an entry, its dead letters by source ID, a deduplication ID; nothing found exits 1', async () => {
    const name = uniqueQueue('cli-find');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec, deliveryLimit: 1 });
    const sent = await queue.sendWithResult('x', { deduplicationId: 'order-7' });
    await queue.receive(1, { max: 1 });
    await sleep(5);
    await queue.receive(60_000, { max: 1 });
    const bySource = await respire(['find', sent.id, '--queue', name]);
    expect(bySource.code).toBe(0);
    expect(bySource.stdout).toContain(`no entry ${sent.id} in the stream`);
    expect(bySource.stdout).toMatch(new RegExp(`dead letters of source entry ${sent.id}:\\n.*\\n\\d+-\\d+ +queue +${sent.id}`));
    const byDedup = await respire(['find', 'order-7', '--queue', name, '--json']);
    expect(JSON.parse(byDedup.stdout)).toMatchObject({ deduplication: { entryId: sent.id }, bySource: { items: [{ sourceId: sent.id }] } });
    const nothing = await respire(['find', 'nothing-here', '--queue', name]);
    expect(nothing.code).toBe(1);
  });

  it('history record and history show: the same numbers as the API, as a table or --json', async () => {
    const name = uniqueQueue('cli-hist');
    const queue = new ReliableQueue(conn.client, name, { codec: utf8Codec });
    await queue.send('a');
    const first = await respire(['history', 'record', '--queue', name, '--json']);
    expect(JSON.parse(first.stdout).recorded).toBeGreaterThanOrEqual(1);
    await sleep(20);
    await queue.send('b');
    await respire(['history', 'record', '--queue', name]);
    const json = JSON.parse((await respire(['history', 'show', '--queue', name, '--json'])).stdout);
    expect(json.samples).toBe(2);
    const [p0, p1] = json.series[0].points;
    expect(Math.round((p1.sent * (p1.atMs - p0.atMs)) / 1000)).toBe(1);
    expect(p1.lag).toBe(2);
    const text = await respire(['history', 'show', '--queue', name]);
    expect(text.stdout).toMatch(/^2 samples, /);
    expect(text.stdout).toMatch(/QUEUE \(rates per second\)\nTIME +SENT +DELIVERED +ACKED +DEAD-LETTERED +LAG +PENDING +OLDEST +DEAD LETTERS/);
  });

  it('a purge interrupted with Ctrl-C stops between pages and exits 1 (not done)', async () => {
    const name = uniqueQueue('cli');
    const deadKey = `{respire-queue:${name}}:dead-letter`;
    await conn.raw(deadKey, [
      'EVAL',
      "for i = 1, 3000 do redis.call('XADD', KEYS[1], '*', 'payload', i, 'source_id', '1-1', 'delivery_count', '5') end",
      '1',
      deadKey,
    ]);
    let interrupted = false;
    const run = await respire(['dead-letters', 'purge', '--queue', name, '--page-size', '1', '--yes', '--json'], {}, (child) => {
      child.stderr!.on('data', () => {
        if (!interrupted) {
          interrupted = true;
          child.kill('SIGINT');
        }
      });
    });
    expect(run.code).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({ aborted: true, state: 'cancelled' });
    expect(doc.done).toBeLessThan(3000);
    expect(Number(await conn.raw(deadKey, ['XLEN', deadKey]))).toBe(3000 - doc.done);
  });
});
