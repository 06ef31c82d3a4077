import { respireTestConfig } from '@respire/harness/vitest';

export default respireTestConfig(import.meta.dirname, { redis: true });
