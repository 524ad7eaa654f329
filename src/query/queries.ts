/** The query service handed to the API and the other consumers: every read goes through here. */
import type { QueryRow, QuerySpec, StoredEvent } from '../schema/index.ts';
import type { Store } from '../store/index.ts';
import { dimensionValues, lookupRequest, runQuery } from './runtime.ts';

export interface Queries {
  query(input: unknown): Promise<{ rows: QueryRow[] }>;
  /** The programmatic form for alerting/release/reports (validated spec, bucket in epoch ms). */
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  request(requestId: string): Promise<{ events: StoredEvent[] }>;
  labels(dimension: string, fromMs: number, toMs: number, limit?: number): Promise<string[]>;
}

export function createQueries(store: Store): Queries {
  return {
    query: (input) => runQuery(store, input),
    aggregate: (spec) => store.aggregate(spec),
    request: (id) => lookupRequest(store, id),
    labels: (d, f, t, l) => dimensionValues(store, d, f, t, l),
  };
}
