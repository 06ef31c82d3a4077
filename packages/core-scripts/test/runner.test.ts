// The script runner (EVALSHA, NOSCRIPT fallback, error mapping), the reply decoders and codegen.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { isRespireError } from '@respire/core-scripts';
import { commandTarget, runScript, scripts, toRespireError } from '@respire/core-scripts/internal';
import type { ScriptDefinition } from '../src/script.js';
import type {} from '@respire/harness/global-setup'; // the ProvidedContext keys inject() reads
import { decodeAdminAckPendingReply, decodeQueueReceiveReply, decodeWorkerCompleteReply } from '../src/generated/replies.js';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

describe('script runner', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('redisUrl') });
    await client.connect();
  });
  afterAll(() => client.destroy());

  const echo: ScriptDefinition = {
    name: 'test-echo',
    numberOfKeys: 1,
    source: 'return { KEYS[1], ARGV[1] }',
    sha1: '',
  };

  it('registers each script under the SHA1 the server computes', async () => {
    for (const script of Object.values(scripts.allScripts)) {
      expect(await client.sendCommand(['SCRIPT', 'LOAD', script.source]), script.name).toBe(script.sha1);
    }
  });

  async function commandCalls(name: string): Promise<number> {
    const info = String(await client.sendCommand(['INFO', 'commandstats']));
    // A NOSCRIPT reply counts in `calls` (and in failed_calls).
    return Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  }

  it('falls back to EVAL on NOSCRIPT, so SCRIPT FLUSH is invisible to the caller', async () => {
    const sha1 = String(await client.sendCommand(['SCRIPT', 'LOAD', echo.source]));
    await client.sendCommand(['SCRIPT', 'FLUSH']);
    const target = commandTarget(client);
    const [evalBefore, evalshaBefore] = [await commandCalls('eval'), await commandCalls('evalsha')];
    expect(await runScript(target, { ...echo, sha1 }, ['k'], ['v'])).toEqual(['k', 'v']);
    expect(await commandCalls('eval')).toBe(evalBefore + 1);
    expect(await commandCalls('evalsha')).toBe(evalshaBefore + 1);
    // The EVAL cached the script again: the next call is a plain EVALSHA.
    expect(await runScript(target, { ...echo, sha1 }, ['k'], ['w'])).toEqual(['k', 'w']);
    expect(await commandCalls('eval')).toBe(evalBefore + 1);
    await client.sendCommand(['SCRIPT', 'FLUSH']);
    const replies: unknown[] = await Promise.all(Array.from({ length: 20 }, (_, i) => runScript(target, { ...echo, sha1 }, ['k'], [String(i)])));
    expect(replies.map((r) => (r as string[])[1])).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });

  it('returns Buffers in binary mode', async () => {
    const reply = (await runScript(commandTarget(client), { ...echo, sha1: 'f'.repeat(40) }, ['k'], [Buffer.from([0, 255])], { binary: true })) as Buffer[];
    expect(Buffer.isBuffer(reply[1])).toBe(true);
    expect([...reply[1]!]).toEqual([0, 255]);
  });

  it('maps server replies to typed errors and other failures to transport errors', async () => {
    const failing = (source: string): ScriptDefinition => ({ name: 'test-fail', numberOfKeys: 1, source, sha1: '0'.repeat(40) });
    const run = (source: string) =>
      runScript(commandTarget(client), failing(source), ['k'], []).then(
        () => null,
        (e: unknown) => e,
      );
    expect(isRespireError(await run("error({err='RESPIRE_NOPERM XDEL on k is not permitted'})"), 'PERMISSION_DENIED')).toBe(true);
    expect(isRespireError(await run("error({err='RESPIRE_WRONGTYPE k holds a string'})"), 'WRONG_TYPE')).toBe(true);
    expect(isRespireError(await run("error({err='RESPIRE_UNSUPPORTED old'})"), 'UNSUPPORTED_SERVER')).toBe(true);
    await client.set('{s}str', 'x');
    expect(isRespireError(await run("return redis.call('XLEN', '{s}str')"), 'WRONG_TYPE')).toBe(true);
    const other = await run("return redis.call('NOSUCHCOMMAND')");
    expect(isRespireError(other, 'SERVER_ERROR')).toBe(true);
    expect(isRespireError(toRespireError(new Error('Socket closed unexpectedly'), 'op'), 'TRANSPORT_FAILED')).toBe(true);
  });

  it('checks the number of keys against the script header', async () => {
    await expect(runScript(commandTarget(client), scripts.queueReceive, ['only-one'], [])).rejects.toThrow(/takes 3 keys/);
    // A variadic KEYS tail (queue-send-many's deduplication keys): at least the fixed ones.
    expect(scripts.queueSendMany).toMatchObject({ numberOfKeys: 1, variadicKeys: true });
    await expect(runScript(commandTarget(client), scripts.queueSendMany, [], [])).rejects.toThrow(/takes at least 1 keys/);
  });
});

describe('generated reply decoders', () => {
  it('decode each script reply into its declared type, under RESP2 strings and RESP3 Buffers alike', () => {
    expect(decodeWorkerCompleteReply([1, 0, 2, 3, 4, -1])).toEqual(['acknowledged', 'pending', 'released', 'deadLettered', 'deleted', 'stale']);
    const payload = Buffer.from([0, 255]);
    expect(decodeQueueReceiveReply([2, Buffer.from('1-1'), payload, 3, Buffer.alloc(0)])).toEqual({
      deadLettered: 2,
      entries: [{ id: '1-1', payload, deliveryCount: 3, headers: Buffer.alloc(0) }],
    });
    expect(decodeQueueReceiveReply([0])).toEqual({ deadLettered: 0, entries: [] });
    expect(decodeAdminAckPendingReply([1, Buffer.from('c'), 2, ['g2', 'g1']])).toEqual({
      status: 'acknowledged',
      consumer: 'c',
      deliveryCount: 2,
      keptFor: ['g2', 'g1'],
    });
    expect(decodeAdminAckPendingReply([0, '', 0])).toEqual({ status: 'notPending' });
    expect(decodeAdminAckPendingReply([-1, 'other', 5])).toEqual({ status: 'changed', consumer: 'other', deliveryCount: 5 });
  });

  it('refuse a reply of another shape with a RespireServerError naming the operation', () => {
    const shapeError = (decode: () => unknown) => {
      try {
        decode();
      } catch (error) {
        expect(isRespireError(error, 'SERVER_ERROR'), String(error)).toBe(true);
        return (error as Error).message;
      }
      throw new Error('no error');
    };
    expect(shapeError(() => decodeWorkerCompleteReply([1, 7], 'StreamWorker completion'))).toBe(
      'StreamWorker completion: unexpected script reply: expected one of the codes 1, 0, 2, 3, 4, -1, got 7',
    );
    expect(shapeError(() => decodeQueueReceiveReply([0, '1-1', Buffer.alloc(0)]))).toMatch(/^queue-receive: unexpected script reply: expected groups of 4/);
    expect(shapeError(() => decodeQueueReceiveReply('OK'))).toMatch(/expected an array of at least 1 elements, got "OK"/);
    expect(shapeError(() => decodeAdminAckPendingReply([9, '', 0]))).toMatch(/a table opening with one of the codes 1, 0, -1/);
  });
});

describe('codegen', () => {
  it('the committed registry is up to date', () => {
    expect(() => execFileSync('node', ['scripts/codegen.mjs', '--check'], { cwd: packageDir, stdio: 'pipe' })).not.toThrow();
  });

  const scratchDirs: string[] = [];
  /** A copy of the codegen script with the given lua/ files, removed when the test finishes. */
  function scratchPackage(files: Record<string, string>): string {
    const dir = mkdtempSync(join(tmpdir(), 'respire-codegen-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(join(packageDir, 'scripts'), join(dir, 'scripts'), { recursive: true });
    execFileSync('mkdir', ['-p', join(dir, 'lua', 'includes'), join(dir, 'src', 'generated')]);
    for (const [path, text] of Object.entries(files)) writeFileSync(join(dir, 'lua', path), text);
    return dir;
  }

  it('fails the build on a missing include and on an include cycle', () => {
    const missing = scratchPackage({ 'a.lua': '--[[\nKEYS[1] k\nReply int\n]]\n--@include nope\nreturn 1\n' });
    expect(() => execFileSync('node', ['scripts/codegen.mjs'], { cwd: missing, stdio: 'pipe' })).toThrow(/missing include 'nope'/);
    const cycle = scratchPackage({
      'a.lua': '--[[\nKEYS[1] k\nReply int\n]]\n--@include x\nreturn 1\n',
      'includes/x.lua': '--@include y\n',
      'includes/y.lua': '--@include x\n',
    });
    expect(() => execFileSync('node', ['scripts/codegen.mjs'], { cwd: cycle, stdio: 'pipe' })).toThrow(/include cycle/);
  });

  it('wraps each script by the names its header gives KEYS and ARGV, and fails on a line that names none', () => {
    const named = scratchPackage({
      'a.lua':
        '--[[ a: test\nKEYS[1]  stream: source stream  (stream)\nARGV[1]  count: page size\nARGV[2..] pairs: id, value, ...\nReply    int\n]]\nreturn 1\n',
    });
    execFileSync('node', ['scripts/codegen.mjs'], { cwd: named, stdio: 'pipe' });
    const calls = readFileSync(join(named, 'src', 'generated', 'calls.ts'), 'utf8');
    expect(calls).toContain('runScript(target, scripts.a, [args.stream], [args.count, ...args.pairs], options)');
    const unnamed = scratchPackage({ 'a.lua': '--[[ a: test\nKEYS[1]  source stream  (stream)\nReply    int\n]]\nreturn 1\n' });
    expect(() => execFileSync('node', ['scripts/codegen.mjs'], { cwd: unnamed, stdio: 'pipe' })).toThrow(/names no argument/);
  });

  it('inlines each include once', () => {
    const dir = scratchPackage({
      'a.lua': '--[[\nKEYS[1] k\nReply int\n]]\n--@include x\n--@include y\nreturn from_x()\n',
      'includes/x.lua': '--@include y\nlocal function from_x() return from_y() end\n',
      'includes/y.lua': 'local function from_y() end\n',
    });
    execFileSync('node', ['scripts/codegen.mjs'], { cwd: dir, stdio: 'pipe' });
    const generated = execFileSync('cat', [join(dir, 'src', 'generated', 'scripts.ts')]).toString();
    expect(generated.match(/local function from_y/g)).toHaveLength(1);
    expect(generated).toContain('numberOfKeys: 1');
    scratchDirs.push(dir);
  });

  /** Runs codegen on one script with this header body (after `KEYS[1] k`); returns replies.ts, or throws. */
  const generateReplies = (header: string, body = 'return 1') => {
    const dir = scratchPackage({ 'a.lua': `--[[ a: test\nKEYS[1]  k\n${header}\n]]\n${body}\n` });
    execFileSync('node', ['scripts/codegen.mjs'], { cwd: dir, stdio: 'pipe' });
    return {
      replies: readFileSync(join(dir, 'src', 'generated', 'replies.ts'), 'utf8'),
      registry: readFileSync(join(dir, 'src', 'generated', 'scripts.ts'), 'utf8'),
    };
  };

  it('types each reply from its Reply line: scalars, codes, strings, arrays, tables, groups and tagged tables', () => {
    const { replies, registry } = generateReplies(
      "Reply    { n: int, ok: flag, tags: [string], state: 'on' | 'off', outcome: 1 done | -1 stale, '', ...rows: { id: string, body: bytes } }\n         prose after the type",
    );
    expect(replies).toContain(
      'export type AReply = { readonly n: number; readonly ok: boolean; readonly tags: string[]; readonly state: "on" | "off"; readonly outcome: "done" | "stale"; readonly rows: { readonly id: string; readonly body: Buffer }[] };',
    );
    expect(registry).toContain('binaryReply: true');
    const tagged = generateReplies("Reply    [{ 1 retried, entryId: string } | { 0 missing, '' }]");
    expect(tagged.replies).toContain('export type AReply = ({ readonly status: "retried"; readonly entryId: string } | { readonly status: "missing" })[];');
    expect(tagged.registry).toContain('binaryReply: false');
  });

  it('fails codegen on a missing or malformed Reply line, and on a RESPIRE_* code no Errors line declares', () => {
    const fails = (header: string, body?: string) => expect(() => generateReplies(header, body)).toThrow();
    expect(() => generateReplies('ARGV[1]  x: y')).toThrow(/no 'Reply' line/);
    expect(() => generateReplies('Reply    number')).toThrow(/unknown type 'number'/);
    expect(() => generateReplies('Reply    { a: int')).toThrow(/Reply: expected/);
    expect(() => generateReplies('Reply    1 done | 1 again')).toThrow(/a code is used twice/);
    expect(() => generateReplies('Reply    1 done | int')).toThrow(/a union is of codes/);
    fails('Reply    { 1 a, status: int }');
    expect(() => generateReplies('Reply    int', "error({ err = 'RESPIRE_NOPE x' })")).toThrow(/raises RESPIRE_NOPE, which no script's Errors line declares/);
    expect(generateReplies('Reply    int\nErrors   RESPIRE_NOPE (a test)', "error({ err = 'RESPIRE_NOPE x' })").replies).toContain(
      'export const SCRIPT_ERROR_CODES = ["RESPIRE_NOPE"] as const;',
    );
  });

  it('drops the include functions and constants a script does not use, keeping what it calls, directly or not', () => {
    const dir = scratchPackage({
      'a.lua': '--[[\nKEYS[1] k\nReply int\n]]\n--@include x\n-- unused_fn is named only in this comment\nreturn used_fn()\n',
      'includes/x.lua': [
        '--[[ include: x\n  used_fn() and unused_fn() and helper()\n]]',
        'local LIMIT = 3',
        "local NAMES = { 'a', 'b' }",
        'local function helper()\n  return LIMIT\nend',
        'local function unused_fn()\n  return NAMES\nend',
        'local function used_fn() return helper() end',
        '',
      ].join('\n'),
    });
    execFileSync('node', ['scripts/codegen.mjs'], { cwd: dir, stdio: 'pipe' });
    const source = readFileSync(join(dir, 'src', 'generated', 'scripts.ts'), 'utf8');
    expect(source).toContain('local function helper()');
    expect(source).toContain('local function used_fn()');
    expect(source).toContain('local LIMIT = 3');
    expect(source).not.toContain('local function unused_fn');
    expect(source).not.toContain('local NAMES');
    const unclosed = scratchPackage({
      'a.lua': '--[[\nKEYS[1] k\nReply int\n]]\n--@include x\nreturn f()\n',
      'includes/x.lua': 'local function f()\n  return 1\n  end\nlocal function g()\n  return 2\nend\n',
    });
    expect(() => execFileSync('node', ['scripts/codegen.mjs'], { cwd: unclosed, stdio: 'pipe' })).toThrow(/local function f has no 'end' in the first column/);
  });

  it('leaves no scratch directory behind', () => {
    expect(scratchDirs).toHaveLength(1);
    expect(scratchDirs.filter((dir) => existsSync(dir))).toEqual([]);
  });
});
