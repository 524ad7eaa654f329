/**
 * OTLP/HTTP receiver: ExportTraceServiceRequest and ExportMetricsServiceRequest bodies, as OTLP/JSON
 * or protobuf, mapped to inference events (GenAI semantic conventions) and resource samples.
 * docs/otlp-mapping.md is the attribute → field reference.
 */

/** Decodes, maps, writes to the sink and encodes the partial-success reply of one OTLP/HTTP request. */
export { handleOtlp } from './handle.ts';
export type { OtlpSignal, OtlpResponse } from './handle.ts';

/** Decodes an ExportTraceServiceRequest body (JSON or protobuf) into normalised spans; throws invalid_argument. */
export { decodeTraceRequest } from './decode.ts';
/** Decodes an ExportMetricsServiceRequest body (JSON or protobuf) into normalised metrics; throws invalid_argument. */
export { decodeMetricsRequest } from './decode.ts';
/** The OTLP encoding ('json' | 'protobuf') of a Content-Type; throws invalid_argument for others. */
export { encodingOf } from './decode.ts';
export type { OtlpEncoding } from './decode.ts';

/** Maps decoded spans to inference events (plus dropped spans with reasons). */
export { spansToEvents } from './spans-to-events.ts';
/** Whether a span is an inference span (GenAI attributes or an inferlens marker). */
export { isInferenceSpan } from './spans-to-events.ts';
/** Maps an OTLP error (error.type / exception / status message, HTTP status) to an inference error type. */
export { errorTypeOf, spanOutcome, httpStatusInMessage } from './outcome.ts';
export type { Outcome, OutcomeInput } from './outcome.ts';
/** Which spans are model calls in each instrumentation family, and why the others are ignored. */
export { classifySpan, IGNORE_REASONS } from './conventions.ts';
export type { IgnoreReason } from './conventions.ts';
/** The OTLP receiver's counters on `/metrics` (ignored and rejected spans and data points). */
export { registerOtlpMetrics } from './metrics.ts';
export type { OtlpMetrics } from './metrics.ts';
export type { SpanMapping, DroppedSpan } from './spans-to-events.ts';

/** Maps decoded metrics to resource samples (plus dropped data points with reasons). */
export { metricsToSamples } from './metrics-to-samples.ts';
export type { MetricsMapping, DroppedPoint } from './metrics-to-samples.ts';

/** Builds the ExportTraceServiceResponse for a number of rejected spans (empty on full success). */
export { traceReply } from './reply.ts';
/** Builds the ExportMetricsServiceResponse for a number of rejected data points (empty on full success). */
export { metricsReply } from './reply.ts';
/** Encodes a trace reply as OTLP/JSON or protobuf. */
export { encodeTraceReply } from './reply.ts';
/** Encodes a metrics reply as OTLP/JSON or protobuf. */
export { encodeMetricsReply } from './reply.ts';
/** The Content-Type of a reply in an encoding. */
export { replyContentType } from './reply.ts';
export type { TraceReply, MetricsReply } from './reply.ts';

/** The normalised OTLP model the decoders produce and the mappers read. */
export type {
  AttrValue,
  Attrs,
  OtlpSpan,
  OtlpSpanEvent,
  TraceRequest,
  OtlpMetric,
  MetricData,
  MetricsRequest,
  NumberPoint,
  HistogramPoint,
  ExponentialHistogramPoint,
  SummaryPoint,
  MalformedItem,
} from './model.ts';
