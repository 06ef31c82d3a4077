// Fault injection for the fake server: lost replies, drops, delays, error replies.
import { sha1hex as sha1hexLocal, type Engine } from './engine.js';

/** What a fault does. */
export type FaultAction =
  /** Answer with this error instead of (before) or in place of (after) the real reply, e.g. `READONLY You can't write against a read only replica.` */
  | { readonly type: 'error'; readonly message: string }
  /** Close the connection. Before: the command is not executed. After: executed, no reply (same as `lost-reply`). */
  | { readonly type: 'drop' }
  /** Execute the command, then close the connection before the reply: the caller cannot know the outcome. */
  | { readonly type: 'lost-reply' }
  /** Wait this many real milliseconds before executing (before) or before replying (after). */
  | { readonly type: 'latency'; readonly ms: number };

/** When and how often a fault fires. Give `command` or `script` (or neither: every command). */
export interface FaultRule {
  /** Command name, case-insensitive: `XADD`, or `XGROUP CREATE` / `XGROUP` for subcommands. */
  readonly command?: string;
  /**
   * A script by SHA1 or by name: a name registered with the server's `scripts` option, or the
   * name in a script's header comment (`--[[ queue-receive: ...`). Matches EVAL, EVALSHA,
   * EVAL_RO and EVALSHA_RO of that script.
   */
  readonly script?: string;
  /**
   * Before or after execution.
   * @defaultValue `'after'` for `lost-reply`, else `'before'`
   */
  readonly when?: 'before' | 'after';
  readonly action: FaultAction;
  /**
   * How many times it fires: a count, or `'always'`.
   * @defaultValue 1
   */
  readonly times?: number | 'always';
}

/** A registered fault. */
export interface Fault {
  readonly rule: FaultRule;
  /** How many times it fired so far. */
  readonly hits: number;
  /** Fires left (Infinity for `'always'`). */
  readonly remaining: number;
  /** Removes the fault. */
  remove(): void;
}

class ActiveFault implements Fault {
  hits = 0;
  remaining: number;
  constructor(
    readonly rule: FaultRule,
    private readonly owner: Set<ActiveFault>,
  ) {
    this.remaining = rule.times === 'always' || rule.times === undefined ? (rule.times === 'always' ? Infinity : 1) : rule.times;
  }
  get when(): 'before' | 'after' {
    return this.rule.when ?? (this.rule.action.type === 'lost-reply' ? 'after' : 'before');
  }
  remove(): void {
    this.owner.delete(this);
  }
}

const SCRIPT_COMMANDS = new Set(['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO']);
const HEADER_NAME = /^\s*--\[=*\[\s*([A-Za-z0-9_.:-]+?):/;

/**
 * Fault injection (`server.faults`): errors, dropped connections, lost replies and latency
 * before or after chosen commands or scripts, and unblocking of parked blocking reads.
 */
export class FaultInjector {
  private readonly faults = new Set<ActiveFault>();
  private readonly scriptNames = new Map<string, string>();

  constructor(private readonly engine: Engine) {}

  /**
   * Registers a fault. It applies to commands sent by clients (not to calls inside scripts).
   * @throws {@link RangeError} for a `lost-reply` before execution, a negative latency or a count below 1.
   */
  inject(rule: FaultRule): Fault {
    if (rule.action.type === 'lost-reply' && rule.when === 'before') throw new RangeError("a 'lost-reply' fault happens after execution; use 'drop' before it");
    if (rule.action.type === 'latency' && !(rule.action.ms >= 0)) throw new RangeError('latency ms must be >= 0');
    if (typeof rule.times === 'number' && !(rule.times >= 1)) throw new RangeError('times must be >= 1 or "always"');
    const fault = new ActiveFault(rule, this.faults);
    this.faults.add(fault);
    return fault;
  }

  /** Names a script for `script:` rules (the SHA1 of `source`, or `sha1`). */
  nameScript(name: string, sha1: string): void {
    this.scriptNames.set(sha1.toLowerCase(), name);
  }

  /** Removes every fault. */
  clear(): void {
    this.faults.clear();
  }

  /** The registered faults. */
  list(): readonly Fault[] {
    return [...this.faults];
  }

  /**
   * Ends parked blocking reads (XREAD/XREADGROUP with BLOCK), as `CLIENT UNBLOCK` does:
   * `'error'` answers `-UNBLOCKED client unblocked via CLIENT UNBLOCK`, `'timeout'` answers as
   * if the BLOCK time had passed. Returns how many clients were unblocked.
   * @param filter - only reads of this command, on this key, or of this client ID
   */
  unblock(filter: { command?: string; key?: string; clientId?: number } = {}, mode: 'error' | 'timeout' = 'error'): number {
    return this.engine.unblock(
      (b) =>
        (filter.command === undefined || b.command === filter.command.toUpperCase()) &&
        (filter.key === undefined || b.keys.includes(filter.key)) &&
        (filter.clientId === undefined || b.client.id === filter.clientId),
      mode,
    );
  }

  /** The fault to apply at this point, consuming one fire. @internal */
  take(when: 'before' | 'after', args: readonly string[]): FaultAction | undefined {
    if (this.faults.size === 0) return undefined;
    for (const fault of this.faults) {
      if (fault.when !== when || !this.matches(fault.rule, args)) continue;
      fault.hits++;
      fault.remaining--;
      if (fault.remaining <= 0) this.faults.delete(fault);
      return fault.rule.action;
    }
    return undefined;
  }

  private matches(rule: FaultRule, args: readonly string[]): boolean {
    const name = (args[0] ?? '').toUpperCase();
    if (rule.command !== undefined) {
      const wanted = rule.command.toUpperCase().trim();
      const full = `${name} ${(args[1] ?? '').toUpperCase()}`;
      if (wanted !== name && wanted !== full) return false;
    }
    if (rule.script !== undefined) {
      if (!SCRIPT_COMMANDS.has(name) || args[1] === undefined) return false;
      const sha = name.startsWith('EVALSHA') ? args[1].toLowerCase() : this.shaOf(args[1]);
      const wanted = rule.script.toLowerCase();
      if (wanted === sha) return true;
      if (this.scriptNames.get(sha)?.toLowerCase() === wanted) return true;
      const body = name.startsWith('EVALSHA') ? this.engine.scripts.body(sha) : args[1];
      const header = body === undefined ? undefined : HEADER_NAME.exec(body)?.[1];
      return header !== undefined && header.toLowerCase() === wanted;
    }
    return true;
  }

  private readonly shaCache = new Map<string, string>();
  private shaOf(body: string): string {
    let sha = this.shaCache.get(body);
    if (!sha) {
      sha = sha1hexLocal(body);
      if (this.shaCache.size > 100) this.shaCache.clear();
      this.shaCache.set(body, sha);
    }
    return sha;
  }
}
