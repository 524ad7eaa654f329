// The three instrumentation families as their users run them: each real package wraps the real
// `openai` client in a child process (drive-*.cjs), calls the OpenAI-compatible test server
// through every outcome (success, stream, finish by length, 429, 500, 503 overloaded, 401, 404,
// 400, client abort, client timeout) and exports over OTLP/HTTP to a real inferlens server. A
// recording proxy in front of the server keeps each export body and reply, so the stored events
// are compared with the spans that were sent.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.ts';
import { decodeTraceRequest } from '../../src/ingest/otlp/index.ts';
import type { OtlpSpan } from '../../src/ingest/otlp/index.ts';
import { startServer } from '../../src/main.ts';
import type { InferlensServer } from '../../src/main.ts';
import { COMPLETION_TOKENS, PROMPT_TOKENS, RESPONSE_MODEL_SUFFIX, startOpenAICompatibleServer } from './openai-compatible-server.ts';
import type { OpenAICompatibleServer } from './openai-compatible-server.ts';

interface Export {
  path: string;
  spans: OtlpSpan[];
  reply: string;
}

let inferlens: InferlensServer;
let openai: OpenAICompatibleServer;
let proxy: Server;
let proxyUrl = '';
const exports: Export[] = [];
const T_START = Date.now();

beforeAll(async () => {
  inferlens = await startServer(loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' } } }), { logger: pino({ level: 'silent' }) });
  openai = await startOpenAICompatibleServer();
  // Records every export (decoded with the receiver's own decoder) and forwards it unchanged.
  proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers: Record<string, string> = {};
      for (const h of ['content-type', 'content-encoding']) if (req.headers[h]) headers[h] = String(req.headers[h]);
      void fetch(inferlens.url + req.url, { method: req.method, headers, ...(req.method === 'POST' ? { body } : {}) }).then(
        async (r) => {
          const reply = Buffer.from(await r.arrayBuffer());
          if (req.url === '/v1/traces' && r.status === 200 && !headers['content-encoding']) {
            const contentType = headers['content-type'] ?? '';
            exports.push({
              path: req.url,
              spans: decodeTraceRequest(body, contentType).spans,
              reply: contentType.includes('json') ? reply.toString('utf8') : JSON.stringify(replyOfProto(reply)),
            });
          }
          res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/octet-stream' }).end(reply);
        },
        (e: unknown) => res.writeHead(502).end(String(e)),
      );
    });
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((r) => proxy.close(() => r()));
  await openai.close();
  await inferlens.stop();
});

/** The protobuf reply's errorMessage is readable text inside the message bytes: enough to assert on. */
function replyOfProto(bytes: Buffer): { text: string } {
  return { text: bytes.toString('latin1') };
}

/** Runs one driver to its end; resolves with what the client saw for each call. */
function drive(script: string): Promise<unknown> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, script)], {
    env: {
      ...process.env,
      OPENAI_BASE_URL: openai.baseURL,
      OTLP_TRACES_URL: `${proxyUrl}/v1/traces`,
      OTLP_METRICS_URL: `${proxyUrl}/v1/metrics`,
      OTLP_BASE_URL: proxyUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolveP, reject) =>
    child.on('exit', (code) =>
      code === 0 ? resolveP(JSON.parse(out.trim().split('\n').pop()!)) : reject(new Error(`${script} exited with ${code}:\n${err}\n${out}`)),
    ),
  );
}

type Row = Record<string, unknown> & { ts: string; request_id: string; total_ms: number; attributes?: Record<string, string> };

async function eventsOf(tenant: string, model: string): Promise<Row[]> {
  const res = await fetch(`${inferlens.url}/v1/events/search`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      from: new Date(T_START - 60_000).toISOString(),
      to: new Date(Date.now() + 60_000).toISOString(),
      filters: { tenant, model },
      order: 'ts_asc',
      limit: 100,
    }),
  });
  const body = (await res.json()) as { data: { events: Row[] } };
  return body.data.events;
}

/** The span each stored event came from (request_id is the span id), and its duration in ms to the µs. */
function spanOf(row: Row): OtlpSpan {
  const span = exports.flatMap((e) => e.spans).find((s) => s.spanId === row.request_id);
  if (!span) throw new Error(`no exported span ${row.request_id}`);
  return span;
}
const spanMs = (s: OtlpSpan): number => Number((s.endTimeUnixNano - s.startTimeUnixNano) / 1000n) / 1000;

/** The outcome columns of the stored events, in call order. */
const outcomes = (rows: Row[]) => rows.map((r) => [r.status, r.error_type ?? null, r.http_status ?? null]);
const usage = (rows: Row[]) => rows.map((r) => [r.input_tokens ?? null, r.output_tokens ?? null, r.finish_reason ?? null]);

/** What every failed call maps to (docs/otlp-mapping.md, Outcome), in the scenario order of scenarios.cjs. */
const FAILURES = [
  ['rate_limited', null, 429],
  ['error', 'internal', 500],
  ['rejected', null, 503],
  ['error', 'bad_input', 401],
  ['error', 'bad_input', 404],
  ['error', 'bad_input', 400],
  ['cancelled', null, null],
  ['timeout', null, null],
];

describe('real instrumentations of the openai client → OTLP → stored events', () => {
  it('@opentelemetry/instrumentation-openai (GenAI conventions): model, tokens, finish reason, every outcome, tenant and user from baggage', async () => {
    const seen = (await drive('drive-otel-openai.cjs')) as { scenario: string; ok: boolean; error?: string }[];
    expect(seen.map((s) => s.error ?? 'ok')).toEqual([
      'ok',
      'ok',
      'ok',
      'RateLimitError',
      'InternalServerError',
      'InternalServerError',
      'AuthenticationError',
      'NotFoundError',
      'BadRequestError',
      'APIUserAbortError',
      'APIConnectionTimeoutError',
    ]);
    const rows = await eventsOf('acme', 'gpt-4o-mini');
    expect(rows).toHaveLength(11);
    expect(outcomes(rows)).toEqual([['ok', null, null], ['ok', null, null], ['ok', null, null], ...FAILURES]);
    expect(usage(rows).slice(0, 3)).toEqual([
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'stop'],
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'stop'],
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'length'],
    ]);
    for (const r of rows) {
      expect(r.total_ms).toBe(spanMs(spanOf(r)));
      expect(r).toMatchObject({ model: 'gpt-4o-mini', tenant: 'acme', node: 'node-a', service_version: '2.0.1' });
      expect(r.attributes).toMatchObject({ 'service.name': 'chat-gateway', 'gen_ai.provider.name': 'openai', 'user.id': 'u-42', 'session.id': 's-7' });
    }
    expect(rows[0]!.attributes!['gen_ai.response.model']).toBe(`gpt-4o-mini${RESPONSE_MODEL_SUFFIX}`);
    expect(rows.slice(3).map((r) => r.attributes!['error.type'])).toEqual([
      'RateLimitError',
      'InternalServerError',
      'InternalServerError',
      'AuthenticationError',
      'NotFoundError',
      'BadRequestError',
      'APIUserAbortError',
      'APIConnectionTimeoutError',
    ]);
    // The client waited 150 ms before it aborted or timed out.
    expect(rows[9]!.total_ms).toBeGreaterThanOrEqual(150);
    expect(rows[10]!.total_ms).toBeGreaterThanOrEqual(150);

    // The same instrumentation's GenAI metrics (OTLP histograms, exported once at shutdown), read
    // back by their own labels: tokens split by type (3 answered calls × 12 in, × 5 out), and
    // operations split by error type.
    const resources = async (metrics: string[], group_by: string[]) => {
      const res = await fetch(`${inferlens.url}/v1/resources/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          from: new Date(T_START - 60_000).toISOString(),
          to: new Date(Date.now() + 60_000).toISOString(),
          step: '1h',
          metrics,
          filters: { node: 'node-a', labels: { 'gen_ai.request.model': 'gpt-4o-mini' } },
          group_by,
        }),
      });
      return ((await res.json()) as { data: { rows: { labels: Record<string, string | null>; sum: number }[] } }).data.rows;
    };
    const tokens = await resources(['gen_ai.client.token.usage_sum'], ['labels.gen_ai.token.type']);
    expect(Object.fromEntries(tokens.map((r) => [r.labels['gen_ai.token.type'], r.sum]))).toEqual({ input: 3 * PROMPT_TOKENS, output: 3 * COMPLETION_TOKENS });
    const calls = await resources(['gen_ai.client.operation.duration_count'], ['labels.error.type']);
    expect(Object.fromEntries(calls.map((r) => [r.labels['error.type'] ?? 'none', r.sum]))).toEqual({
      none: 3,
      RateLimitError: 1,
      InternalServerError: 2,
      AuthenticationError: 1,
      NotFoundError: 1,
      BadRequestError: 1,
      APIUserAbortError: 1,
      APIConnectionTimeoutError: 1,
    });
  });

  it('OpenInference (instrumentation-openai and openinference-core traceLLM): requested model, tokens, outcomes, tenant from metadata', async () => {
    const seen = (await drive('drive-openinference.cjs')) as { auto: { ok: boolean }[]; manual: { ok: boolean }[] };
    expect(seen.auto.filter((s) => s.ok)).toHaveLength(3);
    expect(seen.manual.filter((s) => s.ok)).toHaveLength(3);

    // The auto-instrumentation exports only the calls that succeeded (it never ends a failed call's span).
    const auto = await eventsOf('globex', 'gpt-4o-mini');
    expect(outcomes(auto)).toEqual([
      ['ok', null, null],
      ['ok', null, null],
      ['ok', null, null],
    ]);
    // The stream's span carries no token counts (the instrumentation does not read the usage chunk).
    expect(usage(auto)).toEqual([
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'stop'],
      [null, null, 'stop'],
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'length'],
    ]);
    // llm.model_name is the answering model after a success and the alias for a stream: the
    // event's model is the requested one (llm.invocation_parameters), the answer's goes to attributes.
    expect(auto[0]!.attributes!['gen_ai.response.model']).toBe(`gpt-4o-mini${RESPONSE_MODEL_SUFFIX}`);
    expect(auto[1]!.attributes!['gen_ai.response.model']).toBeUndefined();

    const manual = await eventsOf('globex', 'gpt-4o');
    expect(manual).toHaveLength(11);
    expect(outcomes(manual)).toEqual([['ok', null, null], ['ok', null, null], ['ok', null, null], ...FAILURES]);
    expect(usage(manual).slice(0, 3)).toEqual([
      [PROMPT_TOKENS, COMPLETION_TOKENS, null],
      [null, null, null],
      [PROMPT_TOKENS, COMPLETION_TOKENS, null],
    ]);
    for (const r of [...auto, ...manual]) {
      expect(r.total_ms).toBe(spanMs(spanOf(r)));
      expect(r).toMatchObject({ tenant: 'globex', node: 'node-b' });
      expect(r.attributes).toMatchObject({ 'service.name': 'rag-api', 'gen_ai.provider.name': 'openai', 'user.id': 'u-43', 'session.id': 's-8' });
    }
  });

  it('Traceloop (OpenLLMetry node-server-sdk): model, tokens, finish reason, tenant and user from association properties', async () => {
    const seen = (await drive('drive-traceloop.cjs')) as { ok: boolean }[];
    expect(seen.filter((s) => s.ok)).toHaveLength(3);
    // Like OpenInference's, Traceloop's openai instrumentation ends only successful calls' spans.
    const rows = await eventsOf('initech', 'gpt-4o-mini');
    expect(outcomes(rows)).toEqual([
      ['ok', null, null],
      ['ok', null, null],
      ['ok', null, null],
    ]);
    // For a stream Traceloop counts the prompt itself (1 token for "stream"), not the server's usage.
    expect(usage(rows)).toEqual([
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'stop'],
      [1, COMPLETION_TOKENS, 'stop'],
      [PROMPT_TOKENS, COMPLETION_TOKENS, 'length'],
    ]);
    for (const r of rows) {
      expect(r.total_ms).toBe(spanMs(spanOf(r)));
      expect(r.attributes).toMatchObject({ 'service.name': 'support-bot', 'gen_ai.provider.name': 'openai', 'user.id': 'u-44', 'session.id': 's-9' });
    }
  });

  it('counts the spans that are not inference (service, chain and workflow spans) in the replies and on /metrics', async () => {
    const ignoredInReplies = exports.map((e) => /(\d+) spans? ignored \(not inference spans\): ([^"\\]*)/.exec(e.reply)).filter((m) => m !== null);
    expect(ignoredInReplies.length).toBeGreaterThan(0);
    const metrics = await (await fetch(`${inferlens.url}/metrics`)).text();
    const counter = (reason: string) => Number(new RegExp(`^inferlens_otlp_spans_ignored_total\\{reason="${reason}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    // 11 "handle …" spans of the GenAI driver; 22 OpenInference CHAIN spans + 3 Traceloop workflow spans.
    expect(counter('not_genai')).toBe(11);
    expect(counter('not_a_model_call')).toBe(25);
    expect(metrics).toMatch(/^inferlens_otlp_spans_rejected_total 0$/m);
  });
});
