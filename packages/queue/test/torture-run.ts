// The queue's seeded model-based fault torture, run on a ReliableQueue (torture.test.ts) or a PartitionedQueue (partitioned-torture.test.ts): clients run random operations through a fault-injecting proxy while faults hit the server; every outcome is checked against the model of the contract.
import { createClient, RESP_TYPES } from 'redis';
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
import { PartitionedQueue, ReliableQueue, bytesCodec, isRespireError, type RedisClientLike } from '@respire/queue';
import { TortureModel, type DeadLetterEvent, type FinalEvent } from './torture-model.js';
import {
  OPERATIONS,
  ackMany,
  receive,
  runCall,
  runOperation,
  tokenOf,
  waitingReceive,
  type CallRunner,
  type ClientContext,
  type LeaseLocation,
  type Pools,
  type RunPlan,
  type Tally,
  type TortureMessage,
  type TortureQueue,
} from './torture-operations.js';

/**
 * Five clients (node-redis 6 over RESP2 or RESP3, some with a command timeout, each with its own
 * instance of one queue: a ReliableQueue, or a PartitionedQueue) run operations drawn from the
 * seed (torture-operations.ts: sends with and without deduplication IDs, receives with random
 * visibility and max, acks, nacks and their batches, stale and repeated receipts, calls aimed at a
 * lease's deadline) through a proxy that reads RESP, while a seeded schedule injects, at random gaps:
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
 * Size: the target's `ciSeconds` of faults, then up to about 10 s of drain and checks;
 * `RESPIRE_CHAOS_SECONDS=600` runs ten minutes and `RESPIRE_CHAOS_SEED=<seed>` repeats a run's plan
 * (see the queue README, "Tests").
 */
const CLIENTS = 5;
/** Mean gap between faults (ms). */
const FAULT_GAP_MS = 600;
/** See ModelOptions.deadLetterMarginMs: a script stalled on a loaded machine between its TIME and its XADD. */
const DEAD_LETTER_MARGIN_MS = 100;
/** How long past the latest due time (server clock) the drain keeps trying. */
const DRAIN_MARGIN_MS = 5000;

const PACKAGE_DIR = 'packages/queue';

/** What a run is made of: the queue under test, its size under CI, and where to repeat it from. */
export interface TortureTarget {
  /** The partition count of a PartitionedQueue; absent for one ReliableQueue. */
  readonly partitions?: number;
  /** Seconds of faults when `RESPIRE_CHAOS_SECONDS` is unset. */
  readonly ciSeconds: number;
  /** The test file, for the repeat command (`test/torture.test.ts`). */
  readonly testFile: string;
  /** The report's name and the log's prefix (`queue-torture`). */
  readonly label: string;
}

/** The server and proxy a run uses (the test file starts and closes them). */
export interface TortureServer {
  readonly server: RedisServerHandle;
  readonly proxy: TcpProxy;
}

/** The server a torture runs on: AOF with a sync per write (a restart keeps every acknowledged write), DEBUG SLEEP allowed (off by default since Redis 7.0), behind a RESP proxy. */
export async function startTortureServer(): Promise<TortureServer> {
  const server = await startRedisServer({ args: ['--appendonly', 'yes', '--appendfsync', 'always', '--enable-debug-command', 'local'] });
  const proxy = await startTcpProxy(server.port, { resp: true });
  return { server, proxy };
}

/** The chaos settings of a target: its CI size, or `RESPIRE_CHAOS_SECONDS` / `RESPIRE_CHAOS_SEED`. */
export const tortureSettings = (target: TortureTarget) => chaosSettings(target.ciSeconds);

type Client = ReturnType<typeof createClient>;

/**
 * The keys of the queue under test, by partition (one entry for a ReliableQueue), and where each
 * delivery's lease is documented: a PartitionedQueue's receipt `p<i>~<receipt>` names partition i,
 * whose deadlines key holds `<entry ID>:<receipt>` (the queue README, "Scaling past one master").
 */
interface QueueLayout {
  readonly streamKeys: readonly string[];
  readonly deadlinesKeys: readonly string[];
  readonly deadLetterStreamKeys: readonly string[];
  leaseOf(message: TortureMessage): LeaseLocation;
}

function layoutOf(observer: Client, queueName: string, partitions: number | undefined): QueueLayout {
  const deadlinesOf = (streamKey: string) => streamKey.replace(/:stream$/, ':deadlines');
  if (partitions === undefined) {
    const keys = new ReliableQueue(observer, queueName, { codec: bytesCodec });
    const deadlinesKey = deadlinesOf(keys.streamKey);
    return {
      streamKeys: [keys.streamKey],
      deadlinesKeys: [deadlinesKey],
      deadLetterStreamKeys: [keys.deadLetterStreamKey],
      leaseOf: (m) => ({ key: deadlinesKey, member: `${m.id}:${m.receipt}` }),
    };
  }
  const keys = new PartitionedQueue(observer, queueName, { codec: bytesCodec, partitions });
  const deadlinesKeys = keys.streamKeys.map(deadlinesOf);
  return {
    streamKeys: keys.streamKeys,
    deadlinesKeys,
    deadLetterStreamKeys: keys.deadLetterStreamKeys,
    leaseOf: (m) => {
      // A receipt naming no partition reads the message's own; one naming the wrong partition reads a key
      // without that member: the deadline is then unknown (bounded by the call), and the model judges the rest.
      const parsed = /^p(\d+)~(.*)$/s.exec(m.receipt);
      const partition = parsed === null ? (m.partition ?? 0) : Number(parsed[1]);
      return { key: deadlinesKeys[partition] ?? deadlinesKeys[0]!, member: `${m.id}:${parsed?.[2] ?? m.receipt}` };
    },
  };
}

/** A direct connection (not through the proxy) for the observer, the fault injector and the drain. */
async function direct(server: RedisServerHandle, name: string): Promise<Client> {
  const client = createClient({ url: server.url, name });
  client.on('error', () => {});
  await client.connect();
  return client as unknown as Client;
}

/** A queue command the proxy may lose: a script call or a plain XADD (a send without deduplication ID). */
const isQueueCommand = (args: readonly Buffer[]) => /^(EVALSHA|EVAL|XADD)$/i.test(args[0]?.toString('latin1') ?? '');

/**
 * One run (the test's body): see the comment above. `target.partitions` runs it on a
 * PartitionedQueue of that many partitions; a message is then known by (partition, entry ID), and
 * the dead letters are read from each partition's stream, tagged with it.
 */
export async function runTorture(target: TortureTarget, { server, proxy }: TortureServer): Promise<void> {
  const settings = tortureSettings(target);
  const began = performance.now();
  const report = new ChaosReport(`${target.label} ${server.flavour} ${server.version}`, settings, repeatCommand(settings, PACKAGE_DIR, target.testFile));
  console.log(`${target.label}: seed ${settings.seed}, ${settings.faultPhaseMs / 1000} s of faults; repeat: ${report.repeat}`);
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
  const observer = await direct(server, 'torture-observer');
  const sleeper = await direct(server, 'torture-sleeper');
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
  const layout = layoutOf(observer, queueName, target.partitions);
  /** A client's own queue instance: the target's kind, on its connection. */
  const open = (client: RedisClientLike, options: { deliveryLimit: number; commandTimeoutMs?: number }): TortureQueue =>
    target.partitions === undefined
      ? new ReliableQueue(client, queueName, { codec: bytesCodec, ...options })
      : new PartitionedQueue(client, queueName, { codec: bytesCodec, partitions: target.partitions, ...options });

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
      queue: open(client, { deliveryLimit: plan.deliveryLimit, ...(commandTimeoutMs ? { commandTimeoutMs } : {}) }),
      raw: (args) => client.sendCommand(args),
      random: draw,
      clock,
      pools,
      plan,
      leaseOf: layout.leaseOf,
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

  // The dead-letter streams (one per partition), read as they grow.
  const lastDeadLetter = layout.deadLetterStreamKeys.map(() => '-');
  let deadLetters = 0;
  const readDeadLetters = async () => {
    for (const [partition, key] of layout.deadLetterStreamKeys.entries()) await readDeadLettersOf(partition, key);
  };
  const readDeadLettersOf = async (partition: number, key: string) => {
    const records = (await binary.sendCommand(['XRANGE', key, lastDeadLetter[partition]!, '+'])) as [Buffer, Buffer[]][];
    const events: DeadLetterEvent[] = [];
    for (const [id, flat] of records) {
      lastDeadLetter[partition] = `(${String(id)}`;
      const field = (name: string) => flat[flat.findIndex((f, i) => i % 2 === 0 && String(f) === name) + 1];
      const payload = field('payload') ?? Buffer.alloc(0);
      const token = tokenOf(payload);
      events.push({
        kind: 'dead-letter',
        token,
        id: String(field('source_id')),
        ...(target.partitions === undefined ? {} : { partition }),
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

  // A partitioned queue without a waiting receive refuses waitMs before any I/O: the run leaves that operation out.
  const waits = await contexts[0]!.queue.receive(1, { max: 1, waitMs: 1 }).then(
    (messages) => messages.length === 0,
    (error: unknown) => (isRespireError(error, 'INVALID_ARGUMENT') ? false : Promise.reject(error)),
  );
  const operations = waits ? OPERATIONS : OPERATIONS.filter((o) => o !== (waitingReceive as unknown));
  const clientLoops = contexts.map(async (ctx) => {
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
    const client = await direct(server, 'torture-drain');
    return {
      ...contexts[0]!,
      name: 'drain',
      queue: open(client, { deliveryLimit: plan.deliveryLimit }),
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
    /** The score of the deadlines' first or last member over every partition (RESP3 nests the pair, RESP2 does not). */
    const scoreAt = async (index: '0' | '-1') => {
      const scores: number[] = [];
      for (const key of layout.deadlinesKeys) {
        const reply = (await observer.sendCommand(['ZRANGE', key, index, index, 'WITHSCORES'])) as unknown[];
        const score = reply.flat()[1];
        if (score !== undefined) scores.push(Number(score));
      }
      if (scores.length === 0) return undefined;
      return index === '0' ? Math.min(...scores) : Math.max(...scores);
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
      const lengths = await Promise.all(layout.streamKeys.map((key) => observer.sendCommand(['XLEN', key])));
      const leases = await Promise.all(layout.deadlinesKeys.map((key) => observer.sendCommand(['ZCARD', key])));
      const [length, leased] = [lengths, leases].map((counts) => counts.reduce((sum: number, n) => sum + Number(n), 0));
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
    const left = new Set<string>();
    for (const key of layout.streamKeys) {
      for (const [, flat] of (await binary.sendCommand(['XRANGE', key, '-', '+'])) as [Buffer, Buffer[]][]) {
        left.add(tokenOf(flat[flat.findIndex((f, i) => i % 2 === 0 && String(f) === 'payload') + 1] ?? Buffer.alloc(0)));
      }
    }
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
    'queue',
    `${target.partitions === undefined ? 'one ReliableQueue' : `a PartitionedQueue of ${target.partitions} partitions`}${waits ? '' : '; no waiting receive (this queue refuses waitMs)'}`,
  );
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
}

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
