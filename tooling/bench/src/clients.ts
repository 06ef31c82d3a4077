// The bench's clients: node-redis with and without its per-command timeout, and a command counter.
import { createClient } from 'redis';

/** The two client settings the bench compares: node-redis 6's default (5 s timeout per command) and no per-command timeout. */
export type ClientSetting = 'default' | 'timeout-0';

export type BenchClient = ReturnType<typeof createClient>;

export async function connect(url: string, setting: ClientSetting): Promise<BenchClient> {
  const client = createClient(setting === 'timeout-0' ? { url, commandOptions: { timeout: 0 } } : { url });
  client.on('error', () => {});
  await client.connect();
  return client as BenchClient;
}

/** Wraps a client so every command it sends is counted: the round trips on the wire. */
export function countingClient<C extends { sendCommand: (...args: never[]) => Promise<unknown> }>(
  client: C,
): { client: C; count: () => number; reset: () => void } {
  let sent = 0;
  const proxy = new Proxy(client, {
    get(target, property, receiver) {
      if (property === 'sendCommand') {
        return (...args: never[]) => {
          sent++;
          return target.sendCommand(...args);
        };
      }
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { client: proxy, count: () => sent, reset: () => void (sent = 0) };
}
