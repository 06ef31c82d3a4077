// The transport: client detection, the bulk limit, deadlines, routing and failure classes.
import { randomBytes } from 'node:crypto';
import { createClient, createCluster } from 'redis';
import { createClient as createClientV5, createCluster as createClusterV5 } from 'redis5';
import { createClient as createClientV4, createCluster as createClusterV4 } from 'redis4';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isRespireError, type RespireValidationError } from '@respire/core-scripts';
import { commandTarget, isConnectionFailure, isNotSent, replyWithin } from '@respire/core-scripts/internal';
import { MAX_BULK_BYTES, oversizedArgument } from '../src/bulk-limit.js';
import type {} from '@respire/harness/global-setup'; // the ProvidedContext keys inject() reads

/** What commandTarget threw for `client`, as a validation error. */
function refusal(client: unknown): RespireValidationError {
  let thrown: unknown;
  try {
    commandTarget(client);
  } catch (error) {
    thrown = error;
  }
  expect(isRespireError(thrown, 'INVALID_ARGUMENT'), String(thrown)).toBe(true);
  expect((thrown as RespireValidationError).argument).toBe('client');
  return thrown as RespireValidationError;
}

const HOW = /const client = await createClient\(\{ url \}\)\.connect\(\)/;
const unusedCluster = { rootNodes: [{ url: 'redis://127.0.0.1:1' }] };

describe('client detection: what was passed, and what to pass instead', () => {
  it('accepts node-redis v5 and v6 clients and clusters (connected or not)', () => {
    for (const client of [createClient(), createClientV5(), createCluster(unusedCluster), createClusterV5(unusedCluster)]) {
      expect(commandTarget(client).client).toBe(client);
    }
    expect(commandTarget(createCluster(unusedCluster)).isCluster).toBe(true);
  });

  it('refuses a Promise (a forgotten await on connect()) and says to await it', async () => {
    const connecting = createClient({ url: inject('redisUrl') }).connect();
    try {
      const error = refusal(connecting);
      expect(error.message).toMatch(/^client: got a Promise: is an `await` missing\?/);
      expect(error.message).toMatch(HOW);
      // Any thenable, not only a native Promise.
      expect(refusal({ then: () => undefined }).message).toMatch(/got a Promise/);
    } finally {
      (await connecting).destroy();
    }
  });

  it('refuses a URL string or URL object without echoing it (it may carry a password)', () => {
    const error = refusal('redis://user:s3cret@localhost:6379');
    expect(error.message).toMatch(/^client: got a URL string, not a client;/);
    expect(error.message).toMatch(HOW);
    expect(error.message).not.toContain('s3cret');
    expect(refusal(new URL('redis://user:s3cret@localhost:6379')).message).not.toContain('s3cret');
  });

  it('refuses client options and says to create the client from them', () => {
    expect(refusal({ url: 'redis://localhost' }).message).toMatch(/got client options, not a client; .*await createClient\(options\)\.connect\(\)/);
    expect(refusal({ rootNodes: [] }).message).toMatch(/got client options/);
  });

  it('refuses node-redis v4 (standalone, legacy mode and cluster) once, at construction, naming v5/v6', () => {
    for (const client of [createClientV4(), createClientV4({ legacyMode: true }), createClusterV4(unusedCluster)]) {
      const error = refusal(client);
      expect(error.message).toBe(
        "client: is a node-redis v4 client; Respire needs node-redis v5 or v6 (v4's replies have other shapes): upgrade `redis` to ^5 or ^6",
      );
    }
  });

  it('refuses ioredis with its own message', () => {
    const ioredisLike = { sendCommand: async () => null, status: 'ready', duplicate: () => null };
    expect(refusal(ioredisLike).message).toMatch(/^client: looks like an ioredis client, which Respire does not support/);
  });

  it('refuses anything else, saying what it got', () => {
    expect(refusal(undefined).message).toMatch(/^client: got undefined; pass a connected node-redis v5 or v6 client/);
    expect(refusal(null).message).toMatch(/^client: got null;/);
    expect(refusal(42).message).toMatch(/^client: got number;/);
    expect(refusal({}).message).toMatch(/^client: Object is not a node-redis client/);
    class Db {}
    expect(refusal(new Db()).message).toMatch(/^client: Db is not a node-redis client/);
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
      },
    );
    expect(refusal(hostile).message).toMatch(/is not a node-redis client/);
  });
});

describe("Redis's bulk limit (512 MiB per argument), checked before any I/O", () => {
  it('refuses a longer argument with a typed error and sends nothing', async () => {
    const sent: unknown[] = [];
    const target = commandTarget({ isOpen: true, sendCommand: async (args: unknown) => void sent.push(args) });
    // Untouched memory: allocUnsafe does not fill it, so this costs no 512 MiB of RAM.
    const huge = Buffer.allocUnsafe(MAX_BULK_BYTES + 1);
    const error = await target.send('k', ['XADD', 'k', '*', 'payload', huge], { operation: 'Test.append' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'INVALID_ARGUMENT'), String(error)).toBe(true);
    expect((error as RespireValidationError).argument).toBe('payload');
    expect((error as Error).message).toBe(
      'payload: Test.append: a value of 536870913 bytes is longer than the 536870912 bytes (512 MiB) Redis takes in one argument ' +
        '(proto-max-bulk-len); nothing was sent, and no retry can succeed',
    );
    expect(sent).toEqual([]);
    // Exactly at the limit is allowed through.
    await target.send('k', ['SET', 'k', huge.subarray(0, MAX_BULK_BYTES)]);
    expect(sent).toHaveLength(1);
  });

  it('measures strings in UTF-8 bytes', () => {
    expect(MAX_BULK_BYTES).toBe(536_870_912);
    expect(oversizedArgument(['abcd', Buffer.alloc(4)], 4)).toBeUndefined();
    expect(oversizedArgument(['abcde'], 4)).toBe(5);
    expect(oversizedArgument(['éé'], 3)).toBe(4); // 2 characters, 4 bytes
    expect(oversizedArgument(['€'], 2)).toBe(3);
    expect(oversizedArgument(['ok', Buffer.alloc(5)], 4)).toBe(5);
  });
});

describe('a plain command on a key of another type', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('redisUrl') });
    await client.connect();
  });
  afterAll(() => client.destroy());

  it('names the key and both types when the call says what it expects, as the scripts do', async () => {
    const key = `{t-${randomBytes(4).toString('hex')}}:stream`;
    await client.set(key, 'occupied');
    const target = commandTarget(client);
    const error = await target.send(key, ['XADD', key, '*', 'payload', 'x'], { operation: 'Test.append', keyType: { key, type: 'stream' } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE'), String(error)).toBe(true);
    expect((error as Error).name).toBe('RespireKeyTypeError');
    expect((error as Error).message).toBe(`Test.append: ${key} holds a string, expected a stream`);
    // Without the expectation it is still typed, with the server's words.
    const plain = await target.send(key, ['XADD', key, '*', 'payload', 'x']).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(plain, 'WRONG_TYPE')).toBe(true);
    await client.del(key);
  });

  it('says "another type" when the type cannot be read', async () => {
    class ErrorReply extends Error {}
    const target = commandTarget({
      isOpen: true,
      sendCommand: async (args: readonly unknown[]) => {
        throw args[0] === 'TYPE' ? new Error('connection lost') : new ErrorReply('WRONGTYPE Operation against a key holding the wrong kind of value');
      },
    });
    const error = await target.send('k', ['XADD', 'k', '*', 'f', 'v'], { operation: 'Test.append', keyType: { key: 'k', type: 'stream' } }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'WRONG_TYPE')).toBe(true);
    expect((error as Error).message).toBe('Test.append: k holds another type, expected a stream');
  });
});

describe('isNotSent: a command provably never written', () => {
  it('true for a command a closed client never wrote, false for one whose reply was lost', async () => {
    const closed = createClient({ url: inject('redisUrl') });
    await closed.connect();
    closed.destroy();
    const notSent = await commandTarget(closed)
      .send('k', ['PING'])
      .then(
        () => null,
        (e: unknown) => e,
      );
    const lost = commandTarget({ isOpen: true, sendCommand: async () => Promise.reject(new Error('Socket closed unexpectedly')) });
    const unknown = await lost.send('k', ['PING']).then(
      () => null,
      (e: unknown) => e,
    );
    expect({ closed: isNotSent(notSent), lost: isNotSent(unknown), plain: isNotSent(new Error('x')) }).toEqual({ closed: true, lost: false, plain: false });
  });
});

describe('timeoutMs 0 and replyWithin: a blocking command with its own deadline', () => {
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    client = createClient({ url: inject('redisUrl'), commandOptions: { timeout: 100 } });
    await client.connect();
  });
  afterAll(() => client.destroy());

  it('a command sent with timeoutMs 0 waits as long as the server takes (no timer of node-redis or the transport)', async () => {
    // With the target's 100 ms (or the client's), the transport would reject this blocking command
    // as unanswered after 150 ms: timeoutMs 0 overrides both, as the worker's parked reads do.
    const target = commandTarget(client, 'client', { commandTimeoutMs: 100 });
    const key = `{t-${randomBytes(4).toString('hex')}}:list`;
    const began = performance.now();
    expect(await target.send(key, ['BLPOP', key, '0.4'], { timeoutMs: 0 })).toBeNull();
    expect(performance.now() - began).toBeGreaterThanOrEqual(350);
  });

  it('replyWithin rejects a reply that does not come in time with an unknown outcome, which counts as a lost connection', async () => {
    const target = commandTarget(client);
    const key = `{t-${randomBytes(4).toString('hex')}}:list`;
    const began = performance.now();
    const error = await replyWithin(target.send(key, ['BLPOP', key, '1'], { timeoutMs: 0 }), 150, 'Test.read').then(
      () => null,
      (e: unknown) => e,
    );
    const elapsed = performance.now() - began;
    expect({
      transport: isRespireError(error, 'TRANSPORT_FAILED'),
      outcomeUnknown: (error as { outcomeUnknown?: unknown }).outcomeUnknown,
      connectionFailure: isConnectionFailure(error),
      notSent: isNotSent(error),
      message: String((error as Error).message),
    }).toEqual({
      transport: true,
      outcomeUnknown: true,
      connectionFailure: true,
      notSent: false,
      message: expect.stringMatching(/^Test\.read: no reply within 150 ms/),
    });
    expect(elapsed).toBeGreaterThanOrEqual(150);
    expect(elapsed).toBeLessThan(900);
    // A reply that comes in time passes through unchanged.
    expect(await replyWithin(target.send(key, ['PING'], { timeoutMs: 0 }), 1000, 'Test.ping')).toBe('PONG');
  });

  it('replyWithin with stillHeld: each expired deadline asks it; while it says held the wait goes on, so a slow reply still arrives', async () => {
    const target = commandTarget(client);
    const key = `{t-${randomBytes(4).toString('hex')}}:list`;
    let asked = 0;
    const stillHeld = async () => (asked++, true);
    // BLPOP answers nil after 0.5 s: three or four 100 ms deadlines pass meanwhile.
    expect(await replyWithin(target.send(key, ['BLPOP', key, '0.5'], { timeoutMs: 0 }), 100, 'Test.read', stillHeld)).toBeNull();
    expect(asked).toBeGreaterThanOrEqual(3);
    expect(asked).toBeLessThanOrEqual(5);
  });

  it('replyWithin with stillHeld: a false answer (or a rejected probe) ends the wait as an unknown outcome', async () => {
    const target = commandTarget(client);
    const key = `{t-${randomBytes(4).toString('hex')}}:list`;
    let asked = 0;
    const heldTwice = async () => ++asked <= 2;
    const began = performance.now();
    const first = target.send(key, ['BLPOP', key, '1'], { timeoutMs: 0 });
    const error = await replyWithin(first, 100, 'Test.read', heldTwice).then(
      () => null,
      (e: unknown) => e,
    );
    expect({ asked, outcomeUnknown: (error as { outcomeUnknown?: unknown }).outcomeUnknown, connectionFailure: isConnectionFailure(error) }).toEqual({
      asked: 3,
      outcomeUnknown: true,
      connectionFailure: true,
    });
    expect(performance.now() - began).toBeLessThan(900);
    const failing = () => Promise.reject(new Error('probe failed'));
    const second = target.send(key, ['BLPOP', key, '0.2'], { timeoutMs: 0 });
    const rejected = await replyWithin(second, 100, 'Test.read', failing).then(
      () => null,
      (e: unknown) => e,
    );
    expect(isConnectionFailure(rejected)).toBe(true);
    await Promise.allSettled([first, second]); // the shared connection is free again for the next test
  });

  it('replyWithin with stillHeld: a reply that arrives while the probe is out wins, and the late probe answer changes nothing', async () => {
    const target = commandTarget(client);
    const key = `{t-${randomBytes(4).toString('hex')}}:list`;
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      // The probe answers "not held" only after the reply (BLPOP 0.3 s) came.
      let answered: Promise<boolean> | undefined;
      const slowProbe = () => (answered = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 400)));
      expect(await replyWithin(target.send(key, ['BLPOP', key, '0.3'], { timeoutMs: 0 }), 100, 'Test.read', slowProbe)).toBeNull();
      expect(await answered).toBe(false); // the late answer came ...
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]); // ... and rejected nothing
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
