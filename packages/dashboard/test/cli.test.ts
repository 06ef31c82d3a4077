// The real `respire-dashboard` binary.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { addWorkerDeadLetter, deadLetterQueueMessages, eventually, sleep, startWorld, xlen, type World } from './support.js';

/**
 * The real `respire-dashboard` binary (dist/cli.js, built from the current source before the
 * suite) against the harness's Redis.
 */
const packageDir = resolve(import.meta.dirname, '..');
const cli = join(packageDir, 'dist', 'cli.js');
const TOKEN = 'a-long-operator-token-0123456789';
const VIEWER = 'a-long-viewer-token-0123456789ab';

let world: World;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  const built = spawnSync(process.execPath, [join(packageDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], {
    cwd: packageDir,
    encoding: 'utf8',
  });
  if (built.status !== 0)
    throw new Error(`building the dashboard failed (run pnpm build first if @respire/admin has no dist):\n${built.stdout}${built.stderr}`);
  world = await startWorld({ label: 'cli' });
  await deadLetterQueueMessages(world, ['cli order']);
  await addWorkerDeadLetter(world, '1-1', ['order-id', '1']);
  dir = mkdtempSync(join(tmpdir(), 'respire-dashboard-cli-'));
}, 120_000);
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});
afterAll(async () => {
  await world?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the binary; resolves when it prints its URL (or exits). */
function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url?: string; code?: number | null; stdout: string; stderr: string; child: ChildProcess; output(): string; errors(): string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve({ stdout, stderr, child, output: () => stdout, errors: () => stderr }), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ url, stdout, stderr, child, output: () => stdout, errors: () => stderr });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, child, output: () => stdout, errors: () => stderr });
    });
  });
}

const resourceArgs = () => ['--queue', world.queue.name, '--stream', world.stream.key, '--dead-letter-stream', world.stream.dead];

describe('respire-dashboard', () => {
  it('--version prints the version of the package.json', async () => {
    const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
    expect(version).toMatch(/^\d+\.\d+\.\d+/);
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `${version}\n` });
  });

  it('refuses to start without a credential (exit 2, with the way to give one) and with a short token', async () => {
    const none = await run(['--url', inject('redisUrl'), '--port', '0', ...resourceArgs()]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no credential: set RESPIRE_DASHBOARD_TOKEN');
    const short = await run(['--url', inject('redisUrl'), '--port', '0'], { RESPIRE_DASHBOARD_TOKEN: 'short' });
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 16 characters');
    const noUrl = await run(['--port', '0'], { RESPIRE_DASHBOARD_TOKEN: TOKEN });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('no Redis URL');
    const orphan = await run(['--url', inject('redisUrl'), '--dead-letter-stream', 'x'], { RESPIRE_DASHBOARD_TOKEN: TOKEN });
    expect(orphan.code).toBe(2);
  });

  it('binds 127.0.0.1, prints its URL, sends a browser to sign in, and accepts the token by form (cookie), Bearer and Basic', async () => {
    const started = await run(['--url', inject('redisUrl'), '--port', '0', ...resourceArgs()], {
      RESPIRE_DASHBOARD_TOKEN: TOKEN,
      RESPIRE_DASHBOARD_VIEWER_TOKEN: VIEWER,
    });
    expect(started.url, started.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    await eventually(() => started.output().includes('sign in as operator (operator), viewer (viewer)'));
    expect(started.output()).toContain('; 1 queue, 1 stream configured\n');
    const url = started.url!;
    const origin = url.replace(/\/$/, '');

    const signedOut = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html' } });
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.get('location')).toBe('/login?next=%2F');
    expect((await fetch(url, { redirect: 'manual' })).status).toBe(401);
    const loginPage = await fetch(`${origin}/login`);
    expect(loginPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(await loginPage.text()).toContain('<label for="token">Token</label>');

    const login = (name: string, token: string, headers: Record<string, string> = { origin, 'sec-fetch-site': 'same-origin' }) =>
      fetch(`${origin}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ name, token, next: '/' }),
      });
    expect((await login('operator', 'wrong-token-wrong-token')).status).toBe(401);
    expect((await login('viewer', TOKEN)).status).toBe(401);
    expect((await login('operator', TOKEN, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    const ok = await login('operator', TOKEN);
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^respire_session=[^;]+; Max-Age=43200; Path=\/; HttpOnly; SameSite=Strict$/);
    const overview = await fetch(url, { headers: { cookie: cookie.split(';')[0]! } });
    expect(overview.status).toBe(200);
    const html = await overview.text();
    expect(html).toContain(world.queue.name);
    expect(html).toMatch(/<span class="principal">operator<\/span>/);
    expect(html).toContain('<form method="post" action="/logout" class="inline"><button type="submit" class="button signout small">Sign out</button></form>');
    const out = await fetch(`${origin}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: cookie.split(';')[0]!, origin, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^respire_session=; Max-Age=0/);
    const tampered = cookie.split(';')[0]!.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    expect((await fetch(url, { redirect: 'manual', headers: { cookie: tampered } })).status).toBe(401);

    expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const asViewer = await fetch(url, { headers: { authorization: `Basic ${Buffer.from(`viewer:${VIEWER}`).toString('base64')}` } });
    expect(await asViewer.text()).toMatch(/<span class="role role-viewer">viewer<\/span>/);
    expect((await fetch(url, { redirect: 'manual', headers: { authorization: `Basic ${Buffer.from(`operator:${VIEWER}`).toString('base64')}` } })).status).toBe(
      401,
    );
  });

  it('reads users with roles from a file (SHA-256 of the tokens) and queues and streams from a config file; the operator retries', async () => {
    const users = join(dir, 'users.json');
    writeFileSync(users, JSON.stringify({ users: [{ name: 'oncall', role: 'operator', tokenSha256: createHash('sha256').update(TOKEN).digest('hex') }] }));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        url: inject('redisUrl'),
        queues: [{ name: world.queue.name }],
        streams: [{ stream: world.stream.key, deadLetterStream: world.stream.dead, label: 'orders' }],
      }),
    );
    const started = await run(['--config', config, '--users', users, '--port', '0', '--base-path', '/respire']);
    expect(started.url, started.stderr).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/respire\/$/);
    const url = started.url!;
    const auth = { authorization: `Bearer ${TOKEN}` };
    const page = await fetch(`${url}dead-letters?id=${encodeURIComponent(world.stream.id)}`, { headers: auth });
    const html = await page.text();
    expect(html).toMatch(/Stream <a class="name" href="[^"]*">orders<\/a>/);
    const csrf = /<meta name="csrf-token" content="([^"]+)"/.exec(html)![1]!;
    const record = /name="record" value="(\d+-\d+)"/.exec(html)![1]!;
    const origin = new URL(url).origin;
    const retried = await fetch(`${url}actions/retry`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...auth, origin, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ id: world.stream.id, record, _csrf: csrf }),
    });
    expect(retried.status).toBe(303);
    expect(await xlen(world, world.stream.dead)).toBe(0);
    // The audit record of the action, one JSON line on stdout.
    const audit = await eventually(() =>
      started
        .output()
        .split('\n')
        .find((line) => line.includes('"audit"')),
    );
    expect(JSON.parse(audit!).audit).toMatchObject({ actor: 'oncall', action: 'retry', resource: world.stream.id, result: 'ok' });
  });

  it('listens on another interface only when --host says so', async () => {
    const started = await run(['--url', inject('redisUrl'), '--port', '0', '--host', '127.0.0.2'], { RESPIRE_DASHBOARD_TOKEN: TOKEN });
    expect(started.url, started.stderr).toMatch(/^http:\/\/127\.0\.0\.2:\d+\/$/);
    await eventually(() => started.output().includes('; 0 queues, 0 streams configured\n'));
    expect((await fetch(started.url!, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });

  it('refuses a hostile or broken users file with exit 2 and a plain message (no stack trace, none of the file echoed)', async () => {
    const env = { PATH: process.env.PATH ?? '' };
    const digest = createHash('sha256').update(TOKEN).digest('hex');
    const files: [string, string, RegExp][] = [
      ['not-json', 'RESPIRE_DASHBOARD_TOKEN=s3cret-value-0123456789', /users file .* is not valid JSON/],
      ['null', 'null', /must hold a JSON object/],
      ['string', '"users"', /must hold a JSON object/],
      ['not-array', '{"users": {"name": "a"}}', /needs a "users" array/],
      ['null-user', '{"users": [null]}', /users\[0\]\.name: must be/],
      ['quote-name', JSON.stringify({ users: [{ name: 'a"<script>', role: 'operator', tokenSha256: digest }] }), /users\[0\]\.name: must be/],
      ['newline-name', JSON.stringify({ users: [{ name: 'alice\nbob', role: 'operator', tokenSha256: digest }] }), /users\[0\]\.name: must be/],
      ['admin-role', JSON.stringify({ users: [{ name: 'alice', role: 'admin', tokenSha256: digest }] }), /role: must be 'viewer' or 'operator'/],
      [
        'twice',
        JSON.stringify({
          users: [
            { name: 'alice', role: 'viewer', tokenSha256: digest },
            { name: 'alice', role: 'operator', tokenSha256: digest },
          ],
        }),
        /appears twice/,
      ],
      ['short-digest', JSON.stringify({ users: [{ name: 'alice', role: 'operator', tokenSha256: 'abc' }] }), /needs a token or a tokenSha256/],
      ['short-token', JSON.stringify({ users: [{ name: 'alice', role: 'operator', token: 'short' }] }), /at least 16 characters/],
      ['object-token', JSON.stringify({ users: [{ name: 'alice', role: 'operator', token: { length: 99 } }] }), /needs a token or a tokenSha256/],
      [
        'proto',
        '{"users": [{"name": "__proto__", "role": "operator", "tokenSha256": "' +
          digest +
          '", "__proto__": {"role": "operator"}}], "__proto__": {"users": []}}',
        /listening on/,
      ],
    ];
    for (const [name, content, expected] of files) {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, content);
      const result = await run(['--url', inject('redisUrl'), '--port', '0', '--users', path], env);
      if (expected.source === 'listening on') {
        expect(result.url, name).toBeDefined();
        result.child.kill('SIGTERM');
        continue;
      }
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toMatch(expected);
      expect(result.stderr, name).not.toMatch(/\n\s+at |s3cret|RESPIRE_DA/);
    }
  });

  it('finding: the start-up line left out what the configuration turned on; it names the audit stream, history, cookies, host names, refresh and job limits', async () => {
    const started = await run(['--url', inject('redisUrl'), '--port', '0', '--discover-queues', ...resourceArgs()], { RESPIRE_DASHBOARD_TOKEN: TOKEN });
    await eventually(() => started.output().includes('bulk jobs:'));
    const out = started.output();
    expect(out).toContain(', discovering queues (bounded SCAN)');
    expect(out).toContain('sessions in an HttpOnly cookie (not Secure: plain HTTP); answers to localhost, 127.0.0.1, ::1');
    expect(out).toContain('audit: stdout and the stream respire:audit; history: a sample every 60 s; auto-refresh: offered every 10 s');
    expect(out).toContain('bulk jobs: 500 records a page, no rate limit, at most 10000000 records a job, 4 at once');
    const quiet = await run(
      [
        '--url',
        inject('redisUrl'),
        '--port',
        '0',
        '--no-audit-stream',
        '--no-history',
        '--job-rate',
        '200',
        '--job-page-size',
        '50',
        '--max-running-jobs',
        '1',
        '--allowed-host',
        'ops.example.com',
        '--poll-interval-ms',
        '0',
      ],
      { RESPIRE_DASHBOARD_TOKEN: TOKEN },
    );
    await eventually(() => quiet.output().includes('bulk jobs:'));
    expect(quiet.output()).toContain('answers to ops.example.com');
    expect(quiet.output()).toContain('audit: stdout only (--no-audit-stream); history: not recorded here (--no-history); auto-refresh: off');
    expect(quiet.output()).toContain('bulk jobs: 50 records a page, at most 200 a second, at most 10000000 records a job, 1 at once');
  });

  it('finding: binding another interface only said so on stdout; now a warning on stderr that it is reachable from other machines', async () => {
    const open = await run(['--url', inject('redisUrl'), '--port', '0', '--host', '0.0.0.0'], { RESPIRE_DASHBOARD_TOKEN: TOKEN });
    expect(open.url, open.stderr).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
    await eventually(() => open.errors().includes('warning: listening on 0.0.0.0'));
    expect(open.errors()).toMatch(/reachable from other machines/);
    expect(open.errors()).toMatch(/--secure-cookies/);
    expect(open.output()).not.toMatch(/warning/);
    const local = await run(['--url', inject('redisUrl'), '--port', '0'], { RESPIRE_DASHBOARD_TOKEN: TOKEN });
    expect(local.url).toBeDefined();
    await sleep(200);
    expect(local.errors()).not.toMatch(/warning/);
  });
});
