// The fake server's command engine (dispatch, MULTI/EXEC, WATCH, blocked clients) and its contract with the commands.
import { createHash } from 'node:crypto';
import type { Acl, AclUser, KeyAccess } from './acl.js';
import type { FakeClock } from './clock.js';
import type { CommandLog } from './command-log.js';
import { Database } from './keyspace.js';
import { CommandError, ErrorReply, NULL_ARRAY, OK, QUEUED, type Reply } from './reply.js';
import type { RespVersion } from './resp.js';
import type { ServerModel } from './versions.js';

/** Per-connection state the commands see. */
export interface ClientState {
  readonly id: number;
  resp: RespVersion;
  dbIndex: number;
  user: AclUser;
  authenticated: boolean;
  name: string;
  libName: string;
  libVersion: string;
  readonly createdAtMs: number;
  lastCommandAtMs: number;
  lastCommand: string;
  readonly address: string;
  multi: { queued: string[][]; failed: boolean } | undefined;
  watched: Set<string> | undefined;
  watchDirty: boolean;
  /** Set while the client waits in a blocking command. */
  blocked: Blocked | undefined;
  /** Closes the connection (CLIENT KILL, faults). */
  close(): void;
}

/** Command flags, as COMMAND INFO reports them; some change how the engine treats a command (`denyoom` does not). */
export type CommandFlag = 'write' | 'readonly' | 'denyoom' | 'noscript' | 'blocking' | 'admin' | 'no-auth' | 'no-multi' | 'fast' | 'allow-busy';

/** Everything a handler may use while executing one command. */
export interface CommandContext {
  readonly engine: Engine;
  readonly client: ClientState;
  readonly db: Database;
  /** The command and its arguments as received (latin1 strings); `args[0]` is the name as sent. */
  readonly args: readonly string[];
  readonly model: ServerModel;
  /** Called from a Lua script: blocking commands must not block. */
  readonly inScript: boolean;
  /** Server time, Unix ms with a fraction. */
  nowMs(): number;
}

/** A handler asks to park the client until keys change or the timeout passes. */
export interface BlockRequest {
  readonly kind: 'block';
  /** Keys (in the client's database) whose modification retries the read. */
  readonly keys: readonly string[];
  /** Milliseconds of server time to wait; 0 waits forever. */
  readonly timeoutMs: number;
  /** Retries the read; undefined means keep waiting. May throw CommandError. */
  retry(): Reply | undefined;
  /** The reply on timeout. */
  timeout(): Reply;
}

export type HandlerResult = Reply | BlockRequest;

export function isBlock(result: HandlerResult): result is BlockRequest {
  return typeof result === 'object' && result !== null && !Array.isArray(result) && (result as BlockRequest).kind === 'block';
}

/** One entry of the command table. */
export interface CommandSpec {
  /** Lower-case name, `xgroup|create` for subcommands. */
  readonly name: string;
  /** Redis arity: N exact, -N at least N (the name counts). */
  readonly arity: number;
  readonly flags: readonly CommandFlag[];
  /** ACL categories without `@`, e.g. `['write', 'stream', 'fast']`. */
  readonly categories: readonly string[];
  /** Positions of key arguments in `args` (the name is position 0). */
  keys(args: readonly string[]): number[];
  /**
   * The key permissions ACL checks need, when Redis's key specs differ from what the flags give
   * (write permission for `write` commands, read for the others): LPOP reads and writes, LLEN neither.
   */
  readonly keyAccess?: KeyAccess;
  /** Whether the modelled server has this command. */
  available?(model: ServerModel): boolean;
  /** Subcommands by lower-case name (XGROUP, XINFO, CLIENT, SCRIPT, ...). */
  readonly subcommands?: Readonly<Record<string, CommandSpec>>;
  handler(ctx: CommandContext): HandlerResult;
}

/** A client parked in a blocking read. */
interface Blocked {
  readonly client: ClientState;
  readonly command: string;
  readonly dbIndex: number;
  readonly keys: readonly string[];
  readonly request: BlockRequest;
  finish(reply: Reply): void;
}

/** Where a command runs. */
type Origin = 'client' | 'script' | 'multi';

/** Lua runtime seam (implemented in lua/runtime.ts) so the engine has no fengari dependency. */
export interface ScriptRunner {
  run(client: ClientState, sha: string, body: string, keys: string[], args: string[], readOnly: boolean): Reply;
  /** Compiles and caches a body; returns its SHA1. @throws CommandError on a compile error. */
  load(body: string): string;
  has(sha: string): boolean;
  body(sha: string): string | undefined;
  flush(): void;
  /** SHA of the script running now, if any. */
  readonly runningSha: string | undefined;
}

export function sha1hex(text: string): string {
  return createHash('sha1').update(Buffer.from(text, 'latin1')).digest('hex');
}

/**
 * The command engine: databases, the command table, dispatch with arity/ACL/MULTI checks,
 * and blocked clients. Execution is synchronous, so every command and script is atomic.
 */
export class Engine {
  readonly databases: Database[] = [];
  readonly clients = new Map<number, ClientState>();
  readonly blocked = new Set<Blocked>();
  private readonly ready = new Set<string>();
  private readonly watching = new Map<string, Set<ClientState>>();
  private nextClientId = 1;
  scripts!: ScriptRunner;
  /** Lines written by redis.log, for assertions. */
  readonly scriptLog: Array<{ level: number; message: string }> = [];

  constructor(
    readonly model: ServerModel,
    readonly clock: FakeClock,
    readonly table: ReadonlyMap<string, CommandSpec>,
    readonly acl: Acl,
    readonly log: CommandLog,
    readonly startedAtMs: number,
    readonly port: () => number,
  ) {
    for (let i = 0; i < 16; i++) {
      this.databases.push(
        new Database(
          () => this.clock.nowMs(),
          (key) => this.touched(i, key),
        ),
      );
    }
  }

  allocateClientId(): number {
    return this.nextClientId++;
  }

  db(client: ClientState): Database {
    return this.databases[client.dbIndex]!;
  }

  /** Resolves a command (and subcommand) spec, or an error message. */
  resolve(args: readonly string[], fromScript: boolean): CommandSpec | string {
    const name = (args[0] ?? '').toLowerCase();
    const spec = this.table.get(name);
    if (!spec || (spec.available && !spec.available(this.model))) {
      if (fromScript) return 'ERR Unknown Redis command called from script';
      return this.unknownCommand(args);
    }
    if (spec.subcommands) {
      if (!this.arityOk(spec, args)) return this.arityError(spec.name, fromScript);
      const subName = (args[1] ?? '').toLowerCase();
      const sub = spec.subcommands[subName];
      if (!sub || (sub.available && !sub.available(this.model))) {
        if (fromScript) return 'ERR Unknown Redis command called from script';
        return this.model.redis7
          ? `ERR unknown subcommand '${args[1]}'. Try ${spec.name.toUpperCase()} HELP.`
          : `ERR Unknown subcommand or wrong number of arguments for '${args[1]}'. Try ${spec.name.toUpperCase()} HELP.`;
      }
      if (!this.arityOk(sub, args)) return this.arityError(sub.name, fromScript);
      return sub;
    }
    if (!this.arityOk(spec, args)) return this.arityError(spec.name, fromScript);
    return spec;
  }

  private arityOk(spec: CommandSpec, args: readonly string[]): boolean {
    return spec.arity >= 0 ? args.length === spec.arity : args.length >= -spec.arity;
  }

  private arityError(name: string, fromScript: boolean): string {
    if (fromScript) return 'ERR Wrong number of args calling Redis command from script';
    return `ERR wrong number of arguments for '${name}' command`;
  }

  private unknownCommand(args: readonly string[]): string {
    const name = args[0] ?? '';
    const rest = args.slice(1);
    let shown = '';
    for (const arg of rest) {
      if (shown.length + arg.length > 128) break;
      shown += this.model.redis7 ? `'${arg.slice(0, 128)}' ` : `\`${arg.slice(0, 128)}\`, `;
    }
    return this.model.redis7
      ? `ERR unknown command '${name.slice(0, 128)}', with args beginning with: ${shown}`
      : `ERR unknown command \`${name.slice(0, 128)}\`, with args beginning with: ${shown}`;
  }

  /** The spec for a command (and subcommand) ignoring arity, or undefined. */
  lookup(args: readonly string[]): CommandSpec | undefined {
    const spec = this.table.get((args[0] ?? '').toLowerCase());
    if (!spec || (spec.available && !spec.available(this.model))) return undefined;
    if (!spec.subcommands) return spec;
    const sub = spec.subcommands[(args[1] ?? '').toLowerCase()];
    return sub && (!sub.available || sub.available(this.model)) ? sub : undefined;
  }

  /** Runs `redis.call`/`redis.pcall` from a script; errors come back as ErrorReply. */
  callFromScript(client: ClientState, args: string[], readOnly: boolean): Reply {
    const resolved = this.resolve(args, true);
    if (typeof resolved === 'string') return new ErrorReply(resolved);
    if (resolved.flags.includes('noscript')) return new ErrorReply('ERR This Redis command is not allowed from script');
    if (readOnly && resolved.flags.includes('write')) return new ErrorReply('ERR Write commands are not allowed from read-only scripts.');
    const denied = this.acl.denial(client.user, resolved, args, this.model);
    if (denied) {
      return new ErrorReply(
        denied.includes('run the')
          ? "ERR The user executing the script can't run this command or subcommand"
          : "ERR The user executing the script can't access at least one of the keys mentioned in the command arguments",
      );
    }
    this.record(client, resolved, args, 'script');
    const result = this.run(client, resolved, args, true);
    return isBlock(result) ? result.timeout() : result;
  }

  /** Upper-case display name: `XGROUP CREATE` for subcommands. */
  static displayName(spec: CommandSpec): string {
    return spec.name.replace('|', ' ').toUpperCase();
  }

  /**
   * Runs a command sent by a client. Returns the reply, or a promise when the client blocks.
   */
  execute(client: ClientState, args: string[]): Reply | Promise<Reply> {
    client.lastCommandAtMs = this.clock.nowMs();
    client.lastCommand = (args[0] ?? '').toLowerCase();
    const resolved = this.resolve(args, false);
    if (client.multi) {
      const name = (args[0] ?? '').toLowerCase();
      if (!['exec', 'discard', 'multi', 'watch', 'quit', 'reset'].includes(name)) {
        if (typeof resolved === 'string') {
          client.multi.failed = true;
          return new ErrorReply(resolved);
        }
        const denied = this.checkAccess(client, resolved, args);
        if (denied) {
          client.multi.failed = true;
          return new ErrorReply(denied);
        }
        if (resolved.flags.includes('no-multi')) return new ErrorReply(`ERR Command not allowed inside a transaction`);
        client.multi.queued.push(args);
        return QUEUED;
      }
    }
    if (typeof resolved === 'string') return new ErrorReply(resolved);
    const denied = this.checkAccess(client, resolved, args);
    if (denied) return new ErrorReply(denied);
    this.record(client, resolved, args, 'client');
    const result = this.run(client, resolved, args, false);
    if (isBlock(result)) return this.park(client, resolved, result);
    this.serveReady();
    return result;
  }

  /** Checks authentication and ACL; returns an error message when refused. */
  checkAccess(client: ClientState, spec: CommandSpec, args: readonly string[]): string | undefined {
    if (!client.authenticated && !spec.flags.includes('no-auth')) return 'NOAUTH Authentication required.';
    return this.acl.denial(client.user, spec, args, this.model);
  }

  /** Display names by spec: computed once, as every command (and every redis.call) is logged. */
  private readonly displayNames = new Map<CommandSpec, string>();

  record(client: ClientState, spec: CommandSpec, args: readonly string[], origin: Origin): void {
    let name = this.displayNames.get(spec);
    if (name === undefined) this.displayNames.set(spec, (name = Engine.displayName(spec)));
    const sha = origin === 'script' ? this.scripts.runningSha || undefined : undefined;
    this.log.record(this.clock.nowMs(), client.id, name, args.slice(spec.name.includes('|') ? 2 : 1), origin, sha);
  }

  /** Runs a resolved command; CommandError becomes an error reply. */
  run(client: ClientState, spec: CommandSpec, args: readonly string[], inScript: boolean): Reply | BlockRequest {
    const ctx: CommandContext = {
      engine: this,
      client,
      db: this.databases[client.dbIndex]!,
      args,
      model: this.model,
      inScript,
      nowMs: () => this.clock.nowMs(),
    };
    try {
      const result = spec.handler(ctx);
      if (isBlock(result) && inScript) return result.timeout();
      return result;
    } catch (error) {
      if (error instanceof CommandError) return new ErrorReply(error.message);
      throw error;
    }
  }

  /** Runs EXEC's queued commands atomically. */
  exec(client: ClientState): Reply {
    const multi = client.multi;
    if (!multi) return new ErrorReply('ERR EXEC without MULTI');
    client.multi = undefined;
    const dirty = client.watchDirty;
    this.unwatch(client);
    if (multi.failed) return new ErrorReply('EXECABORT Transaction discarded because of previous errors.');
    if (dirty) return NULL_ARRAY;
    const replies: Reply[] = [];
    for (const args of multi.queued) {
      const spec = this.resolve(args, false);
      if (typeof spec === 'string') {
        replies.push(new ErrorReply(spec));
        continue;
      }
      this.record(client, spec, args, 'multi');
      const result = this.run(client, spec, args, false);
      replies.push(isBlock(result) ? result.timeout() : result);
    }
    return replies;
  }

  /** Starts MULTI. */
  multi(client: ClientState): Reply {
    if (client.multi) return new ErrorReply('ERR MULTI calls can not be nested');
    client.multi = { queued: [], failed: false };
    return OK;
  }

  discard(client: ClientState): Reply {
    if (!client.multi) return new ErrorReply('ERR DISCARD without MULTI');
    client.multi = undefined;
    this.unwatch(client);
    return OK;
  }

  watch(client: ClientState, keys: readonly string[]): Reply {
    if (client.multi) return new ErrorReply('ERR WATCH inside MULTI is not allowed');
    client.watched ??= new Set();
    for (const key of keys) {
      const qualified = `${client.dbIndex}\u0000${key}`;
      client.watched.add(qualified);
      let set = this.watching.get(qualified);
      if (!set) this.watching.set(qualified, (set = new Set()));
      set.add(client);
    }
    return OK;
  }

  unwatch(client: ClientState): void {
    for (const key of client.watched ?? []) this.watching.get(key)?.delete(client);
    client.watched = undefined;
    client.watchDirty = false;
  }

  private touched(dbIndex: number, key: string): void {
    const qualified = `${dbIndex}\u0000${key}`;
    if (this.blocked.size > 0) this.ready.add(qualified);
    const watchers = this.watching.get(qualified);
    if (watchers) for (const client of watchers) client.watchDirty = true;
  }

  private park(client: ClientState, spec: CommandSpec, request: BlockRequest): Promise<Reply> {
    return new Promise<Reply>((resolve) => {
      let cancelTimer: (() => void) | undefined;
      const blocked: Blocked = {
        client,
        command: Engine.displayName(spec),
        dbIndex: client.dbIndex,
        keys: request.keys,
        request,
        finish: (reply) => {
          if (!this.blocked.delete(blocked)) return;
          cancelTimer?.();
          client.blocked = undefined;
          resolve(reply);
        },
      };
      this.blocked.add(blocked);
      client.blocked = blocked;
      if (request.timeoutMs > 0) {
        cancelTimer = this.clock.schedule(request.timeoutMs, () => {
          blocked.finish(this.safe(() => request.timeout()) ?? null);
          this.serveReady();
        });
      }
    });
  }

  private safe(fn: () => Reply | undefined): Reply | undefined {
    try {
      return fn();
    } catch (error) {
      if (error instanceof CommandError) return new ErrorReply(error.message);
      throw error;
    }
  }

  /** Retries blocked clients whose keys changed, oldest first, until nothing more is ready. */
  serveReady(): void {
    for (let round = 0; this.ready.size > 0 && round < 1000; round++) {
      const ready = new Set(this.ready);
      this.ready.clear();
      for (const blocked of [...this.blocked]) {
        if (!blocked.keys.some((key) => ready.has(`${blocked.dbIndex}\u0000${key}`))) continue;
        const reply = this.safe(() => blocked.request.retry());
        if (reply !== undefined) blocked.finish(reply);
      }
    }
    this.ready.clear();
  }

  /**
   * Ends blocked reads: `timeout` answers as if the timeout passed, `error` with
   * `-UNBLOCKED client unblocked via CLIENT UNBLOCK`. Returns how many clients were unblocked.
   */
  unblock(filter: (blocked: Blocked) => boolean, mode: 'timeout' | 'error'): number {
    let n = 0;
    for (const blocked of [...this.blocked]) {
      if (!filter(blocked)) continue;
      n++;
      blocked.finish(mode === 'error' ? new ErrorReply('UNBLOCKED client unblocked via CLIENT UNBLOCK') : (this.safe(() => blocked.request.timeout()) ?? null));
    }
    return n;
  }

  /** Drops a closed client's state. */
  forget(client: ClientState): void {
    if (client.blocked) {
      this.blocked.delete(client.blocked);
      client.blocked = undefined;
    }
    this.unwatch(client);
    this.clients.delete(client.id);
  }

  flushAll(): void {
    for (const db of this.databases) db.clear();
  }
}
