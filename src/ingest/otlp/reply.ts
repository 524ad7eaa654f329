/**
 * OTLP/HTTP export replies with partial success, encoded like the request (JSON or protobuf).
 *
 * Per the OTLP spec, a fully accepted request gets an empty reply (`partial_success` unset); when
 * something was rejected the reply says how many spans / data points and why, and the HTTP status
 * stays 200 (the client must not retry a partial success).
 */
import { otlpType } from './decode.ts';
import type { OtlpEncoding } from './decode.ts';

/** ExportTraceServiceResponse in its OTLP/JSON shape. */
export interface TraceReply {
  partialSuccess?: { rejectedSpans: number; errorMessage: string };
}

/** ExportMetricsServiceResponse in its OTLP/JSON shape. */
export interface MetricsReply {
  partialSuccess?: { rejectedDataPoints: number; errorMessage: string };
}

/** The reply for `rejected` spans; empty (full success) when none were rejected and there is no message. */
export function traceReply(rejected: number, errorMessage = ''): TraceReply {
  return rejected === 0 && errorMessage === '' ? {} : { partialSuccess: { rejectedSpans: rejected, errorMessage } };
}

/** The reply for `rejected` data points; empty (full success) when none were rejected and there is no message. */
export function metricsReply(rejected: number, errorMessage = ''): MetricsReply {
  return rejected === 0 && errorMessage === '' ? {} : { partialSuccess: { rejectedDataPoints: rejected, errorMessage } };
}

/** Content-Type of a reply in this encoding. */
export function replyContentType(encoding: OtlpEncoding): string {
  return encoding === 'json' ? 'application/json' : 'application/x-protobuf';
}

function encode(message: string, reply: TraceReply | MetricsReply, encoding: OtlpEncoding): Uint8Array {
  if (encoding === 'json') return new TextEncoder().encode(JSON.stringify(reply));
  const type = otlpType(message);
  return type.encode(type.fromObject(reply)).finish();
}

/** Encodes an ExportTraceServiceResponse as OTLP/JSON (int64 as a JSON number) or protobuf. */
export function encodeTraceReply(reply: TraceReply, encoding: OtlpEncoding): Uint8Array {
  return encode('ExportTraceServiceResponse', reply, encoding);
}

/** Encodes an ExportMetricsServiceResponse as OTLP/JSON (int64 as a JSON number) or protobuf. */
export function encodeMetricsReply(reply: MetricsReply, encoding: OtlpEncoding): Uint8Array {
  return encode('ExportMetricsServiceResponse', reply, encoding);
}
