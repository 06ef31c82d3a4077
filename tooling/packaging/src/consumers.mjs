// The packed-consumer project: a fresh npm project (npm's default "type": "commonjs") with the
// packed tarballs and `redis` from the registry, and three TypeScript set-ups beside it.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryPoints, readJson, root } from './manifest.mjs';

const fixtures = join(root, 'tooling', 'packaging', 'consumer');

/** The TypeScript set-ups a user meets: strict, `skipLibCheck: false`, each in its own folder. */
export const SETUPS = {
  // "type": "module" + module nodenext: an ESM service.
  esm: {
    type: 'module',
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
  },
  // "type": "commonjs" + module nodenext: a CommonJS service on modern settings.
  cjs: {
    type: 'commonjs',
    compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'] },
  },
  // What `nest new` generated for years: module commonjs, (classic) node resolution, decorators.
  nest: {
    type: 'commonjs',
    compilerOptions: {
      module: 'commonjs',
      moduleResolution: 'node',
      target: 'es2021',
      declaration: true,
      removeComments: true,
      emitDecoratorMetadata: true,
      experimentalDecorators: true,
      allowSyntheticDefaultImports: true,
      sourceMap: true,
      incremental: false,
    },
  },
};

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout ?? ''}${result.stderr ?? ''}`.trim() };
}

/** Versions of the registry packages the consumers install: the ones the workspace tests with. */
function registryVersions() {
  const otel = readJson(join(root, 'packages', 'otel', 'package.json'));
  const queue = readJson(join(root, 'packages', 'queue', 'package.json'));
  const rootPkg = readJson(join(root, 'package.json'));
  return {
    redis: process.env.RESPIRE_CONSUMER_REDIS || queue.devDependencies.redis,
    '@opentelemetry/api': otel.devDependencies['@opentelemetry/api'],
    '@types/node': rootPkg.devDependencies['@types/node'],
  };
}

/** The import specifiers of every entry point of the packed packages (`name` + subpath). */
export function specifiers(packs) {
  return packs.flatMap(({ dir, name }) =>
    entryPoints(readJson(join(dir, 'package.json'))).map(({ subpath }) => (subpath === '.' ? name : `${name}${subpath.slice(1)}`)),
  );
}

/** The packages of the queue+otel-only project: what a service using only the queue and its telemetry installs. */
export const QUEUE_OTEL_PACKAGES = ['@respire/core-scripts', '@respire/queue', '@respire/otel'];

/** Creates a project with the tarballs of `packs` (installed by `npmInstall`). Returns its directory. */
export function createProject(packs) {
  const dir = mkdtempSync(join(tmpdir(), 'respire-consumers-'));
  const versions = registryVersions();
  const pkg = {
    name: 'respire-consumer',
    version: '1.0.0',
    private: true,
    type: 'commonjs',
    dependencies: {
      ...Object.fromEntries(packs.map((p) => [p.name, `file:${p.tarball}`])),
      redis: versions.redis,
      '@opentelemetry/api': versions['@opentelemetry/api'],
    },
    devDependencies: { '@types/node': versions['@types/node'] },
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return dir;
}

export function npmInstall(dir) {
  const result = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir });
  return result.status === 0 ? [] : [`npm install failed:\n${result.output}`];
}

/** One set-up's folder: package.json, tsconfig.json (strict, `skipLibCheck: false`) and the fixture files. */
function writeSetup(folder, setup, fixtureFiles) {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'package.json'), `${JSON.stringify({ type: setup.type }, null, 2)}\n`);
  const compilerOptions = { ...setup.compilerOptions, strict: true, skipLibCheck: false, outDir: 'out', rootDir: '.' };
  writeFileSync(join(folder, 'tsconfig.json'), `${JSON.stringify({ compilerOptions, include: ['*.ts'] }, null, 2)}\n`);
  for (const file of fixtureFiles) copyFileSync(join(fixtures, file), join(folder, file));
}

/**
 * The queue+otel-only project's set-ups: `queue-otel.ts` in each, so tsc checks every declaration
 * file @respire/otel and @respire/queue reach without @respire/worker installed.
 */
export function writeQueueOtelSetups(dir) {
  for (const [name, setup] of Object.entries(SETUPS)) writeSetup(join(dir, name), setup, ['queue-otel.ts']);
}

/** Writes each set-up's folder: package.json, tsconfig.json, the scenario and an import of every entry point. */
export function writeSetups(dir, entrySpecifiers) {
  const imports = entrySpecifiers.map((s, i) => `import * as entry${i} from '${s}';`).join('\n');
  const table = entrySpecifiers.map((s, i) => `  '${s}': entry${i},`).join('\n');
  const entries =
    `// Every entry point of every packed package, type-checked and loaded in this set-up.\n${imports}\n\n` +
    `export const loaded: Record<string, object> = {\n${table}\n};\n` +
    `console.log(\`\${Object.keys(loaded).length} entry points loaded\`);\n`;
  for (const [name, setup] of Object.entries(SETUPS)) {
    const folder = join(dir, name);
    writeSetup(folder, setup, ['scenario.ts']);
    writeFileSync(join(folder, 'entries.ts'), entries);
  }
  copyFileSync(join(fixtures, 'load-all.mjs'), join(dir, 'load-all.mjs'));
}

/** tsc (the workspace's TypeScript) over one set-up; the set-ups can run side by side. */
export function typecheck(dir, setup) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const child = spawn(process.execPath, [tsc, '-p', join(dir, setup, 'tsconfig.json')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve(status === 0 ? [] : [`tsc (${setup}):\n${output.trim()}`]));
  });
}

/** Runs `node <args>` in the project with REDIS_URL; returns problems and the output. */
export function runNode(node, dir, args, env = {}) {
  const result = run(node, args, { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 });
  return { problems: result.status === 0 ? [] : [`node ${args.join(' ')} exited with ${result.status}:\n${result.output}`], output: result.output };
}

/** Runs `node <args>` in the project for at most `ms` milliseconds (then SIGTERM) and returns its output. */
export function runNodeFor(node, dir, args, env, ms) {
  const result = spawnSync(node, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8', timeout: ms, killSignal: 'SIGTERM' });
  if (result.error && result.error.code !== 'ETIMEDOUT') throw result.error;
  return `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
}

/**
 * The README's Quick start: every fenced block whose first line is `// <file>.mjs` or
 * `// <file>.cjs`, written to the project as that file.
 */
export function writeReadmeExamples(dir) {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const files = [];
  for (const [, body] of readme.matchAll(/```(?:js|ts|javascript)\n([\s\S]*?)```/g)) {
    const file = /^\/\/ ([\w.-]+\.(?:mjs|cjs))\b/.exec(body)?.[1];
    if (!file) continue;
    writeFileSync(join(dir, file), body);
    files.push(file);
  }
  return files;
}

/** A loopback port nothing listens on (a moment ago). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('error', () => resolve(false));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('connect', () => socket.write('PING\r\n'));
  });
}

/** A private redis-server (`REDIS_SERVER` or `redis-server` on PATH) on a free loopback port. */
export async function startRedis() {
  const binary = process.env.REDIS_SERVER?.trim() || 'redis-server';
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'respire-consumers-redis-'));
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let failed;
  child.once('error', (error) => (failed = error));
  for (let i = 0; i < 100 && !failed; i++) {
    if (await ping(port)) {
      return {
        url: `redis://127.0.0.1:${port}`,
        stop: async () => {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
  throw new Error(
    `could not start ${binary} on port ${port}${failed ? `: ${failed.message}` : ''} ` +
      '(Debian/Ubuntu: apt-get install -y redis-server, or point REDIS_SERVER at a redis-server binary)',
  );
}
