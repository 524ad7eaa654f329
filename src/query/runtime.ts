/** Runtime queries: the aggregate query, request lookup, dimension values. */
import { InferlensError } from '../schema/index.ts';
import type { Approximation, Dimension, QueryReply, QueryRow, QuerySpec, RequestReply, StoredEvent } from '../schema/index.ts';
import { ROLLUP_APPROXIMATION } from '../store/index.ts';
import type { StoreReads } from '../store/index.ts';

/** Rows with `bucket` as RFC 3339 (the API form). */
export function withIsoBuckets(rows: QueryRow[]): QueryRow[] {
  return rows.map((r) => (typeof r.bucket === 'number' ? { ...r, bucket: new Date(r.bucket).toISOString() } : r));
}

/**
 * The aggregate, from the rollup when the spec allows it (`approx`) and the rollup can answer,
 * else exact. `approx` says which: the rollup's error bound, or null for exact.
 */
export async function answer(store: StoreReads, spec: QuerySpec): Promise<{ rows: QueryRow[]; approx: Approximation | null }> {
  if (spec.approx) {
    const rows = await store.approxAggregate(spec);
    if (rows) return { rows, approx: ROLLUP_APPROXIMATION };
  }
  return { rows: await store.aggregate(spec), approx: null };
}

/** `POST /v1/query`; the reply carries `approx` (null when exact) when the request allowed it. */
export async function runQuery(store: StoreReads, spec: QuerySpec): Promise<QueryReply> {
  const { rows, approx } = await answer(store, spec);
  return spec.approx ? { rows: withIsoBuckets(rows), approx } : { rows: withIsoBuckets(rows) };
}

export async function lookupRequest(store: StoreReads, requestId: string): Promise<RequestReply & { events: StoredEvent[] }> {
  const events = await store.getEvents(requestId);
  if (events.length === 0) throw new InferlensError('not_found', `no request with id "${requestId}" is stored (it may be older than the retention window)`);
  // Samples carry their event's ts: look in [first event, last event] (to exclusive, so + 1 ms).
  const times = events.map((e) => Date.parse(e.ts));
  const samples = await store.listSamples({ fromMs: Math.min(...times), toMs: Math.max(...times) + 1, filters: {}, requestId, limit: 100 });
  return { events, samples };
}

export async function dimensionValues(store: StoreReads, dimension: Dimension, fromMs: number, toMs: number, limit = 200): Promise<string[]> {
  return store.distinctValues(dimension, fromMs, toMs, Math.min(Math.max(limit, 1), 1000));
}
