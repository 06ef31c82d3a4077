// Tests of the chaos machinery: seeded random streams, settings, reports, the process fleet and the schedules.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ChaosReport,
  ProcessFleet,
  SeededRandom,
  chaosSettings,
  distribution,
  eventually,
  repeatCommand,
  runBursts,
  runFaultSchedule,
  sleep,
  spawnTypeScriptChild,
} from '../src/index.js';

const harnessDir = join(import.meta.dirname, '..');
const draws = (random: SeededRandom, n: number) => Array.from({ length: n }, () => random.next());

describe('SeededRandom', () => {
  it('repeats its sequence for the same seed and label, and differs for another seed or label', () => {
    expect(draws(new SeededRandom(1), 50)).toEqual(draws(new SeededRandom(1), 50));
    expect(draws(new SeededRandom(1), 50)).not.toEqual(draws(new SeededRandom(2), 50));
    expect(draws(new SeededRandom(1).fork('a'), 50)).not.toEqual(draws(new SeededRandom(1).fork('b'), 50));
  });

  it('gives a fork the same stream however much its parent drew before', () => {
    const quiet = new SeededRandom(9);
    const busy = new SeededRandom(9);
    draws(busy, 1000);
    expect(draws(busy.fork('faults'), 20)).toEqual(draws(quiet.fork('faults'), 20));
  });

  it('draws uniformly in [0, 1), integers over the whole inclusive range, and by weight', () => {
    const random = new SeededRandom(123);
    const values = draws(random, 100_000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...values)).toBeLessThan(1);
    expect(Math.abs(values.reduce((a, b) => a + b, 0) / values.length - 0.5)).toBeLessThan(0.01);
    const ints = Array.from({ length: 5000 }, () => random.int(3, 7));
    expect(new Set(ints)).toEqual(new Set([3, 4, 5, 6, 7]));
    const picks = Array.from({ length: 5000 }, () =>
      random.weighted([
        ['never', 0],
        ['rare', 1],
        ['often', 9],
      ] as const),
    );
    expect(picks).not.toContain('never');
    expect(picks.filter((p) => p === 'often').length / picks.length).toBeGreaterThan(0.85);
    expect(Math.max(...Array.from({ length: 5000 }, () => random.exponential(10, 30)))).toBeLessThanOrEqual(30);
    expect(() => random.pick([])).toThrow(/no items/);
  });
});

describe('chaosSettings and repeatCommand', () => {
  it('takes the CI size and a fresh seed by default, and the environment when given', () => {
    const fresh = chaosSettings(40, {});
    expect(fresh).toMatchObject({ faultPhaseMs: 40_000, seedGiven: false, custom: false });
    expect(fresh.seed).toBeGreaterThanOrEqual(0);
    expect(fresh.seed).toBeLessThanOrEqual(0xffffffff);
    expect(chaosSettings(40, { RESPIRE_CHAOS_SEED: '4294967295', RESPIRE_CHAOS_SECONDS: '600' })).toEqual({
      seed: 4294967295,
      seedGiven: true,
      faultPhaseMs: 600_000,
      custom: true,
    });
  });

  it.each([
    ['RESPIRE_CHAOS_SEED', '4294967296'],
    ['RESPIRE_CHAOS_SEED', '-1'],
    ['RESPIRE_CHAOS_SEED', 'abc'],
    ['RESPIRE_CHAOS_SECONDS', '0'],
    ['RESPIRE_CHAOS_SECONDS', '86401'],
    ['RESPIRE_CHAOS_SECONDS', 'ten'],
  ])('refuses %s=%s, naming the variable', (name, value) => {
    expect(() => chaosSettings(40, { [name]: value })).toThrow(new RegExp(`^${name} must be`));
  });

  it('repeats a run with its seed, size and server binary', () => {
    const settings = chaosSettings(40, { RESPIRE_CHAOS_SEED: '77' });
    expect(repeatCommand(settings, 'packages/worker', 'test/chaos.test.ts', { REDIS_SERVER: '/opt/valkey-server' })).toBe(
      'cd packages/worker && RESPIRE_CHAOS_SEED=77 RESPIRE_CHAOS_SECONDS=40 REDIS_SERVER=/opt/valkey-server pnpm exec vitest run test/chaos.test.ts',
    );
  });
});

describe('distribution and ChaosReport', () => {
  it('takes nearest-rank percentiles', () => {
    expect(distribution(Array.from({ length: 100 }, (_, i) => 100 - i))).toEqual({ count: 100, p50: 50, p95: 95, max: 100 });
    expect(distribution([7])).toEqual({ count: 1, p50: 7, p95: 7, max: 7 });
    expect(distribution([])).toEqual({ count: 0, p50: 0, p95: 0, max: 0 });
  });

  it('prints figures and violations by rule (five listed per rule), fails with the seed and the repeat command, and writes every violation as JSON', () => {
    const settings = chaosSettings(40, { RESPIRE_CHAOS_SEED: '5' });
    const report = new ChaosReport('suite one', settings, 'the command');
    report.figure('entries', 10);
    expect(report.summary()).toContain('no violations');
    expect(() => report.assertClean()).not.toThrow();
    for (let i = 0; i < 7; i++) report.violation('rule A', `detail ${i}`);
    report.violation('rule B', 'only one');
    const summary = report.summary();
    expect(summary.split('\n')).toEqual([
      'suite one: seed 5 (given), fault phase 40 s',
      '  entries  10',
      '  VIOLATION rule A (7)',
      '    detail 0',
      '    detail 1',
      '    detail 2',
      '    detail 3',
      '    detail 4',
      '    ... and 2 more',
      '  VIOLATION rule B (1)',
      '    only one',
      '  repeat: the command',
    ]);
    expect(() => report.assertClean()).toThrow(/seed 5[\s\S]*repeat: the command/);
    const dir = mkdtempSync(join(tmpdir(), 'respire-chaos-report-'));
    try {
      const path = report.write({ extra: [1] }, { RESPIRE_TEST_REPORT_DIR: dir })!;
      expect(path).toBe(join(dir, 'chaos', 'suite-one.json'));
      const json = JSON.parse(readFileSync(path, 'utf8'));
      expect(json).toMatchObject({ suite: 'suite one', seed: 5, figures: { entries: '10' }, repeat: 'the command', extra: [1] });
      expect(json.violations).toHaveLength(8);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(report.write({}, {})).toBeUndefined();
  });
});

describe('ProcessFleet', () => {
  let fleet: ProcessFleet | undefined;
  afterEach(async () => {
    await fleet?.stop(1000);
    fleet = undefined;
  });

  /** A child that prints `up`, then `tick <n>` every 20 ms; exits 0 on SIGTERM, or with code 2 when told to. */
  const spawn = (exitCode?: number) => () =>
    spawnTypeScriptChild(
      `
      console.log('up');
      let n = 0;
      setInterval(() => console.log('tick ' + n++), 20);
      process.on('SIGTERM', () => process.exit(0));
      ${exitCode === undefined ? '' : `setTimeout(() => process.exit(${exitCode}), 200);`}
      `,
      { cwd: harnessDir },
    );

  it('restarts a SIGKILLed process as its next generation, freezes and thaws one, and stops all with SIGTERM', async () => {
    const lines: string[] = [];
    fleet = new ProcessFleet({ size: 2, spawn: spawn(), restartDelayMs: () => 50, onLine: (p, line) => lines.push(`${p.slot}.${p.generation} ${line}`) });
    fleet.start();
    await eventually(() => lines.includes('0.0 up') && lines.includes('1.0 up'), 15_000);
    const killed = await fleet.kill(0);
    expect(killed).toMatchObject({ slot: 0, generation: 0, signal: 'SIGKILL', cause: 'kill' });
    await eventually(() => lines.includes('0.1 up'), 15_000);

    expect(fleet.freeze(1, 2000)).toBe(true);
    expect(fleet.process(1)?.state).toBe('frozen');
    expect(fleet.running().map((p) => p.slot)).toEqual([0]);
    await sleep(100); // a tick written just before SIGSTOP may still arrive
    const ticksWhileFrozen = lines.filter((l) => l.startsWith('1.0 tick')).length;
    await sleep(300);
    expect(lines.filter((l) => l.startsWith('1.0 tick')).length).toBe(ticksWhileFrozen);
    await eventually(() => lines.filter((l) => l.startsWith('1.0 tick')).length > ticksWhileFrozen, 5000);
    expect(fleet.process(1)?.state).toBe('running');

    const exits = await fleet.stop(5000);
    expect(exits.map((e) => [e.slot, e.generation, e.code, e.cause])).toEqual([
      [0, 1, 0, 'stop'],
      [1, 0, 0, 'stop'],
    ]);
    expect(fleet.unexpectedExits).toEqual([]);
    const kinds = fleet.events.map((e) => `${e.kind} ${e.slot}.${e.generation}`);
    expect(kinds).toEqual(
      expect.arrayContaining(['start 0.0', 'start 1.0', 'kill 0.0', 'exit 0.0', 'start 0.1', 'freeze 1.0', 'thaw 1.0', 'stop 0.1', 'stop 1.0']),
    );
  }, 40_000);

  it('replaces a process in a rolling restart: the next generation starts while the old one is frozen, then the old one gets SIGTERM and nothing replaces it again', async () => {
    const lines: string[] = [];
    fleet = new ProcessFleet({ size: 1, spawn: spawn(), onLine: (p, line) => lines.push(`${p.slot}.${p.generation} ${line}`) });
    fleet.start();
    await eventually(() => lines.includes('0.0 up'), 15_000);
    const replaced = fleet.replace(0, { pauseMs: 4000, timeoutMs: 5000 });
    await eventually(() => lines.includes('0.1 up'), 15_000);
    // The old one is still there, frozen, while its replacement runs (a start of up to 4 s under load).
    expect(fleet.events.filter((e) => e.generation === 0).map((e) => e.kind)).toEqual(['start', 'freeze']);
    expect(await replaced).toMatchObject({ slot: 0, generation: 0, code: 0, cause: 'stop' });
    await sleep(300);
    expect(fleet.process(0)?.generation).toBe(1);
    expect(fleet.unexpectedExits).toEqual([]);
  }, 30_000);

  it('records a process that exits by itself as unexpected, and restarts it', async () => {
    fleet = new ProcessFleet({ size: 1, spawn: spawn(2) });
    fleet.start();
    await eventually(() => fleet!.unexpectedExits.length >= 1 && (fleet!.process(0)?.generation ?? 0) >= 1, 15_000);
    expect(fleet.unexpectedExits[0]).toMatchObject({ slot: 0, generation: 0, code: 2, cause: undefined });
    expect(fleet.unexpectedExits[0]!.outputTail).toContain('up');
  }, 30_000);
});

describe('runFaultSchedule and runBursts', () => {
  it('runs faults by weight at random gaps, skips one that is not ready, and repeats its plan for a seed', async () => {
    const plan = async (seed: number) => {
      const names: string[] = [];
      const counts = await runFaultSchedule({
        random: new SeededRandom(seed),
        durationMs: 600,
        meanGapMs: 10,
        faults: [
          { name: 'often', weight: 3, run: () => void names.push('often') },
          { name: 'rare', weight: 1, run: () => void names.push('rare') },
          { name: 'never ready', weight: 1, ready: () => false, run: () => void names.push('never ready') },
        ],
      });
      return { names, counts };
    };
    const first = await plan(11);
    const second = await plan(11);
    expect(first.names).not.toContain('never ready');
    expect(first.counts.skipped).toBeGreaterThan(0);
    expect(first.counts.ran.often).toBeGreaterThan(first.counts.ran.rare!);
    // Timing decides how many turns fit in 600 ms; the turns that ran are the same.
    const shorter = Math.min(first.names.length, second.names.length);
    expect(shorter).toBeGreaterThan(5);
    expect(second.names.slice(0, shorter)).toEqual(first.names.slice(0, shorter));
  });

  it('sends bursts between the bounds, many small and a few large', async () => {
    const sizes: number[] = [];
    const counts = await runBursts({
      random: new SeededRandom(3),
      durationMs: 300,
      minBurst: 1,
      maxBurst: 1000,
      meanGapMs: 1,
      send: async (n) => void sizes.push(n),
    });
    expect(counts.bursts).toBe(sizes.length);
    expect(counts.sent).toBe(sizes.reduce((a, b) => a + b, 0));
    expect(counts.largest).toBe(Math.max(...sizes));
    expect(sizes.every((n) => n >= 1 && n <= 1000)).toBe(true);
    expect(sizes.filter((n) => n <= 31).length).toBeGreaterThan(sizes.length / 3); // log-uniform: half are below sqrt(1000)
  });
});
