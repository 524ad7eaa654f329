// Captured samples over real HTTP: ingest → capture policy → samples table → POST /v1/samples/search,
// and GET /v1/requests/:id. The first suite runs the real server (main.ts, default policy); the
// second builds the same stack with an injected RNG, so "not drawn by the baseline" is certain.
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, createKeyring, readsOver, samplesRoutes } from '../src/api/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { createCapturePolicy, createPipeline } from '../src/pipeline/index.ts';
import { createDuckDBStore } from '../src/store/index.ts';

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

interface Sample {
  request_id: string | null;
  reasons: string[];
  input: string | null;
  output: string | null;
  sample_weight: number;
  model: string;
}

describe('samples over HTTP (startServer)', () => {
  let server: InferlensServer;
  beforeAll(async () => {
    const config = loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' } } });
    server = await startServer(config, { logger: pino({ level: 'silent' }), collectors: false });
  });
  afterAll(() => server.stop());

  async function call(method: string, path: string, body?: string, type = 'application/json') {
    const res = await fetch(server.url + path, { method, ...(body !== undefined ? { body, headers: { 'content-type': type } } : {}) });
    return { status: res.status, body: (await res.json()) as { status: string; data: Record<string, unknown>; error?: string } };
  }
  const search = (q: Record<string, unknown>) =>
    call('POST', '/v1/samples/search', JSON.stringify({ from: iso(NOW - 3_600_000), to: iso(NOW + 60_000), ...q }));

  it('keeps an error event with an e-mail in its input, redacted, and finds it by slice, reason and request', async () => {
    const ts = NOW - 30_000;
    const rows = [
      {
        ts,
        request_id: 'err-1',
        model: 'chat',
        model_version: 'v7',
        tenant: 'acme',
        status: 'error',
        error_type: 'bad_input',
        input: 'please mail jane.doe@example.com',
        output: 'failed',
      },
      { ts: ts + 1, request_id: 'ok-1', model: 'chat', model_version: 'v7', tenant: 'acme', status: 'ok', total_ms: 5 },
    ];
    expect((await call('POST', '/v1/events', ndjson(rows), 'application/x-ndjson')).status).toBe(200);

    // "The samples behind this chart point": the slice and the one-minute bucket that holds ts.
    const bucket = ts - (ts % 60_000);
    const r = await search({
      from: iso(bucket),
      to: iso(bucket + 60_000),
      filters: { model: 'chat', model_version: 'v7', status: 'error' },
      reasons: ['error'],
    });
    expect(r.status).toBe(200);
    const samples = r.body.data.samples as Sample[];
    expect(samples).toHaveLength(1);
    expect(samples[0]).toMatchObject({ request_id: 'err-1', input: 'please mail [EMAIL]', output: 'failed', sample_weight: 1 });
    expect(samples[0]!.reasons[0]).toBe('error');
    expect(JSON.stringify(r.body)).not.toContain('jane.doe');

    // The request lookup carries its samples.
    const req = await call('GET', '/v1/requests/err-1');
    expect(req.status).toBe(200);
    expect((req.body.data.samples as Sample[]).map((s) => s.input)).toEqual(['please mail [EMAIL]']);
    expect((await call('GET', '/v1/requests/ok-1')).body.data.samples).toEqual([]);

    // The events table never holds the raw text.
    const ev = await call(
      'POST',
      '/v1/events/search',
      JSON.stringify({
        from: iso(NOW - 3_600_000),
        to: iso(NOW + 60_000),
        filters: { model: 'chat' },
        columns: ['request_id', 'input', 'output', 'risk_tags'],
      }),
    );
    const events = ev.body.data.events as Record<string, unknown>[];
    expect(events.map((e) => e.request_id).sort()).toEqual(['err-1', 'ok-1']);
    for (const e of events) expect([e.input, e.output, e.risk_tags]).toEqual([null, null, null]);
  });

  it('answers bad searches with 400 and what to fix', async () => {
    const bad = await search({ filters: { pool: 'a' }, reasons: ['because'], limit: 5000 });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/filters/);
    expect(bad.body.error).toMatch(/reasons/);
    expect(bad.body.error).toMatch(/limit/);
    expect((await call('POST', '/v1/samples/search', '{not json')).status).toBe(400);
  });
});

describe('samples over HTTP (injected RNG)', () => {
  it('does not keep an ok event outside every rule that the baseline did not draw, and never stores its text', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    await store.migrate();
    const registry = new Registry();
    const logger = pino({ level: 'silent' });
    // rng 0.5 ≥ baselineRate 0.01: never drawn. firstPerVersion 0: no new-version keeps.
    const capture = createCapturePolicy({ config: { firstPerVersion: 0 }, registry, rng: () => 0.5 });
    const pipeline = createPipeline({ store, logger, registry, retentionDays: 7, cardinalityCap: 100, maxQueueRows: 10_000, maxBatchRows: 1000, capture });
    const reads = readsOver(store);
    const { app } = createApi({
      sink: pipeline,
      reads: () => reads,
      keyring: createKeyring({}),
      logger,
      registry,
      maxBodyBytes: 1 << 20,
      ready: () => true,
      routes: [samplesRoutes()],
    });
    try {
      const rows = [
        {
          ts: NOW - 2000,
          request_id: 'quiet',
          model: 'cls',
          model_version: 'v1',
          status: 'ok',
          confidence: 0.97,
          input: 'a quiet secret 4111 1111 1111 1111',
          output: 'positive',
        },
        {
          ts: NOW - 1000,
          request_id: 'loud',
          model: 'cls',
          model_version: 'v1',
          status: 'ok',
          confidence: 0.1,
          input: 'low confidence from 10.0.0.7',
          output: 'negative',
        },
      ];
      const ingest = await app.request('/v1/events', { method: 'POST', body: ndjson(rows), headers: { 'content-type': 'application/x-ndjson' } });
      expect(ingest.status).toBe(200);
      const res = await app.request('/v1/samples/search', {
        method: 'POST',
        body: JSON.stringify({ from: iso(NOW - 60_000), to: iso(NOW + 60_000), filters: { model: 'cls' }, limit: 10 }),
        headers: { 'content-type': 'application/json' },
      });
      const body = (await res.json()) as { status: string; data: { samples: Sample[] } };
      expect(body.status).toBe('success');
      expect(body.data.samples.map((s) => [s.request_id, s.reasons, s.input])).toEqual([['loud', ['low_confidence'], 'low confidence from [IP]']]);
      const events = await store.listEvents({ fromMs: NOW - 60_000, toMs: NOW + 60_000, filters: {}, limit: 10 });
      expect(events).toHaveLength(2);
      expect(events.every((e) => e.input == null && e.output == null)).toBe(true);
    } finally {
      await pipeline.stop();
      await store.close();
    }
  });
});
