// Where the demo's Redis comes from: REDIS_URL, a private redis-server, or the fake server.
import { serverBinary, startRedisServer } from '@respire/harness/servers';

/** Where the demo's Redis comes from. */
export interface DemoRedis {
  readonly url: string;
  readonly description: string;
  close(): Promise<void>;
}

/**
 * Starts a private, non-persistent redis-server (`REDIS_SERVER`, else `redis-server` on PATH) on a
 * free loopback port, as the tests do, or returns null if none is installed.
 */
export async function startPrivateRedis(): Promise<DemoRedis | null> {
  let binary: string;
  try {
    binary = serverBinary();
  } catch {
    return null;
  }
  const server = await startRedisServer({ binary });
  return {
    url: server.url,
    description: `a private ${server.flavour === 'valkey' ? 'valkey' : 'redis'}-server ${server.version} on ${server.host}:${server.port}`,
    close: () => server.close(),
  };
}
