// Unit tests of the kill -9 chaos test's model: each contract check fires on a history that breaks it, and stays quiet on one that keeps it.
import { describe, expect, it } from 'vitest';
import { SeededRandom } from '@respire/harness';
import { checkRun, planEntry, type DeadLetterRecord, type LogRecord, type Observations, type Orphan, type PlannedEntry } from './chaos-model.js';
import type { ChaosKind, ChaosMode } from './chaos-worker.js';

const LIMIT = 3;

function entry(id: string, kind: ChaosKind, mode: ChaosMode = 'nack', failUntil = 0): PlannedEntry {
  return { id, kind, mode, failUntil, workMs: 0, fields: [Buffer.from('seq'), Buffer.from(id), Buffer.from('blob'), Buffer.from([0, 255])] };
}

let clock = 1000;
const at = (event: LogRecord['event'], id: string, n: number, p = '0.0', o?: string): LogRecord => ({ atMs: clock++, event, id, n, p, ...(o ? { o } : {}) });
/** A delivery that does the work and acknowledges. */
const acked = (id: string, n: number, p = '0.0') => [at('start', id, n, p), at('work', id, n, p), at('end', id, n, p, 'ack')];
/** A delivery that fails and is left pending. */
const failed = (id: string, n: number, p = '0.0') => [at('start', id, n, p), at('end', id, n, p, 'nack')];
/** A delivery that ends dead-lettered. */
const lettered = (id: string, n: number, p = '0.0') => [at('start', id, n, p), at('end', id, n, p, 'dead-letter')];

function record(of: PlannedEntry, reason: string, attempt: number, exceptionType = '', fields = of.fields): DeadLetterRecord {
  return { atMs: clock++, sourceId: of.id, group: 'g', attempt, reason, exceptionType, fields };
}

function run(entries: PlannedEntry[], log: LogRecord[], deadLetters: DeadLetterRecord[] = [], orphans: Orphan[] = []): Observations {
  return {
    entries,
    log,
    deadLetters,
    kills: orphans.length ? [{ process: '1.0', serverMs: 0, orphans }] : [],
    group: 'g',
    deliveryLimit: LIMIT,
    recoveryBoundMs: 5000,
  };
}

const rules = (observations: Observations) => checkRun(observations).violations.map((v) => v.rule);

describe('the chaos model', () => {
  it('a run that keeps the contract passes, and its figures count what happened', () => {
    const ok = entry('1-1', 'ok');
    const flaky = entry('1-2', 'flaky', 'throw', 2);
    const poison = entry('1-3', 'poison', 'throw');
    const explicit = entry('1-4', 'explicit');
    const abandoned = entry('1-5', 'ok');
    const result = checkRun(
      run(
        [ok, flaky, poison, explicit, abandoned],
        [
          ...acked('1-1', 1),
          ...failed('1-2', 1),
          ...failed('1-2', 2),
          ...acked('1-2', 3),
          ...failed('1-3', 1),
          ...failed('1-3', 2),
          ...lettered('1-3', 3),
          ...lettered('1-4', 1),
          // attempt 3 of 1-5 did its work but its ack was lost to a kill; attempt 4 is past the limit
          at('start', '1-5', 3),
          at('work', '1-5', 3),
          ...lettered('1-5', 4, '2.0'),
          at('end', '1-1', 1, '1.0', 'stale'),
        ],
        [record(poison, 'processing-failed', 3, 'ChaosHandlerError'), record(explicit, 'explicit', 1), record(abandoned, 'delivery-limit', 4)],
        [{ id: '1-5', consumer: 'c-0', count: 3, recoveredAfterMs: 2100 }],
      ),
    );
    expect(result).toEqual({
      violations: [],
      duplicateEntries: 1, // 1-5: its work and then a dead letter
      extraCompletions: 1,
      deliveries: 10, // 1 + 3 + 3 + 1 + 2 starts
      stale: 1,
      deadLettersByReason: { 'processing-failed': 1, explicit: 1, 'delivery-limit': 1 },
      recoveryMs: [2100],
      completedByKilled: 0,
    });
  });

  it.each<[string, () => Observations, string]>([
    [
      'an entry acknowledged without its work',
      () => run([entry('1-1', 'ok')], [at('start', '1-1', 1), at('end', '1-1', 1, '0.0', 'ack')]),
      'completed at least once',
    ],
    ['an entry never read', () => run([entry('1-1', 'ok')], []), 'completed at least once'],
    ['work at an attempt where the handler fails', () => run([entry('1-1', 'flaky', 'nack', 2)], [...acked('1-1', 2)]), 'work only where the handler succeeds'],
    ['the handler run past the delivery limit', () => run([entry('1-1', 'ok')], [...acked('1-1', 4)]), 'work only where the handler succeeds'],
    [
      'a nack dead-lettered before the final attempt',
      () => {
        const e = entry('1-1', 'poison', 'nack');
        return run([e], [...failed('1-1', 1), ...lettered('1-1', 2)], [record(e, 'nack', 2)]);
      },
      'dead letters only where the contract says',
    ],
    [
      'a thrown failure recorded without its exception type',
      () => {
        const e = entry('1-1', 'poison', 'throw');
        return run([e], [...failed('1-1', 1), ...failed('1-1', 2), ...lettered('1-1', 3)], [record(e, 'processing-failed', 3, '')]);
      },
      'dead letters only where the contract says',
    ],
    [
      'an abandoned final attempt dead-lettered at the limit instead of past it',
      () => {
        const e = entry('1-1', 'ok');
        return run([e], [...lettered('1-1', 3)], [record(e, 'delivery-limit', 3)]);
      },
      'dead letters only where the contract says',
    ],
    [
      'an entry that succeeds dead-lettered as explicit',
      () => {
        const e = entry('1-1', 'ok');
        return run([e], [...lettered('1-1', 1)], [record(e, 'explicit', 1)]);
      },
      'dead letters only where the contract says',
    ],
    [
      'a record whose fields differ from the entry',
      () => {
        const e = entry('1-1', 'explicit');
        return run([e], [...lettered('1-1', 1)], [record(e, 'explicit', 1, '', [...e.fields.slice(0, 3), Buffer.from([0, 254])])]);
      },
      'dead letters only where the contract says',
    ],
    [
      'an entry dead-lettered twice',
      () => {
        const e = entry('1-1', 'explicit');
        return run([e], [...lettered('1-1', 1), ...lettered('1-1', 2)], [record(e, 'explicit', 1), record(e, 'explicit', 2)]);
      },
      'dead letters only where the contract says',
    ],
    [
      'a poison entry never dead-lettered',
      () => run([entry('1-1', 'poison')], [...failed('1-1', 1), ...failed('1-1', 2), ...failed('1-1', 3)]),
      'dead letters only where the contract says',
    ],
    [
      'two deliveries that both report ack (a stale completion accepted)',
      () =>
        run([entry('1-1', 'ok')], [at('start', '1-1', 1, '0.0'), at('work', '1-1', 1, '0.0'), ...acked('1-1', 2, '1.0'), at('end', '1-1', 1, '0.0', 'ack')]),
      'one confirmed completion per entry',
    ],
    [
      'a stale ack accepted in place of the newer delivery (that one then fenced out)',
      () =>
        run(
          [entry('1-1', 'ok')],
          [
            at('start', '1-1', 1, '0.0'),
            at('start', '1-1', 2, '0.1'),
            at('work', '1-1', 1, '0.0'),
            at('end', '1-1', 1, '0.0', 'ack'),
            at('work', '1-1', 2, '0.1'),
            at('end', '1-1', 2, '0.1', 'stale'),
          ],
        ),
      'completed only by its newest delivery',
    ],
    [
      'an ack reported by a delivery that did not do the work',
      () =>
        run([entry('1-1', 'ok')], [at('start', '1-1', 1, '0.0'), at('work', '1-1', 1, '0.0'), at('start', '1-1', 2, '1.0'), at('end', '1-1', 2, '1.0', 'ack')]),
      'one confirmed completion per entry',
    ],
    [
      'an entry a killed consumer left pending and nobody took',
      () => run([entry('1-1', 'ok')], [...acked('1-1', 1)], [], [{ id: '1-1', consumer: 'c-0', count: 1 }]),
      'recovered after a kill',
    ],
    [
      'an entry recovered later than the bound',
      () =>
        run([entry('1-1', 'ok')], [at('start', '1-1', 1), ...acked('1-1', 2, '2.0')], [], [{ id: '1-1', consumer: 'c-0', count: 1, recoveredAfterMs: 5001 }]),
      'recovered within 5000 ms',
    ],
  ])('flags %s', (_what, observations, rule) => {
    expect(rules(observations())).toContain(rule);
  });

  it('draws the same entries from the same seed, with every value in range', () => {
    const draw = (seed: number) => {
      const random = new SeededRandom(seed);
      return Array.from({ length: 500 }, (_, i) => planEntry(random, i, LIMIT));
    };
    expect(draw(7)).toEqual(draw(7));
    expect(draw(7)).not.toEqual(draw(8));
    const random = new SeededRandom(42);
    const many = Array.from({ length: 2000 }, (_, i) => planEntry(random, i, LIMIT));
    expect(new Set(many.map((e) => e.kind))).toEqual(new Set(['ok', 'flaky', 'poison', 'explicit']));
    expect(many.filter((e) => e.kind === 'flaky').every((e) => e.failUntil >= 1 && e.failUntil <= LIMIT)).toBe(true);
    expect(many.every((e) => e.workMs >= 0 && e.workMs <= 400)).toBe(true);
  });
});
