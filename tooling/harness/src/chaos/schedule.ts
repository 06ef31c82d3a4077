// Seeded schedules for chaos suites: faults at random intervals, and bursty load.
import { sleep } from '../helpers.js';
import type { SeededRandom } from './random.js';

/** A fault the schedule can inject. */
export interface ScheduledFault {
  readonly name: string;
  /** Relative frequency among the faults. */
  readonly weight: number;
  /** False when the fault cannot run now (e.g. only one process is left to kill); the turn is skipped. */
  ready?(): boolean;
  /** Injects it; the schedule waits for it before drawing the next gap. */
  run(): unknown;
}

/** How many times each fault ran, and how many turns were skipped because the drawn fault was not ready. */
export interface FaultCounts {
  readonly ran: Readonly<Record<string, number>>;
  readonly skipped: number;
}

/**
 * Injects faults for `durationMs`: waits an exponentially distributed gap (mean `meanGapMs`, at
 * most five times that), draws a fault by weight and runs it when it is ready, and so on. The gaps
 * and the draws come from `random` alone, so a seed repeats the schedule's plan.
 */
export async function runFaultSchedule(options: {
  readonly random: SeededRandom;
  readonly durationMs: number;
  readonly meanGapMs: number;
  readonly faults: readonly ScheduledFault[];
}): Promise<FaultCounts> {
  const { random, faults } = options;
  const ran: Record<string, number> = Object.fromEntries(faults.map((f) => [f.name, 0]));
  let skipped = 0;
  const end = performance.now() + options.durationMs;
  for (;;) {
    const gap = random.exponential(options.meanGapMs);
    const fault = random.weighted(faults.map((f) => [f, f.weight] as const));
    if (performance.now() + gap >= end) break;
    await sleep(gap);
    if (fault.ready && !fault.ready()) {
      skipped++;
      continue;
    }
    await fault.run();
    ran[fault.name]!++;
  }
  await sleep(Math.max(0, end - performance.now()));
  return { ran, skipped };
}

/** What {@link runBursts} sent. */
export interface BurstCounts {
  readonly bursts: number;
  readonly sent: number;
  /** The largest burst. */
  readonly largest: number;
}

/**
 * Bursty load for `durationMs`: bursts of `minBurst`..`maxBurst` items (log-uniform: many small
 * bursts, a few large ones), separated by exponentially distributed quiet gaps of mean
 * `meanGapMs`. `send(count)` sends one burst; the next gap starts once it resolves.
 */
export async function runBursts(options: {
  readonly random: SeededRandom;
  readonly durationMs: number;
  readonly minBurst: number;
  readonly maxBurst: number;
  readonly meanGapMs: number;
  send(count: number): Promise<unknown>;
}): Promise<BurstCounts> {
  const { random, minBurst, maxBurst } = options;
  const end = performance.now() + options.durationMs;
  let bursts = 0;
  let sent = 0;
  let largest = 0;
  while (performance.now() < end) {
    const count = Math.min(maxBurst, Math.floor(minBurst * ((maxBurst + 1) / minBurst) ** random.next()));
    await options.send(count);
    bursts++;
    sent += count;
    largest = Math.max(largest, count);
    await sleep(Math.min(random.exponential(options.meanGapMs), Math.max(0, end - performance.now())));
  }
  return { bursts, sent, largest };
}
