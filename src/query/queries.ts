/**
 * The query service handed to the API and the other consumers: every read goes through here.
 * Every method takes a typed spec (the API decodes request bodies in src/schema/requests.ts);
 * the store it reads is whatever main.ts gives it — for the API, the read-scoped decorator.
 */
import type {
  CapacityRequest,
  Dimension,
  ErrorSlicesRequest,
  EventSearchRequest,
  HistogramRequest,
  QueryRow,
  QuerySpec,
  ResourceQuantilesRequest,
  ResourceQueryRequest,
  SampleSearchRequest,
  SaturationRequest,
  StagesRequest,
  StoredEvent,
} from '../schema/index.ts';
import type { ListSpec, StoreReads } from '../store/index.ts';
import { dimensionValues, lookupRequest, runQuery } from './runtime.ts';
import { capacity } from './capacity.ts';
import { costReport } from './cost.ts';
import type { CostPrices, CostRequest } from './cost.ts';
import { errorSlices, histogram, resourceSeries, saturation, searchEvents, stageAttribution } from './runtime-analyses.ts';
import { resourceQuantiles } from './resource-quantiles.ts';
import { searchSamples } from './samples.ts';

export interface Queries {
  /** `POST /v1/query`: rows with RFC 3339 buckets. */
  query(spec: QuerySpec): ReturnType<typeof runQuery>;
  /** The programmatic form for alerting/release/reports (bucket in epoch ms). */
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  /** Raw events for statistics that need per-request values (bounded by spec.limit). */
  events(spec: ListSpec): Promise<StoredEvent[]>;
  /** The stored events of one request and its captured samples. */
  request(requestId: string): ReturnType<typeof lookupRequest>;
  labels(dimension: Dimension, fromMs: number, toMs: number, limit?: number): Promise<string[]>;
  searchEvents(req: EventSearchRequest): ReturnType<typeof searchEvents>;
  histogram(req: HistogramRequest): ReturnType<typeof histogram>;
  errorSlices(req: ErrorSlicesRequest): ReturnType<typeof errorSlices>;
  stageAttribution(req: StagesRequest): ReturnType<typeof stageAttribution>;
  saturation(req: SaturationRequest): ReturnType<typeof saturation>;
  resources(req: ResourceQueryRequest): ReturnType<typeof resourceSeries>;
  /** Quantiles of a histogram stored as resource samples (`<metric>_bucket{le}`), bucket-interpolated. */
  resourceQuantiles(req: ResourceQuantilesRequest): ReturnType<typeof resourceQuantiles>;
  /** Is it capacity? Request vs resource signals on the same buckets, correlations, GPU headroom. */
  capacity(req: CapacityRequest): ReturnType<typeof capacity>;
  /** `POST /v1/cost`: GPU time attributed by execution-time share, priced (src/query/cost.ts). */
  cost(req: CostRequest, prices: CostPrices): ReturnType<typeof costReport>;
  /** `POST /v1/samples/search`: captured samples by slice, time bucket, reason, tag, request id. */
  samples(req: SampleSearchRequest): ReturnType<typeof searchSamples>;
}

export function createQueries(store: StoreReads): Queries {
  return {
    query: (spec) => runQuery(store, spec),
    aggregate: (spec) => store.aggregate(spec),
    events: (spec) => store.listEvents(spec),
    request: (id) => lookupRequest(store, id),
    labels: (d, f, t, l) => dimensionValues(store, d, f, t, l),
    searchEvents: (r) => searchEvents(store, r),
    histogram: (r) => histogram(store, r),
    errorSlices: (r) => errorSlices(store, r),
    stageAttribution: (r) => stageAttribution(store, r),
    saturation: (r) => saturation(store, r),
    resources: (r) => resourceSeries(store, r),
    resourceQuantiles: (r) => resourceQuantiles(store, r),
    capacity: (r) => capacity(store, r),
    samples: (r) => searchSamples(store, r),
    cost: (r, prices) => costReport(store, prices, r),
  };
}
