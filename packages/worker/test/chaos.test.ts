// The stream worker's kill -9 chaos test: worker processes under bursty load, SIGKILLed and frozen at random and restarted; every outcome checked against the contract.
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, it } from 'vitest';
import {
  ChaosReport,
  ProcessFleet,
  SeededRandom,
  chaosSettings,
  distribution,
  repeatCommand,
  runBursts,
  runFaultSchedule,
  sleep,
  spawnTypeScriptChild,
  startRedisServer,
  type FleetProcess,
  type RedisServerHandle,
  type ScheduledFault,
} from '@respire/harness';
import { checkRun, idMs, planEntry, type DeadLetterRecord, type KillRecord, type LogRecord, type Orphan, type PlannedEntry } from './chaos-model.js';
import type { ChaosWorkerConfig, LogEvent } from './chaos-worker.js';

/**
 * Three slots of worker processes (chaos-worker.ts, each a StreamWorkerHost with one worker) read
 * one stream while the test appends entries in bursts. Entries succeed, fail for a while, fail
 * always or ask to be dead-lettered, each by its own fields (chaos-model.ts). Meanwhile a seeded
 * schedule injects, at random gaps:
 * - SIGKILL of a process, which its slot restarts after up to 1 s;
 * - SIGSTOP of a process right after a small burst, mostly for longer than the minimum idle time,
 *   so the entries it was handed are recovered by others while it still holds them (its
 *   completions must then be refused);
 * - a rolling restart: after a small burst, the slot's next process starts while the old one,
 *   frozen for a moment, still holds deliveries; the old one carries on for up to 0.5 s, then
 *   gets SIGTERM and drains. Under a stable name both processes claim under the same consumer
 *   names for a while (the new one's startup replay, or the old one's if it was still replaying),
 *   so one's completions are stale by delivery count alone.
 * Slot 0 always uses a stable consumer name (a restart replays its own pending entries), slot 1
 * the worker's random name, slot 2 either, drawn at each start; reader counts, batch sizes and the
 * node-redis major (5 or 6) are drawn at each start too. At least two processes are ready and not
 * frozen before each fault.
 *
 * Then the faults stop, frozen processes continue, and the stream drains. The test checks
 * (chaos-model.ts `checkRun`) that every entry's work was done or the entry dead-lettered, at least
 * once; dead letters only where the contract puts them; one confirmed completion per entry, and
 * only by its newest delivery; every entry a killed process left pending recovered within
 * minimumIdleTimeMs + recoveryPollIntervalMs + {@link RECOVERY_MARGIN_MS}; no worker fault and no
 * crash; exactly the live processes' connections on the server, and none once they stopped
 * (CLIENT LIST); and every process exits by itself on SIGTERM. It reports the duplicate rate and
 * the recovery times.
 *
 * The recovery bound assumes the fleet recovers faster than entries fall idle: each reader claims
 * at most batchSize entries per recoveryPollIntervalMs (at least 30 entries/s for three readers of
 * batch 1 at 100 ms), against about 15 failed attempts/s waiting for recovery at this load, plus
 * each kill's orphans.
 *
 * Size: {@link CI_SECONDS} s of faults and load, about 50 s in all on a loaded 2-core machine;
 * `RESPIRE_CHAOS_SECONDS=600` runs ten minutes, `RESPIRE_CHAOS_SEED=<seed>` repeats a run's plan
 * (see the worker README, "Tests").
 */
const CI_SECONDS = 40;
const SLOTS = 3;
const GROUP = 'chaos';
const WORKER = {
  readWaitMs: 500,
  minimumIdleTimeMs: 2000,
  recoveryPollIntervalMs: 100,
  deliveryLimit: 3,
  shutdownTimeoutMs: 3000,
} as const;
/**
 * What recovery may take beyond minimumIdleTimeMs + recoveryPollIntervalMs: a reader runs its
 * recovery page only after its current batch (up to 16 entries, a few of 100-400 ms), a scan may
 * need a second page (XAUTOCLAIM's cursor), and a loaded 2-core machine delays any process by up
 * to a second or two.
 */
const RECOVERY_MARGIN_MS = 4000;
const RECOVERY_BOUND_MS = WORKER.minimumIdleTimeMs + WORKER.recoveryPollIntervalMs + RECOVERY_MARGIN_MS;
/** Draining after the faults stop: a failing entry needs up to deliveryLimit recoveries, plus slack. */
const DRAIN_TIMEOUT_MS = WORKER.deliveryLimit * (WORKER.minimumIdleTimeMs + WORKER.recoveryPollIntervalMs + RECOVERY_MARGIN_MS) + 15_000;

const CHILD = pathToFileURL(new URL('./chaos-worker.ts', import.meta.url).pathname).href;
const PACKAGE_DIR = new URL('..', import.meta.url).pathname;

/** A private server: CLIENT LIST must show only this test's connections. */
let server: RedisServerHandle;
beforeAll(async () => {
  server = await startRedisServer();
}, 30_000);
afterAll(async () => {
  await server?.close();
});

type Client = ReturnType<typeof createClient>;

/** A RESP2 client (flat array replies for XINFO and XPENDING). */
async function connect(): Promise<Client> {
  const client = createClient({ url: server.url, RESP: 2 });
  client.on('error', () => {});
  await client.connect();
  return client as unknown as Client;
}

/** What one fleet process told the test on stdout. */
interface ProcessState {
  names: string[];
  ready: boolean;
  stopped: boolean;
  fault?: string;
}

const settings = chaosSettings(CI_SECONDS);

it(
  'kill -9 chaos: worker processes under bursty load, SIGKILLed and frozen at random and restarted; every entry is completed, dead letters only where the contract says, stale completions are fenced out, killed consumers recovered in time, and no connection is left',
  // A violation is a finding: no second try with another seed.
  { timeout: settings.faultPhaseMs + DRAIN_TIMEOUT_MS + 120_000, retry: 0 },
  async () => {
    const began = performance.now();
    const report = new ChaosReport(
      `worker-chaos ${server.flavour} ${server.version}`,
      settings,
      repeatCommand(settings, 'packages/worker', 'test/chaos.test.ts'),
    );
    console.log(`worker chaos: seed ${settings.seed}, ${settings.faultPhaseMs / 1000} s of faults; repeat: ${report.repeat}`);
    const random = new SeededRandom(settings.seed);
    const tag = `chaos-${randomBytes(4).toString('hex')}`;
    const keys = { stream: `{${tag}}:events`, dead: `{${tag}}:dead`, log: `{${tag}}:log` };
    const admin = await connect();
    const producer = await connect();
    const ownIds = new Set([String(await admin.sendCommand(['CLIENT', 'ID'])), String(await producer.sendCommand(['CLIENT', 'ID']))]);
    const fleetConnections = async () => {
      const lines = String(await admin.sendCommand(['CLIENT', 'LIST']))
        .split('\n')
        .filter((l) => l.trim() !== '');
      return lines.filter((l) => !ownIds.has(/(?:^| )id=(\d+)/.exec(l)?.[1] ?? ''));
    };
    await admin.sendCommand(['XGROUP', 'CREATE', keys.stream, GROUP, '0', 'MKSTREAM']);

    // The fleet: one worker process per slot at a time, each configured by its own draw.
    const configs = new Map<string, ChaosWorkerConfig>();
    const states = new Map<string, ProcessState>();
    const key = (p: Pick<FleetProcess, 'slot' | 'generation'>) => `${p.slot}.${p.generation}`;
    const fleet = new ProcessFleet({
      size: SLOTS,
      spawn: (slot, generation) => {
        const draw = random.fork(`process ${slot}.${generation}`);
        const stable = slot === 0 || (slot === 2 && draw.chance(0.5));
        const config: ChaosWorkerConfig = {
          ...WORKER,
          url: server.url,
          stream: keys.stream,
          deadLetterStream: keys.dead,
          log: keys.log,
          group: GROUP,
          process: `${slot}.${generation}`,
          consumerName: stable ? `chaos-${slot}` : undefined,
          consumerCount: draw.int(1, 3),
          batchSize: draw.pick([1, 4, 8, 16]),
          redis: draw.pick([6, 6, 5] as const),
        };
        configs.set(config.process, config);
        states.set(config.process, { names: [], ready: false, stopped: false });
        return spawnTypeScriptChild(`import { runChaosWorker } from '${CHILD}'; await runChaosWorker(JSON.parse(process.env.CHAOS_WORKER));`, {
          cwd: PACKAGE_DIR,
          env: { CHAOS_WORKER: JSON.stringify(config) },
        });
      },
      restartDelayMs: (slot, generation) => random.fork(`restart ${slot}.${generation}`).int(0, 1000),
      onLine: (p, line) => {
        const state = states.get(key(p));
        let message: { t?: string; names?: string[]; code?: string; message?: string };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return; // not one of ours
        }
        if (state === undefined) return;
        if (message.t === 'names') state.names = message.names ?? [];
        if (message.t === 'ready') state.ready = true;
        if (message.t === 'stopped') state.stopped = true;
        if (message.t === 'fault') state.fault = `${message.code ?? 'no code'}: ${message.message ?? ''}`;
      },
    });
    /** Processes that started their worker and are not frozen. */
    const readyRunning = () => fleet.running().filter((p) => states.get(key(p))?.ready === true);
    const waitAllReady = async (timeoutMs: number) => {
      const deadline = performance.now() + timeoutMs;
      while (readyRunning().length < SLOTS) {
        if (performance.now() > deadline) throw new Error(`only ${readyRunning().length} of ${SLOTS} worker processes ready after ${timeoutMs} ms`);
        await sleep(50);
      }
    };

    // The load: bursts of entries whose behaviour is drawn from the seed.
    const entries: PlannedEntry[] = [];
    const plan = random.fork('entries');
    let seq = 0;
    const send = async (count: number) => {
      const planned = Array.from({ length: count }, () => planEntry(plan, seq++, WORKER.deliveryLimit));
      const ids = await Promise.all(planned.map((p) => producer.sendCommand(['XADD', keys.stream, '*', ...p.fields])));
      planned.forEach((p, i) => entries.push({ ...p, id: String(ids[i]) }));
    };

    // The faults: SIGKILL (then what the killed consumers still hold is watched) and SIGSTOP.
    const pick = random.fork('fault targets');
    const kills: KillRecord[] = [];
    const watched: { orphan: Orphan; killedAt: number }[] = [];
    const retirements: Promise<void>[] = [];
    const faults: ScheduledFault[] = [
      {
        name: 'SIGKILL',
        weight: 3,
        ready: () => readyRunning().length >= 2,
        run: async () => {
          const live = Array.from({ length: SLOTS }, (_, slot) => fleet.process(slot)).filter(
            (p): p is FleetProcess => p !== undefined && p.state !== 'exited',
          );
          const victim = pick.pick(live);
          const names = states.get(key(victim))?.names ?? [];
          await fleet.kill(victim.slot);
          const killedAt = performance.now();
          const at = await admin.sendCommand(['XADD', keys.log, '*', 'e', 'kill', 'p', key(victim)]);
          const orphans: Orphan[] = [];
          for (const consumer of names) {
            const pending = (await admin.sendCommand(['XPENDING', keys.stream, GROUP, '-', '+', '100000', consumer])) as unknown[][];
            for (const p of pending) {
              const orphan = { id: String(p[0]), consumer, count: Number(p[3]) };
              // Left by an earlier kill of a process with the same stable name, and still watched: not this kill's.
              const earlier = watched.some((w) => w.orphan.recoveredAfterMs === undefined && w.orphan.id === orphan.id && w.orphan.count === orphan.count);
              if (!earlier) orphans.push(orphan);
            }
          }
          kills.push({ process: key(victim), serverMs: idMs(at), orphans });
          watched.push(...orphans.map((orphan) => ({ orphan, killedAt })));
        },
      },
      {
        // The slot's next process starts while this one, frozen for a moment, still holds its
        // deliveries; then it gets SIGTERM and drains. Under a stable name the new process's
        // replay re-claims them under the same consumer name, so the old one's completions are
        // stale by delivery count alone.
        name: 'rolling restart',
        weight: 2,
        ready: () => readyRunning().length >= 2,
        run: async () => {
          const candidates = readyRunning();
          const stable = candidates.filter((p) => configs.get(key(p))?.consumerName !== undefined);
          const target = pick.pick(stable.length > 0 ? stable : candidates);
          const retired = key(target);
          // From shorter than the new process's start (they race for the same consumer names) to well past it.
          const pauseMs = pick.int(100, 3000);
          const termAfterMs = pick.int(0, 500); // it carries on a moment before the SIGTERM reaches it
          await send(pick.int(10, 60)); // work in its hands when it stalls
          retirements.push(
            fleet.replace(target.slot, { pauseMs, termAfterMs, timeoutMs: 15_000 }).then((exit) => {
              if (exit !== undefined && (exit.code !== 0 || !states.get(retired)?.stopped)) {
                report.violation(
                  'exits by itself on SIGTERM',
                  `process ${retired}, replaced (${exit.signal ?? `code ${exit.code}`}): ${exit.outputTail.slice(-600)}`,
                );
              }
            }),
          );
        },
      },
      {
        name: 'SIGSTOP',
        weight: 2,
        ready: () => readyRunning().length >= 2,
        run: async () => {
          const target = pick.pick(readyRunning());
          // Mostly past the minimum idle time, so others recover what it holds before it continues.
          const ms = pick.chance(0.6) ? WORKER.minimumIdleTimeMs + pick.int(500, 2500) : pick.int(100, 1000);
          // A stall as work arrives (a GC pause, a VM stall under load): its readers, parked for at
          // most a recovery interval, are handed part of the burst first.
          await send(pick.int(10, 60));
          fleet.freeze(target.slot, ms);
        },
      },
    ];
    // Recovery of a killed consumer's entries: polled every 100 ms, on this process's clock; an
    // entry is recovered once it is no longer pending to that consumer at that delivery count.
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const open = watched.filter((w) => w.orphan.recoveredAfterMs === undefined);
        for (const consumer of new Set(open.map((w) => w.orphan.consumer))) {
          const pending = (await admin.sendCommand(['XPENDING', keys.stream, GROUP, '-', '+', '100000', consumer])) as unknown[][];
          const now = performance.now();
          const still = new Set(pending.map((p) => `${String(p[0])}#${Number(p[3])}`));
          for (const w of open) {
            if (w.orphan.consumer === consumer && !still.has(`${w.orphan.id}#${w.orphan.count}`)) w.orphan.recoveredAfterMs = now - w.killedAt;
          }
        }
        await sleep(100);
      }
    })();

    try {
      fleet.start();
      await waitAllReady(30_000);
      const faultPhaseBegan = performance.now();
      const [load, faultCounts] = await Promise.all([
        runBursts({ random: random.fork('load'), durationMs: settings.faultPhaseMs, minBurst: 1, maxBurst: 300, meanGapMs: 500, send }),
        runFaultSchedule({ random: random.fork('schedule'), durationMs: settings.faultPhaseMs, meanGapMs: 1500, faults }),
      ]);
      const faultPhaseMs = performance.now() - faultPhaseBegan;

      // Calm: every process continues, replaced ones have exited, every slot runs, and the stream drains.
      fleet.thawAll();
      await Promise.all(retirements);
      await waitAllReady(30_000);
      const drainBegan = performance.now();
      const lastId = entries[entries.length - 1]!.id;
      const drained = await waitFor(async () => {
        const pending = Number(((await admin.sendCommand(['XPENDING', keys.stream, GROUP])) as unknown[])[0]);
        const groups = (await admin.sendCommand(['XINFO', 'GROUPS', keys.stream])) as unknown[][];
        const info = groups.find((g) => String(g[g.indexOf('name') + 1]) === GROUP)!;
        return pending === 0 && String(info[info.indexOf('last-delivered-id') + 1]) === lastId;
      }, DRAIN_TIMEOUT_MS);
      const drainMs = performance.now() - drainBegan;
      watching = false;
      await watcher;
      if (!drained) {
        const pending = (await admin.sendCommand(['XPENDING', keys.stream, GROUP, '-', '+', '20'])) as unknown[][];
        report.violation(
          'drained',
          `not drained within ${DRAIN_TIMEOUT_MS} ms: ${pending.length ? `pending ${pending.map((p) => `${p[0]} (${p[1]}, #${p[3]})`).join(', ')}` : 'entries never read'}`,
        );
      }

      // Connections: exactly the live processes' (a client and one per reader), then none.
      const expected = fleet.running().reduce((sum, p) => sum + 1 + configs.get(key(p))!.consumerCount, 0);
      let observed: string[] = [];
      const steady = await waitFor(async () => (observed = await fleetConnections()).length === expected, 5000);
      if (!steady)
        report.violation(
          'no connection left',
          `${observed.length} connections on the server with ${expected} expected for the live processes: ${summarize(observed)}`,
        );
      const exits = await fleet.stop(10_000);
      for (const exit of exits) {
        const state = states.get(key(exit))!;
        if (exit.code !== 0 || !state.stopped) {
          report.violation('exits by itself on SIGTERM', `process ${key(exit)} (${exit.signal ?? `code ${exit.code}`}): ${exit.outputTail.slice(-600)}`);
        }
      }
      const gone = await waitFor(async () => (observed = await fleetConnections()).length === 0, 5000);
      if (!gone) report.violation('no connection left', `${observed.length} connections left after every process stopped: ${summarize(observed)}`);
      for (const exit of fleet.unexpectedExits) {
        report.violation('no crash, no fault', `process ${key(exit)} exited by itself (${exit.signal ?? `code ${exit.code}`}): ${exit.outputTail.slice(-600)}`);
      }
      for (const [name, state] of states) if (state.fault !== undefined) report.violation('no crash, no fault', `process ${name} faulted: ${state.fault}`);

      // The model's checks over everything the processes recorded.
      const log = await readLog(admin, keys.log);
      const deadLetters = await readDeadLetters(admin, keys.dead);
      const checked = checkRun({ entries, log, deadLetters, kills, group: GROUP, deliveryLimit: WORKER.deliveryLimit, recoveryBoundMs: RECOVERY_BOUND_MS });
      for (const v of checked.violations) report.violation(v.rule, v.detail, v.atMs);
      const recovery = distribution(checked.recoveryMs.map(Math.round));

      const kinds = countBy(entries.map((e) => e.kind));
      const starts = fleet.events.filter((e) => e.kind === 'start').length;
      report.figure('server', `${server.flavour} ${server.version}`);
      report.figure('entries', `${entries.length} in ${load.bursts} bursts (largest ${load.largest}): ${formatCounts(kinds)}`);
      report.figure(
        'processes',
        `${starts} started in ${SLOTS} slots; SIGKILL ${faultCounts.ran.SIGKILL}, SIGSTOP ${faultCounts.ran.SIGSTOP}, rolling restart ${faultCounts.ran['rolling restart']}, skipped ${faultCounts.skipped}`,
      );
      report.figure('deliveries', `${checked.deliveries} (${(checked.deliveries / entries.length).toFixed(2)} per entry)`);
      report.figure(
        'duplicates',
        `${checked.duplicateEntries} entries completed more than once, ${checked.extraCompletions} extra completions: ${percent(checked.extraCompletions, entries.length)} of entries`,
      );
      report.figure('stale completions fenced', `${checked.stale} (${sameNameStale(log, configs)} superseded by a process of the same stable name)`);
      report.figure('dead letters', formatCounts(checked.deadLettersByReason) || 'none');
      report.figure(
        'recovery after SIGKILL',
        `${recovery.count} entries: p50 ${recovery.p50} ms, p95 ${recovery.p95} ms, max ${recovery.max} ms, polled every 100 ms (bound ${RECOVERY_BOUND_MS} ms = minimum idle ${WORKER.minimumIdleTimeMs} + interval ${WORKER.recoveryPollIntervalMs} + margin ${RECOVERY_MARGIN_MS}); ${checked.completedByKilled} completed by the killed process's last batch`,
      );
      report.figure('connections', `${expected} for the live processes before the stop, ${observed.length} after`);
      const dated = report.violations.flatMap((v) => (v.atMs === undefined ? [] : [v.atMs]));
      if (dated.length > 0) report.figure('first violation', `${seconds(Math.min(...dated) - idMs(entries[0]!.id))} after the first entry (server clock)`);
      report.figure('time', `fault phase ${seconds(faultPhaseMs)}, drain ${seconds(drainMs)}, total ${seconds(performance.now() - began)}`);
      report.write({ timeline: fleet.events.map((e) => ({ ...e, atMs: Math.round(e.atMs - began) })), kills });
    } finally {
      watching = false;
      await watcher.catch(() => {});
      await fleet.stop(2000);
      admin.destroy();
      producer.destroy();
    }
    console.log(report.summary());
    report.assertClean();
  },
);

/** Stale completions whose entry's newer delivery went to a process of the same stable consumer-name base. */
function sameNameStale(log: readonly LogRecord[], configs: ReadonlyMap<string, ChaosWorkerConfig>): number {
  const starts = log.filter((r) => r.event === 'start');
  return log.filter((r) => {
    if (r.event !== 'end' || r.o !== 'stale') return false;
    const name = configs.get(r.p)?.consumerName;
    return name !== undefined && starts.some((s) => s.id === r.id && s.n > r.n && configs.get(s.p)?.consumerName === name);
  }).length;
}

/** Polls `check` every 100 ms until it holds (true) or `timeoutMs` passes (false). */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await sleep(100);
  }
}

/** The log stream, every record (paged). */
async function readLog(client: Client, key: string): Promise<LogRecord[]> {
  const records: LogRecord[] = [];
  let start = '-';
  for (;;) {
    const page = (await client.sendCommand(['XRANGE', key, start, '+', 'COUNT', '10000'])) as [string, string[]][];
    for (const [id, flat] of page) {
      const f = new Map<string, string>();
      for (let i = 0; i < flat.length; i += 2) f.set(String(flat[i]), String(flat[i + 1]));
      const event = f.get('e') as LogEvent;
      if (event === 'kill') continue;
      records.push({ atMs: idMs(id), event, id: f.get('id')!, n: Number(f.get('n')), p: f.get('p')!, ...(f.has('o') ? { o: f.get('o')! } : {}) });
    }
    if (page.length < 10000) return records;
    start = `(${page[page.length - 1]![0]}`;
  }
}

/** The dead-letter stream, fields as bytes. */
async function readDeadLetters(client: Client, key: string): Promise<DeadLetterRecord[]> {
  const binary = client.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
  const page = (await binary.sendCommand(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][];
  return page.map(([id, flat]) => ({
    atMs: idMs(id),
    sourceId: String(flat[1]),
    group: String(flat[3]),
    attempt: Number(String(flat[5])),
    reason: String(flat[7]),
    exceptionType: String(flat[9]),
    fields: flat.slice(10),
  }));
}

function summarize(clientLines: string[]): string {
  return formatCounts(countBy(clientLines.map((l) => `cmd=${/ cmd=(\S+)/.exec(` ${l}`)?.[1] ?? '?'}`)));
}

function countBy(values: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

const formatCounts = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
const percent = (part: number, whole: number) => `${whole === 0 ? 0 : ((100 * part) / whole).toFixed(2)}%`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
