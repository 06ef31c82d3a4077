// Types of the shared Vitest configuration.
import type { ViteUserConfig } from 'vitest/config';

export interface RespireTestConfig {
  /** Start the private standalone server and Cluster for this package's tests. */
  redis?: boolean;
  testTimeoutMs?: number;
}

/**
 * The shared Vitest config of every package: source resolution (the `@respire/source` condition,
 * as tsc uses it), the redis-server global setup, and, when `RESPIRE_TEST_REPORT_DIR` is set, a
 * JSON report per package for CI's count.
 */
export function respireTestConfig(packageDir: string, options?: RespireTestConfig): ViteUserConfig;
