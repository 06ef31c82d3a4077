// Unit tests of fenced completion's batching, flush window, reply-to-outcome mapping and failures, with no server and no sleep.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RespireTransportError } from '@respire/core-scripts';
import type { CommandTarget, WorkerCompleteReply, scriptCalls } from '@respire/core-scripts/internal';
import {
  Completions,
  FLUSH_WINDOW_MS,
  outcomeOf,
  type CompletionListener,
  type CompletionOptions,
  type CompletionOutcome,
  type CompletionRequest,
  type SendBatch,
} from '../src/completion.js';
import { recordingLogger } from './support.js';

/** The caller's client, as the completions see it: only its identity matters here. */
const callerTarget = { name: 'caller' } as unknown as CommandTarget;

const options = (over: Partial<CompletionOptions> = {}): CompletionOptions => ({
  target: callerTarget,
  completionTarget: callerTarget,
  stream: '{o}:events',
  deadLetterStream: '{o}:dead',
  group: 'g',
  deleteAcknowledgedEntries: false,
  minimumIdleTimeMs: 60_000,
  batchSize: 16,
  logger: recordingLogger(),
  ...over,
});

const request = (id: string, action: CompletionRequest['action'], extra: Partial<CompletionRequest> = {}): CompletionRequest => ({
  id,
  deliveryCount: 1,
  action,
  reason: undefined,
  exceptionType: undefined,
  ...extra,
});

/** A reply a server would send: an Error whose class is named ErrorReply, as node-redis' are. */
class ErrorReply extends Error {}

/** The entry IDs of a batch's requests (three arguments each, five for a dead letter). */
function requestIds(batch: scriptCalls.WorkerCompleteArgs): string[] {
  const ids: string[] = [];
  for (let i = 0; i < batch.completions.length; i += batch.completions[i + 2] === 'dead-letter' ? 5 : 3) ids.push(String(batch.completions[i]));
  return ids;
}

/** A `send` that records each batch and the target it went to, and answers as told. */
function fakeSend() {
  const sent: { target: CommandTarget; batch: scriptCalls.WorkerCompleteArgs }[] = [];
  const answers: ((batch: scriptCalls.WorkerCompleteArgs) => Promise<WorkerCompleteReply>)[] = [];
  const send: SendBatch = (target, batch) => {
    sent.push({ target, batch });
    const answer = answers.shift();
    // By default every request of the batch is acknowledged.
    return answer ? answer(batch) : Promise.resolve(requestIds(batch).map(() => 'acknowledged' as const));
  };
  return { send, sent, answers };
}

/** A listener that records what each request was told. */
function recorder() {
  const told: { id: string; outcome?: CompletionOutcome; error?: unknown }[] = [];
  const listener: CompletionListener<CompletionRequest> = {
    completed: (r, outcome) => void told.push({ id: r.id, outcome }),
    failed: (r, error) => void told.push({ id: r.id, error }),
  };
  return { listener, told };
}

function completions(over: Partial<CompletionOptions> = {}) {
  const fake = fakeSend();
  const rec = recorder();
  const c = new Completions(options(over), 'reader-0', () => undefined, rec.listener, fake.send);
  return { c, ...fake, ...rec };
}

describe('batching', () => {
  it('queues completions until flush() and sends them as one worker-complete call over the ID range they cover', async () => {
    const { c, sent, told } = completions();
    c.add(request('1700000000000-5', 'ack'));
    c.add(request('1700000000000-12', 'release', { deliveryCount: 3 }));
    c.add(request('999999999999-7', 'ack'));
    expect(sent).toHaveLength(0);
    c.flush();
    expect(sent).toHaveLength(1);
    const { target, batch } = sent[0]!;
    expect(target).toBe(callerTarget); // no reader connection: the caller's client
    expect(batch).toEqual({
      stream: '{o}:events',
      deadLetter: '{o}:events', // no dead letter in the batch: only the source is named
      group: 'g',
      consumer: 'reader-0',
      deleteAcknowledged: false,
      minimumIdleTimeMs: 60_000,
      first: '999999999999-7', // a shorter millisecond part is smaller
      last: '1700000000000-12', // sequence 12 is above 5
      completions: ['1700000000000-5', '1', 'ack', '1700000000000-12', '3', 'release', '999999999999-7', '1', 'ack'],
    });
    await c.completed();
    expect(told).toEqual([
      { id: '1700000000000-5', outcome: 'ack' },
      { id: '1700000000000-12', outcome: 'ack' },
      { id: '999999999999-7', outcome: 'ack' },
    ]);
  });

  it('a dead letter names the dead-letter stream and carries its reason and exception type, cut to 256 bytes on a character boundary', () => {
    const { c, sent } = completions();
    const longType = 'é'.repeat(200); // 400 bytes of two-byte characters
    c.add(request('1-1', 'dead-letter', { deliveryCount: 5, reason: 'processing-failed', exceptionType: longType }));
    c.add(request('1-2', 'dead-letter', { reason: 'explicit' }));
    c.flush();
    const { batch } = sent[0]!;
    expect(batch.deadLetter).toBe('{o}:dead');
    expect(batch.completions).toEqual(['1-1', '5', 'dead-letter', 'processing-failed', 'é'.repeat(128), '1-2', '1', 'dead-letter', 'explicit', '']);
  });

  it('the batchSize-th completion sends the batch at once; the next one starts a new batch', () => {
    const { c, sent } = completions({ batchSize: 3 });
    for (const id of ['1-1', '1-2']) c.add(request(id, 'ack'));
    expect(sent).toHaveLength(0);
    c.add(request('1-3', 'ack'));
    expect(sent.map((s) => requestIds(s.batch))).toEqual([['1-1', '1-2', '1-3']]);
    c.add(request('1-4', 'dead-letter', { reason: 'nack' }));
    c.flush();
    expect(sent).toHaveLength(2);
    expect(sent[1]!.batch).toMatchObject({ first: '1-4', last: '1-4', deadLetter: '{o}:dead' });
    c.add(request('1-5', 'ack'));
    c.flush();
    expect(sent[2]!.batch.deadLetter).toBe('{o}:events'); // the dead letter of the last batch does not carry over
  });

  it('flush() with nothing queued sends nothing', () => {
    const { c, sent } = completions();
    c.flush();
    expect(sent).toHaveLength(0);
  });
});

describe('the flush window (virtual clock)', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it(`flushSoon() sends what is queued ${FLUSH_WINDOW_MS} ms later, once, with what was added meanwhile`, () => {
    const { c, sent } = completions();
    c.add(request('1-1', 'ack'));
    c.flushSoon();
    c.add(request('1-2', 'ack'));
    c.flushSoon(); // the window already runs: no second timer
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(FLUSH_WINDOW_MS - 1);
    expect(sent).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(sent.map((s) => requestIds(s.batch))).toEqual([['1-1', '1-2']]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('flushSoon() with nothing queued arms no timer', () => {
    const { c } = completions();
    c.flushSoon();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a flush() inside the window sends at once and clears the window', () => {
    const { c, sent } = completions();
    c.add(request('1-1', 'ack'));
    c.flushSoon();
    c.flush();
    expect(sent).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(10 * FLUSH_WINDOW_MS);
    expect(sent).toHaveLength(1);
  });

  it('a full batch inside the window goes at once and the window ends with it', () => {
    const { c, sent } = completions({ batchSize: 2 });
    c.add(request('1-1', 'ack'));
    c.flushSoon();
    c.add(request('1-2', 'ack'));
    expect(sent).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('outcomes', () => {
  it.each([
    ['acknowledged', 'ack'],
    ['pending', 'nack'], // left pending for idle recovery
    ['released', 'nack'], // released with XNACK FAIL
    ['deadLettered', 'dead-letter'],
    ['deleted', 'deleted'],
    ['stale', 'stale'],
    [undefined, 'stale'], // no element for it
  ] as const)('reply element %j is outcome %s', (code, outcome) => {
    expect(outcomeOf(code)).toBe(outcome);
  });

  it('each request of a batch is told its own outcome, in order, from its element of the reply', async () => {
    const { c, answers, told } = completions();
    answers.push(() => Promise.resolve(['acknowledged', 'stale', 'pending', 'deadLettered', 'deleted', 'released']));
    c.add(request('1-1', 'ack'));
    c.add(request('1-2', 'ack'));
    c.add(request('1-3', 'release'));
    c.add(request('1-4', 'dead-letter', { reason: 'explicit' }));
    c.add(request('1-5', 'dead-letter', { reason: 'nack' }));
    c.add(request('1-6', 'release'));
    c.flush();
    expect(told).toEqual([]); // outcomes arrive with the reply
    await c.completed();
    expect(told.map((t) => [t.id, t.outcome])).toEqual([
      ['1-1', 'ack'],
      ['1-2', 'stale'],
      ['1-3', 'nack'],
      ['1-4', 'dead-letter'],
      ['1-5', 'deleted'],
      ['1-6', 'nack'],
    ]);
  });
});

describe('failures', () => {
  it('a lost reply fails every request of the batch with it, and the batch is never repeated', async () => {
    const { c, sent, answers, told } = completions();
    const lost = new RespireTransportError('StreamWorker completion: the connection closed', { outcomeUnknown: true });
    answers.push(() => Promise.reject(lost));
    for (const id of ['1-1', '1-2', '1-3']) c.add(request(id, 'ack'));
    c.flush();
    await c.completed();
    expect(sent).toHaveLength(1);
    expect(told).toEqual([
      { id: '1-1', error: lost },
      { id: '1-2', error: lost },
      { id: '1-3', error: lost },
    ]);
  });

  it('a batch provably not sent is repeated at once over the caller’s client', async () => {
    const { c, sent, answers, told } = completions();
    answers.push(() => Promise.reject(new RespireTransportError('not sent: the client is closed', { outcomeUnknown: false })));
    c.add(request('1-1', 'ack'));
    c.flush();
    await c.completed();
    expect(sent.map((s) => s.target)).toEqual([callerTarget, callerTarget]);
    expect(sent[1]!.batch).toBe(sent[0]!.batch);
    expect(told).toEqual([{ id: '1-1', outcome: 'ack' }]);
  });

  describe('transient replies (virtual clock)', () => {
    beforeEach(() => vi.useFakeTimers());
    afterEach(() => vi.useRealTimers());

    it('a BUSY reply proves the batch did not run: it is repeated after a backoff, and a warning names the reply', async () => {
      const logger = recordingLogger();
      const { c, sent, answers, told } = completions({ logger });
      answers.push(() => Promise.reject(new ErrorReply('BUSY Redis is busy running a script')));
      c.add(request('1-1', 'ack'));
      c.flush();
      await vi.advanceTimersByTimeAsync(0);
      expect(sent).toHaveLength(1); // waiting out the backoff
      await vi.advanceTimersByTimeAsync(1000);
      await c.completed();
      expect(sent).toHaveLength(2);
      expect(told).toEqual([{ id: '1-1', outcome: 'ack' }]);
      expect(logger.entries.map((e) => e.message)).toEqual(['StreamWorker completion: the server answered BUSY; retrying']);
    });

    it('BUSY for longer than the retry deadline fails every request with the reply', async () => {
      const { c, answers, told } = completions();
      for (let i = 0; i < 100; i++) answers.push(() => Promise.reject(new ErrorReply('BUSY Redis is busy running a script')));
      c.add(request('1-1', 'ack'));
      c.add(request('1-2', 'release'));
      c.flush();
      await vi.advanceTimersByTimeAsync(11_000);
      await c.completed();
      expect(told.map((t) => t.id)).toEqual(['1-1', '1-2']);
      expect(told.every((t) => t.outcome === undefined && /^BUSY/.test((t.error as Error).message))).toBe(true);
    });
  });
});
