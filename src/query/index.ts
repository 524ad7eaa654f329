/** Queries: typed specs → store reads → results, plus the runtime analyses. */
/** Builds the query service over a Store's reads. */
export { createQueries } from './queries.ts';
export type { Queries } from './queries.ts';
export type { QueryFn } from './runtime.ts';
/** Throws invalid_argument unless from < to (for specs built in code). */
export { checkRange } from './spec.ts';
