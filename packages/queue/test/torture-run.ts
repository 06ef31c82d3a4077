// The queue's seeded model-based fault torture: clients run random operations through a fault-injecting proxy while faults hit the server; every outcome is checked against the model of the contract.
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, it } from 'vitest';
import {
  ChaosReport,
  SeededRandom,
  ServerClock,
  chaosSettings,
  repeatCommand,
  runFaultSchedule,
  sleep,
  startRedisServer,
  startTcpProxy,
  timeReplyMs,
  type RedisServerHandle,
  type ScheduledFault,
  type TcpProxy,
} from '@respire/harness';
import { ReliableQueue, bytesCodec } from '@respire/queue';
import { TortureModel, type DeadLetterEvent, type FinalEvent } from './torture-model.js';
import {
  OPERATIONS,
  ackMany,
  receive,
  runCall,
  runOperation,
  tokenOf,
  type CallRunner,
  type ClientContext,
  type Pools,
  type RunPlan,
  type Tally,
} from './torture-operations.js';

/**
 * Five clients (node-redis 6 over RESP2 or RESP3, some with a command timeout, each with its own ReliableQueue on
 * one queue) run operations drawn from the seed (torture-operations.ts: sends with and without
 * deduplication IDs, receives with random visibility and max, acks, nacks and their batches, stale
 * and repeated receipts, calls aimed at a lease's deadline) through a proxy that reads RESP, while
 * a seeded schedule injects, at random gaps:
 * - a lost reply (the proxy forwards a queue command and drops its reply) and a lost request (it
 *   drops the command unsent), each followed by a reset of that connection;
 * - a reset of every client connection at the proxy, and `CLIENT KILL` of client connections;
 * - `SCRIPT FLUSH`; `DEBUG SLEEP` longer than the longest visibility timeout; `CLIENT PAUSE` (ALL
 *   or WRITE);
 * - a server restart: SIGKILL, then the same port and directory with its AOF (`appendfsync always`,
 *   so every acknowledged write survives).
 * Every call is bracketed by TIME on its own connection, so each outcome is placed in server time;
 * a call that failed without proof that it did not run stays uncertain in the model (executed or
 * not, at any time after it was sent). After every call the model (torture-model.ts) checks the
 * messages and deduplication IDs it touched. Then the faults stop, the clients close, a drain
 * receives and acknowledges everything left, and the model checks that no message was lost.
 *
 * Judging uses only the server's clock. Bounds and their margins: a dead letter counts as early
 * only {@link DEAD_LETTER_MARGIN_MS} before its lease could end; the drain gives up
 * {@link DRAIN_MARGIN_MS} (server time) after the latest due time it found.
 *
 * Size: {@link CI_SECONDS} s of faults, about 50 s in all; `RESPIRE_CHAOS_SECONDS=600` runs ten
 * minutes and `RESPIRE_CHAOS_SEED=<seed>` repeats a run's plan (see the queue README, "Tests").
 */
const CI_SECONDS = 40;
const CLIENTS = 5;
/** Mean gap between faults (ms). */
const FAULT_GAP_MS = 600;
/** See ModelOptions.deadLetterMarginMs: a script stalled on a loaded machine between its TIME and its XADD. */
const DEAD_LETTER_MARGIN_MS = 100;
/** How long past the latest due time (server clock) the drain keeps trying. */
const DRAIN_MARGIN_MS = 5000;

const PACKAGE_DIR = 'packages/queue';
const settings = chaosSettings(CI_SECONDS);

let server: RedisServerHandle;
let proxy: TcpProxy;
beforeAll(async () => {
  // AOF with a sync per write: a restart keeps every acknowledged write. DEBUG SLEEP is off by default since Redis 7.0.
  server = await startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always', '--enable-debug-command', 'local'] });
  proxy = await startTcpProxy(server.port, { resp: true });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

type Client = ReturnType<typeof createClient>;

/** A direct connection (not through the proxy) for the observer, the fault injector and the drain. */
async function direct(name: string): Promise<Client> {
  const client = createClient({ url: server.url, name });
  client.on('error', () => {});
  await client.connect();
  return client as unknown as Client;
}

/** A queue command the proxy may lose: a script call or a plain XADD (a send without deduplication ID). */
const isQueueCommand = (args: readonly Buffer[]) => /^(EVALSHA|EVAL|XADD)$/i.test(args[0]?.toString('latin1') ?? '');

it(
  'model-based torture: random operations of several clients under lost replies and requests, resets, CLIENT KILL, SCRIPT FLUSH, DEBUG SLEEP, CLIENT PAUSE and restarts; every outcome agrees with the contract',
  // A violation is a finding: no second try with another seed.
  { timeout: settings.faultPhaseMs + 120_000, retry: 0 },
  async () => {
    const began = performance.now();
    const report = new ChaosReport(`queue-torture ${server.flavour} ${server.version}`, settings, repeatCommand(settings, PACKAGE_DIR, 'test/torture.test.ts'));
    console.log(`queue torture: seed ${settings.seed}, ${settings.faultPhaseMs / 1000} s of faults; repeat: ${report.repeat}`);
    const random = new SeededRandom(settings.seed);
    const setup = random.fork('plan');
    const plan: RunPlan = {
      deliveryLimit: setup.int(2, 4),
      deduplicationIds: setup.int(20, 60),
      maxVisibilityMs: setup.int(1500, 2500),
      maxNackDelayMs: setup.int(500, 1500),
    };
    const queueName = `torture-${settings.seed}-${Date.now().toString(36)}`;
    const model = new TortureModel({ deliveryLimit: plan.deliveryLimit, deadLetterMarginMs: DEAD_LETTER_MARGIN_MS });
    const clock = new ServerClock();
    const observer = await direct('torture-observer');
    const sleeper = await direct('torture-sleeper');
    const binary = observer.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    const now = async () => {
      const ms = timeReplyMs(await observer.sendCommand(['TIME']));
      clock.observe(ms);
      return ms;
    };
    const payloads = new Map<string, Buffer>();
    const pools: Pools = { held: [], stale: [], dueTimes: [] };
    const tally: Tally = {};
    let seq = 0;
    let stopped = false;
    let firstViolationMs: number | undefined;
    const runner: CallRunner = { model, tally, nextSeq: () => ++seq, ceiling: now, stopped: () => stopped };
    const keys = new ReliableQueue(observer, queueName, { codec: bytesCodec });
    const deadlinesKey = keys.streamKey.replace(/:stream$/, ':deadlines');

    // The clients: each its own node-redis client through the proxy, its own queue instance and its own stream of draws.
    const configs: string[] = [];
    const closers: (() => void)[] = [];
    const contexts: ClientContext[] = [];
    for (let i = 0; i < CLIENTS; i++) {
      const draw = random.fork(`client ${i}`);
      // node-redis 6 over RESP2 and RESP3. Not node-redis 5: under these faults (a reset during its
      // reconnect handshake) 5.9.0 was seen to hand one command's reply to another (see the queue README, "Tests").
      const resp = draw.chance(0.4) ? 2 : 3;
      const commandTimeoutMs = draw.chance(0.3) ? draw.int(200, 1000) : undefined;
      const name = `c${i}`;
      const client = createClient({ url: proxy.url, name: `torture-${name}`, RESP: resp });
      client.on('error', () => {});
      await client.connect();
      closers.push(() => client.isOpen && client.destroy());
      configs.push(`${name}: node-redis 6, RESP${resp}${commandTimeoutMs ? `, commandTimeoutMs ${commandTimeoutMs}` : ''}`);
      let n = 0;
      contexts.push({
        name,
        queue: new ReliableQueue(client, queueName, {
          codec: bytesCodec,
          deliveryLimit: plan.deliveryLimit,
          ...(commandTimeoutMs ? { commandTimeoutMs } : {}),
        }),
        raw: (args) => client.sendCommand(args),
        random: draw,
        clock,
        pools,
        plan,
        deadlinesKey,
        newPayload: () => {
          const token = `${name}.${++n}`;
          const payload = Buffer.concat([Buffer.from(`${token}|`), Buffer.from(Array.from({ length: draw.int(0, 48) }, () => draw.int(0, 255)))]);
          payloads.set(token, payload);
          return { token, payload };
        },
        payloadOf: (token) => payloads.get(token),
        retries: [],
      });
    }

    // The dead-letter stream, read as it grows.
    let lastDeadLetter = '-';
    let deadLetters = 0;
    const readDeadLetters = async () => {
      const records = (await binary.sendCommand(['XRANGE', keys.deadLetterStreamKey, lastDeadLetter, '+'])) as [Buffer, Buffer[]][];
      const events: DeadLetterEvent[] = [];
      for (const [id, flat] of records) {
        lastDeadLetter = `(${String(id)}`;
        const field = (name: string) => flat[flat.findIndex((f, i) => i % 2 === 0 && String(f) === name) + 1];
        const payload = field('payload') ?? Buffer.alloc(0);
        const token = tokenOf(payload);
        events.push({
          kind: 'dead-letter',
          token,
          id: String(field('source_id')),
          count: Number(String(field('delivery_count'))),
          atMs: Number(String(id).split('-')[0]),
          intact: payloads.get(token)?.equals(payload) === true,
        });
      }
      deadLetters += events.length;
      if (events.length > 0) model.record(events);
    };
    const noteViolations = () => {
      if (firstViolationMs === undefined && model.violations.length > 0) firstViolationMs = performance.now() - began;
    };

    // The faults, each recorded on the server's clock.
    const faultLog: { name: string; lo: number; hi: number; detail: string }[] = [];
    const pick = random.fork('fault targets');
    const timed = (name: string, action: () => Promise<string>) => async () => {
      const lo = await now().catch(() => clock.floorMs);
      // A fault that could not be injected (its connection was reconnecting) is noted, not fatal.
      const detail = await action().catch((error: unknown) => `not injected: ${String(error)}`);
      const hi = await now().catch(() => Infinity);
      faultLog.push({ name, lo, hi, detail });
    };
    const lose = (direction: 'request' | 'reply') => async () => {
      const result = await proxy.dropNext({ direction, match: isQueueCommand }, 3000);
      return `${result.outcome}${result.command ? `: ${result.command}` : ''}`;
    };
    const faults: ScheduledFault[] = [
      { name: 'lost reply', weight: 4, run: timed('lost reply', lose('reply')) },
      { name: 'lost request', weight: 4, run: timed('lost request', lose('request')) },
      { name: 'connection reset', weight: 2, run: timed('connection reset', async () => `${proxy.reset()} connections`) },
      {
        name: 'CLIENT KILL',
        weight: 2,
        run: timed('CLIENT KILL', async () => {
          const ids = String(await observer.sendCommand(['CLIENT', 'LIST']))
            .split('\n')
            .filter((line) => / name=torture-c\d/.test(line))
            .map((line) => /(?:^| )id=(\d+)/.exec(line)?.[1])
            .filter((id): id is string => id !== undefined);
          const victims = ids.length > 0 && pick.chance(0.7) ? [pick.pick(ids)] : ids;
          for (const id of victims) await observer.sendCommand(['CLIENT', 'KILL', 'ID', id]).catch(() => undefined);
          return `${victims.length} of ${ids.length} client connections`;
        }),
      },
      { name: 'SCRIPT FLUSH', weight: 1, run: timed('SCRIPT FLUSH', async () => String(await observer.sendCommand(['SCRIPT', 'FLUSH']))) },
      {
        name: 'DEBUG SLEEP',
        weight: 1,
        run: timed('DEBUG SLEEP', async () => {
          const ms = plan.maxVisibilityMs + pick.int(200, 1000);
          await sleeper.sendCommand(['DEBUG', 'SLEEP', (ms / 1000).toFixed(3)]);
          return `${ms} ms`;
        }),
      },
      {
        name: 'CLIENT PAUSE',
        weight: 1.5,
        run: timed('CLIENT PAUSE', async () => {
          const ms = pick.int(100, 1500);
          const mode = pick.pick(['ALL', 'WRITE']);
          await observer.sendCommand(['CLIENT', 'PAUSE', String(ms), mode]);
          return `${mode} ${ms} ms`;
        }),
      },
      {
        name: 'restart',
        weight: 1,
        run: timed('restart', async () => {
          await server.restart();
          return `pid ${server.pid}`;
        }),
      },
    ];

    const clientLoops = contexts.map(async (ctx) => {
      const operations = OPERATIONS;
      while (!stopped) {
        const ready = operations.filter((o) => o.ready?.(ctx) ?? true);
        await runOperation(ctx, ctx.random.weighted(ready.map((o) => [o, o.weight] as const)), runner);
        noteViolations();
        await sleep(ctx.random.exponential(2, 10));
      }
    });
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await readDeadLetters().catch(() => undefined);
        noteViolations();
        await sleep(250);
      }
    })();

    let faultCounts: Awaited<ReturnType<typeof runFaultSchedule>> | undefined;
    let drained = false;
    let drainedMessages = 0;
    let drainCalls = 0;
    let faultPhaseMs: number;
    let drainMs: number;
    const drain: ClientContext & { close(): void } = await (async () => {
      const client = await direct('torture-drain');
      return {
        ...contexts[0]!,
        name: 'drain',
        queue: new ReliableQueue(client, queueName, { codec: bytesCodec, deliveryLimit: plan.deliveryLimit }),
        raw: (args: string[]) => client.sendCommand(args),
        pools: { held: [], stale: [], dueTimes: [] },
        close: () => client.isOpen && client.destroy(),
      };
    })();
    try {
      await now();
      const faultPhaseBegan = performance.now();
      faultCounts = await runFaultSchedule({ random: random.fork('schedule'), durationMs: settings.faultPhaseMs, meanGapMs: FAULT_GAP_MS, faults });
      stopped = true;
      await Promise.all(clientLoops);
      faultPhaseMs = performance.now() - faultPhaseBegan;

      // Calm: no pause, the clients closed, and none of their commands left on the server.
      await observer.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      for (const close of closers) close();
      await proxy.close();
      const gone = await waitFor(async () => !/ name=torture-c\d/.test(String(await observer.sendCommand(['CLIENT', 'LIST']))), 10_000);
      if (!gone) report.violation('clients closed', 'client connections still open on the server 10 s after the clients closed');
      polling = false;
      await poller;
      await readDeadLetters();

      // The drain: receive and acknowledge everything left, waiting (by server time) for what is not due yet.
      const drainBegan = performance.now();
      /** The score of the deadlines' first or last member (RESP3 nests the pair, RESP2 does not). */
      const scoreAt = async (index: string) => {
        const reply = (await observer.sendCommand(['ZRANGE', deadlinesKey, index, index, 'WITHSCORES'])) as unknown[];
        const score = reply.flat()[1];
        return score === undefined ? undefined : Number(score);
      };
      const latestDue = (await scoreAt('-1')) ?? 0;
      const giveUpAt = Math.max(latestDue, await now()) + DRAIN_MARGIN_MS;
      for (;;) {
        await runCall(drain, receive, { visibilityMs: 60_000, max: 100 }, runner);
        drainCalls++;
        const held = drain.pools.held.splice(0);
        drainedMessages += held.length;
        if (held.length > 0) {
          await runCall(drain, ackMany, { items: held, delayMs: 0 }, runner);
          continue;
        }
        const [length, leased] = (await Promise.all([observer.sendCommand(['XLEN', keys.streamKey]), observer.sendCommand(['ZCARD', deadlinesKey])])).map(
          Number,
        );
        if (length === 0 && leased === 0) {
          drained = true;
          break;
        }
        const serverNow = await now();
        if (serverNow > giveUpAt) break;
        const next = (await scoreAt('0')) ?? serverNow;
        await sleep(Math.min(Math.max(next - serverNow, 20), 200));
      }
      drainMs = performance.now() - drainBegan;
      await readDeadLetters();

      // The end: what is left in the stream, and every message's final check.
      const left = new Set(
        ((await binary.sendCommand(['XRANGE', keys.streamKey, '-', '+'])) as [Buffer, Buffer[]][]).map(([, flat]) =>
          tokenOf(flat[flat.findIndex((f, i) => i % 2 === 0 && String(f) === 'payload') + 1] ?? Buffer.alloc(0)),
        ),
      );
      const finals: FinalEvent[] = [...new Set([...model.tokens(), ...left])].map((token) => ({ kind: 'final', token, leftInStream: left.has(token) }));
      model.record(finals);
      noteViolations();
    } finally {
      stopped = true;
      polling = false;
      await Promise.allSettled([...clientLoops, poller]);
      await observer.sendCommand(['CLIENT', 'UNPAUSE']).catch(() => undefined);
      for (const close of closers) close();
      drain.close();
      for (const c of [observer, sleeper]) if (c.isOpen) c.destroy();
    }

    // The report: the run in figures, then each violation with its shortest failing history.
    const t0 = faultLog[0]?.lo ?? 0;
    for (const v of model.violations) {
      const nearby = faultLog.filter((f) => f.lo <= v.span.hi + 50 && f.hi >= v.span.lo - 50).map((f) => `${f.name} (${f.detail}) at ${rel(f.lo - v.t0)}`);
      report.violation(
        v.rule,
        [
          `${v.subject}: ${v.detail}`,
          `      shortest failing history (${v.history.length} of ${v.of} events; server time from the first event of its subject):`,
          ...v.history.map((line) => `        ${line}`),
          ...(v.whole.length > 0
            ? [`      its whole history${v.of > v.whole.length ? ` (the last ${v.whole.length})` : ''}:`, ...v.whole.map((line) => `        ${line}`)]
            : []),
          ...(nearby.length > 0 ? [`      faults nearby: ${nearby.join('; ')}`] : []),
        ].join('\n'),
      );
    }
    const total = Object.values(tally).reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0);
    report.figure('server', `${server.flavour} ${server.version}, AOF appendfsync always`);
    report.figure(
      'plan',
      `delivery limit ${plan.deliveryLimit}, ${plan.deduplicationIds} deduplication IDs, visibility up to ${plan.maxVisibilityMs} ms, NACK delay up to ${plan.maxNackDelayMs} ms`,
    );
    report.figure('clients', configs.join('; '));
    report.figure(
      'operations',
      `${total} (${((1000 * total) / Math.max(faultPhaseMs, 1)).toFixed(0)}/s): ${Object.entries(tally)
        .map(([name, counts]) => `${name} ${formatCounts(counts)}`)
        .join('; ')}`,
    );
    const losses: Record<string, number> = {};
    for (const f of faultLog)
      if (f.name.startsWith('lost')) losses[`${f.name} ${f.detail.split(':')[0]}`] = (losses[`${f.name} ${f.detail.split(':')[0]}`] ?? 0) + 1;
    report.figure('messages', `${model.tokens().length} payloads sent, ${deadLetters} dead letters`);
    report.figure(
      'faults',
      `${faultCounts ? formatCounts(faultCounts.ran) : 'none'}${faultCounts?.skipped ? `, skipped ${faultCounts.skipped}` : ''}; ${formatCounts(losses) || 'no losses armed'}`,
    );
    report.figure('model', `${model.checks} checks after ${seq} calls; ${model.violations.length} violations`);
    if (firstViolationMs !== undefined) report.figure('first violation', `${(firstViolationMs / 1000).toFixed(1)} s after the start`);
    report.figure('drain', `${drained ? 'drained' : 'NOT drained'}: ${drainedMessages} messages in ${drainCalls} receives, ${(drainMs / 1000).toFixed(1)} s`);
    report.figure('time', `fault phase ${(faultPhaseMs / 1000).toFixed(1)} s, total ${((performance.now() - began) / 1000).toFixed(1)} s`);
    report.write({ plan, faults: faultLog.map((f) => ({ ...f, lo: f.lo - t0, hi: f.hi - t0 })), violations: model.violations });
    console.log(report.summary());
    report.assertClean();
  },
);

/** A server time relative to a history's start, as its lines show it. */
const rel = (ms: number) => `${ms < 0 ? '-' : '+'}${Math.abs(ms).toFixed(3)} ms`;

const formatCounts = (counts: Readonly<Record<string, number>>) =>
  Object.entries(counts)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');

/** Polls `check` every 100 ms until it holds (true) or `timeoutMs` passes (false). */
async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return true;
    if (performance.now() > deadline) return false;
    await sleep(100);
  }
}
