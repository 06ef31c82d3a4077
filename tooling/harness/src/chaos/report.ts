// What a chaos run found: its seed, its figures and its violations, printed and written as JSON.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosSettings } from './settings.js';

/** Nearest-rank percentiles of a sample (all 0 for an empty one). */
export interface Distribution {
  readonly count: number;
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** The count, p50, p95 and maximum of `values` (nearest rank: each one is a value of the sample). */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { count: 0, p50: 0, p95: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
  return { count: sorted.length, p50: rank(0.5), p95: rank(0.95), max: sorted[sorted.length - 1]! };
}

/** One broken rule, with what showed it. */
export interface Violation {
  readonly rule: string;
  readonly detail: string;
  /** When the evidence appeared, on the clock the suite measures with (ms), if it knows. */
  readonly atMs?: number;
}

/** How many violations of one rule the printed summary lists (the JSON report keeps them all). */
const LISTED_PER_RULE = 5;

/**
 * A chaos run's findings. Figures are printed in the order they were added; violations are grouped
 * by rule. {@link ChaosReport.assertClean} fails the run with the seed and the command that repeats it.
 */
export class ChaosReport {
  readonly suite: string;
  readonly settings: ChaosSettings;
  readonly repeat: string;
  readonly #figures: [string, string][] = [];
  readonly #violations: Violation[] = [];

  /** @param repeat - the command that repeats this run ({@link repeatCommand}). */
  constructor(suite: string, settings: ChaosSettings, repeat: string) {
    this.suite = suite;
    this.settings = settings;
    this.repeat = repeat;
  }

  figure(name: string, value: string | number): void {
    this.#figures.push([name, String(value)]);
  }

  violation(rule: string, detail: string, atMs?: number): void {
    this.#violations.push({ rule, detail, ...(atMs === undefined ? {} : { atMs }) });
  }

  get violations(): readonly Violation[] {
    return this.#violations;
  }

  /** The run in a few lines: seed, size, figures, violations (at most five listed per rule), and how to repeat it. */
  summary(): string {
    const lines = [`${this.suite}: seed ${this.settings.seed}${this.settings.seedGiven ? ' (given)' : ''}, fault phase ${this.settings.faultPhaseMs / 1000} s`];
    const width = Math.max(0, ...this.#figures.map(([name]) => name.length));
    for (const [name, value] of this.#figures) lines.push(`  ${name.padEnd(width)}  ${value}`);
    const byRule = new Map<string, string[]>();
    for (const v of this.#violations) byRule.set(v.rule, [...(byRule.get(v.rule) ?? []), v.detail]);
    if (byRule.size === 0) lines.push('  no violations');
    for (const [rule, details] of byRule) {
      lines.push(`  VIOLATION ${rule} (${details.length})`);
      for (const detail of details.slice(0, LISTED_PER_RULE)) lines.push(`    ${detail}`);
      if (details.length > LISTED_PER_RULE) lines.push(`    ... and ${details.length - LISTED_PER_RULE} more`);
    }
    lines.push(`  repeat: ${this.repeat}`);
    return lines.join('\n');
  }

  /**
   * Writes the whole report (every violation) as `chaos/<suite>.json` under `RESPIRE_TEST_REPORT_DIR`
   * when that is set (CI), beside the test reports; returns the path, or undefined.
   * @param details - anything else worth keeping (a timeline, per-entry histories).
   */
  write(details: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = process.env): string | undefined {
    const dir = env.RESPIRE_TEST_REPORT_DIR;
    if (!dir) return undefined;
    const path = join(dir, 'chaos', `${this.suite.replace(/[^A-Za-z0-9._-]+/g, '-')}.json`);
    mkdirSync(join(dir, 'chaos'), { recursive: true });
    const report = {
      suite: this.suite,
      seed: this.settings.seed,
      faultPhaseMs: this.settings.faultPhaseMs,
      figures: Object.fromEntries(this.#figures),
      violations: this.#violations,
      repeat: this.repeat,
      ...details,
    };
    writeFileSync(path, JSON.stringify(report, null, 2));
    return path;
  }

  /** @throws Error with the {@link ChaosReport.summary} (seed, violations, the repeat command) when a rule was broken. */
  assertClean(): void {
    if (this.#violations.length > 0) throw new Error(`chaos run failed\n${this.summary()}`);
  }
}
