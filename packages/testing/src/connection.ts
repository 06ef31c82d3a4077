// One client connection of the fake server: RESP in, replies out, faults applied.
import type { Socket } from 'node:net';
import type { ClientState, Engine } from './engine.js';
import type { FaultInjector } from './faults.js';
import { ErrorReply, type Reply } from './reply.js';
import { ProtocolError, RespParser, type ReplyEncoder } from './resp.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One client connection: parses requests, runs them in order through the engine (a blocked
 * command holds back the ones pipelined behind it, as in Redis), applies faults and writes replies.
 */
export class Connection {
  readonly client: ClientState;
  private readonly parser = new RespParser();
  private readonly queue: string[][] = [];
  private busy = false;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly engine: Engine,
    private readonly faults: FaultInjector,
    private readonly encoder: ReplyEncoder,
    private readonly onClose: (connection: Connection) => void,
  ) {
    const now = engine.clock.nowMs();
    this.client = {
      id: engine.allocateClientId(),
      resp: 2,
      dbIndex: 0,
      user: engine.acl.defaultUser,
      authenticated: engine.acl.defaultUser.nopass && engine.acl.defaultUser.enabled,
      name: '',
      libName: '',
      libVersion: '',
      createdAtMs: now,
      lastCommandAtMs: now,
      lastCommand: 'NULL',
      address: `${socket.remoteAddress ?? '127.0.0.1'}:${socket.remotePort ?? 0}`,
      multi: undefined,
      watched: undefined,
      watchDirty: false,
      blocked: undefined,
      close: () => this.close(),
    };
    engine.clients.set(this.client.id, this.client);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.close());
    socket.on('error', () => this.close());
  }

  /** Closes the socket at once (no reply for anything in flight). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.engine.forget(this.client);
    this.socket.destroy();
    this.onClose(this);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    try {
      for (const args of this.parser.push(chunk)) this.queue.push(args);
    } catch (error) {
      if (error instanceof ProtocolError) {
        this.write(new ErrorReply(error.message));
        this.socket.end();
        this.close();
        return;
      }
      throw error;
    }
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    this.socket.cork();
    try {
      while (this.queue.length > 0 && !this.closed) {
        const pending = this.handle(this.queue.shift()!);
        if (pending) {
          this.socket.uncork();
          await pending;
          this.socket.cork();
        }
      }
    } finally {
      this.busy = false;
      if (!this.closed) this.socket.uncork();
    }
  }

  /** Handles one command; returns a promise only when something must wait. */
  private handle(args: string[]): Promise<void> | undefined {
    const before = this.faults.take('before', args);
    if (before) {
      if (before.type === 'error') {
        this.write(new ErrorReply(before.message));
        return undefined;
      }
      if (before.type === 'drop' || before.type === 'lost-reply') {
        this.close();
        return undefined;
      }
      return sleep(before.ms).then(() => this.execute(args));
    }
    return this.execute(args);
  }

  private execute(args: string[]): Promise<void> | undefined {
    if (this.closed) return undefined;
    let result: Reply | Promise<Reply>;
    try {
      result = this.engine.execute(this.client, args);
    } catch (error) {
      // A bug in the fake must not take the test process down: answer it as an error reply.
      result = new ErrorReply(`ERR internal error in the fake server: ${(error as Error).message}`);
    }
    if (result instanceof Promise) return result.then((reply) => this.finish(args, reply));
    return this.finish(args, result);
  }

  private finish(args: string[], reply: Reply): Promise<void> | undefined {
    const after = this.faults.take('after', args);
    if (!after) {
      this.write(reply);
      return undefined;
    }
    if (after.type === 'error') this.write(new ErrorReply(after.message));
    else if (after.type === 'drop' || after.type === 'lost-reply') this.close();
    else return sleep(after.ms).then(() => this.write(reply));
    return undefined;
  }

  private write(reply: Reply): void {
    if (this.closed) return;
    this.socket.write(this.encoder.encode(reply, this.client.resp));
  }
}
