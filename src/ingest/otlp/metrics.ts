/**
 * What the OTLP receiver counts on `/metrics`, so nothing it does not store goes unnoticed: spans
 * that are not inference spans (by reason), and spans / data points rejected (the mapper's drops
 * and the pipeline's rejects together, as in the partial-success reply).
 */
import type { Registry } from 'prom-client';
import { Counter } from 'prom-client';
import { IGNORE_REASONS } from './conventions.ts';
import type { IgnoreReason } from './conventions.ts';
import type { OtlpSignal } from './map-request.ts';

export interface OtlpMetrics {
  ignored(reason: IgnoreReason, spans: number): void;
  rejected(signal: OtlpSignal, items: number): void;
}

export function registerOtlpMetrics(registry: Registry): OtlpMetrics {
  const ignored = new Counter({
    name: 'inferlens_otlp_spans_ignored_total',
    help: 'Spans received over OTLP that are not inference spans (HTTP, DB, agent, tool, chain spans), by reason.',
    labelNames: ['reason'],
    registers: [registry],
  });
  // Every reason is exported from the start (at 0), so a rate over it exists before the first one.
  for (const r of IGNORE_REASONS) ignored.inc({ reason: r }, 0);
  const spans = new Counter({
    name: 'inferlens_otlp_spans_rejected_total',
    help: 'Inference spans received over OTLP and not stored (reasons in the partial-success reply).',
    registers: [registry],
  });
  const points = new Counter({
    name: 'inferlens_otlp_data_points_rejected_total',
    help: 'Metric data points received over OTLP and not stored (reasons in the partial-success reply).',
    registers: [registry],
  });
  return {
    ignored: (reason, n) => ignored.inc({ reason }, n),
    rejected: (signal, n) => (signal === 'traces' ? spans : points).inc(n),
  };
}
