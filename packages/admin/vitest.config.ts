import { respireTestConfig } from '../../tooling/harness/src/vitest-config.js';

export default respireTestConfig(import.meta.dirname, { redis: true });
