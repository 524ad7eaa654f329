/** Queries: validated specs → store reads → results, plus the runtime analyses. */
/** Builds the query service over a Store. */
export { createQueries } from './queries.ts';
export type { Queries } from './queries.ts';
export type { QueryFn } from './runtime.ts';
/** Validates a `POST /v1/query` body into a QuerySpec (throws invalid_argument with field paths). */
export { toQuerySpec, parseOrThrow, timeRange } from './spec.ts';
