/** The demo inference service: the spam filter over HTTP, with real stages and incident controls. */
/** Build and start the service; `optionProblems` lists what is wrong with options. */
export { createService, optionProblems, MODEL_NAME } from './service.ts';
export type { Service, ServiceOptions } from './service.ts';
/** The per-request event seam, and an in-memory observer for tests and scripts. */
export { noopObserver, createMemoryObserver } from './observer.ts';
export type { RequestObserver, MemoryObserver } from './observer.ts';
/** Incident controls (also `POST /admin/<action>`). */
export type { ServiceControls, ServiceState, TenantError } from './controls.ts';
export { ADMIN_ACTIONS } from './admin.ts';
/** Routing rules, rate limits and batching, exported for scenario scripts and tests. */
export { createRouter, routeProblems, DEFAULT_ROUTES } from './router.ts';
export type { RouteRule, Router } from './router.ts';
export { createRateLimiter } from './rate-limiter.ts';
export type { RateLimit, RateLimiter, RateDecision } from './rate-limiter.ts';
export { createBatcher, realClock } from './batcher.ts';
export type { Batch, BatchEntry, Batcher, BatchSettings, Clock } from './batcher.ts';
export type { Regression } from './replica-protocol.ts';
