// The chaos suites' settings from the environment: the seed, and how long the fault phase runs.
import { randomInt } from 'node:crypto';

/** What a chaos run uses; every random choice derives from `seed`. */
export interface ChaosSettings {
  /** 0..2^32-1: `RESPIRE_CHAOS_SEED`, else a fresh random one (printed, so a failure can be repeated). */
  readonly seed: number;
  /** True when the seed came from `RESPIRE_CHAOS_SEED`. */
  readonly seedGiven: boolean;
  /** How long faults are injected, in ms: `RESPIRE_CHAOS_SECONDS` × 1000, else the suite's CI size. */
  readonly faultPhaseMs: number;
  /** True when `RESPIRE_CHAOS_SECONDS` asked for a size other than the CI size. */
  readonly custom: boolean;
}

/** The longest fault phase `RESPIRE_CHAOS_SECONDS` may ask for: one day. */
const MAX_SECONDS = 86_400;

/**
 * Reads `RESPIRE_CHAOS_SEED` (an integer 0..4294967295) and `RESPIRE_CHAOS_SECONDS` (a number of
 * seconds, more than 0 and at most 86400) from `env`.
 * @param ciSeconds - the fault phase's length when `RESPIRE_CHAOS_SECONDS` is not set.
 * @throws Error naming the variable, what it holds and what is allowed, when either is invalid.
 */
export function chaosSettings(ciSeconds: number, env: NodeJS.ProcessEnv = process.env): ChaosSettings {
  const seedText = env.RESPIRE_CHAOS_SEED?.trim() ?? '';
  const secondsText = env.RESPIRE_CHAOS_SECONDS?.trim() ?? '';
  if (seedText !== '' && !(/^\d{1,10}$/.test(seedText) && Number(seedText) <= 0xffffffff)) {
    throw new Error(`RESPIRE_CHAOS_SEED must be an integer from 0 to 4294967295, got '${seedText}'`);
  }
  const seconds = secondsText === '' ? ciSeconds : Number(secondsText);
  if (!(Number.isFinite(seconds) && seconds > 0 && seconds <= MAX_SECONDS)) {
    throw new Error(`RESPIRE_CHAOS_SECONDS must be a number of seconds above 0 and at most ${MAX_SECONDS}, got '${secondsText}'`);
  }
  return {
    seed: seedText === '' ? randomInt(0, 0x100000000) : Number(seedText),
    seedGiven: seedText !== '',
    faultPhaseMs: Math.round(seconds * 1000),
    custom: secondsText !== '',
  };
}

/**
 * The one command that repeats a run with the same seed and size: the suite's test file run by
 * Vitest in its package (Vitest passes the environment through; turbo would strip it), on the same
 * server binary when `REDIS_SERVER` chose one.
 */
export function repeatCommand(settings: ChaosSettings, packageDir: string, testFile: string, env: NodeJS.ProcessEnv = process.env): string {
  const vars = [`RESPIRE_CHAOS_SEED=${settings.seed}`, `RESPIRE_CHAOS_SECONDS=${settings.faultPhaseMs / 1000}`];
  const server = env.REDIS_SERVER?.trim();
  if (server) vars.push(`REDIS_SERVER=${server}`);
  return `cd ${packageDir} && ${vars.join(' ')} pnpm exec vitest run ${testFile}`;
}
