// The worker process of the kill -9 chaos test (chaos.test.ts): a StreamWorkerHost whose handler's behaviour each entry's fields decide.
import { writeSync } from 'node:fs';
import { createClient } from 'redis';
import { createClient as createClientV5 } from 'redis5';
import { StreamWorkerHost, type StreamEntry, type StreamWorkerBaseOptions } from '../src/index.js';

/** The worker options the chaos test draws for a process: exactly the worker's own option fields. */
type DrawnOptions = Pick<StreamWorkerBaseOptions, 'stream' | 'group' | 'consumerName'> &
  Required<
    Pick<StreamWorkerBaseOptions, 'consumerCount' | 'batchSize' | 'readWaitMs' | 'minimumIdleTimeMs' | 'recoveryPollIntervalMs' | 'shutdownTimeoutMs'>
  > & {
    readonly deadLetterStream: string;
    readonly deliveryLimit: number;
  };

/** What the chaos test asks of one worker process (passed as JSON in `CHAOS_WORKER`). */
export interface ChaosWorkerConfig extends DrawnOptions {
  readonly url: string;
  /** Where the process records what it did: a stream in the same slot (see {@link LogEvent}). */
  readonly log: string;
  /** `<slot>.<generation>`: which process of the fleet this is. */
  readonly process: string;
  /** The node-redis major the process's client uses. */
  readonly redis: 5 | 6;
}

/**
 * The fields of a chaos entry, which fix what the handler does at each delivery count:
 * - `kind` `ok`: the work, then ack; `flaky`: fails (by `mode`) on attempts 1..`failUntil`, then
 *   as ok; `poison`: fails (by `mode`) on every attempt; `explicit`: returns dead-letter;
 * - `mode`: `nack` (returns nack), `throw` (throws a ChaosHandlerError), `unknown` (returns an
 *   unknown result);
 * - `workMs`: how long the handler works before deciding.
 */
export type ChaosKind = 'ok' | 'flaky' | 'poison' | 'explicit';
export type ChaosMode = 'nack' | 'throw' | 'unknown';

/**
 * What a process records in the log stream. Each record's stream ID is the server's clock when it
 * was written, which orders records of different processes without trusting their clocks.
 * - `start`: a delivery of entry `id` at delivery count `n` began (the instrumentation's
 *   startDelivery, also for deliveries the worker dead-letters without calling the handler);
 * - `work`: the handler did the entry's work at count `n` (written and confirmed before it returns ack);
 * - `end`: the delivery ended with outcome `o` (the instrumentation's end);
 * - `kill`: written by the test right after it killed process `p`.
 * Every record names the process `p` (`<slot>.<generation>`).
 */
export type LogEvent = 'start' | 'work' | 'end' | 'kill';

/** What the handler throws for `mode` `throw`: its type is what a dead-letter record names. */
export class ChaosHandlerError extends Error {
  override readonly name = 'ChaosHandlerError';
}

/** One line on stdout, written synchronously, so it reaches the test even when a SIGKILL follows at once. */
const say = (message: Record<string, unknown>) => writeSync(1, `${JSON.stringify(message)}\n`);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs the process: connects, starts one worker under a host (which stops it on SIGTERM), prints
 * `names` (before any read is sent), `ready`, and at the end `stopped` or `fault`, then closes its
 * client; the process then exits by itself (exit code 3 after a fault).
 */
export async function runChaosWorker(config: ChaosWorkerConfig): Promise<void> {
  const client = config.redis === 6 ? createClient({ url: config.url }) : createClientV5({ url: config.url });
  client.on('error', () => {});
  await client.connect();
  const record = (event: LogEvent, id: string, n: number, extra: string[] = []) =>
    client.sendCommand(['XADD', config.log, '*', 'e', event, 'id', id, 'n', String(n), 'p', config.process, ...extra]);

  const host = new StreamWorkerHost({ shutdownTimeoutMs: config.shutdownTimeoutMs, logger: { warn() {}, error() {} } });
  const { url: _url, log: _log, process: _process, redis: _redis, ...options } = config;
  const worker = host.add({
    ...options,
    client: client as never,
    logger: { warn() {}, error: (message) => say({ t: 'error', message }) },
    instrumentation: {
      startDelivery: ({ entryId, deliveryCount }) => {
        void record('start', entryId, deliveryCount).catch(() => {});
        return { end: (outcome) => void record('end', entryId, deliveryCount, ['o', outcome]).catch(() => {}) };
      },
    },
    handler: async (entry: StreamEntry) => {
      const field = (name: string) => entry.getString(name) ?? '';
      const kind = field('kind') as ChaosKind;
      const workMs = Number(field('workMs'));
      if (workMs > 0) await sleep(workMs);
      if (kind === 'explicit') return 'dead-letter';
      if (kind === 'poison' || (kind === 'flaky' && entry.deliveryCount <= Number(field('failUntil')))) {
        const mode = field('mode') as ChaosMode;
        if (mode === 'throw') throw new ChaosHandlerError(`entry ${entry.id} fails at attempt ${entry.deliveryCount}`);
        return mode === 'unknown' ? 'maybe-later' : 'nack';
      }
      // The work itself, confirmed by Redis before the ack: what a real handler's idempotent effect is.
      await record('work', entry.id, entry.deliveryCount);
      return 'ack';
    },
  });
  const starting = host.start();
  say({ t: 'names', names: worker.consumerNames });
  try {
    await starting;
    say({ t: 'ready' });
    await host.done;
    say({ t: 'stopped' });
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    say({ t: 'fault', code, message });
    process.exitCode = 3;
  } finally {
    client.destroy();
  }
}
