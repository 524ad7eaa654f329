/**
 * One OTLP/HTTP request body → the rows it maps to, as NDJSON text, plus what was dropped and why.
 * Pure and synchronous: it runs on the decode worker (decode-worker.ts), so its cost (a 16 MiB
 * body of 40,000 spans is ~0.6 s of JSON decoding and ~0.5 s of mapping; 6 MB of protobuf ~0.8 s)
 * never holds the server's event loop. The result crosses threads as one string: cheap to copy,
 * parsed back in slices.
 */
import { decodeMetricsRequest, decodeTraceRequest } from './decode.ts';
import { metricsToSamples } from './metrics-to-samples.ts';
import { spansToEvents } from './spans-to-events.ts';
import type { IgnoreReason } from './conventions.ts';

/** The two OTLP/HTTP signals inferlens receives. */
export type OtlpSignal = 'traces' | 'metrics';

export interface MappedRequest {
  /** One JSON row per line: events (traces) or resource samples (metrics). */
  ndjson: string;
  /** For each row, the index of its span or data point in the request. */
  itemIndex: number[];
  /** Spans or data points not mapped: [index, reason], by index. */
  dropped: [number, string][];
  /** Spans that are not inference spans, by reason (traces only; not rejects). */
  ignored: Partial<Record<IgnoreReason, number>>;
}

export function mapRequest(signal: OtlpSignal, body: Uint8Array, contentType: string): MappedRequest {
  if (signal === 'traces') {
    const mapped = spansToEvents(decodeTraceRequest(body, contentType));
    return {
      ndjson: mapped.events.map((e) => JSON.stringify(e)).join('\n'),
      itemIndex: mapped.spanIndex,
      dropped: mapped.dropped.map((d) => [d.index, d.spanId === '' ? d.reason : `(span id ${d.spanId}) ${d.reason}`]),
      ignored: mapped.ignored,
    };
  }
  const mapped = metricsToSamples(decodeMetricsRequest(body, contentType));
  return {
    ndjson: mapped.samples.map((s) => JSON.stringify(s)).join('\n'),
    itemIndex: mapped.pointIndex,
    dropped: mapped.dropped.map((d) => [d.index, d.metric === '' ? d.reason : `(${d.metric}) ${d.reason}`]),
    ignored: {},
  };
}
