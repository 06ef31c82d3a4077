// Bad input fails before any I/O with a typed error.
import { describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import { MAX_PAYLOAD_BYTES, ReliableQueue, bytesCodec, isRespireError, jsonCodec, utf8Codec, type Codec } from '@respire/queue';

/** A client that records every command: validation must fail before any of them. */
function recordingClient() {
  const sent: unknown[] = [];
  return {
    sent,
    client: {
      isOpen: true,
      sendCommand: async (args: unknown) => {
        sent.push(args);
        throw new Error('no I/O expected');
      },
    },
  };
}

function expectValidation(run: () => unknown, argument: string) {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(isRespireError(thrown, 'INVALID_ARGUMENT'), String(thrown)).toBe(true);
  expect((thrown as { argument: string }).argument).toBe(argument);
}

async function expectRejectsValidation(run: () => Promise<unknown>, argument: string, sent: unknown[]) {
  const thrown = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(isRespireError(thrown, 'INVALID_ARGUMENT'), String(thrown)).toBe(true);
  expect((thrown as { argument: string }).argument).toBe(argument);
  expect((thrown as Error).name).toBe('RespireValidationError');
  expect(sent).toEqual([]);
}

describe('bad input fails before any I/O with a typed error', () => {
  const { client, sent } = recordingClient();
  const queue = new ReliableQueue(client, 'orders', { codec: utf8Codec });
  const message = { id: '1-0', receipt: `1.${'a'.repeat(16)}.1` };

  it.each([
    ['', 'name'],
    ['   ', 'name'],
    ['a{b', 'name'],
    ['a}b', 'name'],
    [42, 'name'],
  ])('rejects the queue name %j', (name, argument) => {
    expectValidation(() => new ReliableQueue(client, name as string, { codec: utf8Codec }), argument);
  });

  it.each([[undefined], [{}], [{ encode: () => Buffer.alloc(0) }], [{ decode: (b: Buffer) => b }], [{ encode: 'x', decode: 'y' }]])(
    'rejects the codec %j',
    (codec) => {
      expectValidation(() => new ReliableQueue(client, 'q', { codec: codec as unknown as Codec<string> }), 'codec');
    },
  );

  it.each([[0], [-1], [1.5], [Number.NaN], [2 ** 31], ['5']])('rejects the delivery limit %j', (deliveryLimit) => {
    expectValidation(() => new ReliableQueue(client, 'q', { codec: utf8Codec, deliveryLimit: deliveryLimit as number }), 'deliveryLimit');
  });

  it('rejects a client that is not node-redis, and a non-string prefix', () => {
    expectValidation(() => new ReliableQueue({} as never, 'q', { codec: utf8Codec }), 'client');
    expectValidation(() => new ReliableQueue(client, 'q', { codec: utf8Codec, keyPrefix: 7 as never }), 'keyPrefix');
    expectValidation(() => new ReliableQueue(client, 'q', undefined as never), 'options');
  });

  it.each([[0], [-1], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 31], [2 ** 31 - 0.5], ['100'], [undefined]])(
    'rejects the visibility timeout %j',
    async (timeout) => {
      await expectRejectsValidation(() => queue.receive(timeout as number), 'visibilityTimeoutMs', sent);
    },
  );

  it.each([[0], [1001], [-5], [2.5], [Number.NaN]])('rejects max %j', async (max) => {
    await expectRejectsValidation(() => queue.receive(1000, { max }), 'max', sent);
  });

  it.each([[-1], [Number.NaN], [Number.NEGATIVE_INFINITY], [2 ** 31], [-0.5]])('rejects the nack delay %j', async (delay) => {
    await expectRejectsValidation(() => queue.nack(message, delay), 'delayMs', sent);
  });

  it.each([[0], [-1], [Number.NaN], [2 ** 31]])('rejects the deduplication window %j', async (windowMs) => {
    await expectRejectsValidation(() => queue.send('x', { deduplicationId: 'a', deduplicationWindowMs: windowMs }), 'deduplicationWindowMs', sent);
  });

  it.each([[-1], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 31], ['5']])('rejects the send delay %j', async (delayMs) => {
    await expectRejectsValidation(() => queue.send('x', { delayMs: delayMs as number }), 'delayMs', sent);
    await expectRejectsValidation(() => queue.sendMany([{ payload: 'x' }, { payload: 'y', delayMs: delayMs as number }]), 'items[1].delayMs', sent);
  });

  it.each([
    ['not an object', 'x', 'headers'],
    ['an array', ['a'], 'headers'],
    ['bytes', Buffer.from('a'), 'headers'],
    ['65 headers', Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`h${i}`, 'v'])), 'headers'],
    ['more than 64 KiB', { big: 'x'.repeat(65_536) }, 'headers'],
    ['an empty name', { '': 'v' }, 'headers'],
    ['a lone surrogate in a name', { ['a\ud800']: 'v' }, 'headers'],
    ['a number value', { n: 1 }, 'headers.n'],
    ['a null value', { n: null }, 'headers.n'],
    ['a lone surrogate in a value', { s: 'a\udc00' }, 'headers.s'],
  ])('rejects headers with %s before any I/O', async (_label, headers, argument) => {
    await expectRejectsValidation(() => queue.send('x', { headers: headers as never }), argument, sent);
    await expectRejectsValidation(() => queue.sendMany([{ payload: 'x', headers: headers as never }]), `items[0].${argument}`, sent);
  });

  it('accepts 64 headers and values up to the 64 KiB encoded size', async () => {
    const calls: unknown[][] = [];
    const capturing = new ReliableQueue(
      {
        isOpen: true,
        sendCommand: async (args: readonly unknown[]) => {
          calls.push([...args]);
          return '1-1';
        },
      },
      'q',
      { codec: utf8Codec },
    );
    await capturing.send('x', { headers: Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`h${i}`, 'v'])) });
    await capturing.send('x', { headers: { big: 'x'.repeat(65_000) } });
    expect(calls.map((args) => args.slice(0, 6).map(String).slice(0, 6))).toEqual([
      ['XADD', '{respire-queue:q}:stream', '*', 'payload', 'x', 'headers'],
      ['XADD', '{respire-queue:q}:stream', '*', 'payload', 'x', 'headers'],
    ]);
  });

  it('rejects a bad sendMany batch or item before any I/O, naming the item', async () => {
    await expectRejectsValidation(() => queue.sendMany('x' as never), 'items', sent);
    await expectRejectsValidation(() => queue.sendMany(Array.from({ length: 1001 }, () => ({ payload: 'x' }))), 'items', sent);
    await expectRejectsValidation(() => queue.sendMany([{ payload: 'x' }, null as never]), 'items[1]', sent);
    await expectRejectsValidation(() => queue.sendMany([{ payload: 'x' }, {} as never]), 'items[1]', sent);
    await expectRejectsValidation(() => queue.sendMany([{ payload: 'x', dedupeId: 'a' } as never]), 'items[0]', sent);
    await expectRejectsValidation(() => queue.sendMany([{ payload: 'x' }, { payload: 'y', deduplicationId: '' }]), 'items[1].deduplicationId', sent);
    await expectRejectsValidation(
      () => queue.sendMany([{ payload: 'x', deduplicationId: 'a', deduplicationWindowMs: 0 }]),
      'items[0].deduplicationWindowMs',
      sent,
    );
    await expect(queue.sendMany([])).resolves.toEqual([]);
    expect(sent).toEqual([]);
  });

  it('refuses a sendMany whose payloads together exceed 512 MiB before any I/O', async () => {
    const big = { encode: (n: number) => new Uint8Array(new ArrayBuffer(n)), decode: () => 0 };
    const sized = new ReliableQueue<number>(client, 'orders', { codec: big });
    await expectRejectsValidation(() => sized.sendMany([{ payload: 300 * 1024 * 1024 }, { payload: 300 * 1024 * 1024 }]), 'items', sent);
  });

  it.each([[''], ['x'.repeat(1025)], [12]])('rejects the deduplication ID %j', async (id) => {
    await expectRejectsValidation(() => queue.send('x', { deduplicationId: id as string }), 'deduplicationId', sent);
  });

  it.each([
    [null],
    [{}],
    [{ id: '1-0' }],
    [{ id: 'abc', receipt: message.receipt }],
    [{ id: '1-0', receipt: 'forged' }],
    [{ id: '18446744073709551616-0', receipt: message.receipt }],
  ])('rejects the message %j for ack and nack', async (bad) => {
    await expectRejectsValidation(() => queue.ack(bad as never), 'message', sent);
    await expectRejectsValidation(() => queue.nack(bad as never), 'message', sent);
  });

  it.each([[0], [-1], [Number.NaN], [Number.POSITIVE_INFINITY], [2 ** 31], ['1000']])('rejects the extend visibility timeout %j', async (timeout) => {
    await expectRejectsValidation(() => queue.extend(message, timeout as number), 'visibilityTimeoutMs', sent);
    await expectRejectsValidation(() => queue.extendMany([message], timeout as number), 'visibilityTimeoutMs', sent);
  });

  it.each([[null], [{}], [{ id: '1-0' }], [{ id: '1-0', receipt: 'forged' }]])('rejects the message %j for extend', async (bad) => {
    await expectRejectsValidation(() => queue.extend(bad as never, 1000), 'message', sent);
  });

  it('rejects more than 1000 receipts in one extend and names the bad one in a batch', async () => {
    await expectRejectsValidation(
      () =>
        queue.extendMany(
          Array.from({ length: 1001 }, () => message),
          1000,
        ),
      'messages',
      sent,
    );
    await expectRejectsValidation(() => queue.extendMany([message, { id: 'x', receipt: '' }], 1000), 'messages[1]', sent);
    await expectRejectsValidation(() => queue.extendMany('nope' as never, 1000), 'messages', sent);
  });

  it('rejects more than 1000 receipts in one call and names the bad one in a batch', async () => {
    await expectRejectsValidation(() => queue.ackMany(Array.from({ length: 1001 }, () => message)), 'messages', sent);
    await expectRejectsValidation(() => queue.nackMany([message, { id: 'x', receipt: '' }]), 'messages[1]', sent);
  });

  it('rounds fractional durations up instead of rejecting them', async () => {
    const calls: unknown[][] = [];
    const capturing = new ReliableQueue(
      {
        isOpen: true,
        sendCommand: async (args: readonly unknown[]) => {
          calls.push([...args]);
          return [0];
        },
      },
      'q',
      { codec: utf8Codec },
    );
    await capturing.receive(0.2);
    await capturing.receive(1500.01);
    expect(calls.map((args) => args[6])).toEqual(['1', '1501']);
  });

  it('passes commandTimeoutMs with every command when set, and validates it', async () => {
    const seen: unknown[] = [];
    const capturing = new ReliableQueue(
      {
        isOpen: true,
        sendCommand: async (_args: readonly unknown[], options?: object) => {
          seen.push(options);
          return [0];
        },
      },
      'q',
      { codec: utf8Codec, commandTimeoutMs: 0 },
    );
    await capturing.receive(1000);
    await capturing.send('x');
    expect(seen[0]).toMatchObject({ timeout: 0 });
    expect(seen[1]).toEqual({ timeout: 0 });
    expectValidation(() => new ReliableQueue(client, 'q', { codec: utf8Codec, commandTimeoutMs: -1 }), 'commandTimeoutMs');
    expectValidation(() => new ReliableQueue(client, 'q', { codec: utf8Codec, commandTimeoutMs: Number.NaN }), 'commandTimeoutMs');
  });

  it('refuses unknown option names instead of silently using defaults', async () => {
    expectValidation(() => new ReliableQueue(client, 'q', { codec: utf8Codec, deliverylimit: 3 } as never), 'options');
    await expectRejectsValidation(() => queue.send('x', { dedupeId: 'a' } as never), 'options', sent);
    await expectRejectsValidation(() => queue.receive(1000, { maxMessages: 5 } as never), 'options', sent);
    expect(() => new ReliableQueue(client, 'q', { codec: utf8Codec, deliverylimit: 3 } as never)).toThrow(/unknown option 'deliverylimit'.*deliveryLimit/);
  });

  it('explains a jsonCodec that was not called, and quotes string values in messages', () => {
    expect(() => new ReliableQueue(client, 'q', { codec: jsonCodec as never })).toThrow(/pass jsonCodec\(\)/);
    expect(() => new ReliableQueue(client, 'q', { codec: utf8Codec, deliveryLimit: '5' as never })).toThrow(/got "5"/);
  });

  it('refuses a client that is not node-redis (for example ioredis, which has sendCommand but no isOpen)', () => {
    const ioredisLike = { sendCommand: async () => null, status: 'ready', duplicate: () => null };
    expectValidation(() => new ReliableQueue(ioredisLike as never, 'q', { codec: utf8Codec }), 'client');
  });

  it('says nothing was sent when the client was never connected', async () => {
    const closed = createClient({ url: 'redis://127.0.0.1:1' });
    const unconnected = new ReliableQueue(closed, 'q', { codec: utf8Codec });
    const error = await unconnected.send('x').then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(error, 'TRANSPORT_FAILED')).toBe(true);
    expect((error as { outcomeUnknown: boolean }).outcomeUnknown).toBe(false);
    expect((error as Error).message).toMatch(/not sent/);
  });

  it('reports an encode failure as a codec error without sending, with the reason in the message', async () => {
    const throwing = new ReliableQueue(client, 'q', {
      codec: {
        encode: () => {
          throw new TypeError('Converting circular structure to JSON');
        },
        decode: () => 'x',
      },
    });
    const thrown = await throwing.send('x').then(
      () => null,
      (e: unknown) => e,
    );
    expect(isRespireError(thrown, 'CODEC_FAILED')).toBe(true);
    expect((thrown as Error).message).toBe(
      'ReliableQueue.send: the codec could not encode the payload (TypeError: Converting circular structure to JSON); nothing was sent',
    );
    expect(sent).toEqual([]);
  });

  it('describes whatever a codec throws without failing itself: a string, null, a hostile Proxy', async () => {
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
    for (const [value, described] of [
      ['plain text', '"plain text"'],
      [null, 'null'],
      [hostile, 'Object'],
    ] as const) {
      const throwing = new ReliableQueue(client, 'q', {
        codec: {
          encode: () => {
            throw value;
          },
          decode: () => 'x',
        },
      });
      const thrown = await throwing.send('x').then(
        () => null,
        (e: unknown) => e,
      );
      expect(isRespireError(thrown, 'CODEC_FAILED'), String(thrown)).toBe(true);
      expect((thrown as Error).message).toContain(`(${described})`);
      expect((thrown as Error).cause).toBe(value);
    }
    const wrong = new ReliableQueue(client, 'q', { codec: { encode: () => 42 as never, decode: () => 'x' } });
    await expect(wrong.send('x')).rejects.toThrow('the codec must return a Uint8Array or a string, got number');
    expect(sent).toEqual([]);
  });

  it("refuses a payload above Redis's bulk limit (512 MiB) before any I/O, with a typed error a retry cannot fix", async () => {
    expect(MAX_PAYLOAD_BYTES).toBe(512 * 1024 * 1024);
    // allocUnsafe leaves the memory untouched: no 512 MiB of RAM is used.
    const huge = Buffer.allocUnsafe(MAX_PAYLOAD_BYTES + 1);
    const queueOfBytes = new ReliableQueue(client, 'q', { codec: bytesCodec });
    for (const send of [() => queueOfBytes.send(huge), () => queueOfBytes.send(huge, { deduplicationId: 'd' })]) {
      await expectRejectsValidation(send, 'payload', sent);
      await expect(send()).rejects.toThrow(/^payload: encoded to 536870913 bytes, more than the 536870912 bytes \(512 MiB\) Redis takes in one argument/);
    }
    // A plain Uint8Array from a codec is measured too.
    const view = new ReliableQueue(client, 'q', { codec: { encode: () => new Uint8Array(huge.buffer, huge.byteOffset, huge.length), decode: (b) => b } });
    await expectRejectsValidation(() => view.send(Buffer.alloc(0)), 'payload', sent);
  });
});
