import { resolve } from 'node:path';
import type { ViteUserConfig } from 'vitest/config';
import { respireTestConfig } from '../../tooling/harness/src/vitest-config.js';

const config = respireTestConfig(import.meta.dirname, { redis: true, testTimeoutMs: 60_000 });
const packages = resolve(import.meta.dirname, '..');
/** The shared config aliases the older packages; the admin API and this package resolve to source too. */
const aliases = ['admin', 'dashboard'].map((pkg) => ({ find: new RegExp(`^@respire/${pkg}$`), replacement: resolve(packages, pkg, 'src/index.ts') }));
const base = (config.resolve?.alias ?? []) as { find: RegExp; replacement: string }[];

const merged: ViteUserConfig = {
  ...config,
  resolve: { ...config.resolve, alias: [...base, ...aliases] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'hono/jsx' } },
  // Browser and server suites share two cores: one file at a time.
  test: { ...config.test, fileParallelism: false },
};
export default merged;
