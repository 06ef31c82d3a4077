// A worker process killed mid-batch loses nothing: another worker, or the same stable name, recovers every entry.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inject } from 'vitest';
import { StreamWorker } from '../src/index.js';
import { add, eventually, pendingCount, recordingLogger, standalone, uniqueKeys, type Connection } from './support.js';

/**
 * README "Consumer names and recovery": a worker process killed with SIGKILL mid-batch
 * leaves its entries pending; another worker recovers every one after the minimum idle time.
 * The killed process runs the real worker source, transpiled here with the TypeScript compiler.
 */
const here = dirname(fileURLToPath(import.meta.url));
let out: string;
let conn: Connection;

function transpileTree(from: string, to: string): void {
  for (const name of readdirSync(from)) {
    const path = join(from, name);
    if (statSync(path).isDirectory()) {
      transpileTree(path, join(to, name));
      continue;
    }
    if (!name.endsWith('.ts') || name.endsWith('.d.ts')) continue;
    let code = ts.transpileModule(readFileSync(path, 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    }).outputText;
    code = code.replace(/'@respire\/core-scripts(?:\/(\w+))?'/g, (_, entry: string | undefined) => {
      const core = relative(to, join(out, 'core-scripts', `${entry ?? 'index'}.js`)).replaceAll('\\', '/');
      return `'${core.startsWith('.') ? core : `./${core}`}'`;
    });
    mkdirSync(to, { recursive: true });
    writeFileSync(join(to, name.replace(/\.ts$/, '.js')), code);
  }
}

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'respire-worker-proc-'));
  transpileTree(resolve(here, '../../core-scripts/src'), join(out, 'core-scripts'));
  transpileTree(resolve(here, '../src'), join(out, 'worker'));
  writeFileSync(join(out, 'package.json'), '{"type":"module"}');
  conn = await standalone(inject('redisUrl'));
});
afterAll(async () => {
  await conn.close();
  rmSync(out, { recursive: true, force: true });
});

const CHILD = `
import { StreamWorker } from './worker/index.js';
const { createClient } = await import(process.env.REDIS_MODULE);
const client = createClient({ url: process.env.REDIS_URL });
client.on('error', () => {});
await client.connect();
let handled = 0;
const worker = new StreamWorker({
  client, stream: process.env.STREAM, group: 'g', consumerName: 'victim', batchSize: 5,
  minimumIdleTimeMs: 60000, logger: { warn() {}, error() {} },
  handler: async (entry) => {
    handled++;
    // The previous entry's completion overlaps this handler: let it land before announcing mid-batch.
    if (handled === 3) { await new Promise((r) => setTimeout(r, 300)); process.stdout.write('MIDBATCH ' + entry.id + '\\n'); await new Promise(() => {}); }
    process.stdout.write('ACKING ' + entry.id + '\\n');
    return 'ack';
  },
});
await worker.start();
process.stdout.write('STARTED\\n');
`;

/**
 * Adds `count` entries, runs the child worker (consumer "victim", batch 5) until its third handler
 * hangs mid-batch, then kills it with SIGKILL. Returns the entry IDs and what the child printed.
 */
async function killVictimMidBatch(stream: string, count: number): Promise<{ ids: string[]; output: string }> {
  await conn.raw(stream, ['XGROUP', 'CREATE', stream, 'g', '0', 'MKSTREAM']);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push(await add(conn, stream, { i: String(i) }));
  writeFileSync(join(out, 'child.mjs'), CHILD);
  const redisModule = pathToFileURL(createRequire(import.meta.url).resolve('redis')).href;
  const child = spawn(process.execPath, [join(out, 'child.mjs')], {
    env: { ...process.env, REDIS_URL: inject('redisUrl'), REDIS_MODULE: redisModule, STREAM: stream },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  await eventually(() => output.includes('MIDBATCH'), 10_000).catch(() => {
    throw new Error(`child did not reach mid-batch:\n${output}`);
  });
  child.kill('SIGKILL');
  await exited;
  return { ids, output };
}

it('a worker process killed with SIGKILL mid-batch: another worker recovers every entry after the minimum idle time', async () => {
  const { stream } = uniqueKeys('kill');
  const { ids, output } = await killVictimMidBatch(stream, 8);
  const ackedByVictim = [...output.matchAll(/ACKING (\S+)/g)].map((m) => m[1]!);
  const victimPending = ((await conn.raw(stream, ['XPENDING', stream, 'g', '-', '+', '100', 'victim-0'])) as unknown[][]).map((p) => String(p[0]));
  expect(ackedByVictim.length).toBe(2);
  expect(victimPending).toHaveLength(3); // the rest of the first batch of 5: the stuck one and two undispatched

  const recovered: string[] = [];
  const started = Date.now();
  const rescuer = new StreamWorker({
    client: conn.client,
    stream,
    group: 'g',
    consumerName: 'rescuer',
    batchSize: 5,
    readWaitMs: 200,
    minimumIdleTimeMs: 1000,
    recoveryPollIntervalMs: 100,
    logger: recordingLogger(),
    handler: (entry) => (recovered.push(entry.id), 'ack'),
  });
  await rescuer.start();
  try {
    await eventually(() => recovered.length === ids.length - ackedByVictim.length, 10_000);
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0);
    expect([...ackedByVictim, ...recovered].sort()).toEqual([...ids].sort());
    expect(victimPending.every((id) => recovered.includes(id))).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500); // recovered only once idle (1000 ms after delivery)
  } finally {
    await rescuer.stop();
  }
});

it('a process restarted under the same stable consumer name resumes its own pending entries at once, without waiting for the minimum idle time', async () => {
  const { stream } = uniqueKeys('kill');
  const { ids, output } = await killVictimMidBatch(stream, 6);
  const acked = [...output.matchAll(/ACKING (\S+)/g)].map((m) => m[1]!);
  const handled: [string, number][] = [];
  const restarted = new StreamWorker({
    client: conn.client,
    stream,
    group: 'g',
    consumerName: 'victim', // the same host slot
    batchSize: 5,
    readWaitMs: 200,
    minimumIdleTimeMs: 60_000,
    logger: recordingLogger(),
    handler: (entry) => (handled.push([entry.id, entry.deliveryCount]), 'ack'),
  });
  const began = Date.now();
  await restarted.start();
  try {
    await eventually(async () => (await pendingCount(conn, stream, 'g')) === 0 && handled.length === ids.length - acked.length, 5000);
    expect(Date.now() - began).toBeLessThan(5000); // far below the 60 s minimum idle time
    expect([...acked, ...handled.map(([id]) => id)].sort()).toEqual([...ids].sort());
    // The three replayed entries come first, each at delivery count 2; the last one is new.
    expect(handled.slice(0, 3).map(([, count]) => count)).toEqual([2, 2, 2]);
    expect(handled[3]![1]).toBe(1);
  } finally {
    await restarted.stop();
  }
});
