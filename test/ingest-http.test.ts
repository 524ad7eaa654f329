// Ingest → query over real HTTP against a real server on an in-memory store.
import { gzipSync } from 'node:zlib';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';

let server: InferlensServer;
const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();

async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(server.url + path, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers: { 'content-type': 'application/x-ndjson', ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');
async function query(q: Record<string, unknown>) {
  const r = await post('/v1/query', JSON.stringify({ from: iso(NOW - 3_600_000), to: iso(NOW + 60_000), ...q }), { 'content-type': 'application/json' });
  return r;
}

beforeAll(async () => {
  const config = loadConfig({ flags: { server: { port: 0, maxBodyBytes: 1024 * 1024 }, storage: { dataDir: ':memory:' }, pipeline: { cardinalityCap: 3 } } });
  server = await startServer(config, { logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await server.stop();
});

describe('POST /v1/events → POST /v1/query', () => {
  it('stores a batch and answers the exact numbers', async () => {
    // total_ms 10…100 for model http-a; v1 = first 5, v2 = last 5; one error in v2.
    const rows = Array.from({ length: 10 }, (_, i) => ({
      ts: i % 2 ? iso(NOW - 60_000 + i) : NOW - 60_000 + i,
      request_id: `http-${i}`,
      model: 'http-a',
      model_version: i < 5 ? 'v1' : 'v2',
      total_ms: (i + 1) * 10,
      stages: { queue_ms: i },
      status: i === 9 ? 'error' : 'ok',
    }));
    const r = await post('/v1/events', ndjson(rows));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ accepted: 10, rejected: [] });
    const q = await query({
      filters: { model: 'http-a' },
      group_by: ['model_version'],
      measures: ['count', 'error_rate', 'p50(total_ms)', 'max(queue_ms)', 'mean(total_ms)'],
    });
    expect(q.status).toBe(200);
    // v1: 10..50 → P50 30, mean 30, max queue 4; v2: 60..100 → P50 80, 1 error of 5 = 0.2
    expect(q.body).toEqual({
      status: 'success',
      data: {
        rows: [
          { model_version: 'v1', count: 5, error_rate: 0, 'p50(total_ms)': 30, 'max(queue_ms)': 4, 'mean(total_ms)': 30 },
          { model_version: 'v2', count: 5, error_rate: 0.2, 'p50(total_ms)': 80, 'max(queue_ms)': 9, 'mean(total_ms)': 80 },
        ],
      },
    });
  });

  it('answers step buckets as RFC 3339', async () => {
    const q = await query({ filters: { model: 'http-a' }, step: '1m', measures: ['count'] });
    const rows = (q.body.data as { rows: { bucket: string; count: number }[] }).rows;
    expect(rows.reduce((a, r) => a + r.count, 0)).toBe(10);
    expect(rows[0]!.bucket).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('takes a JSON array, gzip-encoded', async () => {
    const rows = [{ ts: NOW - 1000, model: 'http-gz', total_ms: 1, request_id: 'gz-1' }];
    const r = await post('/v1/events', gzipSync(JSON.stringify(rows)), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(r.body).toEqual({ accepted: 1, rejected: [] });
  });

  it('does not double-count a re-sent batch', async () => {
    const rows = Array.from({ length: 5 }, (_, i) => ({ ts: NOW - 5000, request_id: `dup-${i}`, model: 'http-dup', status: 'ok' }));
    await post('/v1/events', ndjson(rows));
    const again = await post('/v1/events', ndjson(rows));
    expect(again.body.accepted).toBe(5);
    const q = await query({ filters: { model: 'http-dup' }, measures: ['count'] });
    expect((q.body.data as { rows: unknown[] }).rows).toEqual([{ count: 5 }]);
  });

  it('looks up a request by id', async () => {
    const res = await fetch(`${server.url}/v1/requests/http-3`);
    const body = (await res.json()) as { data: { events: { model_version: string; queue_ms: number }[] } };
    expect(body.data.events).toHaveLength(1);
    expect(body.data.events[0]).toMatchObject({ model_version: 'v1', queue_ms: 3 });
    expect((await fetch(`${server.url}/v1/requests/nope`)).status).toBe(404);
  });

  it('caps dimension cardinality: overflow values become __other__ and are counted', async () => {
    const rows = ['t1', 't2', 't3', 't4', 't5'].map((tenant, i) => ({ ts: NOW - 1000, model: 'http-a', tenant, status: 'ok', request_id: `card-${i}` }));
    expect((await post('/v1/events', ndjson(rows))).body.accepted).toBe(5);
    const q = await query({ filters: { model: 'http-a', tenant: ['t1', 't2', 't3', 't4', 't5', '__other__'] }, group_by: ['tenant'], measures: ['count'] });
    // Cap 3 per dimension: t1, t2, t3 kept; t4 and t5 → __other__.
    expect((q.body.data as { rows: unknown[] }).rows).toEqual([
      { tenant: '__other__', count: 2 },
      { tenant: 't1', count: 1 },
      { tenant: 't2', count: 1 },
      { tenant: 't3', count: 1 },
    ]);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/inferlens_pipeline_cardinality_overflow_total\{dimension="tenant"\} 2/);
  });
});

describe('bad input is answered, never crashed on', () => {
  const good = { ts: NOW - 1000, model: 'bad-ok', total_ms: 5, status: 'ok' };

  it('a mixed batch stores the valid rows and names each bad field', async () => {
    const body = [
      JSON.stringify(good),
      '{"ts": 1, "model": ',
      JSON.stringify({ ...good, total_ms: 'fast' }),
      JSON.stringify({ ...good, stages: { queue_ms: -3 } }),
      `{"ts":${NOW - 1000},"model":"m","total_ms":1e400}`,
      JSON.stringify({ ...good, model: 'x'.repeat(200) }),
      JSON.stringify({ ...good, ts: NOW + 3_600_000 }),
      JSON.stringify({ ...good, status: 'weird' }),
      JSON.stringify({ ...good, mystery: 1 }),
      JSON.stringify({ ts: NOW }),
      '[1,2]',
    ].join('\n');
    const r = await post('/v1/events', body);
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(3); // rows 0, 5 (200-char model) and 8 (unknown field ignored)
    expect(r.body.rejected).toEqual([
      { index: 1, path: '', message: expect.stringMatching(/^malformed JSON/) },
      { index: 2, path: 'total_ms', message: expect.stringMatching(/finite number of milliseconds/) },
      { index: 3, path: 'stages.queue_ms', message: expect.stringMatching(/finite number of milliseconds/) },
      { index: 4, path: 'total_ms', message: expect.stringMatching(/finite number/) },
      { index: 6, path: 'ts', message: expect.stringMatching(/future/) },
      { index: 7, path: 'status', message: expect.stringMatching(/expected one of ok, error/) },
      { index: 9, path: 'model', message: expect.stringMatching(/^required/) },
      { index: 9, path: 'total_ms', message: expect.stringMatching(/total_ms or status/) },
      { index: 10, path: '', message: expect.stringMatching(/JSON object/) },
    ]);
    expect(r.body.warnings).toEqual([{ index: 8, path: 'mystery', message: 'unknown field, ignored' }]);
  });

  it('NaN and Infinity literals are malformed JSON; a 1 MB string is rejected with its path', async () => {
    const r = await post(
      '/v1/events',
      [
        `{"ts":${NOW},"model":"m","total_ms":NaN}`,
        `{"ts":${NOW},"model":"m","total_ms":Infinity}`,
        JSON.stringify({ ...good, tenant: 'y'.repeat(1_000_000) }),
        JSON.stringify(good),
      ].join('\n'),
      {},
    );
    expect(r.status).toBe(200);
    expect((r.body.rejected as { index: number; path: string }[]).map((x) => [x.index, x.path])).toEqual([
      [0, ''],
      [1, ''],
      [2, 'tenant'],
    ]);
  });

  it('400 when no row is valid, with the same reply shape', async () => {
    const r = await post('/v1/events', JSON.stringify({ ts: NOW, model: 'm', total_ms: -1 }));
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 'error', error_type: 'invalid_argument', accepted: 0, rejected: [{ index: 0, path: 'total_ms' }] });
  });

  it('400 for a JSON array body that does not parse', async () => {
    const r = await post('/v1/events', '[{"ts":', { 'content-type': 'application/json' });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(/not valid JSON/);
  });

  it('413 over the body limit, and for a gzip bomb past the limit after decompression', async () => {
    const big = await post('/v1/events', Buffer.alloc(2 * 1024 * 1024, 0x20));
    expect(big.status).toBe(413);
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x20)); // 64 MiB of spaces → ~64 KiB gzip
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const r = await post('/v1/events', bomb, { 'content-encoding': 'gzip' });
    expect(r.status).toBe(413);
    expect(r.body.error).toMatch(/decompressed body is larger/);
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('a bad query names the field', async () => {
    const r = await post('/v1/query', JSON.stringify({ from: iso(NOW), to: iso(NOW - 1), measures: ['p99(nope)', 'count'] }), {
      'content-type': 'application/json',
    });
    expect(r.status).toBe(400);
    expect(r.body.error_type).toBe('invalid_argument');
    const missing = await post('/v1/query', JSON.stringify({ measures: ['count'] }), { 'content-type': 'application/json' });
    expect(missing.status).toBe(400);
    expect((missing.body.issues as { path: string }[]).map((i) => i.path)).toEqual(['from', 'to']);
  });
});

describe('POST /v1/resources', () => {
  it('stores a metric no analysis reads, and says so in warnings and a counter', async () => {
    const r = await post(
      '/v1/resources',
      ndjson([
        { ts: NOW - 30_000, node: 'n1', gpu: '0', metric: 'gpu_memory_used_bytes', value: 1e9 },
        { ts: NOW - 30_000, node: 'n1', gpu: '0', metric: 'gpu_mem_util', value: 0.9 },
        { ts: NOW - 30_000, node: 'n1', metric: 'bad name', value: 1 },
      ]),
    );
    expect(r.status).toBe(200);
    expect(r.body.accepted).toBe(2);
    expect((r.body.rejected as { index: number }[]).map((x) => x.index)).toEqual([2]);
    const warnings = r.body.warnings as { index: number; path: string; message: string }[];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ index: 1, path: 'metric' });
    expect(warnings[0]!.message).toMatch(
      /^"gpu_mem_util" is stored, but no analysis or view reads it; the names read are gpu_utilization_ratio, gpu_memory_used_bytes/,
    );
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    expect(metrics).toMatch(/inferlens_ingest_rows_total\{kind="resource",outcome="unknown_metric"\} 1/);
  });
});
