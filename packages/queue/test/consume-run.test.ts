// consume()'s handler run without a server: the signal made on first read, aborts before and after it, the race's promise.
import { describe, expect, it } from 'vitest';
import { Run, RunContext } from '../src/consume-run.js';

describe('Run', () => {
  it('makes the signal on first read, aborted already when the run was', () => {
    const run = new Run();
    const reason = new Error('lease lost');
    run.abort(reason);
    const signal = new RunContext(run).signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
    expect(run.aborted).toBe(true);
  });

  it('aborts a signal read before the abort, once', () => {
    const run = new Run();
    const signal = new RunContext(run).signal;
    let events = 0;
    signal.addEventListener('abort', () => events++);
    expect(signal.aborted).toBe(false);
    const first = new Error('stopping');
    run.abort(first);
    run.abort(new Error('again'));
    expect(events).toBe(1);
    expect(signal.reason).toBe(first);
  });

  it('whenAborted rejects with the reason, whether asked before or after the abort', async () => {
    const before = new Run();
    const waiting = before.whenAborted();
    const reason = new Error('stopping');
    before.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    const after = new Run();
    after.abort(reason);
    await expect(after.whenAborted()).rejects.toBe(reason);
  });

  it('never aborts by itself: whenAborted stays pending', async () => {
    const run = new Run();
    const winner = await Promise.race([run.whenAborted().then(() => 'aborted'), Promise.resolve('pending')]);
    expect(winner).toBe('pending');
    expect(new RunContext(run).signal.aborted).toBe(false);
  });
});
