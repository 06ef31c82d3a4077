// A private server does not outlive the process that started it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, spawnTypeScriptChild } from '../src/index.js';

/**
 * A private server runs in its own process group, so a terminal's Ctrl-C (SIGINT to the
 * foreground group) reaches only the program, which may shut down against a live server; and the
 * program's process stops its servers on every way out, so none is left behind.
 */
const harnessDir = join(import.meta.dirname, '..');

/** False once `pid` has exited (gone, or a zombie nobody has reaped yet). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

const tmpDirs: string[] = [];
const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) if (running(pid)) process.kill(pid, 'SIGKILL');
  for (const dir of tmpDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `body` (ES module source, after `server` and `client` exist) in a child process in its own
 * process group, with its own TMPDIR; resolves once the child has printed its server's pid.
 */
async function childWithServer(body: string) {
  const tmp = mkdtempSync(join(tmpdir(), 'respire-harness-test-'));
  tmpDirs.push(tmp);
  const script = `
    import { createClient } from 'redis';
    import { startRedisServer } from '@respire/harness';
    const server = await startRedisServer();
    const client = createClient({ url: server.url });
    client.on('error', (error) => console.log('client error: ' + error.message));
    await client.connect();
    ${body}
    console.log('server pid ' + server.pid + ' ready');
    setInterval(() => {}, 1000);
  `;
  const child = spawnTypeScriptChild(script, { cwd: harnessDir, env: { TMPDIR: tmp }, detached: true });
  await child.waitForOutput(' ready', 20_000);
  const pid = Number(/server pid (\d+) ready/.exec(child.output())![1]);
  pids.push(pid);
  expect(running(pid)).toBe(true);
  expect(readdirSync(tmp).filter((name) => name.startsWith('respire-redis-'))).toHaveLength(1);
  /** Sends `signal` to the child's whole process group, as a terminal's Ctrl-C sends SIGINT. */
  const signalGroup = (signal: NodeJS.Signals) => process.kill(-child.process.pid!, signal);
  const serverDirs = () => readdirSync(tmp).filter((name) => name.startsWith('respire-redis-'));
  return { child, pid, signalGroup, serverDirs };
}

describe('a private server and the process that started it', () => {
  it('Ctrl-C to a program without a SIGINT handler: the program dies of SIGINT and its server is gone with its directory', async () => {
    const { child, pid, signalGroup, serverDirs } = await childWithServer('');
    signalGroup('SIGINT');
    const exit = await child.exit(10_000);
    expect({ byItself: exit.exitedByItself, signal: exit.signal }).toEqual({ byItself: true, signal: 'SIGINT' });
    await eventually(() => !running(pid), 5000);
    expect(serverDirs()).toEqual([]);
  }, 30_000);

  it('Ctrl-C to a program that handles SIGINT: its handler still reaches the server, and the server is gone once the program exits', async () => {
    const { child, pid, signalGroup, serverDirs } = await childWithServer(`
      process.once('SIGINT', async () => {
        await new Promise((resolve) => setTimeout(resolve, 500)); // a shutdown that takes a while
        console.log('on SIGINT the server answers ' + (await client.ping()));
        client.destroy();
        process.exit(0); // without closing the server
      });
    `);
    signalGroup('SIGINT');
    const exit = await child.exit(10_000);
    expect({ byItself: exit.exitedByItself, code: exit.code }).toEqual({ byItself: true, code: 0 });
    expect(exit.output).toContain('on SIGINT the server answers PONG');
    expect(exit.output).not.toContain('client error');
    await eventually(() => !running(pid), 5000);
    expect(serverDirs()).toEqual([]);
  }, 30_000);

  it('SIGTERM to a program without a handler: its server is gone', async () => {
    const { child, pid, serverDirs } = await childWithServer('');
    child.process.kill('SIGTERM');
    const exit = await child.exit(10_000);
    expect({ byItself: exit.exitedByItself, signal: exit.signal }).toEqual({ byItself: true, signal: 'SIGTERM' });
    await eventually(() => !running(pid), 5000);
    expect(serverDirs()).toEqual([]);
  }, 30_000);

  it('an uncaught exception: the program exits with code 1 and its server is gone', async () => {
    const { child, pid, serverDirs } = await childWithServer(`setTimeout(() => { throw new Error('boom'); }, 300);`);
    const exit = await child.exit(10_000);
    expect({ byItself: exit.exitedByItself, code: exit.code }).toEqual({ byItself: true, code: 1 });
    expect(exit.output).toContain('boom');
    await eventually(() => !running(pid), 5000);
    expect(serverDirs()).toEqual([]);
  }, 30_000);
});
