/**
 * Per model × version request aggregates on `/metrics`, as Prometheus histograms, so an existing
 * Prometheus/Grafana can alert on them. Label sets are bounded: past `maxSeries` (model, version)
 * pairs, new pairs are reported as model="__other__".
 */
import type { Registry } from 'prom-client';
import { Counter, Histogram } from 'prom-client';
import type { EventInput } from '../schema/index.ts';
import { OVERFLOW_VALUE } from './cardinality.ts';

/** Seconds: 1 ms … 60 s, roughly ×2.5 steps. */
const BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export interface RequestMetrics {
  observe(events: readonly EventInput[]): void;
}

export function createRequestMetrics(registry: Registry, maxSeries = 500): RequestMetrics {
  const duration = new Histogram({
    name: 'inferlens_model_request_duration_seconds',
    help: 'End-to-end latency (total_ms) of ingested inference requests, by model and version.',
    labelNames: ['model', 'model_version'],
    buckets: BUCKETS_S,
    registers: [registry],
  });
  const requests = new Counter({
    name: 'inferlens_model_requests_total',
    help: 'Ingested inference requests by model, version and status.',
    labelNames: ['model', 'model_version', 'status'],
    registers: [registry],
  });
  // Children are cached per label set: prom-client validates labels on every labelled call, which
  // cost ~10 % of the ingest thread when done per event.
  // An event without a version gets no model_version label at all (absent, not ""), as Prometheus
  // treats an empty label as no label and exporters leave it out.
  type Children = {
    duration: ReturnType<typeof duration.labels>;
    byStatus: Map<string, ReturnType<typeof requests.labels>>;
    labels: { model: string; model_version?: string };
  };
  const series = new Map<string, Children>();
  const seriesFor = (e: EventInput): Children => {
    const version = e.model_version ?? '';
    const key = `${e.model}\u0000${version}`;
    let c = series.get(key);
    if (c) return c;
    const overflow = series.size >= maxSeries;
    const model = overflow ? OVERFLOW_VALUE : e.model;
    const v = overflow ? OVERFLOW_VALUE : version;
    const labels = v === '' ? { model } : { model, model_version: v };
    const shared = overflow ? series.get(`${OVERFLOW_VALUE}\u0000${OVERFLOW_VALUE}`) : undefined;
    c = shared ?? { duration: duration.labels(labels), byStatus: new Map(), labels };
    if (!overflow) series.set(key, c);
    else if (!shared) series.set(`${OVERFLOW_VALUE}\u0000${OVERFLOW_VALUE}`, c);
    return c;
  };
  return {
    observe(events) {
      // Request weights are summed per counter over the slice and added once (an inc per event
      // cost as much as the histogram's observe).
      const weights = new Map<ReturnType<typeof requests.labels>, number>();
      for (const e of events) {
        if (e.probe) continue;
        const c = seriesFor(e);
        const status = e.status ?? 'unknown';
        let counter = c.byStatus.get(status);
        if (!counter) c.byStatus.set(status, (counter = requests.labels({ ...c.labels, status })));
        weights.set(counter, (weights.get(counter) ?? 0) + (e.sample_weight ?? 1));
        if (e.total_ms != null) c.duration.observe(e.total_ms / 1000);
      }
      for (const [counter, w] of weights) counter.inc(w);
    },
  };
}
