// The instrumentation seam is declared once (in @respire/core-scripts): the worker, the queue and this package name the same types.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type * as seam from '@respire/core-scripts';
import type * as queue from '@respire/queue';
import type * as worker from '@respire/worker';
import { createQueueTelemetry, createStreamWorkerTelemetry } from '@respire/otel';

/**
 * These checks run under `tsc` over the tests: a package that declared its own copy of a seam type
 * again, or a telemetry object that no longer fits the hooks it implements, fails the build.
 */
describe('one instrumentation seam', () => {
  it('the worker exports the seam’s own types, and its telemetry implements them', () => {
    expectTypeOf<worker.DeliveryOutcome>().toEqualTypeOf<seam.DeliveryOutcome>();
    expectTypeOf<worker.DeadLetterReason>().toEqualTypeOf<seam.DeadLetterReason>();
    expectTypeOf<worker.DeliveryStart>().toEqualTypeOf<seam.DeliveryStart>();
    expectTypeOf<worker.DeliveryScope>().toEqualTypeOf<seam.DeliveryScope>();
    expectTypeOf<worker.WorkerInfo>().toEqualTypeOf<seam.WorkerInfo>();
    expectTypeOf<worker.StreamWorkerInstrumentation>().toEqualTypeOf<seam.StreamWorkerInstrumentation>();
    expectTypeOf(createStreamWorkerTelemetry()).toMatchTypeOf<worker.StreamWorkerInstrumentation>();
  });

  it('the queue exports the seam’s own types, and its telemetry implements them', () => {
    expectTypeOf<queue.QueueOperationName>().toEqualTypeOf<seam.QueueOperationName>();
    expectTypeOf<queue.QueueOperationStart>().toEqualTypeOf<seam.QueueOperationStart>();
    expectTypeOf<queue.QueueOperationEnd>().toEqualTypeOf<seam.QueueOperationEnd>();
    expectTypeOf<queue.QueueInstrumentation>().toEqualTypeOf<seam.QueueInstrumentation>();
    expectTypeOf(createQueueTelemetry()).toMatchTypeOf<queue.QueueInstrumentation>();
  });

  it('this package imports only @opentelemetry/api and @respire/core-scripts (where the seam is): never the queue or the worker', () => {
    const src = join(import.meta.dirname, '..', 'src');
    const files = readdirSync(src).filter((f) => f.endsWith('.ts'));
    const imported = new Set<string>();
    for (const file of files) {
      for (const [, from] of readFileSync(join(src, file), 'utf8').matchAll(/from '([^']+)'/g)) if (!from!.startsWith('./')) imported.add(from!);
    }
    expect([...imported].sort()).toEqual(['@opentelemetry/api', '@respire/core-scripts', '@respire/core-scripts/internal']);
  });
});
