import type { ViteUserConfig } from 'vitest/config';
import { respireTestConfig } from '@respire/harness/vitest';

const config = respireTestConfig(import.meta.dirname, { redis: true, testTimeoutMs: 60_000 });

const merged: ViteUserConfig = {
  ...config,
  oxc: { jsx: { runtime: 'automatic', importSource: 'hono/jsx' } },
  // Browser and server suites share two cores: one file at a time.
  test: { ...config.test, fileParallelism: false },
};
export default merged;
