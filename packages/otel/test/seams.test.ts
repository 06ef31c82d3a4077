import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as queue from '@respire/queue';
import type * as worker from '@respire/worker';
import { createQueueTelemetry, createStreamWorkerTelemetry } from '@respire/otel';
import type * as seams from '../src/seams.js';

/**
 * This package's types never import @respire/queue or @respire/worker (optional peers): they use
 * structural copies of the two seams. These checks (run by `tsc` over the tests) fail when a copy
 * drifts from the package's own type; the packed-consumer test type-checks a project with only
 * the queue installed.
 */
describe('the seams this package copies match the packages’ own', () => {
  it('worker seam', () => {
    expectTypeOf<seams.DeliveryOutcome>().toEqualTypeOf<worker.DeliveryOutcome>();
    expectTypeOf<seams.DeadLetterReason>().toEqualTypeOf<worker.DeadLetterReason>();
    expectTypeOf<seams.DeliveryStart>().toEqualTypeOf<worker.DeliveryStart>();
    expectTypeOf<seams.DeliveryScope>().toEqualTypeOf<worker.DeliveryScope>();
    expectTypeOf<seams.WorkerInfo>().toEqualTypeOf<worker.WorkerInfo>();
    expectTypeOf<seams.StreamWorkerInstrumentation>().toEqualTypeOf<worker.StreamWorkerInstrumentation>();
    expectTypeOf(createStreamWorkerTelemetry()).toMatchTypeOf<worker.StreamWorkerInstrumentation>();
  });

  it('queue seam', () => {
    expectTypeOf<seams.QueueOperationName>().toEqualTypeOf<queue.QueueOperationName>();
    expectTypeOf<seams.QueueOperationStart>().toEqualTypeOf<queue.QueueOperationStart>();
    expectTypeOf<seams.QueueOperationEnd>().toEqualTypeOf<queue.QueueOperationEnd>();
    expectTypeOf<seams.QueueInstrumentation>().toEqualTypeOf<queue.QueueInstrumentation>();
    expectTypeOf(createQueueTelemetry()).toMatchTypeOf<queue.QueueInstrumentation>();
  });

  it('no source file of this package imports @respire/queue or @respire/worker', () => {
    const src = join(import.meta.dirname, '..', 'src');
    const files = readdirSync(src).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('seams.ts');
    for (const file of files) {
      expect(readFileSync(join(src, file), 'utf8'), file).not.toMatch(/from '@respire\/(queue|worker)'/);
    }
  });
});
