// A service that installs only the queue and its telemetry: @respire/queue, @respire/otel (whose
// @respire/worker peer is optional and NOT installed here), redis and @opentelemetry/api. The
// packed-consumer test type-checks it in the three TypeScript set-ups, strict and with
// `skipLibCheck: false` (so every .d.ts it reaches is checked), then runs it against a private
// Redis (`REDIS_URL`).
import { createClient } from 'redis';
import { ReliableQueue, utf8Codec } from '@respire/queue';
import { QUEUE_OPERATION_DURATION, createQueueTelemetry, type QueueTelemetry } from '@respire/otel';

function check(condition: unknown, what: string): asserts condition {
  if (!condition) throw new Error(`queue+otel consumer check failed: ${what}`);
}

async function main(label: string): Promise<void> {
  const url = process.env.REDIS_URL;
  check(url, 'REDIS_URL is set');
  // The worker is not installed: this project is the proof that @respire/otel does not need it.
  const worker = '@respire/worker';
  check(
    await import(worker).then(
      () => false,
      () => true,
    ),
    '@respire/worker is not installed',
  );

  const telemetry: QueueTelemetry = createQueueTelemetry({ telemetryName: label });
  const client = await createClient({ url }).connect();
  try {
    const queue = new ReliableQueue(client, `${label}:notifications`, { codec: utf8Codec, instrumentation: telemetry });
    const id = await queue.send('Order shipped');
    const [message] = await queue.receive(30_000);
    check(message?.id === id && message.payload === 'Order shipped', 'receive returns the sent message');
    check(await queue.ack(message), 'ack succeeds');
  } finally {
    client.destroy();
  }
  console.log(`${label}: queue with ${QUEUE_OPERATION_DURATION} telemetry, no @respire/worker installed: ok`);
}

main(process.argv[2] ?? 'queue-otel').catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
