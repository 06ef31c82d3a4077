// A loopback TCP proxy for connection faults in tests.
import { connect, createServer, type Socket } from 'node:net';
import { isPush, respRequestAt, respValueEnd } from './resp.js';

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
  /**
   * Loses the next request that `fault.match` picks, on whichever connection it comes (only with
   * the `resp` option): `request` drops it unsent, `reply` forwards it and drops the server's reply
   * to it; either way the client connection is then reset, so the client sees the command fail with
   * its outcome unknown, as it would if a network dropped the request or the reply. Requests and
   * replies before it pass through. Resolves with what happened once it has, or with `timeout`
   * when no request matched within `timeoutMs` (the fault is then withdrawn).
   * @throws Error when the proxy was started without `resp`, or another loss is still armed.
   */
  dropNext(fault: RespFault, timeoutMs: number): Promise<RespFaultResult>;
  /** Stops accepting: new connections are refused (ECONNREFUSED), open ones keep working. */
  stopListening(): Promise<void>;
  /** Closes every connection and the listener. */
  close(): Promise<void>;
}

/** A request or reply to lose ({@link TcpProxy.dropNext}). */
export interface RespFault {
  readonly direction: 'request' | 'reply';
  /** Picks the request by its arguments (command name first, as sent). */
  match(args: readonly Buffer[]): boolean;
}

/** What {@link TcpProxy.dropNext} did: the request it picked (its first two arguments, for reports) and whether the loss happened. */
export interface RespFaultResult {
  /** `dropped`: as asked; `closed`: the connection closed before the reply came; `timeout`: no request matched. */
  readonly outcome: 'dropped' | 'closed' | 'timeout';
  readonly command?: string;
}

export interface TcpProxyOptions {
  /**
   * Reads the traffic as RESP, forwarding whole requests and replies, so that
   * {@link TcpProxy.dropNext} can lose one of them. @defaultValue false (bytes pass as they come)
   */
  readonly resp?: boolean;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
  frozen: boolean;
  /** RESP mode: bytes not yet forwarded because they end in an incomplete request or reply. */
  toServer: Buffer;
  toClient: Buffer;
  /** RESP mode: requests forwarded, replies delivered (pushes excluded), and the request whose reply to lose. */
  requests: number;
  replies: number;
  loseReplyOf: number | undefined;
  /** A request was lost: nothing more goes to the server, and the connection resets once this many replies were delivered. */
  resetAtReplies: number | undefined;
}

interface Armed {
  readonly fault: RespFault;
  settle(result: RespFaultResult): void;
}

/** `EVALSHA <sha>`, `XADD <key>`: how a report names a request. */
const describe = (args: readonly Buffer[]) =>
  args
    .slice(0, 2)
    .map((a) => a.toString('latin1', 0, 48))
    .join(' ');

/** Starts a {@link TcpProxy} on a free loopback port in front of `127.0.0.1:<targetPort>`. */
export async function startTcpProxy(targetPort: number, options: TcpProxyOptions = {}): Promise<TcpProxy> {
  const pairs: Pair[] = [];
  let delayMs = 0;
  let listening = true;
  let accepted = 0;
  let armed: Armed | undefined;
  /** The loss in progress, on `pair`: the replies before a lost request, or a reply to lose, are being waited for. */
  let waiting: { pair: Pair; armed: Armed; command: string } | undefined;

  /** Ends the loss in progress on `pair`: the connection resets and the caller learns what happened. */
  const finish = (pair: Pair, outcome: RespFaultResult['outcome']) => {
    if (waiting?.pair !== pair) return;
    const { armed: loss, command } = waiting;
    waiting = undefined;
    resetPair(pair);
    loss.settle({ outcome, command });
  };

  const resetPair = (pair: Pair) => {
    pair.client.resetAndDestroy();
    pair.upstream?.destroy();
  };

  /** RESP mode, client to server: forwards whole requests, or loses the armed one. */
  const fromClient = (pair: Pair, upstream: Socket, data: Buffer) => {
    if (pair.resetAtReplies !== undefined) return;
    const buffer = pair.toServer.length === 0 ? data : Buffer.concat([pair.toServer, data]);
    let at = 0;
    for (;;) {
      const request = respRequestAt(buffer, at);
      if (request === undefined) break;
      const current = armed;
      if (current !== undefined && current.fault.match(request.args)) {
        armed = undefined;
        waiting = { pair, armed: current, command: describe(request.args) };
        if (current.fault.direction === 'request') {
          // The requests before it still get their replies; this one and all after it are lost.
          upstream.write(buffer.subarray(0, at));
          pair.resetAtReplies = pair.requests;
          if (pair.replies === pair.requests) finish(pair, 'dropped');
          return;
        }
        pair.loseReplyOf = pair.requests;
      }
      pair.requests++;
      at = request.end;
    }
    upstream.write(buffer.subarray(0, at));
    pair.toServer = buffer.subarray(at);
  };

  /** RESP mode, server to client: forwards whole replies, or loses the one waited for and resets. */
  const fromServer = (pair: Pair, data: Buffer) => {
    const buffer = pair.toClient.length === 0 ? data : Buffer.concat([pair.toClient, data]);
    let at = 0;
    for (;;) {
      const end = respValueEnd(buffer, at);
      if (end < 0) break;
      if (!isPush(buffer, at)) {
        if (pair.loseReplyOf === pair.replies) {
          pair.client.write(buffer.subarray(0, at));
          return finish(pair, 'dropped');
        }
        pair.replies++;
        if (pair.replies === pair.resetAtReplies) {
          pair.client.write(buffer.subarray(0, end));
          return finish(pair, 'dropped');
        }
      }
      at = end;
    }
    pair.client.write(buffer.subarray(0, at));
    pair.toClient = buffer.subarray(at);
  };

  const server = createServer((client) => {
    accepted++;
    const pair: Pair = {
      client,
      upstream: undefined,
      frozen: false,
      toServer: Buffer.alloc(0),
      toClient: Buffer.alloc(0),
      requests: 0,
      replies: 0,
      loseReplyOf: undefined,
      resetAtReplies: undefined,
    };
    pairs.push(pair);
    client.on('error', () => {});
    client.once('close', () => {
      pair.upstream?.destroy();
      const index = pairs.indexOf(pair);
      if (index >= 0) pairs.splice(index, 1);
      // Closed before the loss happened (a lost request's earlier replies count as delivered enough).
      finish(pair, pair.resetAtReplies === undefined ? 'closed' : 'dropped');
    });
    const open = () => {
      if (client.destroyed) return;
      const upstream = connect(targetPort, '127.0.0.1');
      pair.upstream = upstream;
      upstream.on('error', () => {});
      upstream.once('close', () => client.destroy());
      if (options.resp) {
        upstream.on('data', (data: Buffer) => void (pair.frozen || fromServer(pair, data)));
        client.on('data', (data: Buffer) => void (pair.frozen || fromClient(pair, upstream, data)));
      } else {
        upstream.on('data', (data) => void (pair.frozen || client.write(data)));
        client.on('data', (data) => void (pair.frozen || upstream.write(data)));
      }
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
      for (const pair of victims) resetPair(pair);
      return victims.length;
    },
    freeze(keep = 0) {
      for (const pair of pairs.slice(keep)) pair.frozen = true;
    },
    delayNewConnections(ms) {
      delayMs = ms;
    },
    dropNext(fault, timeoutMs) {
      if (!options.resp) throw new Error('dropNext needs a proxy started with { resp: true }');
      if (armed !== undefined || waiting !== undefined) throw new Error('dropNext: another loss is still armed');
      return new Promise<RespFaultResult>((resolve) => {
        const timer = setTimeout(() => {
          if (armed !== entry) return;
          armed = undefined;
          resolve({ outcome: 'timeout' });
        }, timeoutMs);
        const entry: Armed = {
          fault,
          settle: (result) => {
            clearTimeout(timer);
            resolve(result);
          },
        };
        armed = entry;
      });
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
