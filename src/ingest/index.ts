/** Receivers: wire formats → rows for the pipeline. They never touch storage. */
/** Reads a request body with a byte limit that also holds after gzip decoding. */
export { readBody, readLimited, decodeBody } from './body.ts';
/** `POST /v1/events` body → pipeline, with per-row rejects in body order. */
export { ingestEvents } from './json/events.ts';
/** `POST /v1/feedback` body → pipeline. */
export { ingestFeedback } from './json/feedback.ts';
/** Splits a JSON array or NDJSON body into rows. */
export { parseRows } from './json/rows.ts';
