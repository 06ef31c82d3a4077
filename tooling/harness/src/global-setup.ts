// Vitest global setup: the run's private server and Cluster, provided to the tests.
import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './cluster.js';
import { startRedisServer } from './servers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the private standalone redis-server of this test run. */
    redisUrl: string;
    /** Version the standalone server reports, e.g. `7.0.15`. */
    redisVersion: string;
    /** `redis` or `valkey`: Valkey 9.1 is not Redis 9.1 (no XACKDEL, no CLAIM, no IDMP). */
    redisFlavour: 'redis' | 'valkey';
    /** Root node URLs of the private 3-master Cluster of this test run. */
    clusterUrls: string[];
  }
}

/**
 * Vitest global setup: one private standalone server and one 3-master Cluster per test run,
 * on free loopback ports, stopped afterwards. A missing redis-server fails the run.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const standalone = await startRedisServer();
  const cluster = await startRedisCluster(standalone.binary);
  project.provide('redisUrl', standalone.url);
  project.provide('redisVersion', standalone.version);
  project.provide('redisFlavour', standalone.flavour);
  project.provide(
    'clusterUrls',
    cluster.rootNodes.map((node) => node.url),
  );
  return async () => {
    await Promise.all([standalone.close(), cluster.close()]);
  };
}
