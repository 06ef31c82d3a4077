// Packs the publishable packages and checks what a user would download.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { SOURCE_CONDITION, publishablePackageDirs, root } from './manifest.mjs';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (result.error) throw result.error;
  return result;
}

/** `pnpm pack` of every publishable package into `dest`: [{ name, version, dir, tarball }]. */
export function packAll(dest) {
  mkdirSync(dest, { recursive: true });
  return publishablePackageDirs().map((dir) => {
    const result = run('pnpm', ['pack', '--pack-destination', dest, '--json'], { cwd: dir });
    if (result.status !== 0) throw new Error(`pnpm pack failed in ${relative(root, dir)}:\n${result.stdout}${result.stderr}`);
    const { name, version, filename } = JSON.parse(result.stdout);
    return { name, version, dir, tarball: resolve(dest, filename) };
  });
}

function filesUnder(dir, base = dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, base) : [relative(base, path).split('\\').join('/')];
  });
}

/**
 * What the registry's tarball must hold, beyond what publint and attw check: no dev-only export
 * condition or workspace protocol, the LICENSE and README, the metadata, and source maps and
 * declaration maps whose sources are in the tarball. Returns the problems found.
 */
export function contentProblems(extractedDir) {
  const problems = [];
  const files = new Set(filesUnder(extractedDir));
  const text = readFileSync(join(extractedDir, 'package.json'), 'utf8');
  const pkg = JSON.parse(text);
  if (text.includes(SOURCE_CONDITION)) problems.push(`package.json still has the dev-only "${SOURCE_CONDITION}" condition`);
  if (text.includes('workspace:')) problems.push('package.json still has a workspace: dependency');
  if (pkg.publishConfig?.exports) problems.push('package.json still has publishConfig.exports (pnpm applies it on pack; was it packed with pnpm?)');
  const license = files.has('LICENSE') ? readFileSync(join(extractedDir, 'LICENSE'), 'utf8') : '';
  if (!/^MIT License/.test(license) || !license.includes('Respire contributors')) problems.push('LICENSE (MIT, Respire contributors) is missing');
  if (pkg.license !== 'MIT') problems.push('"license" is not MIT');
  if (!files.has('README.md')) problems.push('README.md is missing');
  if (!pkg.repository?.url || !pkg.repository?.directory) problems.push('"repository" with "directory" is missing');
  if (!pkg.homepage) problems.push('"homepage" is missing');
  if (!pkg.bugs?.url) problems.push('"bugs" is missing');
  if (!Array.isArray(pkg.keywords) || pkg.keywords.length === 0) problems.push('"keywords" is missing');
  for (const file of files) {
    if (!file.endsWith('.map')) continue;
    const map = JSON.parse(readFileSync(join(extractedDir, file), 'utf8'));
    const generated = file.slice(0, -'.map'.length);
    if (!files.has(generated)) problems.push(`${file}: maps ${generated}, which is not in the tarball`);
    for (const source of map.sources ?? []) {
      const target = join(dirname(file), map.sourceRoot ?? '', source)
        .split('\\')
        .join('/');
      if (!files.has(target)) problems.push(`${file}: source ${source} is not in the tarball`);
    }
  }
  for (const file of files) {
    if (!/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) continue;
    const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(extractedDir, file), 'utf8'))?.[1];
    if (ref && !ref.startsWith('data:') && !files.has(join(dirname(file), ref).split('\\').join('/'))) {
      problems.push(`${file}: sourceMappingURL ${ref} is not in the tarball`);
    }
  }
  return problems;
}

export function extract(tarball, dest) {
  mkdirSync(dest, { recursive: true });
  const result = run('tar', ['-xzf', tarball, '-C', dest]);
  if (result.status !== 0) throw new Error(`tar failed for ${tarball}: ${result.stderr}`);
  return join(dest, 'package');
}

const bin = (name) => {
  const path = join(root, 'node_modules', '.bin', name);
  if (!existsSync(path)) throw new Error(`${name} is not installed: run pnpm install at the repository root`);
  return path;
};

/** publint in strict mode (warnings fail). Returns [] or the report. */
export function publintProblems(tarball) {
  const result = run(bin('publint'), ['run', tarball, '--strict']);
  return result.status === 0 ? [] : [`${result.stdout}${result.stderr}`.trim()];
}

/**
 * arethetypeswrong over every entry point, for node10, node16 from CommonJS, node16 from ESM and
 * bundler resolution. Returns [] or the report (its table).
 */
export function attwProblems(tarball) {
  const result = run(bin('attw'), [tarball, '--format', 'json']);
  let report;
  try {
    report = JSON.parse(result.stdout);
  } catch {
    return [`attw failed: ${result.stdout}${result.stderr}`.trim()];
  }
  if (result.status === 0 && Object.keys(report.problems ?? {}).length === 0) return [];
  const table = run(bin('attw'), [tarball, '--format', 'table-flipped']);
  return [`${table.stdout}${table.stderr}`.trim()];
}
