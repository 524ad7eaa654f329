// Quality routes over real HTTP: the real server and pipeline on an in-memory store, a real model
// server for the golden probes configured as a user would (quality.probes).
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';

let server: InferlensServer;
let model: Server;
let modelUrl: string;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const RANGE = { from: iso(NOW - 3_600_000), to: iso(NOW + 60_000) };

async function call(method: 'GET' | 'POST', path: string, body?: string, type = 'application/json') {
  const res = await fetch(server.url + path, { method, ...(body !== undefined ? { body, headers: { 'content-type': type } } : {}) });
  return { status: res.status, body: (await res.json()) as { status: string; data: Record<string, unknown> } & Record<string, unknown> };
}
const post = (path: string, body: unknown) => call('POST', path, JSON.stringify(body));
const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');

beforeAll(async () => {
  // /v1 answers right (spam when the text says "win"), /v2 always says ham.
  model = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      const { text } = JSON.parse(data) as { text: string };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ label: req.url === '/v1' && text.includes('win') ? 'spam' : 'ham' }));
    });
  });
  await new Promise<void>((r) => model.listen(0, '127.0.0.1', () => r()));
  modelUrl = `http://127.0.0.1:${(model.address() as AddressInfo).port}`;

  // The server wires the quality routes and the probe runner from its configuration.
  const config = loadConfig({
    flags: {
      server: { port: 0 },
      storage: { dataDir: ':memory:' },
      alerting: { enabled: false },
      quality: {
        probes: {
          interval_ms: 3_600_000,
          targets: ['v1', 'v2'].map((v) => ({ model: 'spam', model_version: v, url: `${modelUrl}/${v}`, body: { text: '{{input}}' } })),
        },
      },
    },
  });
  server = await startServer(config, { logger: pino({ level: 'silent' }), collectors: false });
});
afterAll(async () => {
  await server.stop();
  await new Promise<void>((r) => model.close(() => r()));
});

describe('golden sets, probes and results over HTTP', () => {
  it('registers a YAML set, runs the probes through the pipeline and reports pass rates', async () => {
    const yaml = `name: spam-basic\nmodel: spam\nchecker: label_equals\nsamples:\n  - { id: g1, input: "win money now", expected: spam }\n  - { id: g2, input: "lunch?", expected: ham }\n`;
    const reg = await call('POST', '/v1/golden/sets', yaml, 'application/yaml');
    expect(reg.status).toBe(200);
    expect(reg.body.data.sets).toEqual([expect.objectContaining({ name: 'spam-basic', samples: 2 })]);
    expect((await call('GET', '/v1/golden/sets')).body.data.sets).toHaveLength(1);

    const run = await post('/v1/golden/run', {});
    expect(run.body.data).toEqual({ calls: 4, passed: 3, failed: 1, errors: 0, written: 4, rejected: 0 });

    const res = await call('GET', `/v1/golden/results?from=${RANGE.from}&to=${RANGE.to}&set=spam-basic`);
    expect(res.status).toBe(200);
    const data = res.body.data as { versions: { model_version: string; pass_rate: number }[]; failing: { golden_id: string; model_version: string }[] };
    expect(data.versions.map((v) => [v.model_version, v.pass_rate])).toEqual([
      ['v1', 1],
      ['v2', 0.5],
    ]);
    expect(data.failing.map((f) => [f.golden_id, f.model_version])).toEqual([['g1', 'v2']]);
  });

  it('answers a bad set with field paths', async () => {
    const r = await post('/v1/golden/sets', { name: 'x', samples: [{ id: 'a', input: 1, expected: '(', checker: 'regex' }] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'error', error_type: 'invalid_argument', issues: [{ path: 'samples.0.expected' }] });
  });
});

describe('feedback joins over HTTP', () => {
  it('counts feedback that arrives before its request as an orphan, then matches it', async () => {
    const fb = await call('POST', '/v1/feedback', ndjson([{ ts: NOW, request_id: 'q-late', kind: 'correct', value: false }]), 'application/x-ndjson');
    expect(fb.status).toBe(200);
    const before = await post('/v1/quality/feedback', { ...RANGE, filters: { model: 'qclf' } });
    expect(before.body.data).toEqual({ rows: [expect.objectContaining({ requests: 0 })], orphans: 1 });

    const ev = await call(
      'POST',
      '/v1/events',
      ndjson([
        { ts: NOW - 1000, request_id: 'q-late', model: 'qclf', model_version: 'v1', status: 'ok', label: 'spam', confidence: 0.4 },
        { ts: NOW - 900, request_id: 'q-ok', model: 'qclf', model_version: 'v1', status: 'ok', label: 'ham', confidence: 0.9 },
      ]),
      'application/x-ndjson',
    );
    expect(ev.status).toBe(200);
    await call('POST', '/v1/feedback', ndjson([{ ts: NOW, request_id: 'q-ok', kind: 'correct', value: true }]), 'application/x-ndjson');
    // 1 of 2 correct; nothing orphaned any more.
    const after = await post('/v1/quality/feedback', { ...RANGE, filters: { model: 'qclf' }, group_by: ['model_version'] });
    expect(after.body.data).toEqual({
      rows: [expect.objectContaining({ model_version: 'v1', requests: 2, with_feedback: 2, correct_n: 2, correct_rate: 0.5 })],
      orphans: 0,
    });

    const summary = await post('/v1/quality/summary', { ...RANGE, filters: { model: 'qclf' } });
    const models = (summary.body.data as { models: { model: string; type: string; measures: Record<string, unknown>[] }[] }).models;
    expect(models.map((m) => [m.model, m.type])).toEqual([['qclf', 'classifier']]);
    expect(models[0]!.measures[0]).toMatchObject({ n: 2, 'below_rate(confidence, 0.6)': 0.5 });

    const drift = await post('/v1/quality/drift', { ...RANGE, fields: ['confidence'] });
    expect(drift.status).toBe(200);
    expect(drift.body.data).toMatchObject({ fields: [{ field: 'confidence', test: { verdict: 'not_enough_data' } }] });
    const bad = await post('/v1/quality/drift', { ...RANGE, reference: { kind: 'version' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error_type: 'invalid_argument', issues: [{ path: 'reference.model_version' }] });
  });
});
