/** NDJSON writes to inferlens's public ingest API with Retry-After handling, and an emptiness check (the history backfill and the GPU samples use it). */
export { postNdjson, hasEvents } from './client.ts';
export type { IngestTarget, IngestReply } from './client.ts';
