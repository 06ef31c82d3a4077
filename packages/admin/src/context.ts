// What the admin's modules share: the command plumbing, the known resources and the audit.
import type { Auditor } from './audit.js';
import type { Redis } from './redis.js';
import type { Resources } from './resources.js';

/** What the admin's modules share: the command plumbing, the known resources and the audit. */
export interface AdminContext {
  readonly redis: Redis;
  readonly resources: Resources;
  readonly auditor: Auditor;
}
