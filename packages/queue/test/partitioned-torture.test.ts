// The queue's seeded model-based fault torture on a PartitionedQueue of 3 partitions on one server (the run itself: torture-run.ts).
import { afterAll, beforeAll, it } from 'vitest';
import { runTorture, startTortureServer, tortureSettings, type TortureServer, type TortureTarget } from './torture-run.js';

/**
 * The same clients, operations, faults and model as torture.test.ts, on a PartitionedQueue: a
 * message is known by (partition, entry ID), a receipt by its partitioned form `p<i>~<receipt>`,
 * and its dead letter must be in its own partition's dead-letter stream. 25 s of faults under CI,
 * about 35 s in all (see the queue README, "Tests").
 */
const TARGET: TortureTarget = { partitions: 3, ciSeconds: 25, testFile: 'test/partitioned-torture.test.ts', label: 'partitioned-queue-torture' };

let setup: TortureServer | undefined;
beforeAll(async () => {
  setup = await startTortureServer();
}, 30_000);
afterAll(async () => {
  await setup?.proxy.close();
  await setup?.server.close();
});

it(
  'model-based torture of a PartitionedQueue (3 partitions): random operations of several clients under lost replies and requests, resets, CLIENT KILL, SCRIPT FLUSH, DEBUG SLEEP, CLIENT PAUSE and restarts; every outcome agrees with the contract',
  // A violation is a finding: no second try with another seed.
  { timeout: tortureSettings(TARGET).faultPhaseMs + 120_000, retry: 0 },
  () => runTorture(TARGET, setup!),
);
