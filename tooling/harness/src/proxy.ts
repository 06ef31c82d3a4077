// A loopback TCP proxy for connection faults in tests.
import { connect, createServer, type Socket } from 'node:net';

/** A loopback TCP proxy in front of one server, for connection faults a real network has. */
export interface TcpProxy {
  /** `redis://127.0.0.1:<port>` of the proxy. */
  readonly url: string;
  readonly port: number;
  /** Client connections currently open through the proxy. */
  readonly connections: number;
  /** Client connections accepted since the proxy started. */
  readonly accepted: number;
  /**
   * Resets every connection but the first `keep` (oldest first): an RST to the client and a close
   * to the server, as a load balancer or NAT gateway does when it drops a flow. Returns how many.
   */
  reset(keep?: number): number;
  /** Silently drops all bytes of every connection but the first `keep`, in both directions. */
  freeze(keep?: number): void;
  /** Holds each new connection this long before connecting it to the server (0: at once). */
  delayNewConnections(ms: number): void;
  /** Stops accepting: new connections are refused (ECONNREFUSED), open ones keep working. */
  stopListening(): Promise<void>;
  /** Closes every connection and the listener. */
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  frozen: boolean;
}

/** Starts a {@link TcpProxy} on a free loopback port in front of `127.0.0.1:<targetPort>`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs: Pair[] = [];
  let delayMs = 0;
  let listening = true;
  let accepted = 0;
  const server = createServer((client) => {
    accepted++;
    const pair: Pair = { client, upstream: undefined, frozen: false };
    pairs.push(pair);
    client.on('error', () => {});
    client.once('close', () => {
      pair.upstream?.destroy();
      const index = pairs.indexOf(pair);
      if (index >= 0) pairs.splice(index, 1);
    });
    const open = () => {
      if (client.destroyed) return;
      const upstream = connect(targetPort, '127.0.0.1');
      pair.upstream = upstream;
      upstream.on('error', () => {});
      upstream.once('close', () => client.destroy());
      upstream.on('data', (data) => void (pair.frozen || client.write(data)));
      client.on('data', (data) => void (pair.frozen || upstream.write(data)));
    };
    if (delayMs > 0) setTimeout(open, delayMs);
    else open();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!listening) return resolve();
      listening = false;
      server.close(() => resolve());
      // server.close() waits for open connections; they are the caller's business.
      setImmediate(resolve);
    });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get connections() {
      return pairs.length;
    },
    get accepted() {
      return accepted;
    },
    reset(keep = 0) {
      const victims = pairs.slice(keep);
      for (const pair of victims) {
        pair.client.resetAndDestroy();
        pair.upstream?.destroy();
      }
      return victims.length;
    },
    freeze(keep = 0) {
      for (const pair of pairs.slice(keep)) pair.frozen = true;
    },
    delayNewConnections(ms) {
      delayMs = ms;
    },
    stopListening,
    async close() {
      for (const pair of pairs.splice(0)) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      await stopListening();
    },
  };
}
