import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTraceRequest } from './decode.ts';
import { errorTypeOf, spansToEvents } from './spans-to-events.ts';

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

function request(spans: SpanSpec[], resource: Attr[] = [['host.name', 'node-1'], ['service.instance.id', 'inst-9']]) {
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
    expect(spansToEvents(req)).toEqual({ events: [], spanIndex: [], dropped: [], ignored: 1 });
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
    expect(ignored).toBe(2); // 'scheduler' and the nested 'queue'
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
        { id: 'a000000000000003', from: 0, to: 1, attrs: CHAT, status: ERR, events: [{ name: 'exception', at: 1, attrs: [['exception.type', 'ValidationError']] }] },
        { id: 'a000000000000004', from: 0, to: 1, attrs: [...CHAT, ['http.response.status_code', 429], ['error.type', '429']], status: ERR },
        { id: 'a000000000000005', from: 0, to: 1, attrs: [...CHAT, ['inferlens.status', 'aborted']], status: ERR },
        { id: 'a000000000000006', from: 0, to: 1, attrs: [...CHAT, ['inferlens.error_type', 'model_load']], status: ERR },
        { id: 'a000000000000007', from: 0, to: 1, attrs: CHAT, status: ERR },
        { id: 'a000000000000008', from: 0, to: 1, attrs: [...CHAT, ['error.type', '_OTHER']] },
      ]),
    ).events.map((e) => [e.status, e.error_type]);
    expect(events).toEqual([
      ['error', 'dependency_timeout'],
      ['error', 'resource_exhausted'],
      ['error', 'bad_input'],
      ['rate_limited', undefined],
      ['aborted', undefined],
      ['error', 'model_load'],
      ['error', 'other'],
      ['error', 'other'],
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
      { index: 0, spanId: 'a000000000000001', reason: 'no model: set gen_ai.request.model (or inferlens.model) on the span' },
      { index: 1, spanId: 'a000000000000002', reason: 'endTimeUnixNano is before startTimeUnixNano' },
    ]);
    expect(spanIndex).toEqual([2]);
    expect(events[0]!.request_id).toBe('a000000000000003');
    expect(ignored).toBe(2);
  });

  it('inferlens.* on the resource applies to its spans; k8s.pod.name wins over service.instance.id', () => {
    const [e] = spansToEvents(
      request(
        [{ id: 'a000000000000001', from: 0, to: 1, attrs: [['inferlens.model', 'ranker'], ['inferlens.tenant', 'span-tenant']] }],
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
});
