import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTraceRequest } from './decode.ts';
import { errorTypeOf } from './outcome.ts';
import { spansToEvents } from './spans-to-events.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../test/fixtures/otlp');

type Attr = [string, string | number | boolean | string[]];
const kv = ([key, v]: Attr) => ({
  key,
  value: Array.isArray(v)
    ? { arrayValue: { values: v.map((s) => ({ stringValue: s })) } }
    : typeof v === 'string'
      ? { stringValue: v }
      : typeof v === 'boolean'
        ? { boolValue: v }
        : Number.isInteger(v)
          ? { intValue: String(v) }
          : { doubleValue: v },
});

const T0_NS = 1_700_000_000_000_000_000n; // 1700000000000 ms
const ms = (m: number): string => String(T0_NS + BigInt(m * 1_000_000));
const TRACE = '0af7651916cd43dd8448eb211c80319c';

interface SpanSpec {
  id: string;
  parent?: string;
  name?: string;
  from: number;
  to: number;
  attrs?: Attr[];
  status?: { code: number; message?: string };
  events?: { name: string; at: number; attrs?: Attr[] }[];
}

function request(
  spans: SpanSpec[],
  resource: Attr[] = [
    ['host.name', 'node-1'],
    ['service.instance.id', 'inst-9'],
  ],
) {
  const body = {
    resourceSpans: [
      {
        resource: { attributes: resource.map(kv) },
        scopeSpans: [
          {
            spans: spans.map((s) => ({
              traceId: TRACE,
              spanId: s.id,
              parentSpanId: s.parent ?? '',
              name: s.name ?? 'span',
              startTimeUnixNano: ms(s.from),
              endTimeUnixNano: ms(s.to),
              attributes: (s.attrs ?? []).map(kv),
              status: s.status,
              events: (s.events ?? []).map((e) => ({ name: e.name, timeUnixNano: ms(e.at), attributes: (e.attrs ?? []).map(kv) })),
            })),
          },
        ],
      },
    ],
  };
  return decodeTraceRequest(new TextEncoder().encode(JSON.stringify(body)), 'application/json');
}

const CHAT: Attr[] = [
  ['gen_ai.operation.name', 'chat'],
  ['gen_ai.request.model', 'm1'],
];

describe('spansToEvents: the opentelemetry-proto example trace.json', () => {
  it('has no inference span: nothing mapped, nothing rejected', () => {
    const req = decodeTraceRequest(readFileSync(resolve(FIXTURES, 'trace.json')), 'application/json');
    expect(spansToEvents(req)).toEqual({ events: [], spanIndex: [], dropped: [], ignored: { not_genai: 1 } });
  });

  it('becomes an event once it carries gen_ai.request.model', () => {
    const json = JSON.parse(readFileSync(resolve(FIXTURES, 'trace.json'), 'utf8')) as {
      resourceSpans: { scopeSpans: { spans: { attributes: unknown[] }[] }[] }[];
    };
    json.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.attributes.push({ key: 'gen_ai.request.model', value: { stringValue: 'gpt-4' } });
    const req = decodeTraceRequest(new TextEncoder().encode(JSON.stringify(json)), 'application/json');
    // No host.name or pod on the resource: no node or replica; request_id falls back to the span id.
    expect(spansToEvents(req).events).toEqual([
      {
        ts: 1544712660000,
        model: 'gpt-4',
        request_id: 'eee19b7ec3c1b174',
        trace_id: '5b8efff798038103d269b633813fc60c',
        status: 'ok',
        total_ms: 1000,
        attributes: { 'service.name': 'my.service' },
      },
    ]);
  });
});

describe('spansToEvents: stages, outcome, GenAI attributes', () => {
  it('adds stage child spans (by name or inferlens.stage, summed per stage) to their inference span', () => {
    const req = request([
      { id: 'a000000000000001', from: 0, to: 500, attrs: CHAT },
      { id: 'b000000000000001', parent: 'a000000000000001', name: 'Queue', from: 0, to: 40 },
      { id: 'b000000000000002', parent: 'a000000000000001', name: 'prefill', from: 40, to: 140 },
      { id: 'b000000000000003', parent: 'a000000000000001', name: 'decode', from: 140, to: 440 },
      { id: 'b000000000000004', parent: 'a000000000000001', name: 'Post-Process', from: 440, to: 450.5 },
      // a wrapper span with an explicit stage on its child, two levels down
      { id: 'b000000000000005', parent: 'a000000000000001', name: 'scheduler', from: 450.5, to: 460 },
      { id: 'c000000000000001', parent: 'b000000000000005', name: 'x', from: 451, to: 453.25, attrs: [['inferlens.stage', 'batch']] },
      // a name-matched span deeper down does not count (only direct children match by name)
      { id: 'c000000000000002', parent: 'b000000000000005', name: 'queue', from: 453, to: 454 },
    ]);
    const { events, ignored } = spansToEvents(req);
    expect(events).toHaveLength(1);
    // exec = prefill 100 + decode 300
    expect(events[0]).toMatchObject({ total_ms: 500, queue_ms: 40, exec_ms: 400, post_ms: 10.5, batch_ms: 2.25 });
    expect(events[0]!.ingress_ms).toBeUndefined();
    expect(ignored).toEqual({ not_genai: 2 }); // 'scheduler' and the nested 'queue'
  });

  it('takes stage latencies from inferlens.<stage>_ms attributes too, over stage spans', () => {
    const [e] = spansToEvents(
      request([
        { id: 'a000000000000001', from: 0, to: 100, attrs: [...CHAT, ['inferlens.queue_ms', 7.5], ['inferlens.exec_ms', '80']] },
        { id: 'b000000000000001', parent: 'a000000000000001', name: 'queue', from: 0, to: 10 },
      ]),
    ).events;
    expect(e).toMatchObject({ queue_ms: 7.5, exec_ms: 80, total_ms: 100 });
  });

  it('reads tokens, finish reason, TTFT (attribute or event), TPOT and the inferlens attributes', () => {
    const [byEvent, byAttr] = spansToEvents(
      request([
        {
          id: 'a000000000000001',
          from: 0,
          to: 1200,
          attrs: [
            ...CHAT,
            ['gen_ai.usage.input_tokens', 10],
            ['gen_ai.usage.output_tokens', 101],
            ['gen_ai.response.finish_reasons', ['length', 'stop']],
            ['inferlens.label', 'positive'],
            ['inferlens.confidence', 0.93],
            ['inferlens.score', '0.5'],
            ['inferlens.probe', true],
            ['inferlens.attr.region', 'eu-west'],
            ['http.response.status_code', 200],
          ],
          events: [{ name: 'gen_ai.server.time_to_first_token', at: 150 }],
        },
        { id: 'a000000000000002', from: 0, to: 100, attrs: [...CHAT, ['gen_ai.server.time_to_first_token', 0.123], ['inferlens.tpot_ms', 7]] },
      ]),
    ).events;
    expect(byEvent).toMatchObject({
      input_tokens: 10,
      output_tokens: 101,
      finish_reason: 'length',
      ttft_ms: 150,
      // (1200 − 150) / (101 − 1) = 10.5
      tpot_ms: 10.5,
      label: 'positive',
      confidence: 0.93,
      score: 0.5,
      probe: true,
      http_status: 200,
      node: 'node-1',
      replica: 'inst-9',
      attributes: { 'gen_ai.operation.name': 'chat', region: 'eu-west' },
    });
    // 0.123 s → 123 ms, without float noise
    expect(byAttr).toMatchObject({ ttft_ms: 123, tpot_ms: 7 });
  });

  it('maps error spans to status error with an error type, 429 to rate_limited, explicit inferlens.status wins', () => {
    const ERR = { code: 2 };
    const events = spansToEvents(
      request([
        { id: 'a000000000000001', from: 0, to: 1, attrs: [...CHAT, ['error.type', 'timeout']], status: ERR },
        { id: 'a000000000000002', from: 0, to: 1, attrs: CHAT, status: { code: 2, message: 'CUDA out of memory' } },
        {
          id: 'a000000000000003',
          from: 0,
          to: 1,
          attrs: CHAT,
          status: ERR,
          events: [{ name: 'exception', at: 1, attrs: [['exception.type', 'ValidationError']] }],
        },
        { id: 'a000000000000004', from: 0, to: 1, attrs: [...CHAT, ['http.response.status_code', 429], ['error.type', '429']], status: ERR },
        { id: 'a000000000000005', from: 0, to: 1, attrs: [...CHAT, ['inferlens.status', 'aborted']], status: ERR },
        { id: 'a000000000000006', from: 0, to: 1, attrs: [...CHAT, ['inferlens.error_type', 'model_load']], status: ERR },
        { id: 'a000000000000007', from: 0, to: 1, attrs: CHAT, status: ERR },
        { id: 'a000000000000008', from: 0, to: 1, attrs: [...CHAT, ['error.type', '_OTHER']] },
      ]),
    ).events.map((e) => [e.status, e.error_type, e.http_status]);
    expect(events).toEqual([
      ['timeout', undefined, undefined],
      ['error', 'resource_exhausted', undefined],
      ['error', 'bad_input', undefined],
      ['rate_limited', undefined, 429],
      ['aborted', undefined, undefined],
      ['error', 'model_load', undefined],
      ['error', 'other', undefined],
      ['error', 'other', undefined],
    ]);
  });

  it('error type table', () => {
    const cases: [string | undefined, number | undefined, string][] = [
      ['timeout', undefined, 'dependency_timeout'],
      ['DeadlineExceeded', undefined, 'dependency_timeout'],
      ['java.net.SocketTimeoutException', undefined, 'dependency_timeout'],
      ['504', undefined, 'dependency_timeout'],
      [undefined, 408, 'dependency_timeout'],
      ['torch.OutOfMemoryError', undefined, 'resource_exhausted'],
      ['OOMKilled', undefined, 'resource_exhausted'],
      ['507', undefined, 'resource_exhausted'],
      ['ModelLoadError', undefined, 'model_load'],
      ['invalid_request_error', undefined, 'bad_input'],
      ['context_length_exceeded', undefined, 'bad_input'],
      [undefined, 422, 'bad_input'],
      ['ConnectionRefusedError', undefined, 'replica_fault'],
      ['503', undefined, 'replica_fault'],
      ['500', undefined, 'internal'],
      ['InternalServerError', undefined, 'internal'],
      ['replica_fault', undefined, 'replica_fault'],
      ['server_certificate_invalid', undefined, 'replica_fault'],
      ['SomethingElse', undefined, 'other'],
      [undefined, undefined, 'other'],
    ];
    expect(cases.map(([raw, http]) => errorTypeOf(raw, http))).toEqual(cases.map((c) => c[2]));
  });

  it('drops inference spans it cannot map, with the reason, and keeps the rest', () => {
    const req = request([
      { id: 'a000000000000001', from: 0, to: 1, attrs: [['gen_ai.operation.name', 'chat']] },
      { id: 'a000000000000002', from: 5, to: 1, attrs: CHAT },
      { id: 'a000000000000003', from: 0, to: 1, attrs: CHAT },
      // agent and tool spans are not model calls: ignored, not dropped
      { id: 'a000000000000004', from: 0, to: 1, attrs: [['gen_ai.operation.name', 'execute_tool']] },
      // explicit opt-out
      { id: 'a000000000000005', from: 0, to: 1, attrs: [...CHAT, ['inferlens.inference', false]] },
    ]);
    const { events, spanIndex, dropped, ignored } = spansToEvents(req);
    expect(dropped).toEqual([
      { index: 0, spanId: 'a000000000000001', reason: 'no model: set gen_ai.request.model (or llm.model_name, or inferlens.model) on the span' },
      { index: 1, spanId: 'a000000000000002', reason: 'endTimeUnixNano is before startTimeUnixNano' },
    ]);
    expect(spanIndex).toEqual([2]);
    expect(events[0]!.request_id).toBe('a000000000000003');
    expect(ignored).toEqual({ not_a_model_call: 1, opted_out: 1 });
  });

  it('inferlens.* on the resource applies to its spans; k8s.pod.name wins over service.instance.id', () => {
    const [e] = spansToEvents(
      request(
        [
          {
            id: 'a000000000000001',
            from: 0,
            to: 1,
            attrs: [
              ['inferlens.model', 'ranker'],
              ['inferlens.tenant', 'span-tenant'],
            ],
          },
        ],
        [
          ['inferlens.tenant', 'resource-tenant'],
          ['inferlens.pool', 'pool-a'],
          ['k8s.pod.name', 'pod-1'],
          ['service.instance.id', 'inst-1'],
          ['service.version', '2.0.0'],
          ['k8s.node.name', 'k8s-node'],
        ],
      ),
    ).events;
    expect(e).toMatchObject({ model: 'ranker', tenant: 'span-tenant', pool: 'pool-a', replica: 'pod-1', node: 'k8s-node', service_version: '2.0.0' });
  });

  it('maps OpenInference and OpenLLMetry attributes: model, tokens, finish reason, tenant, user, session', () => {
    const { events, ignored } = spansToEvents(
      request([
        // OpenInference LLM span after a success: llm.model_name is the answering model
        {
          id: 'a000000000000001',
          from: 0,
          to: 80,
          attrs: [
            ['openinference.span.kind', 'LLM'],
            ['llm.model_name', 'gpt-4o-2024-08-06'],
            ['llm.invocation_parameters', '{"model":"gpt-4o","temperature":0}'],
            ['llm.token_count.prompt', 30],
            ['llm.token_count.completion', 7],
            ['llm.token_count.prompt_details.cache_read', 24],
            ['llm.finish_reason', 'stop'],
            ['llm.provider', 'openai'],
            ['metadata', '{"tenant_id":"t-9","plan":"free"}'],
            ['user.id', 'u-1'],
            ['session.id', 's-1'],
          ],
        },
        // OpenInference EMBEDDING span, and a RETRIEVER span (not a model call)
        {
          id: 'a000000000000002',
          from: 0,
          to: 5,
          attrs: [
            ['openinference.span.kind', 'EMBEDDING'],
            ['embedding.model_name', 'text-embedding-3-small'],
          ],
        },
        { id: 'a000000000000003', from: 0, to: 5, attrs: [['openinference.span.kind', 'RETRIEVER']] },
        // an older OpenLLMetry release: llm.* names, association properties
        {
          id: 'a000000000000004',
          from: 0,
          to: 40,
          attrs: [
            ['llm.request.type', 'chat'],
            ['llm.request.model', 'claude-3-haiku'],
            ['llm.response.model', 'claude-3-haiku-20240307'],
            ['llm.usage.prompt_tokens', 11],
            ['llm.usage.completion_tokens', 3],
            ['llm.vendor', 'Anthropic'],
            ['traceloop.association.properties.tenant_id', 't-2'],
            ['traceloop.association.properties.user_id', 'u-2'],
          ],
        },
        {
          id: 'a000000000000005',
          from: 0,
          to: 50,
          attrs: [
            ['traceloop.span.kind', 'task'],
            ['traceloop.entity.name', 'summarise'],
          ],
        },
        // GenAI with tenant.id on the resource-less span, and gen_ai.conversation.id as the session
        { id: 'a000000000000006', from: 0, to: 9, attrs: [...CHAT, ['tenant.id', 't-3'], ['enduser.id', 'u-3'], ['gen_ai.conversation.id', 'conv-3']] },
      ]),
    );
    expect(ignored).toEqual({ not_a_model_call: 2 });
    expect(events.map((e) => [e.model, e.tenant, e.input_tokens, e.output_tokens, e.finish_reason])).toEqual([
      ['gpt-4o', 't-9', 30, 7, 'stop'],
      ['text-embedding-3-small', undefined, undefined, undefined, undefined],
      ['claude-3-haiku', 't-2', 11, 3, undefined],
      ['m1', 't-3', undefined, undefined, undefined],
    ]);
    expect(events.map((e) => e.cached_tokens)).toEqual([24, undefined, undefined, undefined]);
    expect(events[0]!.attributes).toEqual({
      'gen_ai.provider.name': 'openai',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'user.id': 'u-1',
      'session.id': 's-1',
    });
    expect(events[2]!.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'Anthropic',
      'gen_ai.response.model': 'claude-3-haiku-20240307',
      'user.id': 'u-2',
    });
    expect(events[3]!.attributes).toMatchObject({ 'user.id': 'u-3', 'session.id': 'conv-3' });
  });

  it('reads the outcome of an OpenInference error span from its exception event', () => {
    const [e] = spansToEvents(
      request([
        {
          id: 'a000000000000001',
          from: 0,
          to: 3,
          attrs: [
            ['openinference.span.kind', 'LLM'],
            ['llm.model_name', 'gpt-4o'],
          ],
          status: { code: 2, message: "Error code: 429 - {'error': {'message': 'Rate limit reached'}}" },
          events: [
            {
              name: 'exception',
              at: 3,
              attrs: [
                ['exception.type', 'openai.RateLimitError'],
                ['exception.message', 'Rate limit reached'],
              ],
            },
          ],
        },
      ]),
    ).events;
    expect(e).toMatchObject({ status: 'rate_limited', http_status: 429 });
    expect(e!.error_type).toBeUndefined();
  });
});
