/** Queries: validated specs → store reads → results, plus the runtime analyses. */
/** Builds the query service over a Store. */
export { createQueries } from './queries.ts';
export type { Queries } from './queries.ts';
export type { QueryFn } from './runtime.ts';
/** Validates a `POST /v1/query` body into a QuerySpec (throws invalid_argument with field paths). */
export { toQuerySpec, parseOrThrow, timeRange } from './spec.ts';
/** The typed reads alerting and reports use (no HTTP bodies), over a store. */
export { typedReads } from './reads.ts';
export type { TypedReads } from './reads.ts';
/** The spec and row types those reads take and give. */
export type { BucketCountSpec, BucketCountRow, ListSpec, ResourceQuerySpec, ResourceRow } from '../store/index.ts';
