// Test configuration of the harness itself.
import { respireTestConfig } from './src/vitest-config.js';

export default respireTestConfig(import.meta.dirname, { redis: false, testTimeoutMs: 60_000 });
