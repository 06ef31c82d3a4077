// Vitest for @respire/otel: the harness's configuration, with its Redis servers.
import { respireTestConfig } from '@respire/harness/vitest';

export default respireTestConfig(import.meta.dirname, { redis: true });
