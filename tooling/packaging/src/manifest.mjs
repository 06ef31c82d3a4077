// The publishable packages' package.json fields that follow from their `exports`.
//
// A package declares each entry point once, as an `exports` subpath whose `@respire/source`
// condition names its source file (`./src/<name>.ts`). Everything else is derived from that:
// the dist files of the dual build (`dist/<name>.js` + `.d.ts` for import, `dist/<name>.cjs` +
// `.d.cts` for require), `main`/`types` for tools without `exports` support, `typesVersions` so
// TypeScript's `moduleResolution: node` (node10) finds subpaths, and `publishConfig.exports`, the
// same map without the dev-only `@respire/source` condition (pnpm uses it on pack and publish).
// Also the shared metadata: license, repository (with the package's directory), homepage, bugs.
//
//   node tooling/packaging/src/manifest.mjs            check every publishable package
//   node tooling/packaging/src/manifest.mjs --write    rewrite the derived fields
import { readFileSync, readdirSync, existsSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

export const SOURCE_CONDITION = '@respire/source';
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

export function readJson(path) {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** Directories of the workspace's non-private packages (pnpm-workspace.yaml `dir/*` globs), sorted. */
export function publishablePackageDirs() {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const globs = [...yaml.matchAll(/^\s+-\s+['"]?([\w./-]+)\/\*['"]?\s*$/gm)].map((m) => m[1]);
  const dirs = [];
  for (const glob of globs) {
    const parent = join(root, glob);
    if (!existsSync(parent)) continue;
    for (const name of readdirSync(parent).sort()) {
      const manifest = join(parent, name, 'package.json');
      if (existsSync(manifest) && readJson(manifest).private !== true) dirs.push(join(parent, name));
    }
  }
  return dirs;
}

/**
 * The package's entry points: one per `exports` subpath with a `@respire/source` condition.
 * `name` is the source path under src/ without its extension: `./src/internal/index.ts` builds
 * `dist/internal/index.{js,cjs,d.ts,d.cts}`.
 */
export function entryPoints(pkg) {
  const entries = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    if (subpath === './package.json') continue;
    const source = typeof target === 'object' && target !== null ? target[SOURCE_CONDITION] : undefined;
    const match = typeof source === 'string' ? /^\.\/src\/(.+)\.(ts|tsx|mts)$/.exec(source) : null;
    if (!match) {
      throw new Error(
        `${pkg.name}: exports["${subpath}"] needs a "${SOURCE_CONDITION}": "./src/<file>.ts" condition ` + '(the build reads its entry points from it)',
      );
    }
    entries.push({ subpath, source, name: match[1] });
  }
  if (entries.length === 0) throw new Error(`${pkg.name}: no exports entry with a "${SOURCE_CONDITION}" condition`);
  return entries;
}

/**
 * The package's bins as entry points: `"bin": { "respire": "./dist/cli.js" }` builds `./src/cli.ts`
 * (ESM, run by the `#!/usr/bin/env node` line it starts with).
 */
export function binEntryPoints(pkg, dir) {
  const bins = typeof pkg.bin === 'string' ? { [pkg.name]: pkg.bin } : (pkg.bin ?? {});
  return Object.entries(bins).map(([command, target]) => {
    const match = /^(?:\.\/)?dist\/(.+)\.js$/.exec(target);
    const source = match ? ['ts', 'tsx', 'mts'].map((ext) => `./src/${match[1]}.${ext}`).find((s) => existsSync(join(dir, s))) : undefined;
    if (!match || !source) throw new Error(`${pkg.name}: bin "${command}" should be ./dist/<name>.js built from ./src/<name>.ts, got ${target}`);
    return { command, source, name: match[1] };
  });
}

function distTargets(name) {
  return {
    import: { types: `./dist/${name}.d.ts`, default: `./dist/${name}.js` },
    require: { types: `./dist/${name}.d.cts`, default: `./dist/${name}.cjs` },
  };
}

/** The derived fields, in the order they are written. */
export function derivedFields(pkg, dir) {
  const rootPkg = readJson(join(root, 'package.json'));
  const repositoryUrl = rootPkg.repository?.url;
  if (!repositoryUrl) throw new Error('the root package.json needs repository.url (the packages derive theirs from it)');
  const web = repositoryUrl.replace(/^git\+/, '').replace(/\.git$/, '');
  const directory = relative(root, dir).split('\\').join('/');
  const entries = entryPoints(pkg);
  const exports = {};
  const publishExports = {};
  for (const { subpath, source, name } of entries) {
    exports[subpath] = { [SOURCE_CONDITION]: source, ...distTargets(name) };
    publishExports[subpath] = distTargets(name);
  }
  exports['./package.json'] = './package.json';
  publishExports['./package.json'] = './package.json';
  const main = entries.find((e) => e.subpath === '.');
  const subpaths = entries.filter((e) => e.subpath !== '.');
  const files = [...new Set(['dist', 'src', ...(pkg.files ?? []).filter((f) => f !== 'dist' && f !== 'src')])];
  return {
    license: 'MIT',
    repository: { type: 'git', url: repositoryUrl, directory },
    homepage: `${web}/tree/main/${directory}#readme`,
    bugs: { url: `${web}/issues` },
    exports,
    ...(main ? { main: `./dist/${main.name}.cjs`, types: `./dist/${main.name}.d.cts` } : {}),
    ...(subpaths.length > 0 ? { typesVersions: { '*': Object.fromEntries(subpaths.map((e) => [e.subpath.slice(2), [`./dist/${e.name}.d.cts`]])) } } : {}),
    files,
    publishConfig: { ...(pkg.publishConfig ?? {}), exports: publishExports },
  };
}

/** What differs from the derived fields, plus metadata a person must write (description, keywords). */
export function manifestProblems(pkg, dir) {
  const problems = [];
  const expected = derivedFields(pkg, dir);
  for (const [field, value] of Object.entries(expected)) {
    if (!isDeepStrictEqual(pkg[field], value)) problems.push(`"${field}" should be ${JSON.stringify(value)}`);
  }
  for (const field of ['module', ...(expected.typesVersions ? [] : ['typesVersions'])]) {
    if (pkg[field] !== undefined) problems.push(`"${field}" should be absent`);
  }
  if (typeof pkg.description !== 'string' || pkg.description.length === 0) problems.push('"description" is missing');
  if (!Array.isArray(pkg.keywords) || pkg.keywords.length === 0) problems.push('"keywords" is missing');
  if (pkg.type !== 'module') problems.push('"type" should be "module" (the build writes .js for ESM and .cjs for CommonJS)');
  if (!pkg.engines?.node) problems.push('"engines.node" is missing');
  return problems;
}

/** Rewrites the derived fields in place, keeping every other field and its position. */
export function writeDerivedFields(dir) {
  const path = join(dir, 'package.json');
  const pkg = readJson(path);
  const expected = derivedFields(pkg, dir);
  const next = {};
  for (const [key, value] of Object.entries(pkg)) {
    if (key === 'module' || (key === 'typesVersions' && !expected.typesVersions)) continue;
    next[key] = key in expected ? expected[key] : value;
  }
  // New fields go after "license" (metadata) or after "exports" (entry points), else at the end.
  const after = { repository: 'license', homepage: 'repository', bugs: 'homepage', main: 'exports', types: 'main', typesVersions: 'types' };
  let ordered = next;
  for (const [key, value] of Object.entries(expected)) {
    if (key in ordered) continue;
    const anchor = after[key];
    const out = {};
    let placed = false;
    for (const [k, v] of Object.entries(ordered)) {
      out[k] = v;
      if (k === anchor) {
        out[key] = value;
        placed = true;
      }
    }
    if (!placed) out[key] = value;
    ordered = out;
  }
  const text = `${JSON.stringify(ordered, null, 2)}\n`;
  if (text !== readFileSync(path, 'utf8')) {
    writeFileSync(path, text);
    return true;
  }
  return false;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write');
  let failed = false;
  for (const dir of publishablePackageDirs()) {
    const label = relative(root, dir);
    if (write && writeDerivedFields(dir)) console.log(`${label}/package.json: updated`);
    const problems = manifestProblems(readJson(join(dir, 'package.json')), dir);
    for (const problem of problems) console.error(`${label}/package.json: ${problem}`);
    failed ||= problems.length > 0;
  }
  if (failed) {
    console.error(`\nRun \`node tooling/packaging/src/manifest.mjs --write\` for the derived fields; write description and keywords yourself.`);
    process.exit(1);
  }
  if (!write) console.log('package manifests: ok');
}
