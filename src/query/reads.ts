/**
 * The typed reads of the consumers that sit behind the API (alerting, reports): validated specs in,
 * rows out, nothing parsed from an HTTP body. A narrow seam: the detectors see these four reads,
 * not the store, and a read scope applied to the store applies to them.
 */
import type { QueryRow, QuerySpec, StoredEvent } from '../schema/index.ts';
import type { BucketCountRow, BucketCountSpec, ListSpec, ResourceQuerySpec, ResourceRow, Store } from '../store/index.ts';

export interface TypedReads {
  /** The aggregate of `POST /v1/query` (exact), buckets in epoch ms. */
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  /** Per slice and step, rows per log or linear bucket of a numeric column. */
  bucketCounts(spec: BucketCountSpec): Promise<BucketCountRow[]>;
  /** Raw events, bounded by spec.limit. */
  events(spec: ListSpec): Promise<StoredEvent[]>;
  /** Resource samples per step and slice. */
  resources(spec: ResourceQuerySpec): Promise<ResourceRow[]>;
}

export function typedReads(store: Pick<Store, 'aggregate' | 'bucketCounts' | 'listEvents' | 'resources'>): TypedReads {
  return {
    aggregate: (spec) => store.aggregate(spec),
    bucketCounts: (spec) => store.bucketCounts(spec),
    events: (spec) => store.listEvents(spec),
    resources: (spec) => store.resources(spec),
  };
}
