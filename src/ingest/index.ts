/** Receivers: wire formats → rows for the pipeline. They never touch storage. */
/** Reads a request body with a byte limit that also holds after gzip decoding. */
export { readBody, readLimited, decodeBody } from './body.ts';
/** `POST /v1/events`, `/v1/feedback`, `/v1/resources` bodies → pipeline, with per-row rejects in body order. */
export { ingestEvents, ingestFeedback, ingestResources } from './json/ingest.ts';
/** Splits a JSON array or NDJSON body into rows, a slice at a time; rows longer than MAX_ROW_CHARS are rejected unparsed. */
export { parseRows, MAX_ROW_CHARS } from './json/rows.ts';
/** OTLP/HTTP traces and metrics (JSON or protobuf) → events and resource samples, with the partial-success reply. */
export { handleOtlp, registerOtlpMetrics } from './otlp/index.ts';
export type { OtlpSignal, OtlpResponse, OtlpMetrics } from './otlp/index.ts';
/** Whole-document decoding off the event loop: YAML uploads within bounds (OTLP bodies go through handleOtlp). */
export { parseYamlOffThread } from './worker/offload.ts';
/** How to start a worker thread beside the caller: the compiled entry, or the TypeScript one through tsx. */
export { workerEntry } from './worker/entry.ts';
export type { YamlLimits } from './worker/yaml.ts';
/** Prometheus / OpenMetrics scraping of model servers and GPU exporters. */
export { createScraper, ScrapeTargetSchema, parseExposition, mapFamilies, detectEngine, registerScrapeMetrics, targetsPage } from './scrape/index.ts';
export type { Scraper, ScrapeTarget, ScrapeTargetInput, TargetStats, TargetPageEntry } from './scrape/index.ts';
/** Host (/proc) and GPU (nvidia-smi or DCGM) collectors for the local node. */
export { createHostCollector, createGpuCollector } from './collect/index.ts';
export type { HostCollector, GpuCollector, CollectorStats } from './collect/index.ts';
