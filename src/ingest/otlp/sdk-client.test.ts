// The real OpenTelemetry JS SDK as the client: NodeTracerProvider + BatchSpanProcessor with the
// OTLP/HTTP JSON exporter and, separately, the OTLP/HTTP protobuf exporter, pointed at a node:http
// server on 127.0.0.1 that hands each body to handleOtlp and answers with its reply.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
// @opentelemetry/resources comes with sdk-trace-node (its dependency, same 2.x release).
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleOtlp } from './index.ts';
import { memorySink } from './sink.test-support.ts';

interface Captured {
  path: string;
  contentType: string;
  body: Uint8Array;
  replyType: string;
}

const captured: Captured[] = [];
const sink = memorySink(Date.now() + 3_600_000);
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let body: Uint8Array = Buffer.concat(chunks);
    if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
    const contentType = req.headers['content-type'] ?? '';
    handleOtlp('traces', body, contentType, sink).then(
      (reply) => {
        captured.push({ path: req.url ?? '', contentType, body, replyType: reply.contentType });
        res.writeHead(200, { 'content-type': reply.contentType }).end(Buffer.from(reply.body));
      },
      (e: unknown) => res.writeHead(400, { 'content-type': 'text/plain' }).end(String(e)),
    );
  });
});
let url = '';

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// Whole milliseconds, so every duration below is exact.
const T0 = Math.floor(Date.now() / 1000) * 1000;
const at = (ms: number): Date => new Date(T0 + ms);

/** Records one inference request with stage spans, one failed request and one unrelated span. */
async function emit(exporter: SpanExporter): Promise<void> {
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'chat-svc',
      'service.version': '1.4.2',
      'host.name': 'gpu-node-7',
      'k8s.pod.name': 'chat-7f9c-abcde',
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('inferlens-test');
  const root = tracer.startSpan(
    'chat llama-3-8b',
    {
      kind: SpanKind.SERVER,
      startTime: at(0),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'vllm',
        'gen_ai.request.model': 'llama-3-8b',
        'gen_ai.response.model': 'llama-3-8b-instruct',
        'gen_ai.usage.input_tokens': 42,
        'gen_ai.usage.output_tokens': 101,
        'gen_ai.response.finish_reasons': ['stop', 'length'],
        'gen_ai.response.time_to_first_chunk': 0.2,
        'inferlens.tenant': 'acme',
        'inferlens.model_version': 'v7',
        'inferlens.route_rule': 'canary-10',
        'inferlens.entry': '/v1/chat/completions',
        'inferlens.service_tier': 'premium',
        'inferlens.pool': 'h100-a',
        'inferlens.request_id': 'req-123',
        'inferlens.batch_size': 8,
      },
    },
    context.active(),
  );
  const ctx = trace.setSpan(context.active(), root);
  const child = (name: string, from: number, to: number, attributes: Record<string, string> = {}): void =>
    tracer.startSpan(name, { startTime: at(from), attributes }, ctx).end(at(to));
  child('ingress', 0, 5);
  child('queue', 5, 17);
  child('form batch', 17, 20, { 'inferlens.stage': 'batch' });
  child('execute', 20, 1150);
  child('postprocess', 1150, 1190);
  child('cache lookup', 1, 2); // not a stage: ignored
  root.end(at(1200));

  const failed = tracer.startSpan('chat llama-3-8b', {
    startTime: at(2000),
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'llama-3-8b', 'error.type': 'timeout' },
  });
  failed.setStatus({ code: SpanStatusCode.ERROR, message: 'upstream timed out' });
  failed.end(at(32_000));
  tracer.startSpan('GET /health', { startTime: at(100) }).end(at(101));

  await provider.forceFlush();
  await provider.shutdown();
}

const expectedOk = {
  ts: T0,
  model: 'llama-3-8b',
  request_id: 'req-123',
  status: 'ok',
  model_version: 'v7',
  service_version: '1.4.2',
  route_rule: 'canary-10',
  tenant: 'acme',
  entry: '/v1/chat/completions',
  node: 'gpu-node-7',
  replica: 'chat-7f9c-abcde',
  service_tier: 'premium',
  pool: 'h100-a',
  attributes: {
    'service.name': 'chat-svc',
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'vllm',
    'gen_ai.response.model': 'llama-3-8b-instruct',
  },
  total_ms: 1200,
  ingress_ms: 5,
  queue_ms: 12,
  batch_ms: 3,
  exec_ms: 1130,
  post_ms: 40,
  ttft_ms: 200,
  input_tokens: 42,
  output_tokens: 101,
  // (1200 − 200) ms / (101 − 1) tokens
  tpot_ms: 10,
  finish_reason: 'stop',
  batch_size: 8,
};

describe.each([
  ['OTLP/HTTP JSON exporter', 'application/json', () => new JsonExporter({ url })],
  ['OTLP/HTTP protobuf exporter', 'application/x-protobuf', () => new ProtoExporter({ url })],
])('the OpenTelemetry JS SDK as client: %s', (_name, contentType, makeExporter) => {
  it('maps the inference span, its stage spans and a failed span to events', async () => {
    captured.length = 0;
    sink.events.length = 0;
    await emit(makeExporter());

    expect(captured.length).toBeGreaterThan(0);
    for (const c of captured) {
      expect(c.path).toBe('/v1/traces');
      expect(c.contentType.startsWith(contentType)).toBe(true);
      expect(c.replyType).toBe(contentType);
    }
    expect(sink.events).toHaveLength(2);
    const [ok, failed] = [...sink.events].sort((a, b) => (a as { ts: number }).ts - (b as { ts: number }).ts) as Record<string, unknown>[];
    const traceId = ok!.trace_id;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(ok).toEqual({ ...expectedOk, trace_id: traceId });
    expect(failed).toMatchObject({
      ts: T0 + 2000,
      model: 'llama-3-8b',
      // error.type "timeout": the call timed out (docs/otlp-mapping.md, Outcome).
      status: 'timeout',
      total_ms: 30_000,
      node: 'gpu-node-7',
    });
    // No stage spans and no inferlens.request_id: the request id is the span id.
    expect(failed!.request_id).toMatch(/^[0-9a-f]{16}$/);
    expect(failed!.queue_ms).toBeUndefined();
    expect(failed!.error_type).toBeUndefined();
  });
});
