// Errors name the server's or the network's reason, and claim an unknown outcome only when a command may have run.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { errorSummary, startRedisServer, startTcpProxy, type RedisServerHandle } from '@respire/harness';
import { StreamProducer, StreamWorker, StreamWorkerHost } from '../src/index.js';
import { clientList, connectClient, parkedReaders, recordingLogger, sleep, waitFor, within } from './fault-support.js';

/**
 * Issue 11, kind 2: an error names what the server (or the network) said, and claims "the outcome
 * is unknown" only when the command may have run. Each test runs on a private server, since it
 * changes server-wide settings (maxclients, requirepass) or stops the server.
 *
 * A prompt failure here means well under the worker's 10 s connect deadline: the reply came
 * back in milliseconds, so waiting for the deadline only hides it.
 */
const PROMPT_MS = 5000;
const stream = () => `{why-${randomBytes(5).toString('hex')}}:events`;

async function withServer(args: string[], body: (server: RedisServerHandle) => Promise<void>): Promise<void> {
  const server = await startRedisServer({ args });
  try {
    await body(server);
  } finally {
    await stopAll();
    await server.close();
  }
}

/** Workers a test started; each test stops them in its `finally` (see `stopAll`). */
const running: StreamWorker[] = [];
const started = (w: StreamWorker) => (running.push(w), w);
const stopAll = () => Promise.allSettled(running.splice(0).map((w) => w.stop(500)));

function worker(client: unknown, options: Record<string, unknown> = {}): StreamWorker {
  return new StreamWorker({
    client: client as never,
    stream: stream(),
    group: 'g',
    readWaitMs: 1000,
    logger: recordingLogger(),
    handler: () => 'ack',
    ...options,
  });
}

/** What `start()` (or, if it resolved, `done`) rejected with, and how long it took; `undefined` if nothing within `ms`. */
async function firstFailure(w: StreamWorker, ms: number): Promise<{ error: unknown; elapsedMs: number } | undefined> {
  const began = performance.now();
  const outcome = await within(
    w.start().then(() => w.done),
    ms,
  );
  if (!outcome.settled || !('error' in outcome) || outcome.error === undefined) return undefined;
  return { error: outcome.error, elapsedMs: performance.now() - began };
}

/** The error is a Respire error that names `reason` in its own message and does not claim an unknown outcome. */
function expectNamedReason(error: unknown, reason: RegExp): void {
  const summary = errorSummary(error);
  expect(String(summary.name)).toMatch(/^Respire/);
  expect(summary.message).toMatch(reason);
  expect(summary.message).not.toMatch(/outcome is unknown/);
  expect(summary.outcomeUnknown).not.toBe(true);
}

describe('kind 2: a duplicate connection the server refuses', () => {
  it.each([6, 5] as const)(
    "maxclients reached (node-redis %i): start() rejects promptly with the server's reply, closes what it opened, and leaves no reconnecting duplicate",
    async (version) => {
      await withServer(['--maxclients', '2'], async (server) => {
        const caller = await connectClient(server.url, version);
        try {
          const failure = await firstFailure(started(worker(caller, { consumerCount: 2 })), 12_000);
          expect(failure, 'start() neither failed nor faulted within 12 s').toBeDefined();
          expect(failure!.elapsedMs).toBeLessThan(PROMPT_MS);
          expectNamedReason(failure!.error, /max number of clients reached/);
          expect(running.at(-1)!.state).toBe('stopped');
          // Room again: a duplicate still reconnecting in the background would take it now.
          await caller.sendCommand(['CONFIG', 'SET', 'maxclients', '100']);
          await sleep(2500);
          expect((await clientList(caller)).length).toBe(0); // the caller's own connection is not listed
        } finally {
          caller.destroy();
        }
      });
    },
    30_000,
  );

  it('maxclients reached under a host: host.start() rejects promptly with the reply and stops the worker that did start', async () => {
    await withServer(['--maxclients', '3'], async (server) => {
      const caller = await connectClient(server.url);
      try {
        const host = new StreamWorkerHost({ handleSignals: false, logger: recordingLogger() });
        host.add({ client: caller, stream: stream(), group: 'g', telemetryName: 'first', consumerCount: 2, logger: recordingLogger(), handler: () => 'ack' });
        host.add({ client: caller, stream: stream(), group: 'g', telemetryName: 'second', consumerCount: 1, logger: recordingLogger(), handler: () => 'ack' });
        const began = performance.now();
        const outcome = await within(host.start(), 12_000);
        expect(outcome.settled && 'error' in outcome, 'host.start() did not reject within 12 s').toBe(true);
        expect(performance.now() - began).toBeLessThan(PROMPT_MS);
        expectNamedReason((outcome as { error: unknown }).error, /max number of clients reached/);
        await caller.sendCommand(['CONFIG', 'SET', 'maxclients', '100']);
        await sleep(2500);
        expect((await clientList(caller)).length).toBe(0);
      } finally {
        caller.destroy();
      }
    });
  }, 30_000);

  it.each([6, 5] as const)(
    'an ACL user whose password changed after the client connected (node-redis %i): start() rejects promptly naming WRONGPASS',
    async (version) => {
      await withServer([], async (server) => {
        const admin = await connectClient(server.url);
        await admin.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>old-secret', '~*', '&*', '+@all']);
        const caller = await connectClient(server.url.replace('redis://', 'redis://app:old-secret@'), version);
        try {
          await admin.sendCommand(['ACL', 'SETUSER', 'app', 'resetpass', '>new-secret']); // rotated; open connections stay authenticated
          const failure = await firstFailure(started(worker(caller)), 12_000);
          expect(failure, 'start() neither failed nor faulted within 12 s').toBeDefined();
          expect(failure!.elapsedMs).toBeLessThan(PROMPT_MS);
          expectNamedReason(failure!.error, /WRONGPASS/);
        } finally {
          caller.destroy();
          admin.destroy();
        }
      });
    },
    30_000,
  );

  it.each([6, 5] as const)(
    'requirepass set after the client connected (node-redis %i): the worker fails promptly naming NOAUTH',
    async (version) => {
      await withServer([], async (server) => {
        const caller = await connectClient(server.url, version);
        try {
          await caller.sendCommand(['CONFIG', 'SET', 'requirepass', 'now-required']);
          const failure = await firstFailure(started(worker(caller)), 12_000);
          expect(failure, 'neither start() nor done failed within 12 s').toBeDefined();
          expect(failure!.elapsedMs).toBeLessThan(PROMPT_MS);
          expectNamedReason(failure!.error, /NOAUTH|unauthenticated/);
        } finally {
          caller.destroy();
        }
      });
    },
    30_000,
  );

  it.each([6, 5] as const)(
    "new connections refused (node-redis %i; the caller's own connection still works): start() rejects promptly naming ECONNREFUSED",
    async (version) => {
      await withServer([], async (server) => {
        const proxy = await startTcpProxy(server.port);
        const caller = await connectClient(proxy.url, version);
        try {
          await proxy.stopListening();
          const failure = await firstFailure(started(worker(caller)), 12_000);
          expect(failure, 'start() neither failed nor faulted within 12 s').toBeDefined();
          expect(failure!.elapsedMs).toBeLessThan(PROMPT_MS);
          expectNamedReason(failure!.error, /ECONNREFUSED|connection refused/i);
        } finally {
          caller.destroy();
          await proxy.close();
        }
      });
    },
    30_000,
  );
});

describe('kind 2: a reader that cannot reconnect', () => {
  it('a reader killed after the password was rotated: done rejects naming WRONGPASS, within the connect deadline, not as an unknown outcome', async () => {
    await withServer([], async (server) => {
      const admin = await connectClient(server.url);
      await admin.sendCommand(['ACL', 'SETUSER', 'app', 'on', '>old-secret', '~*', '&*', '+@all']);
      const caller = await connectClient(server.url.replace('redis://', 'redis://app:old-secret@'));
      const w = worker(caller, { readWaitMs: 5000, recoveryPollIntervalMs: 60_000 });
      try {
        await w.start();
        const [parked] = await waitFor(
          async () => {
            const ids = await parkedReaders(admin);
            return ids.length === 1 ? ids : undefined;
          },
          5000,
          'reader parked',
        );
        await admin.sendCommand(['ACL', 'SETUSER', 'app', 'resetpass', '>new-secret']);
        const began = performance.now();
        await admin.sendCommand(['CLIENT', 'KILL', 'ID', parked!]);
        const outcome = await within(w.done, 15_000);
        expect(outcome.settled && 'error' in outcome, 'the worker did not fault within 15 s').toBe(true);
        expect(performance.now() - began).toBeLessThan(12_000);
        expectNamedReason((outcome as { error: unknown }).error, /WRONGPASS/);
      } finally {
        await w.stop(1000);
        caller.destroy();
        admin.destroy();
      }
    });
  }, 30_000);
});

describe('kind 2: commands that were never sent are not "outcome unknown"', () => {
  it.each([6, 5] as const)(
    'start() on a client whose server is gone (node-redis %i, commands wait offline): rejects in bounded time without claiming an unknown outcome',
    async (version) => {
      const server = await startRedisServer();
      const caller = await connectClient(server.url, version);
      try {
        await server.close();
        // The caller has noticed: it is reconnecting, and its commands wait in the offline queue.
        await waitFor(() => !(caller as unknown as { isReady: boolean }).isReady, 5000, 'the caller reconnecting');
        const w = started(worker(caller));
        const began = performance.now();
        const outcome = await within(w.start(), 15_000);
        expect(outcome.settled, 'start() did not settle within 15 s').toBe(true);
        expect('error' in outcome && outcome.error !== undefined).toBe(true);
        expect(performance.now() - began).toBeLessThan(12_000);
        const summary = errorSummary((outcome as { error: unknown }).error);
        expect(String(summary.name)).toMatch(/^Respire/);
        expect(summary.message).not.toMatch(/outcome is unknown/);
        expect(summary.outcomeUnknown).not.toBe(true);
      } finally {
        caller.destroy();
      }
    },
    30_000,
  );

  it('StreamProducer.add on a client whose server is gone (the command timed out before it was written): not an unknown outcome', async () => {
    const server = await startRedisServer();
    const caller = await connectClient(server.url, 6, { commandOptions: { timeout: 300 } });
    try {
      await server.close();
      // The caller has noticed (before that, add() may be written to the closing socket, and then
      // its outcome is unknown): its commands wait in the offline queue until they time out.
      await waitFor(() => !(caller as unknown as { isReady: boolean }).isReady, 5000, 'the caller reconnecting');
      const producer = new StreamProducer<string>({ client: caller, stream: stream(), serialize: (v) => ({ v }) });
      const outcome = await within(producer.add('x'), 10_000);
      expect(outcome.settled && 'error' in outcome, 'add() did not reject within 10 s').toBe(true);
      const summary = errorSummary((outcome as { error: unknown }).error);
      expect(summary.code).toBe('TRANSPORT_FAILED');
      expect(summary.message).not.toMatch(/outcome is unknown/);
      expect(summary.outcomeUnknown).toBe(false);
    } finally {
      caller.destroy();
    }
  }, 20_000);
});
