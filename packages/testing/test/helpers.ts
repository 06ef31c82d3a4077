// Helpers of the fake server's tests: a server per test, clients of both node-redis versions.
import { createConnection } from 'node:net';
import { createClient } from 'redis';
import type { createClient as createClientV5 } from 'redis5';
import { FakeRedisServer, type FakeRedisServerOptions } from '../src/index.js';

const makeClient = (url: string) => createClient({ url, socket: { reconnectStrategy: false } });
export type V6Client = ReturnType<typeof makeClient>;
export type V5Client = ReturnType<typeof createClientV5>;

/** Starts a fake, runs `body`, closes everything it opened. */
export async function withServer<T>(
  options: FakeRedisServerOptions,
  body: (server: FakeRedisServer, open: (url?: string) => Promise<V6Client>) => Promise<T>,
): Promise<T> {
  const server = await FakeRedisServer.start(options);
  const clients: V6Client[] = [];
  const open = async (url = server.url): Promise<V6Client> => {
    const client = makeClient(url);
    client.on('error', () => {});
    await client.connect();
    clients.push(client);
    return client;
  };
  try {
    return await body(server, open);
  } finally {
    for (const client of clients) client.destroy();
    await server.close();
  }
}

/** Runs a raw command and returns its reply or `{ error }`. */
export async function attempt(client: { sendCommand(args: string[]): Promise<unknown> }, args: string[]): Promise<unknown> {
  try {
    return await client.sendCommand(args);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Sends raw bytes and collects what comes back until `until` matches. */
export function rawExchange(port: number, payload: string, until: RegExp, host = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      if (until.test(received)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on('error', reject);
    socket.write(payload);
  });
}
