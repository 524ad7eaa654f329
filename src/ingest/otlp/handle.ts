/**
 * The OTLP/HTTP receiver body handler: decode → map (on the decode worker, offload.ts) → write to
 * the sink → encode the reply. The HTTP layer (gzip, body size limits, status codes) mounts it on
 * POST /v1/traces and POST /v1/metrics.
 */
import type { EventSink, ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { parseNdjsonText } from '../json/rows.ts';
import { encodingOf } from './decode.ts';
import type { OtlpSignal } from './map-request.ts';
import { decodeOtlpOffThread } from '../worker/offload.ts';
import { encodeMetricsReply, encodeTraceReply, metricsReply, replyContentType, traceReply } from './reply.ts';
import type { IgnoreReason } from './conventions.ts';
import type { OtlpMetrics } from './metrics.ts';

export type { OtlpSignal } from './map-request.ts';

/** The reply to send with HTTP 200. */
export interface OtlpResponse {
  body: Uint8Array;
  contentType: string;
}

/** Reasons quoted in a partial-success errorMessage; the rest are counted. */
const MAX_QUOTED_REASONS = 5;

/** "2 spans rejected: span 0 (5b8efff7…): no model …; span 3: total_ms: expected …" */
function summarize(rejected: ReadonlyMap<number, string>, unit: string): string {
  if (rejected.size === 0) return '';
  const quoted = [...rejected].slice(0, MAX_QUOTED_REASONS).map(([i, reason]) => `${unit} ${i}: ${reason}`);
  const more = rejected.size > MAX_QUOTED_REASONS ? `; and ${rejected.size - MAX_QUOTED_REASONS} more` : '';
  return `${rejected.size} ${unit}${rejected.size === 1 ? '' : 's'} rejected: ${quoted.join('; ')}${more}`;
}

/** "11 spans ignored (not inference spans): 3 not_genai, 8 not_a_model_call" */
function ignoredNote(ignored: Partial<Record<IgnoreReason, number>>): string {
  const parts = Object.entries(ignored).filter(([, n]) => n > 0);
  const total = parts.reduce((s, [, n]) => s + n, 0);
  if (total === 0) return '';
  return `${total} span${total === 1 ? '' : 's'} ignored (not inference spans): ${parts.map(([r, n]) => `${n} ${r}`).join(', ')}`;
}

/**
 * Handles one OTLP/HTTP export request body: `kind` is the signal (traces: inference spans →
 * events; metrics: data points → resource samples), `contentType` the request's Content-Type
 * (`application/json` or `application/x-protobuf`; the reply uses the same encoding).
 *
 * Spans or data points that cannot be mapped, and rows the sink rejects, are counted in the
 * reply's partial success (`rejectedSpans` / `rejectedDataPoints`) with the first reasons. Spans
 * that are not inference spans are not rejects: the reply's message counts them by reason (with
 * `rejectedSpans` 0 when nothing else happened: an OTLP warning), and so does `metrics`.
 * Throws `invalid_argument` when the body does not decode or the content type is not OTLP, and
 * passes on the sink's `resource_exhausted` / `unavailable` errors (answer 429 / 503, retryable).
 */
export async function handleOtlp(
  kind: OtlpSignal,
  body: Uint8Array,
  contentType: string,
  sink: EventSink & ResourceSink,
  metrics?: OtlpMetrics,
): Promise<OtlpResponse> {
  const encoding = encodingOf(contentType);
  const mapped = await decodeOtlpOffThread(kind, body, contentType);
  const rejected = new Map<number, string>(mapped.dropped);
  // The worker's rows are JSON.stringify output, one per line: parse them back a slice at a time.
  const rows = await parseNdjsonText(mapped.ndjson);
  if (rows.rows.length > 0) {
    const reply =
      kind === 'traces' ? await sink.writeEvents(rows.rows, rows.lines ? { lines: rows.lines } : {}) : await sink.writeResources(rows.rows as ResourceSample[]);
    for (const r of reply.rejected) {
      const index = mapped.itemIndex[r.index];
      if (index !== undefined && !rejected.has(index)) rejected.set(index, r.path === '' ? r.message : `${r.path}: ${r.message}`);
    }
  }
  const sorted = new Map([...rejected].sort((a, b) => a[0] - b[0]));
  if (metrics) {
    for (const [reason, n] of Object.entries(mapped.ignored)) if (n > 0) metrics.ignored(reason as IgnoreReason, n);
    if (sorted.size > 0) metrics.rejected(kind, sorted.size);
  }
  const message = [summarize(sorted, kind === 'traces' ? 'span' : 'data point'), ignoredNote(mapped.ignored)].filter((m) => m !== '').join('; ');
  return kind === 'traces'
    ? { body: encodeTraceReply(traceReply(sorted.size, message), encoding), contentType: replyContentType(encoding) }
    : { body: encodeMetricsReply(metricsReply(sorted.size, message), encoding), contentType: replyContentType(encoding) };
}
