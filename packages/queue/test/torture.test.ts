// The queue's seeded model-based fault torture on one ReliableQueue (the run itself: torture-run.ts).
import { afterAll, beforeAll, it } from 'vitest';
import { runTorture, startTortureServer, tortureSettings, type TortureServer, type TortureTarget } from './torture-run.js';

/** 40 s of faults under CI, about 50 s in all (see the queue README, "Tests"). */
const TARGET: TortureTarget = { ciSeconds: 40, testFile: 'test/torture.test.ts', label: 'queue-torture' };

let setup: TortureServer | undefined;
beforeAll(async () => {
  setup = await startTortureServer();
}, 30_000);
afterAll(async () => {
  await setup?.proxy.close();
  await setup?.server.close();
});

it(
  'model-based torture: random operations of several clients under lost replies and requests, resets, CLIENT KILL, SCRIPT FLUSH, DEBUG SLEEP, CLIENT PAUSE and restarts; every outcome agrees with the contract',
  // A violation is a finding: no second try with another seed.
  { timeout: tortureSettings(TARGET).faultPhaseMs + 120_000, retry: 0 },
  () => runTorture(TARGET, setup!),
);
