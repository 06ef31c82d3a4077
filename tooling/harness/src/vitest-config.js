// @ts-check
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * Tests import package source, never `dist`, the same way `tsc` does: every workspace package's
 * `exports` has an `@respire/source` condition pointing at its `src/` (also for subpaths such as
 * `@respire/core-scripts/internal`). The rest are Vitest's default server conditions (without
 * `module`: Vitest also hands these to Node, and some packages' `module` builds do not load there).
 */
const conditions = ['@respire/source', 'node', 'development|production'];

/** @returns {string[]} */
function excluded() {
  return (process.env.RESPIRE_TEST_EXCLUDE ?? '')
    .split(',')
    .map((glob) => glob.trim())
    .filter((glob) => glob !== '');
}

/**
 * The shared Vitest config of every package (types in vitest-config.d.ts). Plain JavaScript:
 * Vite loads a package's vitest.config.ts with Node, which cannot import TypeScript from another
 * package.
 * @param {string} packageDir
 * @param {import('./vitest-config.js').RespireTestConfig} [options]
 * @returns {import('vitest/config').ViteUserConfig}
 */
export function respireTestConfig(packageDir, options = {}) {
  const reportDir = process.env.RESPIRE_TEST_REPORT_DIR;
  const name = basename(packageDir);
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: ['test/**/*.test.ts'],
      // RESPIRE_TEST_EXCLUDE: comma-separated globs of test files to leave out of this run (CI's
      // runs on other Node majors leave out the attack suites, which test scripts, not Node).
      exclude: [...configDefaults.exclude, ...excluded()],
      testTimeout: options.testTimeoutMs ?? 20_000,
      // In CI a failed test runs once more; one that then passes is still listed by name as flaky
      // in CI's results (count-tests.mjs). The randomized fault suites opt out with `retry: 0`:
      // there a first failure is a violation, whatever a second seed does.
      retry: process.env.CI ? 1 : 0,
      hookTimeout: 60_000,
      globalSetup: options.redis ? [resolve(root, 'tooling/harness/src/global-setup.ts')] : [],
      reporters: reportDir ? ['default', 'json'] : ['default'],
      ...(reportDir ? { outputFile: { json: resolve(reportDir, `${name}.json`) } } : {}),
    },
  });
}
