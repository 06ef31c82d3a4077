// FakeRedisServer: an in-memory Redis on a loopback port that runs Respire's real Lua.
import { createServer, type AddressInfo, type Server } from 'node:net';
import { Acl, type FakeUserOptions } from './acl.js';
import { FakeClock, type ClockOptions } from './clock.js';
import { CommandLog } from './command-log.js';
import { commandTable, parentFinder } from './commands/index.js';
import { Connection } from './connection.js';
import { Engine, sha1hex } from './engine.js';
import { FaultInjector } from './faults.js';
import { LuaRuntime } from './lua/runtime.js';
import { ReplyEncoder } from './resp.js';
import { serverModel, type RedisVersion, type ServerFlavour, type ServerModel } from './versions.js';

/** A script to name for fault rules, e.g. an entry of `@respire/core-scripts`' `scripts`. */
export interface NamedScript {
  readonly name: string;
  /** SHA1 of the source; computed from `source` when omitted. */
  readonly sha1?: string;
  readonly source?: string;
}

/** Options of {@link FakeRedisServer.start}. */
export interface FakeRedisServerOptions {
  /**
   * The Redis version to model (replies, errors, commands and Lua constants of that version).
   * Ignored for `flavour: 'valkey'`.
   * @defaultValue `'7.0'` (the version CI runs)
   */
  version?: RedisVersion;
  /**
   * `'valkey'` models Valkey 9.1 (Redis 7.2 behaviour, Lua REDIS_VERSION pinned to 7.2.4,
   * `redis.SERVER_NAME == 'valkey'`, no XACKDEL/CLAIM/IDMP/XNACK).
   * @defaultValue `'redis'`
   */
  flavour?: ServerFlavour;
  /**
   * The server clock: options for a new clock, or a clock to share.
   * @defaultValue a real clock (`{ mode: 'real' }`)
   */
  clock?: ClockOptions | FakeClock;
  /** Password of the `default` user (requirepass); clients must AUTH first. @defaultValue none */
  password?: string;
  /** ACL users besides `default`. @defaultValue `[]` */
  users?: readonly FakeUserOptions[];
  /** Scripts to name in fault rules (`faults.inject({ script: 'queue-receive', ... })`). @defaultValue `[]` */
  scripts?: readonly NamedScript[];
  /** Wall-clock limit for one Lua script, ms; longer scripts are aborted with an error. @defaultValue 5000 */
  scriptTimeLimitMs?: number;
  /** How many commands the command log keeps. @defaultValue 10000 */
  commandLogLimit?: number;
  /** TCP port on 127.0.0.1. @defaultValue 0 (a free port) */
  port?: number;
}

/** Option names of {@link FakeRedisServer.start}; a typo such as `flavor` fails instead of being ignored. */
const KNOWN_OPTIONS = new Set(['version', 'flavour', 'clock', 'password', 'users', 'scripts', 'scriptTimeLimitMs', 'commandLogLimit', 'port']);

/**
 * An in-memory Redis server for unit tests, speaking RESP2 and RESP3 on 127.0.0.1, that runs
 * real Lua scripts (fengari), models server versions, follows a controllable clock and injects
 * faults. node-redis v5 and v6 connect to {@link url} unmodified.
 *
 * @example
 * ```ts
 * const server = await FakeRedisServer.start({ version: '8.2', clock: { mode: 'virtual' } });
 * const client = await createClient({ url: server.url }).connect();
 * await client.xAdd('s', '*', { a: '1' });
 * server.clock.advance(30_000);
 * await client.quit();
 * await server.close();
 * ```
 */
export class FakeRedisServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly host = '127.0.0.1';
  /** The server clock: `advance(ms)`, `set(ms)` (virtual), `nowMs()`. */
  readonly clock: FakeClock;
  /** Fault injection and unblocking of parked reads. */
  readonly faults: FaultInjector;
  /** Commands received (and called by scripts), for assertions. */
  readonly commandLog: CommandLog;
  /** What the server models (version, flavour, feature flags). */
  readonly model: ServerModel;
  private readonly connections = new Set<Connection>();
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly server: Server,
    readonly port: number,
    private readonly engine: Engine,
    clock: FakeClock,
    faults: FaultInjector,
    log: CommandLog,
  ) {
    this.url = `redis://127.0.0.1:${port}`;
    this.clock = clock;
    this.faults = faults;
    this.commandLog = log;
    this.model = engine.model;
  }

  /**
   * Starts a server on 127.0.0.1.
   * @throws {@link RangeError} for an unknown version.
   * @throws {@link TypeError} for an unknown option name.
   * @throws {@link Error} when the port cannot be bound.
   */
  static async start(options: FakeRedisServerOptions = {}): Promise<FakeRedisServer> {
    for (const key of Object.keys(options)) {
      if (!KNOWN_OPTIONS.has(key)) throw new TypeError(`FakeRedisServer.start: unknown option '${key}'; known options: ${[...KNOWN_OPTIONS].join(', ')}`);
    }
    const model = serverModel(options.flavour ?? 'redis', options.version ?? '7.0');
    const clock = options.clock instanceof FakeClock ? options.clock : new FakeClock(options.clock);
    const table = commandTable();
    const acl = new Acl(options.password, options.users ?? []);
    acl.parentOf = parentFinder(table);
    const log = new CommandLog(options.commandLogLimit);
    let port = 0;
    const engine = new Engine(model, clock, table, acl, log, clock.nowMs(), () => port);
    engine.scripts = new LuaRuntime(engine, { timeLimitMs: options.scriptTimeLimitMs ?? 5000 });
    const faults = new FaultInjector(engine);
    for (const script of options.scripts ?? []) {
      const sha = script.sha1 ?? (script.source !== undefined ? sha1hex(script.source) : undefined);
      if (sha) faults.nameScript(script.name, sha);
    }
    const encoder = new ReplyEncoder(model.formatDouble);
    const server = createServer();
    const holder: { instance?: FakeRedisServer } = {};
    server.on('connection', (socket) => {
      const owner = holder.instance;
      if (!owner || owner.closing) {
        socket.destroy();
        return;
      }
      const connection = new Connection(socket, engine, faults, encoder, (c) => owner.connections.delete(c));
      owner.connections.add(connection);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
    const instance = new FakeRedisServer(server, port, engine, clock, faults, log);
    holder.instance = instance;
    return instance;
  }

  /** How many clients are connected. */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** Lines scripts wrote with `redis.log`. */
  get scriptLog(): ReadonlyArray<{ level: number; message: string }> {
    return this.engine.scriptLog;
  }

  /** Closes every client connection (as a server restart or network cut would); data is kept. */
  disconnectAll(): void {
    for (const connection of [...this.connections]) connection.close();
  }

  /** Deletes every key in every database (FLUSHALL) and forgets cached scripts. */
  reset(): void {
    this.engine.flushAll();
    this.engine.scripts.flush();
    this.commandLog.clear();
    this.faults.clear();
  }

  /** Closes all connections and stops listening. Idempotent. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.disconnectAll();
      this.clock.dispose();
      this.server.close(() => resolve());
    });
    return this.closing;
  }
}
