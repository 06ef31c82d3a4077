// Running a TypeScript snippet in a child process, for tests of process-level behaviour.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `node --import` module that lets a child process load the packages' TypeScript source. */
const REGISTER = fileURLToPath(new URL('./ts-child-register.mjs', import.meta.url));

/** How a child process ended. */
export interface ChildExit {
  /** True when the process exited on its own before the deadline; false when it had to be killed. */
  readonly exitedByItself: boolean;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Everything it wrote to stdout and stderr. */
  readonly output: string;
}

/** A Node.js child process running an ES module script (see {@link spawnTypeScriptChild}). */
export interface TypeScriptChild {
  readonly process: ChildProcess;
  /** Everything the child wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves once the output contains `text`; rejects (with the output) when the child exits first or `timeoutMs` passes. */
  waitForOutput(text: string, timeoutMs: number): Promise<void>;
  /**
   * Waits up to `timeoutMs` for the process to exit by itself (its event loop emptied, or it
   * called `process.exit`); kills it with SIGKILL when it does not.
   */
  exit(timeoutMs: number): Promise<ChildExit>;
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Runs `script` (ES module source) in a child Node.js process started in `cwd`, a package
 * directory: `@respire/*` imports load the packages' TypeScript source (the `@respire/source`
 * export condition, transpiled on load), the package can import itself by name, and bare imports
 * such as `redis` resolve from that package's dependencies. Use it for what a test process
 * cannot observe about itself: whether the event loop empties so the process can exit, or
 * unhandled rejections that a test runner would intercept.
 */
export function spawnTypeScriptChild(script: string, options: { cwd: string; env?: NodeJS.ProcessEnv; detached?: boolean }): TypeScriptChild {
  const child = spawn(process.execPath, ['--conditions=@respire/source', '--import', REGISTER, '--input-type=module', '--eval', script], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group (`process.kill(-pid, signal)` signals the group, as a terminal's Ctrl-C does).
    detached: options.detached ?? false,
  });
  children.add(child);
  let output = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) waiter();
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
      for (const waiter of waiters) waiter();
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  return {
    process: child,
    output: () => output,
    waitForOutput: (text, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => finish(new Error(`child did not print '${text}' within ${timeoutMs} ms; output:\n${output}`)), timeoutMs);
        const finish = (error?: Error) => {
          clearTimeout(timer);
          waiters.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (output.includes(text)) finish();
          else if (!running()) finish(new Error(`child exited before printing '${text}'; output:\n${output}`));
        };
        waiters.add(check);
        check();
      }),
    exit: async (timeoutMs) => {
      let timer: NodeJS.Timeout | undefined;
      const byItself = await Promise.race([exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
      clearTimeout(timer);
      if (!byItself) child.kill('SIGKILL');
      const { code, signal } = await exited;
      return { exitedByItself: byItself, code, signal, output };
    },
  };
}
