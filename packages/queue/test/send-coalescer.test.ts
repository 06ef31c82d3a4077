// A grouped queue's send coalescer without a server or a clock: what goes into one call, in what order, per-item results, a batch's error.
import { describe, expect, it } from 'vitest';
import { SendCoalescer } from '../src/send-coalescer.js';

/** A coalescer whose flushes run only when the test says, and whose calls the test answers. */
function harness(maxItems: number, maxBytes: number) {
  const calls: { items: string[]; answer(results: string[]): void; fail(error: unknown): void }[] = [];
  const flushes: (() => void)[] = [];
  const coalescer = new SendCoalescer<string, string>(
    (items) => new Promise<string[]>((resolve, reject) => calls.push({ items: [...items], answer: resolve, fail: reject })),
    maxItems,
    maxBytes,
    (flush) => void flushes.push(flush),
  );
  const runFlushes = () => {
    for (const flush of flushes.splice(0)) flush();
  };
  return { coalescer, calls, flushes, runFlushes };
}

describe('SendCoalescer', () => {
  it('sends the items added before the flush as one call, in add order, each told its own result', async () => {
    const { coalescer, calls, flushes, runFlushes } = harness(1000, 1000);
    const results = ['a', 'b', 'c'].map((item) => coalescer.add(item, 1));
    expect(flushes).toHaveLength(1); // one flush scheduled for the three
    expect(calls).toHaveLength(0); // nothing sent before it
    expect(coalescer.pending).toBe(3);
    runFlushes();
    expect(calls.map((c) => c.items)).toEqual([['a', 'b', 'c']]);
    calls[0]!.answer(['1-1', '1-2', '1-3']);
    expect(await Promise.all(results)).toEqual(['1-1', '1-2', '1-3']);
    expect(coalescer.pending).toBe(0);
  });

  it('fails every item of a failed call with its error, and only those', async () => {
    const { coalescer, calls, runFlushes } = harness(1000, 1000);
    const first = ['a', 'b'].map((item) => coalescer.add(item, 1));
    runFlushes();
    const second = coalescer.add('c', 1);
    runFlushes();
    const error = new Error('WRONGTYPE');
    calls[0]!.fail(error);
    calls[1]!.answer(['2-1']);
    for (const result of first) await expect(result).rejects.toBe(error);
    await expect(second).resolves.toBe('2-1');
  });

  it('fails every item of the batch when the call throws before returning a promise', async () => {
    const error = new Error('thrown');
    const coalescer = new SendCoalescer<string, string>(
      () => {
        throw error;
      },
      10,
      10,
      (flush) => flush(),
    );
    await expect(coalescer.add('a', 1)).rejects.toBe(error);
  });

  it('sends a full batch at once, and the rest with the next flush, in add order', () => {
    const { coalescer, calls, runFlushes } = harness(2, 1000);
    for (const item of ['a', 'b', 'c']) void coalescer.add(item, 1);
    expect(calls.map((c) => c.items)).toEqual([['a', 'b']]);
    runFlushes();
    expect(calls.map((c) => c.items)).toEqual([['a', 'b'], ['c']]);
  });

  it('sends what waits before an item that would pass the byte limit; an item above the limit goes alone', () => {
    const { coalescer, calls, runFlushes } = harness(1000, 10);
    void coalescer.add('a', 4);
    void coalescer.add('b', 4);
    void coalescer.add('big', 50);
    void coalescer.add('c', 1);
    runFlushes();
    expect(calls.map((c) => c.items)).toEqual([['a', 'b'], ['big'], ['c']]);
  });

  it('flush() sends what waits at once, and nothing when nothing waits', () => {
    const { coalescer, calls, runFlushes } = harness(1000, 1000);
    coalescer.flush();
    expect(calls).toHaveLength(0);
    void coalescer.add('a', 1);
    coalescer.flush();
    expect(calls.map((c) => c.items)).toEqual([['a']]);
    runFlushes(); // the scheduled flush finds nothing left
    expect(calls).toHaveLength(1);
  });

  it('by default flushes after the promise continuations of the current turn', async () => {
    const calls: string[][] = [];
    const coalescer = new SendCoalescer<string, string>(async (items) => (calls.push([...items]), items.map((i) => `id-${i}`)), 1000, 1000);
    await Promise.resolve(); // from a promise continuation, as a send issued after an awaited reply
    const a = coalescer.add('a', 1);
    // Added from promise continuations of the same turn: still the same call.
    const b = Promise.resolve().then(() => coalescer.add('b', 1));
    const c = Promise.resolve()
      .then(() => undefined)
      .then(() => coalescer.add('c', 1));
    expect(await Promise.all([a, b, c])).toEqual(['id-a', 'id-b', 'id-c']);
    expect(calls).toEqual([['a', 'b', 'c']]);
  });
});
