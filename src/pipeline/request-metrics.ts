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
  const seen = new Set<string>();
  const labels = (e: EventInput) => {
    const model = e.model;
    const version = e.model_version ?? '';
    const key = `${model}\u0000${version}`;
    if (seen.has(key)) return { model, model_version: version };
    if (seen.size < maxSeries) {
      seen.add(key);
      return { model, model_version: version };
    }
    return { model: OVERFLOW_VALUE, model_version: OVERFLOW_VALUE };
  };
  return {
    observe(events) {
      for (const e of events) {
        if (e.probe) continue;
        const l = labels(e);
        const w = e.sample_weight ?? 1;
        requests.inc({ ...l, status: e.status ?? 'unknown' }, w);
        if (e.total_ms != null) duration.observe(l, e.total_ms / 1000);
      }
    },
  };
}
