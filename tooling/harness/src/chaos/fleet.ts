// A fleet of child processes for chaos suites: started, SIGKILLed, frozen (SIGSTOP) and restarted on demand.
import type { TypeScriptChild } from '../child.js';

/** What happened to a fleet process. */
export type FleetEventKind = 'start' | 'kill' | 'freeze' | 'thaw' | 'stop' | 'exit';

/** One entry of the fleet's timeline. `atMs` is on this process's `performance.now()` clock. */
export interface FleetEvent {
  readonly atMs: number;
  readonly slot: number;
  readonly generation: number;
  readonly kind: FleetEventKind;
  /** For `exit`: the code or signal, and whether the fleet caused it. */
  readonly detail?: string;
}

/** How a fleet process ended. */
export interface FleetExit {
  readonly slot: number;
  readonly generation: number;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** `kill` and `stop` when the fleet ended it (`stop` also for a process replaced by {@link ProcessFleet.replace}); `undefined` when it ended by itself (a crash, a fault). */
  readonly cause: 'kill' | 'stop' | undefined;
  /** The last 4,000 characters it wrote to stdout and stderr. */
  readonly outputTail: string;
}

/** One process of the fleet: the `generation`-th process started in `slot`. */
export interface FleetProcess {
  readonly slot: number;
  readonly generation: number;
  readonly child: TypeScriptChild;
  readonly state: 'running' | 'frozen' | 'exited';
}

export interface ProcessFleetOptions {
  /** Number of slots; each runs one process at a time. */
  readonly size: number;
  /** Starts the `generation`-th process of `slot` (0 first, then 1, 2, ... after each exit). */
  spawn(slot: number, generation: number): TypeScriptChild;
  /** How long after an exit the slot's next process starts (ms). @defaultValue 0 */
  restartDelayMs?(slot: number, generation: number): number;
  /** Each line a process writes to stdout, as it arrives. */
  onLine?(process: FleetProcess, line: string): void;
}

class Member implements FleetProcess {
  readonly slot: number;
  readonly generation: number;
  readonly child: TypeScriptChild;
  state: 'running' | 'frozen' | 'exited' = 'running';
  cause: 'kill' | 'stop' | undefined;
  /** Replaced by the slot's next generation: its exit starts nothing. */
  retired = false;
  readonly exited: Promise<FleetExit>;

  constructor(slot: number, generation: number, child: TypeScriptChild) {
    this.slot = slot;
    this.generation = generation;
    this.child = child;
    this.exited = new Promise((resolve) =>
      child.process.once('exit', (code, signal) => {
        this.state = 'exited';
        resolve({ slot, generation, code, signal, cause: this.cause, outputTail: child.output().slice(-4000) });
      }),
    );
  }

  signal(signal: NodeJS.Signals): void {
    try {
      this.child.process.kill(signal);
    } catch {
      // it exited meanwhile
    }
  }
}

/**
 * Runs `size` slots of child processes. A process that exits, whatever the reason, is replaced by
 * the slot's next generation after {@link ProcessFleetOptions.restartDelayMs} until
 * {@link ProcessFleet.stop}. Every start, kill, freeze, thaw, stop and exit is recorded in
 * {@link ProcessFleet.events}; exits the fleet did not cause are also in {@link ProcessFleet.unexpectedExits}.
 */
export class ProcessFleet {
  readonly events: FleetEvent[] = [];
  readonly unexpectedExits: FleetExit[] = [];
  readonly #options: ProcessFleetOptions;
  readonly #current: (Member | undefined)[];
  /** Processes replaced by {@link ProcessFleet.replace} that have not exited yet. */
  readonly #retiring = new Set<Member>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #stopping = false;

  constructor(options: ProcessFleetOptions) {
    this.#options = options;
    this.#current = new Array<Member | undefined>(options.size).fill(undefined);
  }

  /** Starts generation 0 of every slot. */
  start(): void {
    for (let slot = 0; slot < this.#options.size; slot++) this.#spawn(slot, 0);
  }

  /** The slot's current process (undefined between an exit and the restart). */
  process(slot: number): FleetProcess | undefined {
    return this.#current[slot];
  }

  /** The processes now running (not frozen, not exited), by slot. */
  running(): FleetProcess[] {
    return this.#current.filter((m): m is Member => m !== undefined && m.state === 'running');
  }

  /** Kills the slot's process with SIGKILL (frozen or not) and resolves once it has exited; undefined when none runs. */
  async kill(slot: number): Promise<FleetExit | undefined> {
    const member = this.#current[slot];
    if (member === undefined || member.state === 'exited') return undefined;
    member.cause ??= 'kill';
    this.#record(member, 'kill');
    member.signal('SIGKILL');
    return member.exited;
  }

  /** Stops the slot's running process with SIGSTOP for `ms`, then continues it with SIGCONT (unless it exited meanwhile). */
  freeze(slot: number, ms: number): boolean {
    const member = this.#current[slot];
    if (member === undefined || member.state !== 'running') return false;
    member.signal('SIGSTOP');
    member.state = 'frozen';
    this.#record(member, 'freeze', `${Math.round(ms)} ms`);
    this.#later(ms, () => this.#thaw(member));
    return true;
  }

  /**
   * A rolling restart: the slot's next generation starts now, beside the current process, which is
   * frozen with SIGSTOP for `pauseMs` (so it carries on only once its replacement runs), continues
   * for `termAfterMs` (default 0), then gets SIGTERM, and SIGKILL when it has not exited
   * `timeoutMs` after that. Resolves with its exit (cause `stop`); undefined when the slot had no process.
   */
  async replace(
    slot: number,
    options: { readonly pauseMs: number; readonly termAfterMs?: number; readonly timeoutMs: number },
  ): Promise<FleetExit | undefined> {
    const old = this.#current[slot];
    if (old === undefined || old.state === 'exited') return undefined;
    old.retired = true;
    old.cause ??= 'stop';
    this.#retiring.add(old);
    void old.exited.then(() => this.#retiring.delete(old));
    if (options.pauseMs > 0) this.freeze(slot, options.pauseMs);
    this.#spawn(slot, old.generation + 1);
    await new Promise<void>((resolve) => setTimeout(resolve, options.pauseMs));
    this.#thaw(old);
    if (options.termAfterMs) await new Promise<void>((resolve) => setTimeout(resolve, options.termAfterMs));
    this.#record(old, 'stop');
    old.signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([old.exited, new Promise<void>((resolve) => (timer = setTimeout(resolve, options.timeoutMs)))]);
    clearTimeout(timer);
    old.signal('SIGKILL');
    return old.exited;
  }

  /** Continues every frozen process now (SIGCONT), ahead of its planned thaw. */
  thawAll(): void {
    for (const member of [...this.#current, ...this.#retiring]) if (member !== undefined) this.#thaw(member);
  }

  /**
   * Ends the fleet: no more restarts, frozen processes continue, and each process gets SIGTERM and
   * `timeoutMs` to exit by itself before SIGKILL. Resolves with every process's exit.
   */
  async stop(timeoutMs: number): Promise<FleetExit[]> {
    this.#stopping = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const members = [...this.#current, ...this.#retiring].filter((m): m is Member => m !== undefined && m.state !== 'exited');
    for (const member of members) this.#thaw(member);
    return Promise.all(
      members.map(async (member) => {
        member.cause ??= 'stop';
        this.#record(member, 'stop');
        member.signal('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
        await Promise.race([member.exited, late]);
        clearTimeout(timer);
        member.signal('SIGKILL');
        return member.exited;
      }),
    );
  }

  #spawn(slot: number, generation: number): void {
    const member = new Member(slot, generation, this.#options.spawn(slot, generation));
    this.#current[slot] = member;
    this.#record(member, 'start', member.child.process.pid === undefined ? undefined : `pid ${member.child.process.pid}`);
    let partial = '';
    member.child.process.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) this.#options.onLine?.(member, line);
    });
    void member.exited.then((exit) => {
      this.#record(member, 'exit', `${exit.signal ?? `code ${exit.code}`}${exit.cause ? ` (${exit.cause})` : ''}`);
      if (exit.cause === undefined) this.unexpectedExits.push(exit);
      if (this.#stopping || member.retired) return;
      this.#later(this.#options.restartDelayMs?.(slot, generation + 1) ?? 0, () => this.#spawn(slot, generation + 1));
    });
  }

  #thaw(member: Member): void {
    if (member.state !== 'frozen') return;
    member.signal('SIGCONT');
    member.state = 'running';
    this.#record(member, 'thaw');
  }

  #later(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      action();
    }, ms);
    this.#timers.add(timer);
  }

  #record(member: Member, kind: FleetEventKind, detail?: string): void {
    this.events.push({ atMs: performance.now(), slot: member.slot, generation: member.generation, kind, ...(detail === undefined ? {} : { detail }) });
  }
}
