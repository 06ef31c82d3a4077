// ACL users for tests, created on the run's private servers.
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';

/** Credentials of a restricted ACL user created on harness servers. */
export interface AclUser {
  readonly username: string;
  readonly password: string;
  /** The server URL with this user's credentials. */
  urlFor(serverUrl: string): string;
}

/**
 * Creates (or resets) an ACL user on each given harness server with `rules`
 * (ACL SETUSER syntax, e.g. `['~*', '+@all', '-xdel']`). The user is enabled with a random password.
 */
export async function createAclUser(serverUrls: readonly string[], username: string, rules: readonly string[]): Promise<AclUser> {
  const password = randomBytes(12).toString('hex');
  for (const url of serverUrls) {
    const admin = createClient({ url });
    admin.on('error', () => {});
    await admin.connect();
    try {
      await admin.sendCommand(['ACL', 'SETUSER', username, 'reset', 'on', `>${password}`, ...rules]);
    } finally {
      admin.destroy();
    }
  }
  return {
    username,
    password,
    urlFor: (serverUrl) => serverUrl.replace('redis://', `redis://${encodeURIComponent(username)}:${password}@`),
  };
}
