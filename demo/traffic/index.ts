/** Traffic for the demo service: tenants, the rate over time, the live generator and the backfilled history. */
/** Tenants with Zipf-distributed sizes, their tiers, entries and rate limits, and a seeded picker. */
export { createTenants, createTenantPicker, tenantTiers, tenantRateLimits, ENTRIES, PILOT_TENANT, TENANT_COUNT, ZIPF_EXPONENT } from './tenants.ts';
export type { Entry, ServiceTier, Tenant, TenantPicker } from './tenants.ts';
/** The request rate over time (daily cycle, noise, bursts) and a Poisson draw. */
export { createRateModel, poisson } from './rate.ts';
export type { RateModel, RateOptions } from './rate.ts';
/** Live open-loop traffic to `POST /v1/classify`, with the scenario's knobs (rate multiplier, drift, bursts). */
export { createTraffic } from './generator.ts';
export type { Traffic, TrafficOptions, TrafficResult, TrafficStats } from './generator.ts';
/** Stage-latency model fitted on live measurements, for generated history. */
export { fitLatencyModel, drawMs, DEFAULT_LATENCY_MODEL, MIN_CALIBRATION_EVENTS } from './latency-model.ts';
export type { LatencyModel, StageFit } from './latency-model.ts';
/** A day of history through the ingest API: real predictions, modelled latencies, labelled backfill. */
export { backfill, predictAll } from './backfill.ts';
export type { BackfillOptions, BackfillResult, HistoricalIncident, PredictedMessage } from './backfill.ts';
