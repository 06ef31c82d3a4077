// Validation before any I/O, and configuration checks.
import { describe, expect, it } from 'vitest';
import { RespireAdmin, describeBytes, isUnknownResource } from '../src/index.js';
import { operator, viewer } from './support.js';

/** A client that records every command: validation and the viewer check must send none. */
function recordingClient() {
  const sent: unknown[] = [];
  return { sent, client: { isOpen: true, sendCommand: async (...args: unknown[]) => void sent.push(args) } };
}

describe('validation before any I/O', () => {
  const { sent, client } = recordingClient();
  const admin = new RespireAdmin(client, { streams: [{ stream: '{o}:events', deadLetterStream: '{o}:dead' }], queues: [{ name: 'n' }], discoverQueues: true });
  const s = '{o}:events';
  const q = '{respire-queue:n}:stream';
  const expected = { deliveryCount: 1, consumer: 'c' };

  it.each([
    ['entry ID', () => admin.entry(s, '12')],
    ['entry ID with a range marker', () => admin.deadLetter(s, '(1-1')],
    ['count 0', () => admin.pending(s, 'g', { count: 0 })],
    ['count 1001', () => admin.deadLetters(s, { count: 1001 })],
    ['fractional count', () => admin.pending(s, 'g', { count: 1.5 })],
    ['cursor', () => admin.pending(s, 'g', { cursor: '-' })],
    ['queue deliveries cursor', () => admin.queueDeliveries(q, { cursor: '1-1' })],
    ['order', () => admin.deadLetters(s, { order: 'up' as 'newest' })],
    ['unknown option', () => admin.deadLetters(s, { cont: 5 } as object)],
    ['empty group', () => admin.consumers(s, '')],
    ['consumer limit 0', () => admin.consumers(s, 'g', { limit: 0 })],
    ['consumer limit above 100000', () => admin.consumers(s, 'g', { limit: 100_001 })],
    ['consumer option', () => admin.consumers(s, 'g', { count: 5 } as object)],
    ['resource id type', () => admin.resource(5 as unknown as string)],
    ['retry record ID', () => admin.retryDeadLetter(operator, s, 'x')],
    ['bulk page size', () => admin.retryAllDeadLetters(operator, s, { pageSize: 0 })],
    ['bulk limit', () => admin.deleteAllDeadLetters(operator, s, { limit: -1 })],
    ['bulk signal', () => admin.deleteAllDeadLetters(operator, s, { signal: {} as AbortSignal })],
    ['expected count', () => admin.releasePending(operator, s, 'g', '1-1', { deliveryCount: 0, consumer: 'c' })],
    ['expected consumer', () => admin.ackPending(operator, s, 'g', '1-1', { deliveryCount: 1, consumer: '\ud800' })],
    ['expected consumer type', () => admin.releasePending(operator, s, 'g', '1-1', { deliveryCount: 1, consumer: 7 as unknown as string })],
    ['entry ID past 64 bits', () => admin.entry(s, '18446744073709551616-0')],
    ['entry ID with 20 nines', () => admin.deadLetter(s, '99999999999999999999-1')],
    ['sequence past 64 bits', () => admin.retryDeadLetter(operator, s, '1-18446744073709551616')],
    ['entry ID without a sequence', () => admin.deleteDeadLetter(operator, s, '1-')],
    ['cursor past 64 bits', () => admin.pending(s, 'g', { cursor: '1-99999999999999999999' })],
    ['NaN count', () => admin.pending(s, 'g', { count: Number.NaN })],
    ['actor name with a lone surrogate', () => admin.deleteDeadLetter({ name: 'a\udc00', role: 'operator' }, s, '1-1')],
    ['actor name with a control character', () => admin.deleteDeadLetter({ name: 'alice\n2026 audit: ok', role: 'operator' }, s, '1-1')],
    ['actor name of 1 MiB', () => admin.deleteDeadLetter({ name: 'a'.repeat(1 << 20), role: 'operator' }, s, '1-1')],
    ['resource id of an action (a number)', () => admin.retryDeadLetter(operator, 5 as unknown as string, '1-1')],
    ['resource id of an action (empty)', () => admin.deleteAllDeadLetters(operator, '')],
    ['resource id of an action (a lone surrogate)', () => admin.releasePending(operator, '\ud800', 'g', '1-1', expected)],
    ['resource id of an action (an object)', () => admin.removeIdleConsumers(operator, {} as unknown as string, 'g', 10)],
    ['deleteEntry', () => admin.ackPending(operator, s, 'g', '1-1', expected, { deleteEntry: 'yes' as unknown as boolean })],
    ['min idle', () => admin.removeIdleConsumers(operator, s, 'g', 0)],
    ['min idle too large', () => admin.removeIdleConsumers(operator, s, 'g', 2 ** 31)],
    ['actor', () => admin.deleteDeadLetter({ name: '', role: 'operator' }, s, '1-1')],
    ['actor role', () => admin.deleteDeadLetter({ name: 'x', role: 'admin' as 'operator' }, s, '1-1')],
    ['pair of page options (cursor and last)', () => admin.pending(s, 'g', { cursor: '1-1', last: true })],
    ['before cursor', () => admin.deadLetters(s, { before: 'x' })],
    ['pending min idle', () => admin.pending(s, 'g', { minIdleMs: 0 })],
    ['pending consumer', () => admin.pending(s, 'g', { consumer: 7 as unknown as string })],
    ['queue deliveries before', () => admin.queueDeliveries(q, { before: '1-1' })],
    ['queue deliveries last', () => admin.queueDeliveries(q, { last: 'yes' as unknown as boolean })],
    ['queue messages cursor', () => admin.queueMessages(q, { cursor: 'x' })],
    ['queue messages order', () => admin.queueMessages(q, { order: 'up' as 'oldest' })],
    ['queue message entry ID', () => admin.queueMessage(q, '1')],
    ['dead-letter filter option', () => admin.deadLetters(s, { filter: { colour: 'red' } as object })],
    ['dead-letter filter source ID', () => admin.deadLetters(s, { filter: { sourceId: 'x' } })],
    ['dead-letter filter time', () => admin.deadLetters(s, { filter: { sinceMs: -1 } })],
    ['dead-letter scan limit', () => admin.deadLetters(s, { filter: { reason: 'nack' }, scanLimit: 0 })],
    ['history max points', () => admin.history(s, { maxPoints: 1 })],
    ['history time range', () => admin.history(s, { sinceMs: -5 })],
    ['find query', () => admin.find(s, '')],
    ['find scan limit', () => admin.find(s, '1-1', { scanLimit: 0 })],
    ['job action', () => admin.startJob(operator, s, { action: 'move' as 'retry' })],
    ['job record IDs and a filter', () => admin.startJob(operator, s, { action: 'retry', recordIds: ['1-1'], filter: {} })],
    ['job record ID', () => admin.startJob(operator, s, { action: 'delete', recordIds: ['x'] })],
    ['job ID', () => admin.job('../etc')],
    ['queue message release expectation', () => admin.releaseQueueMessage(operator, q, '1-1', { deliveryCount: -1, untilMs: 1 })],
    ['queue message delete entry ID', () => admin.deleteQueueMessage(operator, q, 'x', { deliveryCount: 1, untilMs: 1 })],
  ])('rejects a bad %s with RespireValidationError', async (_name, call) => {
    await expect(call()).rejects.toMatchObject({ name: 'RespireValidationError', code: 'INVALID_ARGUMENT' });
    expect(sent).toEqual([]);
  });

  it.each([
    ['retry', () => admin.retryDeadLetter(viewer, s, '1-1')],
    ['delete', () => admin.deleteDeadLetter(viewer, s, '1-1')],
    ['retry all', () => admin.retryAllDeadLetters(viewer, s)],
    ['delete all', () => admin.deleteAllDeadLetters(viewer, q)],
    ['release', () => admin.releasePending(viewer, s, 'g', '1-1', expected)],
    ['ack', () => admin.ackPending(viewer, s, 'g', '1-1', expected)],
    ['remove idle consumers', () => admin.removeIdleConsumers(viewer, s, 'g', 1000)],
    ['release a queue message', () => admin.releaseQueueMessage(viewer, q, '1-1', { deliveryCount: 1, untilMs: 1 })],
    ['delete a queue message', () => admin.deleteQueueMessage(viewer, q, '1-1', { deliveryCount: 1, untilMs: 1 })],
    ['start a job', () => admin.startJob(viewer, s, { action: 'retry' })],
    ['resume a job', () => admin.resumeJob(viewer, 'abcdef-0123456789ab')],
    ['cancel a job', () => admin.cancelJob(viewer, 'abcdef-0123456789ab')],
  ])('refuses a viewer (%s) with RespirePermissionError before any I/O', async (_name, call) => {
    await expect(call()).rejects.toMatchObject({ name: 'RespirePermissionError', code: 'PERMISSION_DENIED' });
    expect(sent).toEqual([]);
  });

  it('refuses consumer-group views of a queue (its PEL does not tell the truth) and dead letters of a stream without a dead-letter stream, before any I/O', async () => {
    const plain = new RespireAdmin(client, { streams: [{ stream: 'plain' }], queues: [{ name: 'n' }] });
    await expect(plain.pending(q, 'respire')).rejects.toMatchObject({ name: 'RespireValidationError', argument: 'resource' });
    await expect(plain.consumers(q, 'respire')).rejects.toMatchObject({ name: 'RespireValidationError' });
    await expect(plain.deadLetters('plain')).rejects.toMatchObject({ name: 'RespireValidationError' });
    await expect(plain.queueStatus('plain')).rejects.toMatchObject({ name: 'RespireValidationError' });
    await expect(plain.resource('other')).rejects.toMatchObject({ name: 'RespireValidationError', argument: 'resource' });
    expect(sent).toEqual([]);
  });

  it('isUnknownResource recognises an id that names no resource, and nothing else', async () => {
    const plain = new RespireAdmin(client, { streams: [{ stream: 'plain' }], queues: [{ name: 'n' }] });
    const refusal = (call: () => Promise<unknown>) =>
      call().then(
        () => expect.fail('expected a refusal'),
        (error: unknown) => error,
      );
    const unknown = await refusal(() => plain.resource('other'));
    expect(unknown).toMatchObject({ name: 'RespireValidationError', code: 'INVALID_ARGUMENT', argument: 'resource', unknownResource: 'other' });
    expect(isUnknownResource(unknown)).toBe(true);
    expect(isUnknownResource(await refusal(() => plain.pending('other', 'g')))).toBe(true);
    // Other refusals of the argument `resource`: a known resource of the wrong kind, no dead-letter stream, a malformed id.
    for (const call of [() => plain.pending(q, 'g'), () => plain.queueStatus('plain'), () => plain.deadLetters('plain'), () => plain.resource('')]) {
      const error = await refusal(call);
      expect(error).toMatchObject({ name: 'RespireValidationError', argument: 'resource' });
      expect(isUnknownResource(error)).toBe(false);
    }
    // Fields, not the class: a copy from another installation is recognised; look-alikes are not.
    const copy = Object.assign(new Error('resource: unknown'), {
      name: 'RespireValidationError',
      code: 'INVALID_ARGUMENT',
      argument: 'resource',
      unknownResource: 'x',
    });
    expect(isUnknownResource(copy)).toBe(true);
    expect(isUnknownResource({ ...copy })).toBe(false);
    expect(isUnknownResource(Object.assign(new Error('x'), { name: 'TypeError', code: 'INVALID_ARGUMENT', argument: 'resource', unknownResource: 'x' }))).toBe(
      false,
    );
    expect(isUnknownResource(undefined)).toBe(false);
    expect(sent).toEqual([]);
  });

  it('reads durations as the other packages do: fractions round up, at most 2^31-1 ms', () => {
    expect(() => new RespireAdmin(client, { commandTimeoutMs: 2.5 })).not.toThrow();
    expect(() => new RespireAdmin(client, { commandTimeoutMs: 0 })).not.toThrow();
    for (const bad of [-1, 2 ** 31, Number.NaN, '5']) {
      expect(() => new RespireAdmin(client, { commandTimeoutMs: bad as number })).toThrow(expect.objectContaining({ argument: 'commandTimeoutMs' }));
    }
  });

  it('checks its configuration at construction', () => {
    expect(() => new RespireAdmin({})).toThrow(/node-redis/);
    expect(() => new RespireAdmin(client, { queues: [{ name: 'a{b}' }] })).toThrow(/braces|'\{'/);
    expect(() => new RespireAdmin(client, { queues: [{ name: 'n' }, { name: 'n' }] })).toThrow(/twice/);
    expect(() => new RespireAdmin(client, { streams: [{ stream: 's', deadLetterStream: 's' }] })).toThrow(/differ/);
    expect(() => new RespireAdmin(client, { streams: [{ stream: '' }] })).toThrow(/nonempty/);
    expect(() => new RespireAdmin(client, { discoverQueues: { scanCount: 0 } })).toThrow(/scanCount/);
    expect(() => new RespireAdmin(client, { discover: true } as object)).toThrow(/unknown option 'discover'/);
    expect(() => new RespireAdmin(client, { audit: 'log' as unknown as () => void })).toThrow(/audit/);
    expect(() => new RespireAdmin(client, { queues: 'orders' as unknown as [] })).toThrow(
      expect.objectContaining({ name: 'RespireValidationError', argument: 'queues' }),
    );
    expect(() => new RespireAdmin(client, { streams: { stream: 's' } as unknown as [] })).toThrow(
      expect.objectContaining({ name: 'RespireValidationError', argument: 'streams' }),
    );
    // Audit records appended to a stream a worker reads, or to a dead-letter stream, would be taken for work.
    expect(() => new RespireAdmin(client, { streams: [{ stream: '{o}:events', deadLetterStream: '{o}:dead' }], auditStream: '{o}:events' })).toThrow(
      /auditStream/,
    );
    expect(() => new RespireAdmin(client, { streams: [{ stream: 'e', keyPrefix: 't:', deadLetterStream: 'd' }], auditStream: 't:d' })).toThrow(/auditStream/);
    expect(() => new RespireAdmin(client, { queues: [{ name: 'n' }], auditStream: '{respire-queue:n}:dead-letter' })).toThrow(/auditStream/);
    expect(() => new RespireAdmin(client, { discoverQueues: true, auditStream: 'x{respire-queue:other}:stream' })).toThrow(/auditStream/);
    expect(() => new RespireAdmin(client, { discoverQueues: true, auditStream: '{respire-queue:other}:wake' })).toThrow(/auditStream/);
    const cross = new RespireAdmin(client, {
      streams: [
        { stream: '{a}:s', deadLetterStream: '{b}:d' },
        { stream: 'x', keyPrefix: '{t}:', deadLetterStream: 'y' },
      ],
    });
    return cross.resources().then(({ resources }) => {
      expect(resources.map((r) => r.kind === 'stream' && [r.id, r.deadLetterStream, r.retryAtomic])).toEqual([
        ['{a}:s', '{b}:d', false],
        ['{t}:x', '{t}:y', true],
      ]);
    });
  });
});

describe('describeBytes', () => {
  it('pretty-prints JSON objects and arrays', () => {
    expect(describeBytes(Buffer.from('{"a":[1,2]}'))).toEqual({ kind: 'json', text: '{\n  "a": [\n    1,\n    2\n  ]\n}', truncated: false, totalBytes: 11 });
    expect(describeBytes(Buffer.from('42')).kind).toBe('text');
  });

  it('shows valid UTF-8 as text (hostile markup stays plain data) and invalid UTF-8 as hex', () => {
    expect(describeBytes(Buffer.from('<script>alert(1)</script> é'))).toMatchObject({ kind: 'text', text: '<script>alert(1)</script> é' });
    expect(describeBytes(Buffer.from([0xc3, 0x28, 0x00]))).toEqual({ kind: 'hex', text: 'c3 28 00', truncated: false, totalBytes: 3 });
    expect(describeBytes(Buffer.from([0xef, 0xbb, 0xbf, 0x61])).text).toBe('\ufeffa');
    expect(describeBytes(Buffer.alloc(0))).toEqual({ kind: 'text', text: '', truncated: false, totalBytes: 0 });
  });

  it('caps what it renders and says so, backing off to a character boundary', () => {
    const big = Buffer.alloc(1024 * 1024, 'a');
    const view = describeBytes(big);
    expect(view).toMatchObject({ kind: 'text', truncated: true, totalBytes: 1024 * 1024 });
    expect(view.text).toHaveLength(65_536);
    const euro = Buffer.from('€€€'); // 3 bytes each
    expect(describeBytes(euro, { maxBytes: 4 })).toEqual({ kind: 'text', text: '€', truncated: true, totalBytes: 9 });
    expect(describeBytes(Buffer.from('{"a":1}'), { maxBytes: 3 })).toMatchObject({ kind: 'text', text: '{"a', truncated: true });
    expect(describeBytes(Buffer.from([0xff, 1, 2, 3]), { maxBytes: 2 })).toEqual({ kind: 'hex', text: 'ff 01', truncated: true, totalBytes: 4 });
    expect(() => describeBytes(Buffer.from('x'), { maxBytes: 0 })).toThrow(/maxBytes/);
    expect(() => describeBytes('x' as unknown as Buffer)).toThrow(/Buffer/);
    expect(() => describeBytes(Buffer.from('x'), null as unknown as object)).toThrow(expect.objectContaining({ name: 'RespireValidationError' }));
    expect(() => describeBytes(Buffer.from('x'), { max: 3 } as object)).toThrow(/unknown option 'max'/);
  });
});
