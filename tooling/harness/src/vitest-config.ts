import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** Tests import package source, never `dist`: every `@respire/<pkg>` resolves to its `src/index.ts`. */
const sourceAliases = ['core-scripts', 'queue', 'worker', 'otel', 'testing'].map((pkg) => ({
  find: new RegExp(`^@respire/${pkg}$`),
  replacement: resolve(root, 'packages', pkg, 'src/index.ts'),
}));

export interface RespireTestConfig {
  /** Start the private standalone server and Cluster for this package's tests. */
  redis?: boolean;
  testTimeoutMs?: number;
}

/**
 * The shared Vitest config of every package: source aliases, the redis-server global setup,
 * and, when `RESPIRE_TEST_REPORT_DIR` is set, a JSON report per package for CI's count.
 */
export function respireTestConfig(packageDir: string, options: RespireTestConfig = {}): ViteUserConfig {
  const reportDir = process.env.RESPIRE_TEST_REPORT_DIR;
  const name = basename(packageDir);
  return defineConfig({
    resolve: { alias: sourceAliases },
    test: {
      include: ['test/**/*.test.ts'],
      testTimeout: options.testTimeoutMs ?? 20_000,
      hookTimeout: 60_000,
      globalSetup: options.redis ? [resolve(root, 'tooling/harness/src/global-setup.ts')] : [],
      reporters: reportDir ? ['default', 'json'] : ['default'],
      ...(reportDir ? { outputFile: { json: resolve(reportDir, `${name}.json`) } } : {}),
    },
  });
}
