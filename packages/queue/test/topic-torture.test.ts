// The reliable topic's seeded fault torture: publishers and three subscriptions at different speeds run random operations through a fault-injecting proxy; a model checks every outcome and the drain.
import { createClient, RESP_TYPES } from 'redis';
import { afterAll, beforeAll, it } from 'vitest';
import {
  ChaosReport,
  SeededRandom,
  chaosSettings,
  repeatCommand,
  runFaultSchedule,
  sleep,
  startRedisServer,
  startTcpProxy,
  type RedisServerHandle,
  type ScheduledFault,
  type TcpProxy,
} from '@respire/harness';
import { ReliableTopic, bytesCodec, type ReceivedMessage, type TopicSubscription } from '@respire/queue';
import { TopicTortureModel } from './topic-torture-model.js';
import { tokenOf } from './torture-operations.js';

/**
 * Two publishers (publish with and without deduplication IDs, publishMany) and three
 * subscriptions of one topic consuming at different speeds (receive, waiting receive, ack,
 * ackMany, nack, extend, stale receipts, and receipts of another subscription), each on its own
 * node-redis client through a proxy that reads RESP, while a seeded schedule injects lost replies
 * and lost requests (each followed by a reset of that connection), resets of every connection,
 * `CLIENT KILL` and `SCRIPT FLUSH`, and kills one subscription's client set (its held deliveries
 * lost, as with a crashed process) and restarts it. After every call the model
 * (topic-torture-model.ts) checks what the call touched; then the faults stop, each subscription
 * drains on a direct connection, retention trims, and the model checks that every publication
 * reached every subscription and was completed, that nothing is pending, nothing was counted as
 * trimmed (the topic has no bounds) and the stream is empty.
 *
 * Size: {@link CI_SECONDS} s of faults, about 12 s in all; `RESPIRE_CHAOS_SECONDS` and
 * `RESPIRE_CHAOS_SEED` as for the queue's torture (queue README, "Tests").
 */
const CI_SECONDS = 10;
/** Mean gap between faults (ms). */
const FAULT_GAP_MS = 400;
/** How long past the latest lease deadline (server clock) the drain keeps trying. */
const DRAIN_MARGIN_MS = 3000;
/** Each subscription's pace: mean pause between its calls (ms) and its largest receive batch. */
const SPEEDS = [
  { name: 'fast', pauseMs: 2, max: 10 },
  { name: 'medium', pauseMs: 15, max: 5 },
  { name: 'slow', pauseMs: 60, max: 3 },
] as const;
const PUBLISHERS = 2;

const PACKAGE_DIR = 'packages/queue';
const settings = chaosSettings(CI_SECONDS);

let server: RedisServerHandle;
let proxy: TcpProxy;
beforeAll(async () => {
  server = await startRedisServer();
  proxy = await startTcpProxy(server.port, { resp: true });
}, 30_000);
afterAll(async () => {
  await proxy?.close();
  await server?.close();
});

type Client = ReturnType<typeof createClient>;
type Item = { readonly id: string; readonly receipt: string };

/** A topic call the proxy may lose: a script call or a plain command sent as one. */
const isTopicCommand = (args: readonly Buffer[]) => /^(EVALSHA|EVAL)$/i.test(args[0]?.toString('latin1') ?? '');

it(
  'topic torture: publishers and three subscriptions at different speeds under lost replies and requests, resets, CLIENT KILL, SCRIPT FLUSH and a killed and restarted subscriber; every publication reaches every subscription',
  // A violation is a finding: no second try with another seed.
  { timeout: settings.faultPhaseMs + 60_000, retry: 0 },
  async () => {
    const began = performance.now();
    const report = new ChaosReport(
      `topic-torture ${server.flavour} ${server.version}`,
      settings,
      repeatCommand(settings, PACKAGE_DIR, 'test/topic-torture.test.ts'),
    );
    console.log(`topic torture: seed ${settings.seed}, ${settings.faultPhaseMs / 1000} s of faults; repeat: ${report.repeat}`);
    const random = new SeededRandom(settings.seed);
    const setup = random.fork('plan');
    const plan = {
      deliveryLimit: setup.int(2, 4),
      deduplicationIds: setup.int(10, 40),
      maxVisibilityMs: setup.int(300, 1200),
      killed: setup.int(0, SPEEDS.length - 1),
      killAtMs: setup.int(Math.round(settings.faultPhaseMs * 0.2), Math.round(settings.faultPhaseMs * 0.5)),
      restartAfterMs: setup.int(100, 1500),
    };
    const topicName = `topic-torture-${settings.seed}-${Date.now().toString(36)}`;
    const names = SPEEDS.map((s) => `sub-${s.name}`);
    const model = new TopicTortureModel({ subscriptions: names, deliveryLimit: plan.deliveryLimit });
    const payloads = new Map<string, Buffer>();
    const tally: Record<string, number> = {};
    const count = (name: string, ok: boolean) => (tally[`${name} ${ok ? 'ok' : 'failed'}`] = (tally[`${name} ${ok ? 'ok' : 'failed'}`] ?? 0) + 1);
    let seq = 0;
    let stopped = false;
    let firstViolationMs: number | undefined;
    const noteViolations = () => {
      if (firstViolationMs === undefined && model.violations.length > 0) firstViolationMs = performance.now() - began;
    };

    const clients: Client[] = [];
    const connect = async (name: string, url: string) => {
      const client = createClient({ url, name });
      client.on('error', () => {});
      await client.connect();
      clients.push(client as unknown as Client);
      return client as unknown as Client;
    };
    const observer = await connect('topic-torture-observer', server.url);
    const binary = observer.withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer });
    const topicOn = (client: Client) => new ReliableTopic(client, topicName, { codec: bytesCodec, deliveryLimit: plan.deliveryLimit });
    const observed = topicOn(observer);
    // Every subscription from the start: each must get every publication.
    for (const name of names) await observed.subscription(name, { start: 'earliest' }).create();

    // The publishers.
    const newPayload = (draw: SeededRandom, prefix: string) => {
      const token = `${prefix}.${++seq}`;
      const payload = Buffer.concat([Buffer.from(`${token}|`), Buffer.from(Array.from({ length: draw.int(0, 32) }, () => draw.int(0, 255)))]);
      payloads.set(token, payload);
      return { token, payload };
    };
    const publisherLoops = Array.from({ length: PUBLISHERS }, async (_, i) => {
      const draw = random.fork(`publisher ${i}`);
      const client = await connect(`topic-torture-p${i}`, proxy.url);
      const topic = topicOn(client);
      while (!stopped) {
        const roll = draw.next();
        if (roll < 0.2) {
          const batch = Array.from({ length: draw.int(1, 5) }, () => newPayload(draw, `p${i}`));
          const text = `#${++seq} p${i} publishMany ${batch.map((b) => b.token).join(' ')}`;
          model.publishing(
            batch.map((b) => b.token),
            undefined,
          );
          const ids = await topic.publishMany(batch.map((b) => b.payload)).catch(() => undefined);
          count('publishMany', ids !== undefined);
          model.publishedMany(
            text,
            batch.map((b) => b.token),
            ids,
          );
        } else {
          const { token, payload } = newPayload(draw, `p${i}`);
          const dedupId = roll < 0.55 ? `d${draw.int(1, plan.deduplicationIds)}` : undefined;
          const text = `#${++seq} p${i} publish ${token}${dedupId ? ` dedup ${dedupId}` : ''}`;
          model.publishing([token], dedupId);
          const reply = await topic.publishWithResult(payload, dedupId ? { deduplicationId: dedupId } : {}).catch(() => undefined);
          count(dedupId ? 'publish (dedup)' : 'publish', reply !== undefined);
          model.published(text, token, dedupId, reply);
        }
        noteViolations();
        await sleep(draw.exponential(20, 100));
      }
    });

    // The subscribers: one client set each (a client and its topic), killed and restarted as a whole.
    interface Subscriber {
      readonly name: string;
      readonly speed: (typeof SPEEDS)[number];
      readonly draw: SeededRandom;
      generation: number;
      client: Client | undefined;
      subscription: TopicSubscription<Buffer> | undefined;
      held: Item[];
      /** Receipts settled or superseded, to try again. */
      readonly old: Item[];
    }
    const subscribers: Subscriber[] = SPEEDS.map((speed, i) => ({
      name: names[i]!,
      speed,
      draw: random.fork(`subscriber ${i}`),
      generation: 0,
      client: undefined,
      subscription: undefined,
      held: [],
      old: [],
    }));
    const victim = subscribers[plan.killed]!;
    let kills = 0;
    let restarts = 0;
    const start = async (s: Subscriber) => {
      const client = await connect(`topic-torture-${s.name}`, proxy.url);
      const subscription = topicOn(client).subscription(s.name);
      // A restarted subscriber creates its subscription again: it must keep its position.
      const created = await subscription.create().catch(() => undefined);
      if (created === true) report.violation('a subscription keeps its position across restarts', `${s.name}: create() after a restart made it anew`);
      s.client = client;
      s.subscription = subscription;
    };
    const kill = (s: Subscriber) => {
      s.generation++;
      s.subscription = undefined;
      if (s.client?.isOpen) s.client.destroy();
      s.client = undefined;
      // A crashed process forgets what it held; its leases expire and are redelivered.
      s.held = [];
    };
    /** Kills the victim's client set and starts a new one `afterMs` later (in the background, while other faults go on). */
    const killAndRestart = (afterMs: number) => {
      kill(victim);
      kills++;
      void (async () => {
        await sleep(afterMs);
        while (!stopped) {
          try {
            await start(victim);
            restarts++;
            return;
          } catch {
            // Its connection met a fault while connecting: a new process would try again.
            await sleep(50);
          }
        }
      })();
    };
    for (const s of subscribers) await start(s);

    const deliver = (s: Subscriber, text: string, messages: ReceivedMessage<Buffer>[]) => {
      for (const m of messages) {
        const token = tokenOf(m.payload);
        model.delivered(s.name, text, { id: m.id, token, count: m.deliveryCount, receipt: m.receipt, intact: payloads.get(token)?.equals(m.payload) === true });
        s.held.push({ id: m.id, receipt: m.receipt });
      }
    };
    const settle = async (s: Subscriber, owner: Subscriber, how: 'ack' | 'nack' | 'extend', items: Item[], generation: number) => {
      const sub = s.subscription!;
      const text = `#${++seq} ${s.name} ${how}${items.length > 1 ? `Many(${items.length})` : ''}`;
      const atSend = items.map((item) => model.maxCount(owner.name, item.id));
      // One item goes through the single-message call, more through its batch.
      const one = items.length === 1 ? items[0]! : undefined;
      const call =
        how === 'ack'
          ? one
            ? sub.ack(one).then((r) => [r])
            : sub.ackMany(items)
          : how === 'nack'
            ? one
              ? sub.nack(one, s.draw.int(0, 300)).then((r) => [r])
              : sub.nackMany(items, s.draw.int(0, 300))
            : one
              ? sub.extend(one, s.draw.int(100, plan.maxVisibilityMs)).then((r) => [r])
              : sub.extendMany(items, s.draw.int(100, plan.maxVisibilityMs));
      const results = await call.catch(() => undefined);
      // A reply after the client set was killed is lost with it.
      const result = (i: number) => (generation === s.generation ? results?.[i] : undefined);
      count(`${how}${owner === s ? '' : ' (foreign)'}`, results !== undefined);
      items.forEach((item, i) => model.settled(s.name, owner.name, text, how, item, atSend[i]!, result(i)));
      if (how !== 'extend' && owner === s) s.old.push(...items);
      if (s.old.length > 200) s.old.splice(0, s.old.length - 200);
    };
    const take = (s: Subscriber, n: number) => {
      const taken: Item[] = [];
      for (let k = 0; k < n && s.held.length > 0; k++) taken.push(...s.held.splice(s.draw.int(0, s.held.length - 1), 1));
      return taken;
    };

    const subscriberLoops = subscribers.map(async (s) => {
      while (!stopped) {
        const sub = s.subscription;
        const generation = s.generation;
        if (sub === undefined) {
          await sleep(20);
          continue;
        }
        const d = s.draw;
        const op = d.weighted<string>([
          ['receive', 3],
          ['waiting receive', 1.5],
          ['ack', s.held.length > 0 ? 3 : 0],
          ['ackMany', s.held.length > 1 ? 2 : 0],
          ['nack', s.held.length > 0 ? 1 : 0],
          ['extend', s.held.length > 0 ? 1 : 0],
          ['abandon', s.held.length > 0 ? 0.3 : 0],
          ['stale', s.old.length > 0 ? 0.7 : 0],
          ['foreign', 0.5],
        ]);
        if (op === 'receive' || op === 'waiting receive') {
          const visibility = d.int(100, plan.maxVisibilityMs);
          const max = d.int(1, s.speed.max);
          const waitMs = op === 'waiting receive' ? d.int(20, 300) : 0;
          const text = `#${++seq} ${s.name} receive(${visibility} ms, max ${max}${waitMs ? `, wait ${waitMs} ms` : ''})`;
          const messages = await sub.receive(visibility, { max, ...(waitMs ? { waitMs } : {}) }).catch(() => undefined);
          count(op, messages !== undefined);
          if (messages && generation === s.generation) deliver(s, text, messages);
        } else if (op === 'ack' || op === 'nack' || op === 'extend') {
          const items = take(s, 1);
          await settle(s, s, op, items, generation);
          if (op === 'extend' && generation === s.generation) s.held.push(...items);
        } else if (op === 'ackMany') {
          await settle(s, s, 'ack', take(s, d.int(2, Math.max(2, s.held.length))), generation);
        } else if (op === 'abandon') {
          // Work given up without a word: the lease expires and the delivery comes again.
          s.old.push(...take(s, 1));
        } else if (op === 'stale') {
          await settle(s, s, d.pick(['ack', 'nack', 'extend'] as const), [d.pick(s.old)], generation);
        } else {
          const owners = subscribers.filter((o) => o !== s && o.held.length > 0);
          const owner = owners.length > 0 ? d.pick(owners) : undefined;
          if (owner !== undefined) await settle(s, owner, d.pick(['ack', 'nack', 'extend'] as const), [d.pick(owner.held)], generation);
        }
        noteViolations();
        await sleep(d.exponential(s.speed.pauseMs, s.speed.pauseMs * 5));
      }
    });

    // The dead-letter streams, read as they grow.
    const lastDeadLetter = new Map(names.map((n) => [n, '-']));
    let deadLetters = 0;
    const readDeadLetters = async () => {
      for (const name of names) {
        const key = observed.subscription(name).deadLetterStreamKey;
        const records = (await binary.sendCommand(['XRANGE', key, lastDeadLetter.get(name)!, '+'])) as [Buffer, Buffer[]][];
        for (const [id, flat] of records) {
          lastDeadLetter.set(name, `(${String(id)}`);
          const field = (f: string) => flat[flat.findIndex((x, i) => i % 2 === 0 && String(x) === f) + 1];
          const payload = field('payload') ?? Buffer.alloc(0);
          const token = tokenOf(payload);
          deadLetters++;
          model.deadLettered(name, {
            id: String(field('source_id')),
            token,
            count: Number(String(field('delivery_count'))),
            intact: payloads.get(token)?.equals(payload) === true,
          });
        }
      }
      noteViolations();
    };
    // Each subscription's pending entries list against its acknowledgements, and its trimmed count.
    const readPending = async () => {
      for (const name of names) {
        const acked = model.acked(name);
        const pending = (await observer.sendCommand(['XPENDING', observed.streamKey, name, '-', '+', '1000'])) as [string, ...unknown[]][];
        model.pendingSeen(
          name,
          acked,
          pending.map(([id]) => String(id)),
        );
      }
      for (const info of await observed.subscriptions()) model.trimmedSeen(info.name, info.trimmed);
      noteViolations();
    };
    let polling = true;
    const poller = (async () => {
      while (polling) {
        await readDeadLetters().catch(() => undefined);
        await readPending().catch(() => undefined);
        await sleep(250);
      }
    })();

    // The faults.
    const pick = random.fork('fault targets');
    const faultLog: string[] = [];
    const lose = (direction: 'request' | 'reply') => async () => {
      const result = await proxy.dropNext({ direction, match: isTopicCommand }, 2000);
      faultLog.push(`lost ${direction} ${result.outcome}`);
    };
    const faults: ScheduledFault[] = [
      { name: 'lost reply', weight: 4, run: lose('reply') },
      { name: 'lost request', weight: 4, run: lose('request') },
      { name: 'connection reset', weight: 2, run: () => proxy.reset() },
      {
        name: 'CLIENT KILL',
        weight: 2,
        run: async () => {
          const ids = String(await observer.sendCommand(['CLIENT', 'LIST']))
            .split('\n')
            .filter((line) => / name=topic-torture-(p\d|sub-)/.test(line))
            .map((line) => /(?:^| )id=(\d+)/.exec(line)?.[1])
            .filter((id): id is string => id !== undefined);
          const victims = ids.length > 0 && pick.chance(0.7) ? [pick.pick(ids)] : ids;
          for (const id of victims) await observer.sendCommand(['CLIENT', 'KILL', 'ID', id]).catch(() => undefined);
        },
      },
      { name: 'SCRIPT FLUSH', weight: 1, run: () => observer.sendCommand(['SCRIPT', 'FLUSH']) },
      {
        name: 'subscriber kill and restart',
        weight: 1,
        ready: () => victim.subscription !== undefined,
        run: () => killAndRestart(pick.int(100, 1500)),
      },
    ];
    // Besides the schedule's draws, one kill at a planned time, so that every run has one.
    const plannedKill = sleep(plan.killAtMs).then(() => {
      if (!stopped && victim.subscription !== undefined) killAndRestart(plan.restartAfterMs);
    });

    let faultCounts: Awaited<ReturnType<typeof runFaultSchedule>> | undefined;
    let drained = 0;
    let required: number;
    let trimmedByCall = 0;
    let faultPhaseMs: number;
    let drainMs: number;
    try {
      const faultPhaseBegan = performance.now();
      faultCounts = await runFaultSchedule({ random: random.fork('schedule'), durationMs: settings.faultPhaseMs, meanGapMs: FAULT_GAP_MS, faults });
      stopped = true;
      await Promise.all([...publisherLoops, ...subscriberLoops, plannedKill]);
      faultPhaseMs = performance.now() - faultPhaseBegan;
      polling = false;
      await poller;
      for (const c of clients.splice(1)) if (c.isOpen) c.destroy();
      for (const s of subscribers) kill(s);

      // The drain: each subscription on a direct connection receives and acknowledges what is left, waiting for its leases to end.
      const drainBegan = performance.now();
      const drainClient = await connect('topic-torture-drain', server.url);
      const drainTopic = topicOn(drainClient);
      const now = async () => {
        const [s, us] = (await observer.sendCommand(['TIME'])) as [string, string];
        return Number(s) * 1000 + Number(us) / 1000;
      };
      for (const s of subscribers) {
        const sub = drainTopic.subscription(s.name);
        const deadlines = observed.streamKey.replace(/:stream$/, `:deadlines:${s.name}`);
        const latest = (await observer.sendCommand(['ZRANGE', deadlines, '-1', '-1', 'WITHSCORES'])) as unknown[];
        const giveUpAt = Math.max(Number(latest.flat()[1] ?? 0), await now()) + DRAIN_MARGIN_MS;
        for (;;) {
          const messages = await sub.receive(60_000, { max: 100 });
          deliver(s, `#${++seq} drain receive (${s.name})`, messages);
          if (messages.length > 0) {
            const items = s.held.splice(0);
            drained += items.length;
            const results = await sub.ackMany(items);
            items.forEach((item, i) => model.settled(s.name, s.name, `#${seq} drain ackMany`, 'ack', item, model.maxCount(s.name, item.id), results[i]));
            continue;
          }
          if (Number(await observer.sendCommand(['ZCARD', deadlines])) === 0 || (await now()) > giveUpAt) break;
          await sleep(100);
        }
      }
      drainMs = performance.now() - drainBegan;
      await readDeadLetters();
      required = model.finish();

      // What the server still holds: nothing pending, nothing counted as trimmed, and an empty stream once retention has run.
      for (const s of subscribers) {
        const pending = (await observer.sendCommand(['XPENDING', observed.streamKey, s.name, '-', '+', '10'])) as [string, ...unknown[]][];
        if (pending.length > 0)
          report.violation(
            'nothing is pending after the drain',
            `${s.name}: ${pending.map(([id]) => `${id} (${model.historyOf(s.name, String(id)).slice(-6).join('; ') || 'no history'})`).join(', ')}`,
          );
        model.trimmedSeen(s.name, await drainTopic.subscription(s.name).trimmedCount());
      }
      for (let n = 1000; n === 1000;) trimmedByCall += n = await drainTopic.trim();
      const left = Number(await observer.sendCommand(['XLEN', observed.streamKey]));
      if (left > 0) report.violation('the stream is empty after the drain and a trim', `${left} publications left`);
    } finally {
      stopped = true;
      polling = false;
      await Promise.allSettled([...publisherLoops, ...subscriberLoops, poller]);
      for (const c of clients) if (c.isOpen) c.destroy();
    }
    noteViolations();

    for (const v of model.violations) report.violation(v.rule, [`${v.subject}: ${v.detail}`, ...v.history.map((line) => `      ${line}`)].join('\n'));
    report.figure('server', `${server.flavour} ${server.version}`);
    report.figure('plan', `delivery limit ${plan.deliveryLimit}, ${plan.deduplicationIds} deduplication IDs, visibility up to ${plan.maxVisibilityMs} ms`);
    report.figure(
      'subscriptions',
      `${SPEEDS.map((s, i) => `${names[i]} (pause ${s.pauseMs} ms, max ${s.max})`).join(', ')}; ${victim.name} killed ${kills}×, restarted ${restarts}×`,
    );
    report.figure(
      'operations',
      `${seq} calls: ${Object.entries(tally)
        .map(([name, n]) => `${name} ${n}`)
        .join(', ')}`,
    );
    report.figure(
      'publications',
      `${required} required by every subscription, ${deadLetters} dead letters, ${drained} deliveries drained, ${trimmedByCall} trimmed after the drain`,
    );
    report.figure(
      'faults',
      `${
        faultCounts
          ? Object.entries(faultCounts.ran)
              .map(([name, n]) => `${name} ${n}`)
              .join(', ')
          : 'none'
      }; ${summarize(faultLog)}`,
    );
    report.figure('model', `${model.checks} checks; ${model.violations.length} violations`);
    if (firstViolationMs !== undefined) report.figure('first violation', `${(firstViolationMs / 1000).toFixed(1)} s after the start`);
    report.figure(
      'time',
      `fault phase ${(faultPhaseMs / 1000).toFixed(1)} s, drain ${(drainMs / 1000).toFixed(1)} s, total ${((performance.now() - began) / 1000).toFixed(1)} s`,
    );
    report.write({ plan, violations: model.violations });
    console.log(report.summary());
    report.assertClean();
  },
);

/** Counts equal lines: "lost reply dropped 3, ...". */
function summarize(lines: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  return [...counts].map(([line, n]) => `${line} ${n}`).join(', ') || 'no losses armed';
}
