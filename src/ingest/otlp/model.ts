/**
 * The decoded OTLP request, normalised: one shape whatever the wire format (JSON or protobuf),
 * ids as lowercase hex, nanosecond timestamps as bigint, enums as numbers, attributes as maps.
 */

/** An attribute value (OTLP AnyValue); int64 values become numbers, bytes become base64 strings. */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };

/** Attributes by key (OTLP KeyValue list; on a repeated key the last one wins). */
export type Attrs = ReadonlyMap<string, AttrValue>;

/** OTLP SpanKind / StatusCode / AggregationTemporality numbers. */
export const STATUS_CODE_ERROR = 2;
export const TEMPORALITY_DELTA = 1;
/** DataPointFlags.FLAG_NO_RECORDED_VALUE: the point marks a gap, it carries no value. */
export const FLAG_NO_RECORDED_VALUE = 1;

export interface OtlpSpanEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: Attrs;
}

export interface OtlpSpan {
  /** Position of the span in the request (resource by resource, scope by scope), 0-based. */
  index: number;
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Attrs;
  events: OtlpSpanEvent[];
  statusCode: number;
  statusMessage: string;
  /** The attributes of the span's resource (shared by all its spans). */
  resource: Attrs;
}

/** A span entry of the request that could not be read at all. */
export interface MalformedItem {
  index: number;
  reason: string;
}

export interface TraceRequest {
  spans: OtlpSpan[];
  /** Entries that were not spans (JSON only: protobuf enforces the shape). */
  malformed: MalformedItem[];
}

interface PointBase {
  /** Position of the data point in the request, 0-based across all metrics. */
  index: number;
  attributes: Attrs;
  startTimeUnixNano: bigint;
  timeUnixNano: bigint;
  flags: number;
}

export interface NumberPoint extends PointBase {
  /** asDouble or asInt; null when the point has neither. */
  value: number | null;
}

export interface HistogramPoint extends PointBase {
  count: number;
  sum: number | null;
  /** Per-bucket counts (not cumulative), one more than explicitBounds. */
  bucketCounts: number[];
  explicitBounds: number[];
  min: number | null;
  max: number | null;
}

export interface ExponentialBuckets {
  offset: number;
  bucketCounts: number[];
}

export interface ExponentialHistogramPoint extends PointBase {
  count: number;
  sum: number | null;
  scale: number;
  zeroCount: number;
  zeroThreshold: number;
  positive: ExponentialBuckets;
  negative: ExponentialBuckets;
  min: number | null;
  max: number | null;
}

export interface SummaryPoint extends PointBase {
  count: number;
  sum: number;
  quantileValues: { quantile: number; value: number }[];
}

export type MetricData =
  | { type: 'gauge'; points: NumberPoint[] }
  | { type: 'sum'; temporality: number; monotonic: boolean; points: NumberPoint[] }
  | { type: 'histogram'; temporality: number; points: HistogramPoint[] }
  | { type: 'exponential_histogram'; temporality: number; points: ExponentialHistogramPoint[] }
  | { type: 'summary'; points: SummaryPoint[] };

export interface OtlpMetric {
  name: string;
  unit: string;
  description: string;
  data: MetricData;
  resource: Attrs;
}

export interface MetricsRequest {
  metrics: OtlpMetric[];
  /** Total data points in the request (the unit of OTLP partial success for metrics). */
  pointCount: number;
  /** Data points (or metrics without readable data) that could not be read at all. */
  malformed: MalformedItem[];
}
