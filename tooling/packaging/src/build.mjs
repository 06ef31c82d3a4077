#!/usr/bin/env node
// respire-build: the build of a publishable package, run in its directory (`"build": "respire-build"`).
// Checks the package.json fields derived from `exports` (manifest.mjs), then builds every entry
// point (and every `bin`, from src/<name>.ts) twice with tsdown: ESM (`dist/<name>.js`, `.d.ts`)
// and CommonJS (`dist/<name>.cjs`, `.d.cts`), each with source maps and declaration maps that
// point into the shipped `src/`.
// Dependencies and peers stay external; shared code between entry points goes to shared chunks,
// so one format never holds two copies of a class.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from 'tsdown';
import { binEntryPoints, entryPoints, manifestProblems, root } from './manifest.mjs';

const dir = process.cwd();
const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
const problems = manifestProblems(pkg, dir);
if (problems.length > 0) {
  for (const problem of problems) console.error(`${pkg.name}: ${problem}`);
  console.error('Run `node tooling/packaging/src/manifest.mjs --write` at the repository root for the derived fields.');
  process.exit(1);
}

const entries = entryPoints(pkg);
const bins = binEntryPoints(pkg, dir);
const started = Date.now();
await build({
  config: false,
  cwd: dir,
  entry: Object.fromEntries([...entries, ...bins].map((e) => [e.name, e.source])),
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'node20',
  // No `@respire/source` condition here: dependencies' types come from their built dist.
  tsconfig: 'tsconfig.build.json',
  dts: { sourcemap: true },
  sourcemap: true,
  // The maps point at src/, which is shipped; no second copy of the sources inside them.
  outputOptions: { sourcemapExcludeSources: true },
  fixedExtension: false,
  hash: false,
  // import.meta.url (createRequire in @respire/testing) in the CommonJS output.
  shims: true,
  clean: true,
  outDir: 'dist',
  logLevel: 'warn',
  checks: { legacyCjs: false, pluginTimings: false },
  report: false,
});
const seconds = ((Date.now() - started) / 1000).toFixed(1);
const built = [...entries.map((e) => e.subpath), ...bins.map((b) => `bin ${b.command}`)].join(', ');
console.log(`${pkg.name}: built ${built} as ESM + CommonJS with types in ${seconds} s (${relative(root, dir)}/dist)`);
