// The public entry of @respire/dashboard.
export { createDashboard, MIN_POLL_INTERVAL_MS } from './dashboard.js';
export type { Dashboard, DashboardOptions } from './dashboard.js';
export { dangerouslyAllowAnonymousOperator } from './auth.js';
export type { Authorize, GroupedQueueGuard, Guard, Principal, TopicGuard } from './auth.js';
export { renderBytes, RENDER_CAP_BYTES } from './payload.js';
export type { RenderedBytes } from './payload.js';
export { startStandaloneDashboard } from './standalone.js';
export type { StandaloneDashboard, StandaloneOptions, StandaloneUser } from './standalone.js';
