// consume()'s settlement batcher without a server or a clock: what goes into one call, per-item results, a batch's error, idle().
import { describe, expect, it } from 'vitest';
import { SettleBatcher, type Settlement, type SettleOutcome } from '../src/settle-batcher.js';

/** A batcher whose flushes run only when the test says, and whose calls the test answers. */
function harness(maxBatch: number) {
  const calls: { settlement: Settlement; messages: string[]; answer(results: boolean[]): void; fail(error: unknown): void }[] = [];
  const flushes: (() => void)[] = [];
  const batcher = new SettleBatcher<string>(
    (settlement, messages) => new Promise<boolean[]>((resolve, reject) => calls.push({ settlement, messages: [...messages], answer: resolve, fail: reject })),
    maxBatch,
    (flush) => void flushes.push(flush),
  );
  const runFlushes = () => {
    for (const flush of flushes.splice(0)) flush();
  };
  return { batcher, calls, flushes, runFlushes };
}

const ack: Settlement = { action: 'ack' };
const nack = (delayMs: number): Settlement => ({ action: 'nack', delayMs });

describe('SettleBatcher', () => {
  it('sends the ACKs asked for before the flush as one call, each message told its own result', async () => {
    const { batcher, calls, flushes, runFlushes } = harness(64);
    const outcomes = ['a', 'b', 'c'].map((m) => batcher.settle(m, ack));
    expect(flushes).toHaveLength(1); // one flush scheduled for the three
    expect(calls).toHaveLength(0); // nothing sent before it
    expect(batcher.pending).toBe(3);
    runFlushes();
    expect(calls.map((c) => [c.settlement, c.messages])).toEqual([[ack, ['a', 'b', 'c']]]);
    calls[0]!.answer([true, false, true]);
    expect(await Promise.all(outcomes)).toEqual<SettleOutcome[]>([
      { ok: true, settled: true },
      { ok: true, settled: false },
      { ok: true, settled: true },
    ]);
  });

  it('sends a full batch at once, without waiting for the flush', () => {
    const { batcher, calls, flushes } = harness(2);
    void batcher.settle('a', ack);
    void batcher.settle('b', ack);
    expect(calls.map((c) => c.messages)).toEqual([['a', 'b']]);
    void batcher.settle('c', ack);
    expect(calls).toHaveLength(1);
    expect(batcher.pending).toBe(1);
    expect(flushes).toHaveLength(1);
  });

  it('keeps ACKs and NACKs of different delays in separate calls', () => {
    const { batcher, calls, runFlushes } = harness(64);
    void batcher.settle('a', ack);
    void batcher.settle('b', nack(0));
    void batcher.settle('c', nack(1000));
    void batcher.settle('d', nack(0));
    void batcher.settle('e', ack);
    runFlushes();
    expect(calls.map((c) => [c.settlement, c.messages])).toEqual([
      [ack, ['a', 'e']],
      [nack(0), ['b', 'd']],
      [nack(1000), ['c']],
    ]);
  });

  it("gives every message of a failed call the call's error and its index in the batch", async () => {
    const { batcher, calls, runFlushes } = harness(64);
    const outcomes = ['a', 'b'].map((m) => batcher.settle(m, ack));
    runFlushes();
    const lost = new Error('reply lost');
    calls[0]!.fail(lost);
    expect(await Promise.all(outcomes)).toEqual<SettleOutcome[]>([
      { ok: false, error: lost, index: 0 },
      { ok: false, error: lost, index: 1 },
    ]);
  });

  it('contains a send that throws synchronously or answers too few results', async () => {
    const boom = new Error('sync');
    const throwing = new SettleBatcher<string>(
      () => {
        throw boom;
      },
      8,
      (flush) => flush(),
    );
    expect(await throwing.settle('a', ack)).toEqual({ ok: false, error: boom, index: 0 });
    const short = new SettleBatcher<string>(
      () => Promise.resolve([true]),
      8,
      (flush) => queueMicrotask(flush),
    );
    const outcomes = [short.settle('a', ack), short.settle('b', ack)];
    expect(await Promise.all(outcomes)).toEqual([
      { ok: true, settled: true },
      { ok: true, settled: false },
    ]);
  });

  it('schedules a new flush after each one, never sends an empty call', () => {
    const { batcher, calls, flushes, runFlushes } = harness(64);
    runFlushes();
    batcher.flush();
    expect(calls).toHaveLength(0);
    void batcher.settle('a', ack);
    runFlushes();
    void batcher.settle('b', ack);
    expect(flushes).toHaveLength(1);
    runFlushes();
    expect(calls.map((c) => c.messages)).toEqual([['a'], ['b']]);
  });

  it('idle() sends what waits and resolves only when every call has its reply', async () => {
    const { batcher, calls } = harness(64);
    const outcome = batcher.settle('a', ack);
    let idle = false;
    const waited = batcher.idle().then(() => (idle = true));
    expect(calls.map((c) => c.messages)).toEqual([['a']]); // flushed by idle() itself
    await Promise.resolve();
    expect(idle).toBe(false);
    calls[0]!.answer([true]);
    await waited;
    expect(await outcome).toEqual({ ok: true, settled: true });
    await batcher.idle(); // nothing left: resolves at once
  });
});
