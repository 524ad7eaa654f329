/**
 * The three instrumentation families an inference span comes from, and where each keeps what an
 * event needs. docs/otlp-mapping.md lists every attribute; change both together.
 *
 * - **OTel GenAI semantic conventions** (`gen_ai.*`): `@opentelemetry/instrumentation-openai`,
 *   and OpenLLMetry/Traceloop, which writes the same names (older releases: `llm.request.model`,
 *   `llm.usage.prompt_tokens`, …). Tenant and user have no GenAI attribute: services put them on
 *   spans as `tenant.id` / `user.id` (e.g. W3C baggage copied by a BaggageSpanProcessor), or with
 *   Traceloop as association properties (`traceloop.association.properties.customer_id`,
 *   `user_id`, `session_id`).
 * - **OpenInference** (Arize Phoenix): `openinference.span.kind` = LLM / EMBEDDING / RERANKER for
 *   model calls (CHAIN, TOOL, AGENT, RETRIEVER, … are not), `llm.model_name`,
 *   `llm.invocation_parameters` (JSON, with the requested `model`; newer releases also
 *   `llm.request.model_name` / `llm.response.model_name`), `llm.token_count.*`,
 *   `session.id`, `user.id`, and `metadata` (JSON) where a tenant goes.
 * - **inferlens** (`inferlens.*`): explicit fields, which win over both.
 */
import type { AttrValue, OtlpSpan } from './model.ts';
import { attrBool, attrNumber, attrString, firstOf } from './attrs.ts';

/** Why a span is not an inference event (counted in `inferlens_otlp_spans_ignored_total{reason}`). */
export const IGNORE_REASONS = ['not_genai', 'not_a_model_call', 'opted_out', 'orphan_stage'] as const;
export type IgnoreReason = (typeof IGNORE_REASONS)[number];

/** `gen_ai.operation.name` values that are not a model call. */
const NON_MODEL_OPERATIONS: ReadonlySet<string> = new Set(['execute_tool', 'invoke_agent', 'create_agent', 'invoke_workflow', 'retrieval']);
/** OpenInference span kinds that are a model call; the others (CHAIN, TOOL, AGENT, RETRIEVER, …) are not. */
const OPENINFERENCE_MODEL_KINDS: ReadonlySet<string> = new Set(['LLM', 'EMBEDDING', 'RERANKER']);
const TRACELOOP_ASSOCIATION = 'traceloop.association.properties.';

/** The value of `inferlens.<name>`, on the span first, then on its resource. */
export function il(span: OtlpSpan, name: string): AttrValue | undefined {
  return firstOf([span.attributes, span.resource], [`inferlens.${name}`]);
}

/** Whether a span is an inference span, or why not. `inferlens.stage` spans are stage spans (the caller's business). */
export function classifySpan(span: OtlpSpan): { inference: true } | { inference: false; reason: IgnoreReason } {
  const a = span.attributes;
  const marker = attrBool(a.get('inferlens.inference'));
  if (marker !== undefined) return marker ? { inference: true } : { inference: false, reason: 'opted_out' };
  if (attrString(a.get('inferlens.model')) !== undefined) return { inference: true };
  const oiKind = attrString(a.get('openinference.span.kind'));
  if (oiKind !== undefined) return OPENINFERENCE_MODEL_KINDS.has(oiKind.toUpperCase()) ? { inference: true } : { inference: false, reason: 'not_a_model_call' };
  // Traceloop's own spans (workflow, task, agent, tool) wrap model calls; its model spans have no kind.
  if (attrString(a.get('traceloop.span.kind')) !== undefined) return { inference: false, reason: 'not_a_model_call' };
  const op = attrString(a.get('gen_ai.operation.name'));
  if (op !== undefined && NON_MODEL_OPERATIONS.has(op)) return { inference: false, reason: 'not_a_model_call' };
  if (op !== undefined || modelOf(span) !== undefined || attrString(a.get('llm.request.type')) !== undefined) return { inference: true };
  return { inference: false, reason: 'not_genai' };
}

/** OpenInference keeps the request's parameters (with the requested model) as a JSON string. */
function jsonObject(v: AttrValue | undefined): Record<string, unknown> | undefined {
  if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v;
  if (typeof v !== 'string' || !v.startsWith('{') || v.length > 65_536) return undefined;
  try {
    const o: unknown = JSON.parse(v);
    return typeof o === 'object' && o !== null && !Array.isArray(o) ? (o as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function jsonString(o: Record<string, unknown> | undefined, keys: readonly string[]): string | undefined {
  if (!o) return undefined;
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v !== '') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  }
  return undefined;
}

/**
 * The model the request asked for. OpenInference's `llm.model_name` is the answering model after
 * a success but the requested one for a stream or a failure, so its requested model
 * (`llm.invocation_parameters.model`) comes first and the same alias groups all its calls.
 */
export function modelOf(span: OtlpSpan): string | undefined {
  const a = span.attributes;
  return (
    attrString(il(span, 'model')) ??
    attrString(a.get('gen_ai.request.model')) ??
    attrString(a.get('llm.request.model_name')) ??
    jsonString(jsonObject(a.get('llm.invocation_parameters')), ['model', 'model_name']) ??
    attrString(a.get('llm.request.model')) ??
    attrString(a.get('llm.model_name')) ??
    attrString(a.get('embedding.model_name')) ??
    attrString(a.get('reranker.model_name')) ??
    attrString(a.get('gen_ai.response.model')) ??
    attrString(a.get('llm.response.model'))
  );
}

/** The model that answered, when the span says so apart from the requested one. */
export function responseModelOf(span: OtlpSpan): string | undefined {
  const a = span.attributes;
  return (
    attrString(a.get('gen_ai.response.model')) ??
    attrString(a.get('llm.response.model_name')) ??
    attrString(a.get('llm.response.model')) ??
    attrString(a.get('llm.model_name'))
  );
}

export function inputTokensOf(span: OtlpSpan): number | undefined {
  const a = span.attributes;
  return attrNumber(
    a.get('gen_ai.usage.input_tokens') ?? a.get('gen_ai.usage.prompt_tokens') ?? a.get('llm.token_count.prompt') ?? a.get('llm.usage.prompt_tokens'),
  );
}

export function outputTokensOf(span: OtlpSpan): number | undefined {
  const a = span.attributes;
  return attrNumber(
    a.get('gen_ai.usage.output_tokens') ??
      a.get('gen_ai.usage.completion_tokens') ??
      a.get('llm.token_count.completion') ??
      a.get('llm.usage.completion_tokens'),
  );
}

/** Input tokens served from the prefix / KV cache (part of the input tokens). */
export function cachedTokensOf(span: OtlpSpan): number | undefined {
  const a = span.attributes;
  return attrNumber(
    a.get('gen_ai.usage.cache_read.input_tokens') ?? a.get('gen_ai.usage.cache_read_input_tokens') ?? a.get('llm.token_count.prompt_details.cache_read'),
  );
}

export function finishReasonOf(span: OtlpSpan): string | undefined {
  const a = span.attributes;
  const v = a.get('gen_ai.response.finish_reasons') ?? a.get('llm.response.finish_reasons');
  const first = Array.isArray(v) ? v.map(attrString).find((s) => s !== undefined) : attrString(v);
  return first ?? attrString(a.get('llm.finish_reason')) ?? attrString(a.get('llm.response.finish_reason'));
}

export function providerOf(span: OtlpSpan): string | undefined {
  const a = span.attributes;
  return attrString(a.get('gen_ai.provider.name') ?? a.get('gen_ai.system') ?? a.get('llm.provider') ?? a.get('llm.system') ?? a.get('llm.vendor'));
}

/** Who the request was for: tenant, user and session, from each family's own place for them. */
export interface Association {
  tenant?: string;
  user?: string;
  session?: string;
}

export function associationOf(span: OtlpSpan): Association {
  const a = span.attributes;
  const tl = (k: string) => attrString(a.get(`${TRACELOOP_ASSOCIATION}${k}`));
  const metadata = jsonObject(a.get('metadata'));
  const out: Association = {};
  const tenant =
    attrString(il(span, 'tenant')) ??
    attrString(firstOf([a, span.resource], ['tenant.id', 'tenant'])) ??
    tl('tenant_id') ??
    tl('tenant') ??
    tl('customer_id') ??
    jsonString(metadata, ['tenant_id', 'tenant', 'customer_id']);
  const user = attrString(a.get('user.id') ?? a.get('enduser.id')) ?? tl('user_id') ?? jsonString(metadata, ['user_id', 'user']);
  const session = attrString(a.get('session.id') ?? a.get('gen_ai.conversation.id')) ?? tl('session_id') ?? jsonString(metadata, ['session_id', 'session']);
  if (tenant !== undefined) out.tenant = tenant;
  if (user !== undefined) out.user = user;
  if (session !== undefined) out.session = session;
  return out;
}
