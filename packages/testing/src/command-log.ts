// The fake server's log of commands received and called from scripts, for assertions.
/** One command the fake server received or a script called. */
export interface LoggedCommand {
  /** Increasing number, from 1. */
  readonly seq: number;
  /** Server clock when it ran, Unix ms. */
  readonly atMs: number;
  /** CLIENT ID of the connection. */
  readonly clientId: number;
  /** Upper-case command name, `XGROUP CREATE` style for subcommands. */
  readonly name: string;
  /** Arguments after the name, as UTF-8 text (binary bytes may be replaced). */
  readonly args: readonly string[];
  /** `client` for a command sent by a client, `script` for redis.call/pcall, `multi` for one run by EXEC. */
  readonly origin: 'client' | 'script' | 'multi';
  /** SHA1 of the running script for `script` entries. */
  readonly scriptSha?: string;
}

const decoded = new WeakSet<LoggedCommand>();

/**
 * The commands the server received, for assertions (`server.commandLog`).
 * Keeps the last {@link limit} entries.
 */
export class CommandLog {
  private items: LoggedCommand[] = [];
  private seq = 0;

  /**
   * @param limit - how many entries to keep; older ones are dropped. @defaultValue 10000
   */
  constructor(readonly limit = 10_000) {}

  /**
   * Records an entry; `args` are latin1 byte strings, decoded when read. Positional parameters:
   * this runs for every command and every redis.call, and spreading objects showed in profiles.
   * @internal
   */
  record(atMs: number, clientId: number, name: string, args: readonly string[], origin: LoggedCommand['origin'], scriptSha?: string): void {
    const item: { -readonly [K in keyof LoggedCommand]: LoggedCommand[K] } = { seq: ++this.seq, atMs, clientId, name, args, origin };
    if (scriptSha !== undefined) item.scriptSha = scriptSha;
    this.items.push(item);
    if (this.items.length > this.limit * 2) this.items.splice(0, this.items.length - this.limit);
  }

  /** Every kept entry, oldest first. */
  entries(): readonly LoggedCommand[] {
    if (this.items.length > this.limit) this.items.splice(0, this.items.length - this.limit);
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i]!;
      if (!decoded.has(item)) {
        const copy = { ...item, args: item.args.map((a) => Buffer.from(a, 'latin1').toString('utf8')) };
        decoded.add(copy);
        this.items[i] = copy;
      }
    }
    return this.items;
  }

  /** Names of the kept entries, oldest first; pass an origin to filter (e.g. `'client'`). */
  names(origin?: LoggedCommand['origin']): string[] {
    return this.entries()
      .filter((e) => origin === undefined || e.origin === origin)
      .map((e) => e.name);
  }

  /** Entries whose name equals `name` (case-insensitive). */
  find(name: string): LoggedCommand[] {
    const upper = name.toUpperCase();
    return this.entries().filter((e) => e.name === upper);
  }

  /** Forgets every entry. */
  clear(): void {
    this.items = [];
  }
}
