/** The query service handed to the API and the other consumers: every read goes through here. */
import type { QueryRow, QuerySpec, StoredEvent } from '../schema/index.ts';
import type { ListSpec, Store, StoredSample } from '../store/index.ts';
import { dimensionValues, lookupRequest, runQuery } from './runtime.ts';
import { capacity } from './capacity.ts';
import { errorSlices, histogram, resourceSeries, saturation, searchEvents, stageAttribution } from './runtime-analyses.ts';
import { searchSamples } from './samples.ts';

export interface Queries {
  /** `POST /v1/query`: validates the body, answers rows with RFC 3339 buckets. */
  query(input: unknown): ReturnType<typeof runQuery>;
  /** The programmatic form for alerting/release/reports (validated spec, bucket in epoch ms). */
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  /** Raw events for statistics that need per-request values (bounded by spec.limit). */
  events(spec: ListSpec): Promise<StoredEvent[]>;
  /** The stored events of one request and its captured samples. */
  request(requestId: string): Promise<{ events: StoredEvent[]; samples: StoredSample[] }>;
  labels(dimension: string, fromMs: number, toMs: number, limit?: number): Promise<string[]>;
  searchEvents(input: unknown): ReturnType<typeof searchEvents>;
  histogram(input: unknown): ReturnType<typeof histogram>;
  errorSlices(input: unknown): ReturnType<typeof errorSlices>;
  stageAttribution(input: unknown): ReturnType<typeof stageAttribution>;
  saturation(input: unknown): ReturnType<typeof saturation>;
  resources(input: unknown): ReturnType<typeof resourceSeries>;
  /** Is it capacity? Request vs resource signals on the same buckets, correlations, GPU headroom. */
  capacity(input: unknown): ReturnType<typeof capacity>;
  /** `POST /v1/samples/search`: captured samples by slice, time bucket, reason, tag, request id. */
  samples(input: unknown): ReturnType<typeof searchSamples>;
}

export function createQueries(store: Store): Queries {
  return {
    query: (input) => runQuery(store, input),
    aggregate: (spec) => store.aggregate(spec),
    events: (spec) => store.listEvents(spec),
    request: (id) => lookupRequest(store, id),
    labels: (d, f, t, l) => dimensionValues(store, d, f, t, l),
    searchEvents: (i) => searchEvents(store, i),
    histogram: (i) => histogram(store, i),
    errorSlices: (i) => errorSlices(store, i),
    stageAttribution: (i) => stageAttribution(store, i),
    saturation: (i) => saturation(store, i),
    resources: (i) => resourceSeries(store, i),
    capacity: (i) => capacity(store, i),
    samples: (i) => searchSamples(store, i),
  };
}
