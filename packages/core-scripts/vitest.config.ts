// Test configuration of @respire/core-scripts (the harness starts a private Redis and Cluster).
import { respireTestConfig } from '@respire/harness/vitest';

export default respireTestConfig(import.meta.dirname, { redis: true });
