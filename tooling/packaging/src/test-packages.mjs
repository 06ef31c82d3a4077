// pnpm test:packages — what a user installs, checked as a user meets it (run after `pnpm build`):
//   1. every publishable package.json: the fields derived from `exports` (manifest.mjs);
//   2. `pnpm pack` of each package, then per tarball: its contents (no dev-only export condition,
//      LICENSE, README, metadata, maps whose sources are shipped), publint (strict) and
//      arethetypeswrong (node10, node16 from CJS and from ESM, bundler);
//   3. the packed-consumer test: a fresh npm project with the tarballs and `redis` from the
//      registry; each package command's --version; every entry point loaded by require() and
//      import(); an ESM, a CommonJS and a NestJS-style TypeScript consumer, type-checked (strict,
//      skipLibCheck: false) and run against a private redis-server; the README's Quick start run as written, and once with no
//      Redis at REDIS_URL (its 'error' listener reports the refusal);
//   4. a queue+otel-only consumer: a second project with only core-scripts, queue and otel (no
//      @respire/worker, an optional peer of otel), type-checked in the same three set-ups and run.
// Prints one line per check and `packed packages: N passed, N failed`; exits 1 on any failure.
//
//   RESPIRE_CONSUMER_NODES="/path/to/node22 /path/to/node24"   also run the consumers on these
//   RESPIRE_TEST_REPORT_DIR=dir                                 write dir/packages.json for CI's count
//   --keep                                                      keep the temporary projects
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  QUEUE_OTEL_PACKAGES,
  SETUPS,
  createProject,
  freePort,
  npmInstall,
  runNode,
  runNodeFor,
  specifiers,
  startRedis,
  typecheck,
  writeQueueOtelSetups,
  writeReadmeExamples,
  writeSetups,
} from './consumers.mjs';
import { manifestProblems, publishablePackageDirs, readJson, root } from './manifest.mjs';
import { attwProblems, contentProblems, extract, packAll, publintProblems } from './tarballs.mjs';

const keep = process.argv.includes('--keep');
const results = [];
const started = Date.now();

async function check(name, fn) {
  const t0 = Date.now();
  let problems;
  try {
    problems = (await fn()) ?? [];
  } catch (error) {
    problems = [error instanceof Error ? (error.stack ?? error.message) : String(error)];
  }
  const seconds = ((Date.now() - t0) / 1000).toFixed(1);
  results.push({ name, ok: problems.length === 0 });
  if (problems.length === 0) console.log(`ok    ${name} (${seconds} s)`);
  else console.log(`FAIL  ${name} (${seconds} s)\n${problems.map((p) => `      ${p.replaceAll('\n', '\n      ')}`).join('\n')}`);
  return problems.length === 0;
}

const work = mkdtempSync(join(tmpdir(), 'respire-packages-'));
let project;
let queueOtelProject;
let redis;
try {
  await check('package.json fields derived from exports', () =>
    publishablePackageDirs().flatMap((dir) => manifestProblems(readJson(join(dir, 'package.json')), dir).map((p) => `${relative(root, dir)}: ${p}`)),
  );

  let packs = [];
  await check('pnpm pack', () => {
    packs = packAll(join(work, 'tarballs'));
    return [];
  });

  for (const pack of packs) {
    const extracted = extract(pack.tarball, join(work, 'extracted', pack.name.replace('/', '+')));
    await check(`${pack.name}: tarball contents`, () => contentProblems(extracted));
    await check(`${pack.name}: publint --strict`, () => publintProblems(pack.tarball));
    await check(`${pack.name}: attw (node10, node16-cjs, node16-esm, bundler)`, () => attwProblems(pack.tarball));
  }

  if (packs.length > 0) {
    project = createProject(packs);
    const installed = await check(`consumer project: npm install of ${packs.length} tarballs and redis from the registry`, () => npmInstall(project));
    if (installed) {
      // Each command of a package, as npm installed it: `--version` prints the tarball's version.
      for (const pack of packs) {
        const bin = readJson(join(pack.dir, 'package.json')).bin ?? {};
        for (const command of typeof bin === 'string' ? [pack.name.replace(/^@[^/]+\//, '')] : Object.keys(bin)) {
          await check(`${pack.name}: ${command} --version prints ${pack.version}`, () => {
            const run = runNode(process.execPath, project, [join('node_modules', '.bin', command), '--version']);
            return run.problems.length > 0 ? run.problems : run.output === pack.version ? [] : [`printed '${run.output}'`];
          });
        }
      }
      const entries = specifiers(packs);
      writeSetups(project, entries);
      const examples = writeReadmeExamples(project);
      const typed = {};
      await Promise.all(
        Object.keys(SETUPS).map(async (setup) => {
          typed[setup] = await check(`${setup} consumer: tsc (${describe(SETUPS[setup])}, strict, skipLibCheck: false)`, () => typecheck(project, setup));
        }),
      );
      redis = await startRedis();
      const nodes = [process.execPath, ...(process.env.RESPIRE_CONSUMER_NODES ?? '').split(/\s+/).filter(Boolean)];
      let db = 0;
      for (const [index, node] of nodes.entries()) {
        const version = runNode(node, project, ['--version']).output;
        const tag = `node ${version}`;
        await check(`${tag}: require() and import() of ${entries.length} entry points`, () => runNode(node, project, ['load-all.mjs', ...entries]).problems);
        for (const setup of Object.keys(SETUPS)) {
          if (!typed[setup]) continue;
          const env = { REDIS_URL: `${redis.url}/${++db}` };
          const label = `${setup}-${version.replace(/^v(\d+).*/, 'node$1')}`;
          await check(`${tag}: ${setup} consumer runs (every entry point; send/receive/ack, StreamWorker, fake server)`, () => [
            ...runNode(node, project, [`${setup}/out/entries.js`], env).problems,
            ...runNode(node, project, [`${setup}/out/scenario.js`, label], env).problems,
          ]);
        }
        for (const file of examples) {
          const env = { REDIS_URL: `${redis.url}/${++db}` };
          const twice = index === 0 && file.endsWith('.mjs');
          await check(`${tag}: README ${file}${twice ? ' (twice: the second send is a duplicate)' : ''}`, () => {
            const first = runNode(node, project, [file], env);
            if (first.problems.length > 0) return first.problems;
            if (!/^sent \S+$/m.test(first.output) || !/^received Order shipped$/m.test(first.output))
              return [`unexpected output of a first run:\n${first.output}`];
            if (!twice) return [];
            const second = runNode(node, project, [file], env);
            if (second.problems.length > 0) return second.problems;
            if (!/^duplicate of \S+: not sent again$/m.test(second.output) || /received/.test(second.output))
              return [`unexpected output of a second run:\n${second.output}`];
            return [];
          });
        }
        if (index === 0) {
          const down = `redis://127.0.0.1:${await freePort()}`;
          for (const file of examples) {
            await check(`${tag}: README ${file} with no Redis at REDIS_URL: its 'error' listener reports the refusal, no uncaught error`, () => {
              const output = runNodeFor(node, project, [file], { REDIS_URL: down }, 3000);
              return /^redis: connect ECONNREFUSED /m.test(output) && !/Unhandled 'error' event|^\s+at /m.test(output) ? [] : [`unexpected output:\n${output}`];
            });
          }
        }
        if (examples.length === 0) await check('README Quick start', () => ['no fenced block starting with `// <file>.mjs` in README.md']);
      }
    }

    // A service with only the queue and its telemetry: @respire/otel's optional @respire/worker
    // peer is absent, and its types must still check with skipLibCheck: false.
    const queueOtelPacks = packs.filter((p) => QUEUE_OTEL_PACKAGES.includes(p.name));
    queueOtelProject = createProject(queueOtelPacks);
    const names = queueOtelPacks.map((p) => p.name.replace('@respire/', '')).join(', ');
    if (await check(`queue+otel consumer project: npm install of ${names} only (no @respire/worker)`, () => npmInstall(queueOtelProject))) {
      writeQueueOtelSetups(queueOtelProject);
      const typed = {};
      await Promise.all(
        Object.keys(SETUPS).map(async (setup) => {
          typed[setup] = await check(`queue+otel ${setup} consumer: tsc (${describe(SETUPS[setup])}, strict, skipLibCheck: false)`, () =>
            typecheck(queueOtelProject, setup),
          );
        }),
      );
      redis ??= await startRedis();
      for (const setup of Object.keys(SETUPS)) {
        if (!typed[setup]) continue;
        // Database 0, which the other consumers leave alone; each set-up uses its own queue name.
        const env = { REDIS_URL: `${redis.url}/0` };
        await check(
          `queue+otel ${setup} consumer runs (send/receive/ack with telemetry)`,
          () => runNode(process.execPath, queueOtelProject, [`${setup}/out/queue-otel.js`, `queue-otel-${setup}`], env).problems,
        );
      }
    }
  }
} finally {
  await redis?.stop();
  if (!keep) {
    rmSync(work, { recursive: true, force: true });
    for (const dir of [project, queueOtelProject]) if (dir) rmSync(dir, { recursive: true, force: true });
  } else {
    console.log(`kept ${[work, project, queueOtelProject].filter(Boolean).join(' and ')}`);
  }
}

function describe(setup) {
  const { module, moduleResolution } = setup.compilerOptions;
  return `"type": "${setup.type}", module ${module}, moduleResolution ${moduleResolution}`;
}

const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
const seconds = ((Date.now() - started) / 1000).toFixed(0);
console.log(`packed packages: ${passed} passed, ${failed} failed (${seconds} s)`);
const reportDir = process.env.RESPIRE_TEST_REPORT_DIR;
if (reportDir) {
  // The shape of a vitest JSON report, so CI's closing count includes these checks.
  mkdirSync(reportDir, { recursive: true });
  const report = {
    numPassedTests: passed,
    numFailedTests: failed,
    numPendingTests: 0,
    numTodoTests: 0,
    testResults: [
      {
        name: 'packed packages',
        status: failed ? 'failed' : 'passed',
        assertionResults: results.map((r) => ({ title: r.name, status: r.ok ? 'passed' : 'failed' })),
      },
    ],
  };
  writeFileSync(join(reportDir, 'packages.json'), `${JSON.stringify(report, null, 2)}\n`);
}
process.exit(failed > 0 || passed === 0 ? 1 : 0);
