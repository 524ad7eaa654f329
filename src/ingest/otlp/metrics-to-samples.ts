/**
 * OTLP metrics → resource samples, one sample per value, names kept as OpenTelemetry names.
 *
 * - gauge, sum → one sample `<name>`. Sums keep the value they carry: a cumulative monotonic sum is a
 *   counter, and rates are computed at query time with counter-reset handling (as for a Prometheus
 *   counter), so the receiver keeps no state. A delta sum is stored as sent, labelled
 *   `aggregation_temporality="delta"` so queries can add the values up instead.
 * - histogram → `<name>_count`, `<name>_sum`, `<name>_min`, `<name>_max` (when present) and
 *   `<name>_bucket` with an `le` label per bound plus `+Inf`; OTLP sends per-bucket counts, the
 *   `le` samples are cumulative (Prometheus style): counts [1, 1] with bounds [1] → le="1": 1,
 *   le="+Inf": 2.
 * - exponential histogram → `_count`, `_sum`, `_min`, `_max` and cumulative `_bucket` samples at the
 *   bucket upper bounds 2^((index+1)·2^-scale) (when no negative values were recorded).
 * - summary → `_count`, `_sum` and `<name>` with a `quantile` label per quantile.
 *
 * node comes from `host.name` (else `k8s.node.name`, `service.instance.id`, `service.name`),
 * replica from `k8s.pod.name` (else `service.instance.id`), gpu from the point's `gpu.id` /
 * `gpu.index` / `gpu` (or `hw.id` on `hw.gpu.*` metrics), pool from `inferlens.pool`.
 */
import type { ResourceSample } from '../../schema/index.ts';
import { truncate } from '../../schema/index.ts';
import { attrString, firstOf } from './attrs.ts';
import type { Attrs, ExponentialHistogramPoint, HistogramPoint, MetricsRequest, OtlpMetric, SummaryPoint } from './model.ts';
import { FLAG_NO_RECORDED_VALUE, TEMPORALITY_DELTA } from './model.ts';

/** A data point that was not turned into samples, and why. */
export interface DroppedPoint {
  /** Position of the data point in the request (across all metrics), 0-based. */
  index: number;
  metric: string;
  reason: string;
}

export interface MetricsMapping {
  samples: ResourceSample[];
  /** For each sample, the request index of its data point (a histogram point gives many samples). */
  pointIndex: number[];
  dropped: DroppedPoint[];
  /** Points flagged "no recorded value" (gaps, not rejects). */
  ignored: number;
}

const MAX_METRIC_CHARS = 128;
const MAX_LABEL_KEY_CHARS = 64;
const MAX_LABEL_VALUE_CHARS = 256;
/** Exponential histogram buckets turned into `le` samples per point (OTel SDKs default to 160). */
const MAX_EXPONENTIAL_BUCKETS = 320;

/**
 * An OTel instrument name as a sample metric name: characters outside [a-zA-Z0-9_:.] (OTel also
 * allows '-' and '/') become '_'; a leading digit or '.' gets a '_' in front.
 */
export function sampleMetricName(name: string): string {
  const s = name.replace(/[^a-zA-Z0-9_:.]/g, '_');
  return /^[a-zA-Z_:]/.test(s) ? s : `_${s}`;
}

function labelsOf(attrs: Attrs, extra?: Record<string, string>): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of attrs) {
    const s = attrString(v);
    if (s === undefined || k.length > MAX_LABEL_KEY_CHARS) continue;
    out[k] = truncate(s, MAX_LABEL_VALUE_CHARS);
    n++;
  }
  if (extra) {
    for (const [k, v] of Object.entries(extra)) {
      out[k] = v;
      n++;
    }
  }
  return n > 0 ? out : undefined;
}

/** The bound as a label value: `le="0.005"`, `le="+Inf"`. */
function le(bound: number): string {
  return bound === Infinity ? '+Inf' : String(bound);
}

/** Cumulative `le` buckets of an explicit-bounds histogram, or a reason they are inconsistent. */
function explicitBuckets(p: HistogramPoint): [string, number][] | string {
  if (p.bucketCounts.length === 0) return [];
  if (p.bucketCounts.length !== p.explicitBounds.length + 1) {
    return `bucketCounts has ${p.bucketCounts.length} entries, expected explicitBounds + 1 = ${p.explicitBounds.length + 1}`;
  }
  let cumulative = 0;
  return p.bucketCounts.map((c, i) => {
    cumulative += c;
    return [le(p.explicitBounds[i] ?? Infinity), cumulative];
  });
}

/**
 * Cumulative `le` buckets of an exponential histogram. Bucket `index` holds (base^index,
 * base^(index+1)] with base = 2^(2^-scale): at scale 0, index 2 is (4, 8]. The zero bucket is
 * `le=zeroThreshold`. Skipped (empty) when negative values were recorded or there are too many.
 */
function exponentialBuckets(p: ExponentialHistogramPoint): [string, number][] {
  const n = p.positive.bucketCounts.length;
  if (n === 0 || n > MAX_EXPONENTIAL_BUCKETS || p.negative.bucketCounts.some((c) => c > 0)) return [];
  const out: [string, number][] = [];
  let cumulative = p.zeroCount;
  out.push([le(p.zeroThreshold), cumulative]);
  const step = 2 ** -p.scale;
  p.positive.bucketCounts.forEach((c, j) => {
    cumulative += c;
    out.push([le(2 ** ((p.positive.offset + j + 1) * step)), cumulative]);
  });
  out.push(['+Inf', p.count]);
  return out;
}

/** Maps the metrics of one decoded ExportMetricsServiceRequest to resource samples. */
export function metricsToSamples(request: MetricsRequest): MetricsMapping {
  const samples: ResourceSample[] = [];
  const pointIndex: number[] = [];
  const dropped: DroppedPoint[] = request.malformed.map((m) => ({ index: m.index, metric: '', reason: m.reason }));
  let ignored = 0;

  for (const m of request.metrics) mapMetric(m);
  dropped.sort((x, y) => x.index - y.index);
  return { samples, pointIndex, dropped, ignored };

  function mapMetric(m: OtlpMetric): void {
    const r = m.resource;
    const name = sampleMetricName(m.name);
    const node = attrString(firstOf([r], ['host.name', 'k8s.node.name', 'service.instance.id', 'service.name']));
    const replica = attrString(firstOf([r], ['k8s.pod.name', 'service.instance.id']));
    const gpuKeys = m.name.startsWith('hw.gpu.') ? ['hw.id', 'gpu.id', 'gpu.index', 'gpu'] : ['gpu.id', 'gpu.index', 'gpu'];
    const delta = 'temporality' in m.data && m.data.temporality === TEMPORALITY_DELTA ? { aggregation_temporality: 'delta' } : undefined;

    for (const p of m.data.points) {
      const drop = (reason: string): void => void dropped.push({ index: p.index, metric: m.name, reason });
      if ((p.flags & FLAG_NO_RECORDED_VALUE) !== 0) {
        ignored++;
        continue;
      }
      if (m.name === '') {
        drop('metric has no name');
        continue;
      }
      if (node === undefined) {
        drop('no node: set the resource attribute host.name');
        continue;
      }
      if (p.timeUnixNano === 0n) {
        drop('timeUnixNano is missing');
        continue;
      }
      const base: Omit<ResourceSample, 'metric' | 'value'> = { ts: Number(p.timeUnixNano / 1_000_000n), node };
      if (replica !== undefined) base.replica = truncate(replica, 256);
      const gpu = attrString(firstOf([p.attributes], gpuKeys));
      if (gpu !== undefined) base.gpu = truncate(gpu, 64);
      const pool = attrString(firstOf([p.attributes, r], ['inferlens.pool']));
      if (pool !== undefined) base.pool = truncate(pool, 256);

      const rows: ResourceSample[] = [];
      const add = (suffix: string, value: number | null, extra?: Record<string, string>): void => {
        if (value === null) return;
        const labels = labelsOf(p.attributes, extra || delta ? { ...delta, ...extra } : undefined);
        rows.push({ ...base, metric: name + suffix, value, ...(labels ? { labels } : {}) });
      };

      let problem: string | undefined;
      switch (m.data.type) {
        case 'gauge':
        case 'sum': {
          const v = (p as { value: number | null }).value;
          if (v === null) problem = 'data point has neither asDouble nor asInt';
          else add('', v);
          break;
        }
        case 'histogram': {
          const h = p as HistogramPoint;
          const buckets = explicitBuckets(h);
          if (typeof buckets === 'string') {
            problem = buckets;
            break;
          }
          add('_count', h.count);
          add('_sum', h.sum);
          add('_min', h.min);
          add('_max', h.max);
          for (const [bound, count] of buckets) add('_bucket', count, { le: bound });
          break;
        }
        case 'exponential_histogram': {
          const h = p as ExponentialHistogramPoint;
          add('_count', h.count);
          add('_sum', h.sum);
          add('_min', h.min);
          add('_max', h.max);
          for (const [bound, count] of exponentialBuckets(h)) add('_bucket', count, { le: bound });
          break;
        }
        case 'summary': {
          const s = p as SummaryPoint;
          add('_count', s.count);
          add('_sum', s.sum);
          for (const q of s.quantileValues) add('', q.value, { quantile: String(q.quantile) });
          break;
        }
      }
      if (problem === undefined && rows.some((row) => row.metric.length > MAX_METRIC_CHARS)) problem = `metric name longer than ${MAX_METRIC_CHARS} characters`;
      if (problem === undefined && rows.some((row) => !Number.isFinite(row.value))) problem = 'value is not a finite number (NaN or ±Inf)';
      if (problem !== undefined) {
        drop(problem);
        continue;
      }
      for (const row of rows) {
        samples.push(row);
        pointIndex.push(p.index);
      }
    }
  }
}
