// Every option's default, limit and rule; every violation a typed error at construction, before any I/O.
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { StreamWorker, StreamWorkerHost } from '../src/index.js';

/** README "Options": every default, limit and rule; every violation is a typed error at construction, before any I/O. */
const client = createClient({ url: 'redis://127.0.0.1:1' }); // never connected: construction does no I/O
const base = { client, stream: '{o}:events', group: 'g', handler: () => 'ack' as const };

describe('StreamWorker options', () => {
  it.each([
    ['consumerCount', { consumerCount: 0 }],
    ['consumerCount', { consumerCount: 1.5 }],
    ['batchSize', { batchSize: 0 }],
    ['readWaitMs', { readWaitMs: 0 }],
    ['minimumIdleTimeMs', { minimumIdleTimeMs: 0 }],
    ['minimumIdleTimeMs', { minimumIdleTimeMs: 2 ** 31 }],
    ['minimumIdleTimeMs', { minimumIdleTimeMs: Number.NaN }],
    ['recoveryPollIntervalMs', { recoveryPollIntervalMs: -1 }],
    ['recoveryPollIntervalMs', { recoveryPollIntervalMs: 2 ** 31 }],
    ['metricsPollIntervalMs', { metricsPollIntervalMs: 0 }],
    ['metricsPollIntervalMs', { metricsPollIntervalMs: 2 ** 31 }],
    ['metricsPollTimeoutMs', { metricsPollTimeoutMs: 0 }],
    ['metricsPollTimeoutMs', { metricsPollTimeoutMs: 2 ** 31 }],
    ['deliveryLimit', { deliveryLimit: 3 }],
    ['deliveryLimit', { deadLetterStream: '{o}:dead', deliveryLimit: 0 }],
    ['telemetryName', { telemetryName: 'has space' }],
    ['telemetryName', { telemetryName: '' }],
    ['telemetryName', { telemetryName: 'x'.repeat(129) }],
    ['traceStateField', { traceParentField: 'same', traceStateField: 'same' }],
    ['traceParentField', { traceParentField: '' }],
    ['groupStart', { groupStart: 'latest' }],
    ['createGroup', { createGroup: 'yes' }],
    ['trimAcknowledgedEntries', { trimAcknowledgedEntries: 1 }],
    ['stream', { stream: ' ' }],
    ['group', { group: '' }],
    ['consumerName', { consumerName: '' }],
    ['group', { group: 'g'.repeat(257), deadLetterStream: '{o}:dead' }],
    ['handler', { handler: undefined }],
    ['handler', { createScope: () => ({ handler: () => 'ack' }) }],
    ['client', { client: {} }],
    ['keyPrefix', { keyPrefix: 5 }],
    ['options', { minIdleTimeMs: 1000 }],
    ['options', { concurrency: 4 }],
    ['client', { client: { sendCommand: async () => null, status: 'ready' } }],
  ])('rejects an invalid %s', (argument, patch) => {
    expect(() => new StreamWorker({ ...base, ...(patch as object) } as never)).toThrow(
      expect.objectContaining({ name: 'RespireValidationError', code: 'INVALID_ARGUMENT', argument }),
    );
  });

  it('accepts the bounds: 1 ms and 2^31-1 ms, limit 1, telemetry names of 128 characters', () => {
    expect(
      () =>
        new StreamWorker({
          ...base,
          readWaitMs: 1,
          minimumIdleTimeMs: 2 ** 31 - 1,
          recoveryPollIntervalMs: 1,
          metricsPollIntervalMs: 2 ** 31 - 1,
          metricsPollTimeoutMs: 1,
          deadLetterStream: '{o}:dead',
          deliveryLimit: 1,
          telemetryName: 'A.b-c_9'.padEnd(128, 'x'),
          traceParentField: null,
          traceStateField: null,
          groupStart: '$',
        }),
    ).not.toThrow();
  });

  it('requires source and dead-letter streams to differ after the prefix and share a slot, even on standalone', () => {
    expect(() => new StreamWorker({ ...base, deadLetterStream: '{o}:events' })).toThrow(expect.objectContaining({ name: 'RespireCrossSlotError' }));
    expect(() => new StreamWorker({ ...base, deadLetterStream: 'other-dead' })).toThrow(expect.objectContaining({ name: 'RespireCrossSlotError' }));
    expect(() => new StreamWorker({ ...base, stream: 'events', deadLetterStream: 'dead', keyPrefix: '{o}:t1:' })).not.toThrow();
  });

  it('applies the documented defaults', () => {
    const w = new StreamWorker(base);
    expect(w.telemetryName).toBe('default');
    expect(w.stream).toBe('{o}:events');
    expect(w.state).toBe('idle');
  });

  it('validates the drain time given to stop()', async () => {
    await expect(new StreamWorker(base).stop(0)).rejects.toMatchObject({ name: 'RespireValidationError', argument: 'timeoutMs' });
  });

  it('validates the host options', () => {
    expect(() => new StreamWorkerHost({ shutdownTimeoutMs: 0 })).toThrow(expect.objectContaining({ argument: 'shutdownTimeoutMs' }));
    expect(() => new StreamWorkerHost({ faultPolicy: 'reboot' as never })).toThrow(expect.objectContaining({ argument: 'faultPolicy' }));
  });
});
