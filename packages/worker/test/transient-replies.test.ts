// Transient replies (BUSY, LOADING, TRYAGAIN, MASTERDOWN, CLUSTERDOWN) at every command site are repeated with backoff, then fault.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { errorSummary, startRedisServer } from '@respire/harness';
import { FakeRedisServer, type Fault, type FaultRule } from '@respire/testing';
import { StreamWorker, StreamWorkerHost, type StreamEntry } from '../src/index.js';
import { connectClient, pending, recordingLogger, sleep, waitFor, within, type TestClient } from './fault-support.js';

/**
 * Issue 11, kind 5: a reply that proves the command did not run (BUSY, LOADING, TRYAGAIN,
 * MASTERDOWN, CLUSTERDOWN) is transient. Reads, recovery pages, startup replay, completions (ack,
 * release, dead-letter: one worker-complete call per read, also one written together with the
 * next read) and group creation repeat it with bounded backoff until a deadline, and only then
 * fault with a typed error naming the reply. Contract errors (NOPERM, WRONGTYPE) still fault at
 * once, and a lost reply is never repeated. The fake server injects the replies before execution;
 * a real server runs the reported input (a neighbour's 3 s script under busy-reply-threshold 300).
 */
const TRANSIENT_REPLIES: [string, string][] = [
  ['BUSY', 'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSCRIPT.'],
  ['LOADING', 'LOADING Redis is loading the dataset in memory'],
  ['TRYAGAIN', 'TRYAGAIN Multiple keys request during rehashing of slot'],
  ['MASTERDOWN', "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'."],
  ['CLUSTERDOWN', 'CLUSTERDOWN The cluster is down'],
];

describe('kind 5: transient replies on the fake server', () => {
  let fake: FakeRedisServer;
  let client: TestClient;
  const running: StreamWorker[] = [];
  const faults: Fault[] = [];
  beforeAll(async () => {
    fake = await FakeRedisServer.start({ version: '7.0' });
    client = await connectClient(fake.url);
  });
  afterAll(async () => {
    client.destroy();
    await fake.close();
  });
  afterEach(async () => {
    for (const fault of faults.splice(0)) fault.remove();
    await Promise.allSettled(running.splice(0).map((w) => w.stop(500)));
  });

  const keys = () => {
    const tag = `transient-${randomBytes(5).toString('hex')}`;
    return { stream: `{${tag}}:events`, dead: `{${tag}}:dead` };
  };
  const worker = (options: Record<string, unknown>) => {
    const w = new StreamWorker({
      client: client as never,
      group: 'g',
      readWaitMs: 100,
      recoveryPollIntervalMs: 60_000,
      logger: recordingLogger(),
      handler: () => 'ack',
      ...options,
    } as never);
    running.push(w);
    return w;
  };
  const inject = (rule: FaultRule) => {
    const fault = fake.faults.inject(rule);
    faults.push(fault);
    return fault;
  };
  const add = async (stream: string, k = 'v') => String(await client.sendCommand(['XADD', stream, '*', 'k', k]));

  /** Where a transient reply can meet the worker: how to set it up, which command to fail, what completes it. */
  interface Site {
    readonly name: string;
    readonly rule: Omit<FaultRule, 'action' | 'times'>;
    run(message: string, fault: () => Fault): Promise<{ worker: StreamWorker; completed: () => Promise<boolean> }>;
  }

  const sites: Site[] = [
    {
      name: 'a read (XREADGROUP)',
      rule: { command: 'XREADGROUP' },
      async run(_message, arm) {
        const { stream } = keys();
        const seen: string[] = [];
        const w = worker({ stream, handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
        await w.start();
        arm();
        const id = await add(stream);
        return { worker: w, completed: async () => seen.includes(id) && (await pending(client, stream, 'g')).length === 0 };
      },
    },
    {
      name: 'a recovery page (worker-recover)',
      rule: { script: 'worker-recover' },
      async run(_message, arm) {
        const { stream } = keys();
        await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
        const id = await add(stream);
        await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'dead-consumer', 'COUNT', '1', 'STREAMS', stream, '>']);
        arm();
        const seen: string[] = [];
        const w = worker({ stream, minimumIdleTimeMs: 50, recoveryPollIntervalMs: 100, handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
        await w.start();
        return { worker: w, completed: async () => seen.includes(id) && (await pending(client, stream, 'g')).length === 0 };
      },
    },
    {
      name: 'the startup replay of a stable consumer (worker-replay)',
      rule: { script: 'worker-replay' },
      async run(_message, arm) {
        const { stream } = keys();
        await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
        const id = await add(stream);
        await client.sendCommand(['XREADGROUP', 'GROUP', 'g', 'host-1-0', 'COUNT', '1', 'STREAMS', stream, '>']);
        arm();
        const seen: string[] = [];
        const w = worker({ stream, consumerName: 'host-1', handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
        await w.start();
        return { worker: w, completed: async () => seen.includes(id) && (await pending(client, stream, 'g')).length === 0 };
      },
    },
    {
      name: 'an ack (worker-complete)',
      rule: { script: 'worker-complete' },
      async run(_message, arm) {
        const { stream } = keys();
        const seen: string[] = [];
        const w = worker({ stream, handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
        await w.start();
        arm();
        const id = await add(stream);
        return { worker: w, completed: async () => seen.includes(id) && (await pending(client, stream, 'g')).length === 0 };
      },
    },
    {
      name: 'a release after a nack (worker-complete)',
      rule: { script: 'worker-complete' },
      async run(_message, arm) {
        const { stream } = keys();
        const seen: string[] = [];
        const w = worker({ stream, handler: (e: StreamEntry) => (seen.push(e.getString('k')!), e.getString('k') === 'fail' ? 'nack' : 'ack') });
        await w.start();
        const fault = arm();
        await add(stream, 'fail');
        await add(stream, 'next');
        // The release ran once the replies stopped: the next entry is handled and acknowledged.
        return { worker: w, completed: async () => fault.remaining === 0 && seen.includes('next') && (await pending(client, stream, 'g')).length === 1 };
      },
    },
    {
      name: 'a dead-letter completion (worker-complete)',
      rule: { script: 'worker-complete' },
      async run(_message, arm) {
        const { stream, dead } = keys();
        const w = worker({ stream, deadLetterStream: dead, handler: () => 'dead-letter' });
        await w.start();
        arm();
        await add(stream);
        return {
          worker: w,
          completed: async () => Number(await client.sendCommand(['XLEN', dead])) === 1 && (await pending(client, stream, 'g')).length === 0,
        };
      },
    },
    {
      name: "a batch of four written with the next read on the reader's connection (worker-complete)",
      rule: { script: 'worker-complete' },
      async run(_message, arm) {
        const { stream } = keys();
        await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
        const ids: string[] = [];
        for (let i = 0; i < 4; i++) ids.push(await add(stream, String(i)));
        const seen: string[] = [];
        arm();
        const w = worker({ stream, batchSize: 4, readWaitMs: 5000, handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
        const began = performance.now();
        await w.start();
        // The next read (BLOCK 5 s) parks behind the batch on the reader's connection: the repeats go
        // over the caller's client, so they never wait for that read.
        return {
          worker: w,
          completed: async () => performance.now() - began < 3000 && ids.every((id) => seen.includes(id)) && (await pending(client, stream, 'g')).length === 0,
        };
      },
    },
    {
      name: 'group creation at start() (XGROUP CREATE)',
      rule: { command: 'XGROUP CREATE' },
      async run(_message, arm) {
        const { stream } = keys();
        const seen: string[] = [];
        arm();
        const w = worker({ stream, handler: (e: StreamEntry) => (seen.push(e.id), 'ack') });
        await w.start();
        const id = await add(stream);
        return { worker: w, completed: async () => seen.includes(id) };
      },
    },
  ];

  describe.each(sites.map((s) => [s.name, s] as const))('at %s', (_name, site) => {
    it.each(TRANSIENT_REPLIES)(
      'three %s replies in a row are retried: the operation completes and the worker never faults',
      async (_code, message) => {
        let fault: Fault | undefined;
        const arm = () => (fault = inject({ ...site.rule, action: { type: 'error', message }, times: 3 }));
        const began = performance.now();
        const attempt = await within(site.run(message, arm), 8000);
        expect(
          attempt.settled && !('error' in attempt && attempt.error !== undefined),
          `setting up failed: ${String(errorSummary('error' in attempt ? attempt.error : undefined).message)}`,
        ).toBe(true);
        const { worker: w, completed } = (attempt as { value: Awaited<ReturnType<Site['run']>> }).value;
        await waitFor(async () => (await completed()) || (await within(w.done, 0)).settled, 8000, 'completion').catch(() => {});
        const early = await within(w.done, 0);
        expect({
          faulted: early.settled ? String(errorSummary('error' in early ? early.error : undefined).message) : false,
          repliesSeen: fault?.hits,
          completed: await completed(),
          state: w.state,
        }).toEqual({ faulted: false, repliesSeen: 3, completed: true, state: 'running' });
        expect(performance.now() - began).toBeLessThan(8000);
      },
      20_000,
    );
  });

  it.each([
    ['a read (XREADGROUP)', { command: 'XREADGROUP' }],
    ['an ack (worker-complete)', { script: 'worker-complete' }],
  ] as [string, Omit<FaultRule, 'action'>][])(
    'a BUSY reply that never ends at %s: the worker retries for a while, then faults with a typed error naming BUSY',
    async (_name, rule) => {
      const { stream } = keys();
      const w = worker({ stream });
      await w.start();
      inject({ ...rule, action: { type: 'error', message: TRANSIENT_REPLIES[0]![1] }, times: 'always' });
      await add(stream);
      const early = await within(w.done, 5000);
      expect(early.settled, 'the worker faulted within 5 s of the first BUSY reply: a 3 s script would have stopped it').toBe(false);
      const late = await within(w.done, 25_000);
      expect(late.settled && 'error' in late, 'the worker never gave up').toBe(true);
      const summary = errorSummary((late as { error: unknown }).error);
      expect({
        name: String(summary.name).startsWith('Respire'),
        namesReply: /BUSY/.test(String(summary.message)),
        outcomeUnknown: summary.outcomeUnknown,
      }).toEqual({
        name: true,
        namesReply: true,
        outcomeUnknown: summary.code === 'TRANSPORT_FAILED' ? false : undefined,
      });
    },
    40_000,
  );

  it('the counterpart, a lost reply: a batch of four written with the next read, whose connection closes after Redis ran it, fails every delivery of it, faults once with an unknown outcome and is not sent again', async () => {
    const { stream } = keys();
    await client.sendCommand(['XGROUP', 'CREATE', stream, 'g', '$', 'MKSTREAM']);
    for (let i = 0; i < 4; i++) await add(stream, String(i));
    const lost = inject({ script: 'worker-complete', action: { type: 'lost-reply' }, times: 'always' });
    const outcomes: string[] = [];
    const w = worker({
      stream,
      batchSize: 4,
      readWaitMs: 2000,
      instrumentation: { startDelivery: () => ({ end: (outcome: string) => void outcomes.push(outcome) }) },
    });
    await w.start();
    const outcome = await within(w.done, 5000);
    const summary = errorSummary(outcome.settled && 'error' in outcome ? outcome.error : undefined);
    expect({
      fault: { code: summary.code, outcomeUnknown: summary.outcomeUnknown },
      sent: lost.hits,
      outcomes,
      pending: (await pending(client, stream, 'g')).length,
    }).toEqual({ fault: { code: 'TRANSPORT_FAILED', outcomeUnknown: true }, sent: 1, outcomes: ['error', 'error', 'error', 'error'], pending: 0 });
  });

  it('start() with one reader connection refused and another answered LOADING: rejects at once with the refusal, and no connection of the worker is left (kind 1)', async () => {
    const { stream } = keys();
    // Workers stopped by earlier tests are closed, but the fake may not have seen their sockets end yet.
    await waitFor(() => fake.connectionCount === 1, 3000, "only this file's client connected").catch(() => {});
    const baseline = fake.connectionCount;
    // Both readers first get LOADING; on their retries one gets LOADING again, the other the refusal.
    inject({ command: 'CLIENT ID', action: { type: 'error', message: TRANSIENT_REPLIES[1]![1] }, times: 3 });
    inject({ command: 'CLIENT ID', action: { type: 'error', message: 'ERR max number of clients reached' }, times: 1 });
    const w = worker({ stream, consumerCount: 2 });
    const began = performance.now();
    const error = await w.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect({ message: String(errorSummary(error).message), prompt: performance.now() - began < 3000, state: w.state }).toEqual({
      message: expect.stringMatching(/max number of clients reached/),
      prompt: true,
      state: 'stopped',
    });
    // The reader still retrying after LOADING would connect on its next attempt: it gave up with start() instead.
    await sleep(1000);
    await waitFor(() => fake.connectionCount === baseline, 3000, 'only the caller connected').catch(() => {});
    expect(fake.connectionCount).toBe(baseline);
  });

  it.each([
    ['NOPERM', "NOPERM User default has no permissions to run the 'xreadgroup' command"],
    ['WRONGTYPE', 'WRONGTYPE Operation against a key holding the wrong kind of value'],
  ])('a contract error (%s) on a read still faults the worker at once', async (code, message) => {
    const { stream } = keys();
    const w = worker({ stream });
    await w.start();
    inject({ command: 'XREADGROUP', action: { type: 'error', message }, times: 'always' });
    const outcome = await within(w.done, 3000);
    expect(outcome.settled && 'error' in outcome, `a ${code} reply did not fault the worker within 3 s`).toBe(true);
    expect(String(errorSummary((outcome as { error: unknown }).error).message)).toContain(code);
  });
});

/** Blocks the server for `ms` (a script looping on TIME): under busy-reply-threshold other clients get BUSY. */
function busyScript(ms: number): string {
  return `local t0 = redis.call('TIME') local start = t0[1] * 1000000 + t0[2] while true do local t = redis.call('TIME') if t[1] * 1000000 + t[2] - start > ${ms * 1000} then break end end return 1`;
}

describe("kind 5: a neighbour's slow script on a real server (the reported input)", () => {
  it('a StreamWorkerHost with two readers, busy during a 3 s script under busy-reply-threshold 300: every entry is processed without a restart', async () => {
    const server = await startRedisServer();
    const admin = await connectClient(server.url);
    const neighbour = await connectClient(server.url, 6, { commandOptions: { timeout: 0 } });
    const caller = await connectClient(server.url);
    const host = new StreamWorkerHost({ handleSignals: false, logger: recordingLogger() });
    try {
      await admin.sendCommand(['CONFIG', 'SET', 'busy-reply-threshold', '300']).catch(() => admin.sendCommand(['CONFIG', 'SET', 'lua-time-limit', '300']));
      const stream = `{busy-${randomBytes(4).toString('hex')}}:events`;
      const handled = new Set<string>();
      const worker = host.add({
        client: caller,
        stream,
        group: 'g',
        consumerCount: 2,
        readWaitMs: 100,
        recoveryPollIntervalMs: 200,
        minimumIdleTimeMs: 2000,
        logger: recordingLogger(),
        handler: async (e: StreamEntry) => (handled.add(e.id), await sleep(20), 'ack'),
      });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) ids.push(String(await admin.sendCommand(['XADD', stream, '*', 'i', String(i)])));
      await host.start();
      await waitFor(() => handled.size > 0, 5000, 'the readers at work');
      expect(await neighbour.sendCommand(['EVAL', busyScript(3000), '0'])).toBe(1); // the server is busy for 3 s
      for (let i = 20; i < 41; i++) ids.push(String(await admin.sendCommand(['XADD', stream, '*', 'i', String(i)])));
      await waitFor(
        async () => ids.every((id) => handled.has(id)) && (await pending(admin, stream, 'g')).length === 0,
        15_000,
        'all 41 entries handled and acknowledged',
      ).catch(() => {});
      const hostDone = await within(host.done, 0);
      expect({
        unhandled: ids.filter((id) => !handled.has(id)).length,
        pending: (await pending(admin, stream, 'g')).length,
        workerState: worker.state,
        hostStopped: hostDone.settled ? String(errorSummary('error' in hostDone ? hostDone.error : undefined).message) : false,
      }).toEqual({ unhandled: 0, pending: 0, workerState: 'running', hostStopped: false });
    } finally {
      await host.stop();
      caller.destroy();
      neighbour.destroy();
      admin.destroy();
      await server.close();
    }
  }, 60_000);
});
