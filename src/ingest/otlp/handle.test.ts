import { JsonMetricsSerializer, JsonTraceSerializer, ProtobufMetricsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { InferlensError } from '../../schema/index.ts';
import { otlpType } from './decode.ts';
import { handleOtlp } from './handle.ts';
import { registerOtlpMetrics } from './metrics.ts';
import { encodeMetricsReply, encodeTraceReply, metricsReply, traceReply } from './reply.ts';
import { memorySink } from './sink.test-support.ts';

const NOW_MS = 1_700_000_100_000;
const json = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: String(v) } });

function span(id: string, attributes: unknown[], startMs = 1_700_000_000_000) {
  return {
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: id,
    name: 'chat',
    startTimeUnixNano: `${startMs}000000`,
    endTimeUnixNano: `${startMs + 250}000000`,
    attributes,
  };
}

/** Three inference spans: one fine, one without a model (dropped here), one the sink rejects. */
const traces = {
  resourceSpans: [
    {
      resource: { attributes: [str('host.name', 'node-1')] },
      scopeSpans: [
        {
          spans: [
            span('a000000000000001', [str('gen_ai.request.model', 'm1'), int('gen_ai.usage.output_tokens', 5)]),
            span('a000000000000002', [str('gen_ai.operation.name', 'chat')]),
            // negative tokens: the pipeline's check rejects the row
            span('a000000000000003', [str('gen_ai.request.model', 'm1'), int('gen_ai.usage.output_tokens', -1)]),
            { ...span('a000000000000004', []), name: 'GET /health' },
          ],
        },
      ],
    },
  ],
};

describe('handleOtlp traces', () => {
  it('writes mapped events and counts dropped spans and sink rejects as rejectedSpans (JSON)', async () => {
    const sink = memorySink(NOW_MS);
    const reply = await handleOtlp('traces', json(traces), 'application/json; charset=utf-8', sink);
    expect(reply.contentType).toBe('application/json');
    expect(sink.events).toEqual([
      {
        ts: 1_700_000_000_000,
        model: 'm1',
        request_id: 'a000000000000001',
        trace_id: '0af7651916cd43dd8448eb211c80319c',
        status: 'ok',
        node: 'node-1',
        total_ms: 250,
        output_tokens: 5,
      },
    ]);
    expect(JSON.parse(new TextDecoder().decode(reply.body))).toEqual({
      partialSuccess: {
        rejectedSpans: 2,
        errorMessage:
          '2 spans rejected: span 1: (span id a000000000000002) no model: set gen_ai.request.model (or llm.model_name, or inferlens.model) on the span; ' +
          'span 2: output_tokens: expected an integer 0 ≤ x ≤ 2147483647; ' +
          '1 span ignored (not inference spans): 1 not_genai',
      },
    });
  });

  it('says how many spans it ignored, and why, with rejectedSpans 0 (an OTLP warning), and counts them on /metrics', async () => {
    const registry = new Registry();
    const metrics = registerOtlpMetrics(registry);
    const sink = memorySink(NOW_MS);
    const body = {
      resourceSpans: [
        {
          resource: { attributes: [str('host.name', 'node-1')] },
          scopeSpans: [
            {
              spans: [
                span('a000000000000001', [str('gen_ai.request.model', 'm1')]),
                { ...span('a000000000000002', []), name: 'GET /health' },
                span('a000000000000003', [str('openinference.span.kind', 'CHAIN')]),
                span('a000000000000004', [str('traceloop.span.kind', 'workflow')]),
                span('a000000000000005', [str('gen_ai.operation.name', 'execute_tool')]),
              ],
            },
          ],
        },
      ],
    };
    const reply = await handleOtlp('traces', json(body), 'application/json', sink, metrics);
    expect(sink.events).toHaveLength(1);
    expect(JSON.parse(new TextDecoder().decode(reply.body))).toEqual({
      partialSuccess: { rejectedSpans: 0, errorMessage: '4 spans ignored (not inference spans): 1 not_genai, 3 not_a_model_call' },
    });
    const text = await registry.metrics();
    expect(text).toMatch(/^inferlens_otlp_spans_ignored_total\{reason="not_a_model_call"\} 3$/m);
    expect(text).toMatch(/^inferlens_otlp_spans_ignored_total\{reason="not_genai"\} 1$/m);
    expect(text).toMatch(/^inferlens_otlp_spans_ignored_total\{reason="opted_out"\} 0$/m);
    expect(text).toMatch(/^inferlens_otlp_spans_rejected_total 0$/m);
  });

  it('answers protobuf with protobuf, and an empty reply when all spans are accepted', async () => {
    const type = otlpType('ExportTraceServiceRequest');
    const ok = { resourceSpans: [{ ...traces.resourceSpans[0], scopeSpans: [{ spans: [traces.resourceSpans[0]!.scopeSpans[0]!.spans[0]] }] }] };
    const obj = JSON.parse(JSON.stringify(ok)) as { resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[] };
    const s = obj.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    s.traceId = Buffer.from(s.traceId as string, 'hex');
    s.spanId = Buffer.from(s.spanId as string, 'hex');
    const sink = memorySink(NOW_MS);
    const reply = await handleOtlp('traces', type.encode(type.fromObject(obj)).finish(), 'application/x-protobuf', sink);
    expect(reply.contentType).toBe('application/x-protobuf');
    expect(reply.body).toHaveLength(0); // ExportTraceServiceResponse with partial_success unset
    expect(sink.events).toHaveLength(1);
  });

  it('throws invalid_argument for a body that does not decode, and for a non-OTLP content type', async () => {
    const sink = memorySink(NOW_MS);
    await expect(handleOtlp('traces', new TextEncoder().encode('not json'), 'application/json', sink)).rejects.toThrow(InferlensError);
    await expect(handleOtlp('metrics', json({}), 'text/plain', sink)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('passes on a retryable sink error', async () => {
    const sink = memorySink(NOW_MS);
    sink.writeEvents = () => Promise.reject(new InferlensError('unavailable', 'store is down', { retryAfterS: 5 }));
    await expect(handleOtlp('traces', json(traces), 'application/json', sink)).rejects.toMatchObject({ code: 'unavailable', retryAfterS: 5 });
  });
});

describe('handleOtlp metrics', () => {
  it('counts a data point once however many of its samples are rejected', async () => {
    const body = {
      resourceMetrics: [
        {
          resource: { attributes: [str('host.name', 'node-1')] },
          scopeMetrics: [
            {
              metrics: [
                { name: 'system.cpu.utilization', gauge: { dataPoints: [{ timeUnixNano: '1700000000000000000', asDouble: 0.5 }] } },
                {
                  name: 'h',
                  histogram: { dataPoints: [{ timeUnixNano: '1700000000000000000', count: '1', sum: 1, bucketCounts: ['1', '0'], explicitBounds: [2] }] },
                },
              ],
            },
          ],
        },
      ],
    };
    const sink = memorySink(NOW_MS);
    const realWrite = sink.writeResources.bind(sink);
    // A sink that rejects every histogram sample (as a cardinality limit might).
    sink.writeResources = async (samples) => {
      const reply = await realWrite(samples);
      const rejected = samples.flatMap((s, index) => (s.metric.startsWith('h_') ? [{ index, path: 'metric', message: 'over the series limit' }] : []));
      return { accepted: reply.accepted - rejected.length, rejected };
    };
    const reply = await handleOtlp('metrics', json(body), 'application/json', sink);
    expect(JSON.parse(new TextDecoder().decode(reply.body))).toEqual({
      partialSuccess: { rejectedDataPoints: 1, errorMessage: '1 data point rejected: data point 1: metric: over the series limit' },
    });
  });
});

describe('partial success replies round-trip', () => {
  it.each(['json', 'protobuf'] as const)('%s: through our decoder and the OpenTelemetry JS SDK exporters’ deserializers', (encoding) => {
    const t = traceReply(3, '3 spans rejected');
    const m = metricsReply(7, '7 data points rejected');
    const tBytes = encodeTraceReply(t, encoding);
    const mBytes = encodeMetricsReply(m, encoding);
    const sdkTrace = encoding === 'json' ? JsonTraceSerializer : ProtobufTraceSerializer;
    const sdkMetrics = encoding === 'json' ? JsonMetricsSerializer : ProtobufMetricsSerializer;
    expect(sdkTrace.deserializeResponse(tBytes)).toMatchObject({ partialSuccess: { rejectedSpans: 3, errorMessage: '3 spans rejected' } });
    expect(sdkMetrics.deserializeResponse(mBytes)).toMatchObject({ partialSuccess: { rejectedDataPoints: 7, errorMessage: '7 data points rejected' } });
    if (encoding === 'protobuf') {
      const tt = otlpType('ExportTraceServiceResponse');
      expect(tt.toObject(tt.decode(tBytes), { longs: Number })).toEqual({ partialSuccess: { rejectedSpans: 3, errorMessage: '3 spans rejected' } });
      const mt = otlpType('ExportMetricsServiceResponse');
      expect(mt.toObject(mt.decode(mBytes), { longs: Number })).toEqual({ partialSuccess: { rejectedDataPoints: 7, errorMessage: '7 data points rejected' } });
    } else {
      expect(JSON.parse(new TextDecoder().decode(tBytes))).toEqual(t);
      expect(JSON.parse(new TextDecoder().decode(mBytes))).toEqual(m);
    }
  });

  it('full success is an empty message', () => {
    expect(traceReply(0)).toEqual({});
    expect(new TextDecoder().decode(encodeTraceReply(traceReply(0), 'json'))).toBe('{}');
    expect(encodeMetricsReply(metricsReply(0), 'protobuf')).toHaveLength(0);
  });
});
