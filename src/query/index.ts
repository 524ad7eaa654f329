/** Queries: typed specs → store reads → results, plus the runtime analyses. */
/** Builds the query service over a Store's reads. */
export { createQueries } from './queries.ts';
export type { Queries } from './queries.ts';
/** The typed reads alerting uses (no HTTP bodies), over a store. */
export { typedReads } from './reads.ts';
export type { TypedReads } from './reads.ts';
/** The spec and row types those reads take and give. */
export type { BucketCountSpec, BucketCountRow, ListSpec, ResourceQuerySpec, ResourceRow } from '../store/index.ts';
/** The incident log's stored entry and its read spec (alerting writes and reads it through the store). */
export type { IncidentLogEntry, IncidentLogSpec } from '../store/index.ts';
/** Cost in money: the prices a cost read takes (from the config) and its result. */
export type { CostPrices } from './cost.ts';
/** The cost reply (declared with the other replies in src/schema/replies.ts). */
export type { CostReply as CostResult } from '../schema/index.ts';
/** The log-bucket index of values ≤ 0 in `bucketCounts` rows. */
export { ZERO_INDEX } from '../store/index.ts';
