// Test configuration of @respire/testing (the harness starts a private Redis to compare with).
import { respireTestConfig } from '@respire/harness/vitest';

export default respireTestConfig(import.meta.dirname, { redis: true });
