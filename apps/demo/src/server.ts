import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where the demo's Redis comes from. */
export interface DemoRedis {
  readonly url: string;
  readonly description: string;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Starts a private, non-persistent redis-server on a free loopback port, or returns null if none is installed. */
export async function startPrivateRedis(): Promise<DemoRedis | null> {
  const binary = process.env.REDIS_SERVER || 'redis-server';
  const probe = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) return null;
  const version = /v=([\d.]+)/.exec(probe.stdout)?.[1] ?? '?';
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'respire-demo-'));
  const child = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then(() => reject(new Error(`redis-server exited at startup:\n${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    description: `a private redis-server ${version} on 127.0.0.1:${port}`,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
