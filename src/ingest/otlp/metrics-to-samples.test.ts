import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
// The SDK's own OTLP metrics encoders: @opentelemetry/otlp-transformer and sdk-metrics come with
// the exporter / sdk-trace-node devDependencies, in the same release as them.
import { JsonMetricsSerializer, ProtobufMetricsSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { AggregationType, MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import { decodeMetricsRequest, otlpType } from './decode.ts';
import { metricsToSamples, sampleMetricName } from './metrics-to-samples.ts';

const FIXTURES = resolve(import.meta.dirname, '../../../test/fixtures/otlp');

describe('metricsToSamples: the opentelemetry-proto example metrics.json', () => {
  it('maps the sum, gauge, histogram and exponential histogram with exact values', () => {
    const req = decodeMetricsRequest(readFileSync(resolve(FIXTURES, 'metrics.json')), 'application/json');
    expect(req.pointCount).toBe(4);
    const { samples, pointIndex, dropped, ignored } = metricsToSamples(req);
    expect(dropped).toEqual([]);
    expect(ignored).toBe(0);
    // 1544712660300000000 ns = 1544712660300 ms. No host.name in the example: node falls back to service.name.
    const base = { ts: 1544712660300, node: 'my.service' };
    // aggregationTemporality 1 is DELTA in the OTLP enum.
    const delta = { aggregation_temporality: 'delta' };
    const h = { 'my.histogram.attr': 'some value', ...delta };
    const e = { 'my.exponential.histogram.attr': 'some value', ...delta };
    expect(samples).toEqual([
      { ...base, metric: 'my.counter', value: 5, labels: { 'my.counter.attr': 'some value', ...delta } },
      { ...base, metric: 'my.gauge', value: 10, labels: { 'my.gauge.attr': 'some value' } },
      { ...base, metric: 'my.histogram_count', value: 2, labels: h },
      { ...base, metric: 'my.histogram_sum', value: 2, labels: h },
      { ...base, metric: 'my.histogram_min', value: 0, labels: h },
      { ...base, metric: 'my.histogram_max', value: 2, labels: h },
      // per-bucket counts [1, 1] with bounds [1] → cumulative le="1": 1, le="+Inf": 1 + 1 = 2
      { ...base, metric: 'my.histogram_bucket', value: 1, labels: { ...h, le: '1' } },
      { ...base, metric: 'my.histogram_bucket', value: 2, labels: { ...h, le: '+Inf' } },
      { ...base, metric: 'my.exponential.histogram_count', value: 3, labels: e },
      { ...base, metric: 'my.exponential.histogram_sum', value: 10, labels: e },
      { ...base, metric: 'my.exponential.histogram_min', value: 0, labels: e },
      { ...base, metric: 'my.exponential.histogram_max', value: 5, labels: e },
      // scale 0: base 2; zero bucket 1 → le="0": 1; offset 1: index 1 (2, 4] holds 0 → le="4": 1;
      // index 2 (4, 8] holds 2 → le="8": 3; le="+Inf": count 3.
      { ...base, metric: 'my.exponential.histogram_bucket', value: 1, labels: { ...e, le: '0' } },
      { ...base, metric: 'my.exponential.histogram_bucket', value: 1, labels: { ...e, le: '4' } },
      { ...base, metric: 'my.exponential.histogram_bucket', value: 3, labels: { ...e, le: '8' } },
      { ...base, metric: 'my.exponential.histogram_bucket', value: 3, labels: { ...e, le: '+Inf' } },
    ]);
    expect(pointIndex).toEqual([0, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3]);
  });
});

const T_NS = '1700000000000000000'; // 1700000000000 ms
const kv = (key: string, v: string | number) => ({ key, value: typeof v === 'string' ? { stringValue: v } : { doubleValue: v } });

/** A GenAI + resource metrics request, encoded as protobuf with the OTLP descriptor. */
function genaiBody(): Uint8Array {
  const type = otlpType('ExportMetricsServiceRequest');
  const model = kv('gen_ai.request.model', 'llama-3-8b');
  return type
    .encode(
      type.fromObject({
        resourceMetrics: [
          {
            resource: { attributes: [kv('host.name', 'gpu-node-7'), kv('k8s.pod.name', 'vllm-0'), kv('inferlens.pool', 'h100-a')] },
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'gen_ai.server.time_to_first_token',
                    unit: 's',
                    histogram: {
                      aggregationTemporality: 2,
                      dataPoints: [
                        { attributes: [model], timeUnixNano: T_NS, count: 10, sum: 2.5, bucketCounts: [3, 5, 1, 1], explicitBounds: [0.1, 0.25, 0.5] },
                      ],
                    },
                  },
                  {
                    name: 'gen_ai.client.token.usage',
                    unit: '{token}',
                    histogram: {
                      aggregationTemporality: 2,
                      dataPoints: [
                        { attributes: [model, kv('gen_ai.token.type', 'input')], timeUnixNano: T_NS, count: 2, sum: 0, bucketCounts: [2], explicitBounds: [] },
                      ],
                    },
                  },
                  { name: 'hw.gpu.utilization', unit: '1', gauge: { dataPoints: [{ attributes: [kv('hw.id', 'gpu0')], timeUnixNano: T_NS, asDouble: 0.87 }] } },
                  {
                    name: 'system.cpu.utilization',
                    unit: '1',
                    gauge: {
                      dataPoints: [
                        { timeUnixNano: T_NS, asDouble: 0.42 },
                        { timeUnixNano: T_NS, asDouble: NaN },
                      ],
                    },
                  },
                  {
                    name: 'gen_ai.requests',
                    sum: {
                      aggregationTemporality: 2,
                      isMonotonic: true,
                      dataPoints: [
                        { timeUnixNano: T_NS, asInt: 12345 },
                        { timeUnixNano: T_NS, flags: 1 },
                      ],
                    },
                  },
                  {
                    name: 'rpc/latency-ms',
                    summary: {
                      dataPoints: [
                        {
                          timeUnixNano: T_NS,
                          count: 4,
                          sum: 40,
                          quantileValues: [
                            { quantile: 0.5, value: 9 },
                            { quantile: 0.99, value: 15 },
                          ],
                        },
                      ],
                    },
                  },
                  { name: 'bad.histogram', histogram: { dataPoints: [{ timeUnixNano: T_NS, count: 1, bucketCounts: [1, 0], explicitBounds: [1, 2] }] } },
                ],
              },
            ],
          },
        ],
      }),
    )
    .finish();
}

describe('metricsToSamples: a protobuf body with GenAI and resource metrics', () => {
  const base = { ts: 1_700_000_000_000, node: 'gpu-node-7', replica: 'vllm-0', pool: 'h100-a' };
  const model = { 'gen_ai.request.model': 'llama-3-8b' };

  it('maps each kind, keeps OTel names, drops what cannot be stored with a reason', () => {
    const req = decodeMetricsRequest(genaiBody(), 'application/x-protobuf');
    expect(req.pointCount).toBe(9);
    const { samples, dropped, ignored, pointIndex } = metricsToSamples(req);
    expect(samples).toEqual([
      { ...base, metric: 'gen_ai.server.time_to_first_token_count', value: 10, labels: model },
      { ...base, metric: 'gen_ai.server.time_to_first_token_sum', value: 2.5, labels: model },
      // [3, 5, 1, 1] per bucket → cumulative 3, 8, 9, 10
      { ...base, metric: 'gen_ai.server.time_to_first_token_bucket', value: 3, labels: { ...model, le: '0.1' } },
      { ...base, metric: 'gen_ai.server.time_to_first_token_bucket', value: 8, labels: { ...model, le: '0.25' } },
      { ...base, metric: 'gen_ai.server.time_to_first_token_bucket', value: 9, labels: { ...model, le: '0.5' } },
      { ...base, metric: 'gen_ai.server.time_to_first_token_bucket', value: 10, labels: { ...model, le: '+Inf' } },
      // sum is proto3 `optional`: an explicit 0 is kept
      { ...base, metric: 'gen_ai.client.token.usage_count', value: 2, labels: { ...model, 'gen_ai.token.type': 'input' } },
      { ...base, metric: 'gen_ai.client.token.usage_sum', value: 0, labels: { ...model, 'gen_ai.token.type': 'input' } },
      { ...base, metric: 'gen_ai.client.token.usage_bucket', value: 2, labels: { ...model, 'gen_ai.token.type': 'input', le: '+Inf' } },
      { ...base, gpu: 'gpu0', metric: 'hw.gpu.utilization', value: 0.87, labels: { 'hw.id': 'gpu0' } },
      { ...base, metric: 'system.cpu.utilization', value: 0.42 },
      { ...base, metric: 'gen_ai.requests', value: 12345 },
      { ...base, metric: 'rpc_latency_ms_count', value: 4 },
      { ...base, metric: 'rpc_latency_ms_sum', value: 40 },
      { ...base, metric: 'rpc_latency_ms', value: 9, labels: { quantile: '0.5' } },
      { ...base, metric: 'rpc_latency_ms', value: 15, labels: { quantile: '0.99' } },
    ]);
    expect(new Set(pointIndex)).toEqual(new Set([0, 1, 2, 3, 5, 7]));
    expect(dropped).toEqual([
      { index: 4, metric: 'system.cpu.utilization', reason: 'value is not a finite number (NaN or ±Inf)' },
      { index: 8, metric: 'bad.histogram', reason: 'bucketCounts has 2 entries, expected explicitBounds + 1 = 3' },
    ]);
    expect(ignored).toBe(1); // the point flagged "no recorded value"
  });

  it('sample metric names follow the ResourceSample pattern', () => {
    expect(sampleMetricName('gen_ai.client.operation.duration')).toBe('gen_ai.client.operation.duration');
    expect(sampleMetricName('http/server-duration')).toBe('http_server_duration');
    expect(sampleMetricName('1xx')).toBe('_1xx');
  });

  it('drops points without a node or a timestamp', () => {
    const body = new TextEncoder().encode(
      JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: 'g', gauge: { dataPoints: [{ timeUnixNano: T_NS, asDouble: 1 }] } }] }] }] }),
    );
    expect(metricsToSamples(decodeMetricsRequest(body, 'application/json')).dropped).toEqual([
      { index: 0, metric: 'g', reason: 'no node: set the resource attribute host.name' },
    ]);
  });
});

class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

describe('the OpenTelemetry JS SDK metrics encoders against the OTLP descriptor', () => {
  it.each([
    ['protobuf', 'application/x-protobuf', ProtobufMetricsSerializer],
    ['JSON', 'application/json', JsonMetricsSerializer],
  ])('%s: counter, histogram and exponential histogram decode to the recorded values', async (_name, contentType, serializer) => {
    const reader = new TestReader();
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ 'host.name': 'gpu-node-7', 'service.instance.id': 'inst-1' }),
      readers: [reader],
      views: [{ instrumentName: 'gen_ai.server.time_per_output_token', aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
    });
    const meter = provider.getMeter('test');
    const attrs = { 'gen_ai.request.model': 'llama-3-8b' };
    meter.createCounter('gen_ai.requests').add(3, attrs);
    const ttft = meter.createHistogram('gen_ai.server.time_to_first_token', { unit: 's', advice: { explicitBucketBoundaries: [0.1, 0.5] } });
    for (const v of [0.05, 0.2, 0.3, 2]) ttft.record(v, attrs);
    const tpot = meter.createHistogram('gen_ai.server.time_per_output_token', { unit: 's' });
    for (const v of [0.01, 0.02, 0.04]) tpot.record(v, attrs);
    const { resourceMetrics } = await reader.collect();
    await provider.shutdown();

    const body = serializer.serializeRequest(resourceMetrics);
    expect(body).toBeDefined();
    const { samples, dropped } = metricsToSamples(decodeMetricsRequest(body!, contentType));
    expect(dropped).toEqual([]);
    const value = (metric: string, le?: string) =>
      samples.filter((s) => s.metric === metric && s.labels?.le === le).map((s) => [s.node, s.replica, s.labels?.['gen_ai.request.model'], s.value]);
    expect(value('gen_ai.requests')).toEqual([['gpu-node-7', 'inst-1', 'llama-3-8b', 3]]);
    expect(value('gen_ai.server.time_to_first_token_count')).toEqual([['gpu-node-7', 'inst-1', 'llama-3-8b', 4]]);
    expect(value('gen_ai.server.time_to_first_token_sum')[0]![3]).toBeCloseTo(2.55, 12);
    // 0.05 ≤ 0.1; 0.2 and 0.3 ≤ 0.5; 2 above: cumulative 1, 3, 4
    expect(value('gen_ai.server.time_to_first_token_bucket', '0.1')[0]![3]).toBe(1);
    expect(value('gen_ai.server.time_to_first_token_bucket', '0.5')[0]![3]).toBe(3);
    expect(value('gen_ai.server.time_to_first_token_bucket', '+Inf')[0]![3]).toBe(4);
    expect(value('gen_ai.server.time_to_first_token_min')[0]![3]).toBe(0.05);
    expect(value('gen_ai.server.time_to_first_token_max')[0]![3]).toBe(2);
    expect(value('gen_ai.server.time_per_output_token_count')[0]![3]).toBe(3);
    expect(value('gen_ai.server.time_per_output_token_sum')[0]![3]).toBeCloseTo(0.07, 12);
    // The exponential buckets are cumulative and end at the count.
    const exp = samples.filter((s) => s.metric === 'gen_ai.server.time_per_output_token_bucket').map((s) => s.value);
    expect(exp.length).toBeGreaterThan(2);
    expect(exp.at(-1)).toBe(3);
    expect(exp.every((v, i) => i === 0 || v >= exp[i - 1]!)).toBe(true);
  });
});
