/**
 * inferlens/sdk: the client inference services use to report one event per request.
 *
 * Talks to inferlens only over HTTP (`POST /v1/events`, `POST /v1/feedback`). Never throws into the
 * host service and never blocks a request: timers and `record()` push to a bounded buffer; a
 * background exporter batches, compresses, retries and counts what it drops.
 */

/** Creates a client from options; bad options become a warning and a default. */
export { createClient } from './client.ts';
/** The client, the inputs of `record()` / `feedback()`, and the options of `shutdown()`. */
export type { InferlensClient, RecordInput, FeedbackInput, ShutdownOptions } from './client.ts';
/** Options of `createClient`, the event defaults, the capture hook and what it returns. */
export type { ClientOptions, EventDefaults, CaptureHook, CaptureDecision } from './options.ts';
/** The per-request timer, its stage names, and the inputs of its methods. */
export type { RequestTimer, StageName, RequestStart, RequestFields, FailOptions, EndOptions } from './request-timer.ts';
/** The payload handed to `t.capture()`. */
export type { CapturePayload } from './capture.ts';
/** Exporter counters and the reasons rows are dropped. */
export type { ClientStats, DropReason } from './exporter.ts';
/** The list of drop reasons, in the order `stats().dropped` holds them. */
export { DROP_REASONS } from './exporter.ts';
/** The timers the exporter waits with (the `timers` option). */
export type { SdkTimers } from './timers.ts';
/** The logger the SDK warns through (once per problem). */
export type { SdkLogger } from './warn-once.ts';
