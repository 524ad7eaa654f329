/**
 * OTLP spans → inference events, for the three instrumentation families (OTel GenAI semantic
 * conventions, OpenInference, OpenLLMetry/Traceloop; conventions.ts) plus a few documented
 * `inferlens.*` attributes (docs/otlp-mapping.md is the reference for every rule here).
 *
 * - An inference span is a model call of any family (conventions.ts `classifySpan`). Each becomes
 *   one event; its outcome (status, error type, HTTP status) comes from outcome.ts.
 * - A stage span (attribute `inferlens.stage`, or a stage name such as `queue` / `execute` under an
 *   inference span) adds its duration to the matching `*_ms` field of its inference span.
 * - Any other span (HTTP, DB, agent, tool and chain spans) is ignored, counted by reason: it is
 *   neither an event nor a reject.
 *
 * Never throws for one bad span: it is dropped with a reason and the rest is mapped. The events are
 * unvalidated rows; the pipeline validates them.
 */
import { STAGES, truncate } from '../../schema/index.ts';
import type { EventInput, Stage } from '../../schema/index.ts';
import { attrBool, attrNumber, attrString, firstOf, nanosToMs, roundMs } from './attrs.ts';
import {
  associationOf,
  cachedTokensOf,
  classifySpan,
  finishReasonOf,
  il,
  inputTokensOf,
  modelOf,
  outputTokensOf,
  providerOf,
  responseModelOf,
} from './conventions.ts';
import type { IgnoreReason } from './conventions.ts';
import type { AttrValue, OtlpSpan, TraceRequest } from './model.ts';
import { STATUS_CODE_ERROR } from './model.ts';
import { spanOutcome } from './outcome.ts';
import type { Outcome } from './outcome.ts';

/** A span that was not turned into an event, and why. */
export interface DroppedSpan {
  /** Position of the span in the request, 0-based. */
  index: number;
  /** Hex span id; '' when the span had none. */
  spanId: string;
  reason: string;
}

export interface SpanMapping {
  /** One row per inference span, in request order (EventInput-shaped, not yet validated). */
  events: EventInput[];
  /** For each event, the request index of its span (to map sink rejects back to spans). */
  spanIndex: number[];
  /** Inference spans that could not become an event. */
  dropped: DroppedSpan[];
  /** Spans that are neither inference nor stage spans of one in this request (not rejects), by reason. */
  ignored: Partial<Record<IgnoreReason, number>>;
}

/**
 * Stage names, compared after lowercasing and removing everything but letters and digits
 * ("Post-Process" → "postprocess"). Used for span names and for `inferlens.stage` values.
 */
const STAGE_BY_NAME: ReadonlyMap<string, Stage> = new Map([
  ...(['ingress', 'ingressms', 'receive', 'preprocess', 'preprocessing', 'tokenize'] as const).map((n) => [n, 'ingress_ms'] as const),
  ...(['queue', 'queuems', 'queued', 'queuewait', 'wait'] as const).map((n) => [n, 'queue_ms'] as const),
  ...(['batch', 'batchms', 'batching', 'batchwait'] as const).map((n) => [n, 'batch_ms'] as const),
  ...(['exec', 'execms', 'execute', 'execution', 'inference', 'infer', 'forward', 'prefill', 'decode', 'generate'] as const).map(
    (n) => [n, 'exec_ms'] as const,
  ),
  ...(['post', 'postms', 'postprocess', 'postprocessing', 'detokenize'] as const).map((n) => [n, 'post_ms'] as const),
]);

const stageKey = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Span event names that mark the first output token (its time minus the span start is the TTFT). */
const FIRST_TOKEN_EVENTS: ReadonlySet<string> = new Set(['gen_ai.server.time_to_first_token', 'gen_ai.first_token', 'first_token', 'inferlens.first_token']);

/** Ancestor hops searched for the inference span of an explicit `inferlens.stage` span: a bound. */
const MAX_STAGE_DEPTH = 16;
/** Extra attributes copied onto an event (the event schema allows at most 16). */
const MAX_EVENT_ATTRIBUTES = 16;

const key = (traceId: string, spanId: string): string => `${traceId}/${spanId}`;

/** Whether a span is an inference span (conventions.ts); `inferlens.stage` marks a stage span, never one. */
export function isInferenceSpan(span: OtlpSpan): boolean {
  return !span.attributes.has('inferlens.stage') && classifySpan(span).inference;
}

/** The stage of a span: from `inferlens.stage`, else from its name; `explicit` tells which. */
function stageOf(span: OtlpSpan): { stage: Stage; explicit: boolean } | undefined {
  const attr = attrString(span.attributes.get('inferlens.stage'));
  if (attr !== undefined) {
    const stage = STAGE_BY_NAME.get(stageKey(attr));
    return stage ? { stage, explicit: true } : undefined;
  }
  const stage = STAGE_BY_NAME.get(stageKey(span.name));
  return stage ? { stage, explicit: false } : undefined;
}

function durationMs(span: OtlpSpan): number | undefined {
  const { startTimeUnixNano: start, endTimeUnixNano: end } = span;
  if (start === 0n || end === 0n || end < start) return undefined;
  return nanosToMs(end - start);
}

/** The span's outcome from its status, `error.type`, `exception` event and HTTP status (outcome.ts). */
function outcomeOf(span: OtlpSpan): Outcome {
  const a = span.attributes;
  const exception = span.events.find((e) => e.name === 'exception');
  const errorClass = attrString(a.get('error.type')) ?? (exception ? attrString(exception.attributes.get('exception.type')) : undefined);
  const message =
    (span.statusMessage !== '' ? span.statusMessage : undefined) ?? (exception ? attrString(exception.attributes.get('exception.message')) : undefined);
  return spanOutcome({
    explicitStatus: attrString(il(span, 'status')),
    explicitErrorType: attrString(il(span, 'error_type')),
    spanError: span.statusCode === STATUS_CODE_ERROR,
    errorClass,
    message,
    httpStatus: attrNumber(a.get('http.response.status_code') ?? a.get('http.status_code')),
  });
}

/**
 * The event's `attributes`: service, operation, provider, the answering model when it differs,
 * the error class, user and session, and every `inferlens.attr.<key>`.
 */
function extraAttributes(span: OtlpSpan, model: string, who: { user?: string; session?: string }): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let n = 0;
  const put = (k: string, v: AttrValue | undefined): void => {
    const s = attrString(v);
    if (s === undefined || k.length > 64 || n >= MAX_EVENT_ATTRIBUTES || k in out) return;
    out[k] = truncate(s, 256);
    n++;
  };
  put('service.name', span.resource.get('service.name'));
  put('gen_ai.operation.name', span.attributes.get('gen_ai.operation.name') ?? span.attributes.get('llm.request.type'));
  put('gen_ai.provider.name', providerOf(span));
  const responseModel = responseModelOf(span);
  if (responseModel !== undefined && responseModel !== model) put('gen_ai.response.model', responseModel);
  put('error.type', span.attributes.get('error.type'));
  put('user.id', who.user);
  put('session.id', who.session);
  for (const attrs of [span.attributes, span.resource]) {
    for (const [k, v] of attrs) if (k.startsWith('inferlens.attr.')) put(k.slice('inferlens.attr.'.length), v);
  }
  return n > 0 ? out : undefined;
}

/** Builds the event of one inference span, or the reason it cannot be one. */
function toEvent(span: OtlpSpan, stages: ReadonlyMap<Stage, number> | undefined): EventInput | string {
  const a = span.attributes;
  const r = span.resource;
  if (span.startTimeUnixNano === 0n) return 'startTimeUnixNano is missing: the event needs the start time as ts';
  if (span.endTimeUnixNano !== 0n && span.endTimeUnixNano < span.startTimeUnixNano) return 'endTimeUnixNano is before startTimeUnixNano';
  const model = modelOf(span);
  if (model === undefined) return 'no model: set gen_ai.request.model (or llm.model_name, or inferlens.model) on the span';

  const num = (name: string): number | undefined => attrNumber(il(span, name));
  const str = (name: string): string | undefined => attrString(il(span, name));
  const seconds = (k: string): number | undefined => {
    const s = attrNumber(a.get(k));
    return s === undefined ? undefined : roundMs(s * 1000);
  };
  const outcome = outcomeOf(span);
  const who = associationOf(span);
  const event: EventInput = {
    ts: Number(span.startTimeUnixNano / 1_000_000n),
    model,
    request_id: str('request_id') ?? (span.spanId || undefined),
    trace_id: span.traceId || undefined,
    status: outcome.status,
  };
  const set = <K extends keyof EventInput>(k: K, v: EventInput[K] | undefined): void => {
    if (v !== undefined) event[k] = v;
  };
  set('model_version', str('model_version'));
  set('service_version', attrString(r.get('service.version')));
  set('route_rule', str('route_rule'));
  set('tenant', who.tenant);
  set('entry', str('entry') ?? attrString(a.get('http.route')));
  set('node', str('node') ?? attrString(firstOf([r], ['host.name', 'k8s.node.name'])));
  set('replica', str('replica') ?? attrString(firstOf([r], ['k8s.pod.name', 'service.instance.id'])));
  set('service_tier', str('service_tier'));
  set('pool', str('pool'));
  set('error_type', outcome.error_type);
  set('attributes', extraAttributes(span, model, who));
  const total = durationMs(span);
  set('total_ms', total);
  if (stages) for (const [stage, ms] of stages) event[stage] = roundMs(ms);
  // Stage latencies measured without child spans: `inferlens.queue_ms` etc. win over stage spans.
  for (const stage of STAGES) set(stage, num(stage));
  const ttft = num('ttft_ms') ?? seconds('gen_ai.response.time_to_first_chunk') ?? seconds('gen_ai.server.time_to_first_token') ?? firstTokenEventMs(span);
  set('ttft_ms', ttft);
  set('input_tokens', inputTokensOf(span));
  set('output_tokens', outputTokensOf(span));
  set('cached_tokens', num('cached_tokens') ?? cachedTokensOf(span));
  set('prefill_ms', num('prefill_ms'));
  // Time per output token after the first: (1200 ms total − 200 ms TTFT) / (101 − 1) tokens = 10 ms.
  const out = event.output_tokens;
  const derivedTpot = total !== undefined && ttft !== undefined && out != null && out > 1 && total >= ttft ? roundMs((total - ttft) / (out - 1)) : undefined;
  set('tpot_ms', num('tpot_ms') ?? seconds('gen_ai.server.time_per_output_token') ?? derivedTpot);
  set('finish_reason', finishReasonOf(span));
  set('http_status', outcome.http_status);
  set('batch_size', num('batch_size'));
  set('batch_tokens', num('batch_tokens'));
  set('label', str('label'));
  set('confidence', num('confidence'));
  set('score', num('score'));
  set('output_length', num('output_length'));
  set('probe', attrBool(il(span, 'probe')));
  set('sample_weight', num('sample_weight'));
  return event;
}

function firstTokenEventMs(span: OtlpSpan): number | undefined {
  const e = span.events.find((ev) => FIRST_TOKEN_EVENTS.has(ev.name));
  if (!e || e.timeUnixNano < span.startTimeUnixNano) return undefined;
  return nanosToMs(e.timeUnixNano - span.startTimeUnixNano);
}

/**
 * Maps the spans of one decoded ExportTraceServiceRequest to inference events. Stage spans are
 * joined to their inference span within the request (an exporter sends a parent and its children
 * together when they end in the same batch: BatchSpanProcessor, or a flush).
 */
export function spansToEvents(request: TraceRequest): SpanMapping {
  const dropped: DroppedSpan[] = request.malformed.map((m) => ({ index: m.index, spanId: '', reason: m.reason }));
  const byKey = new Map<string, OtlpSpan>();
  const inference = new Set<string>();
  for (const s of request.spans) {
    if (s.spanId === '') continue;
    const k = key(s.traceId, s.spanId);
    byKey.set(k, s);
    if (isInferenceSpan(s)) inference.add(k);
  }

  // Stage spans: add their duration to the nearest inference span above them.
  const stagesOf = new Map<string, Map<Stage, number>>();
  const ignored: Partial<Record<IgnoreReason, number>> = {};
  const ignore = (reason: IgnoreReason): void => {
    ignored[reason] = (ignored[reason] ?? 0) + 1;
  };
  for (const s of request.spans) {
    const k = key(s.traceId, s.spanId);
    if (s.spanId !== '' && inference.has(k)) continue;
    if (s.spanId === '' && isInferenceSpan(s)) continue;
    const st = stageOf(s);
    const ms = st ? durationMs(s) : undefined;
    let owner: string | undefined;
    if (st && ms !== undefined) {
      let parent = s.parentSpanId;
      for (let hop = 0; parent !== '' && hop < (st.explicit ? MAX_STAGE_DEPTH : 1); hop++) {
        const pk = key(s.traceId, parent);
        if (inference.has(pk)) {
          owner = pk;
          break;
        }
        parent = byKey.get(pk)?.parentSpanId ?? '';
      }
    }
    if (!st || ms === undefined || owner === undefined) {
      const c = classifySpan(s);
      // An explicit stage span whose inference span is not in this request is an orphan.
      ignore(s.attributes.has('inferlens.stage') ? 'orphan_stage' : c.inference ? 'not_genai' : c.reason);
      continue;
    }
    let stages = stagesOf.get(owner);
    if (!stages) stagesOf.set(owner, (stages = new Map()));
    // Several spans of one stage (prefill + decode, two batches) add up.
    stages.set(st.stage, (stages.get(st.stage) ?? 0) + ms);
  }

  const events: EventInput[] = [];
  const spanIndex: number[] = [];
  for (const s of request.spans) {
    const k = key(s.traceId, s.spanId);
    const isInference = s.spanId === '' ? isInferenceSpan(s) : inference.has(k);
    if (!isInference) continue;
    const e = toEvent(s, s.spanId === '' ? undefined : stagesOf.get(k));
    if (typeof e === 'string') dropped.push({ index: s.index, spanId: s.spanId, reason: e });
    else {
      events.push(e);
      spanIndex.push(s.index);
    }
  }
  dropped.sort((x, y) => x.index - y.index);
  return { events, spanIndex, dropped, ignored };
}
