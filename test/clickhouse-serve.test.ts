// inferlens serving from ClickHouse (the chdb engine in-process, the same @clickhouse/client code
// that talks to a server): exact quantiles and idempotent re-sends over HTTP as on DuckDB (durable
// acknowledgement: test/durability.test.ts runs on both stores); roles (ingest, query, alerting instances sharing one store); and a ClickHouse
// that is down at start or goes away later: /readyz not ready, ingest 503 with Retry-After,
// recovery without a restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import type { ConfigInput } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import { InferlensError } from '../src/schema/index.ts';
import { createClickHouseStore, openChdbConnection } from '../src/store/index.ts';
import type { Store } from '../src/store/index.ts';

// One process holds one chdb folder: every in-process server of this file uses this one, each test
// its own database.
const dir = mkdtempSync(join(tmpdir(), 'inferlens-ch-serve-'));
const chdbPath = join(dir, 'chdb');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const NOW = Date.now();
const iso = (ms: number) => new Date(ms).toISOString();
const silent = pino({ level: 'silent' });

function config(database: string, extra: ConfigInput = {}) {
  return loadConfig({
    flags: {
      ...extra,
      server: { port: 0, ...extra.server },
      storage: { dataDir: join(dir, database), backend: 'clickhouse', clickhouse: { chdbPath, database } },
      collectors: { host: { enabled: false }, gpu: { enabled: false } },
    },
  });
}

async function post(url: string, path: string, body: string, type = 'application/x-ndjson') {
  const res = await fetch(url + path, { method: 'POST', body, headers: { 'content-type': type } });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}
const ndjson = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n');
async function query(url: string, measures: string[], extra: Record<string, unknown> = {}) {
  const r = await post(url, '/v1/query', JSON.stringify({ from: iso(NOW - 3_600_000), to: iso(NOW + 60_000), measures, ...extra }), 'application/json');
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return (r.body.data as { rows: Record<string, unknown>[] }).rows;
}

describe('serve on ClickHouse', () => {
  it('answers exact quantiles and stores re-sent rows once', async () => {
    const server = await startServer(config('exact'), { logger: silent, ui: false });
    try {
      // total_ms 10, 20, …, 100: P50 = 55, P90 = 91, P99 = 99.1 (type 7: h = 9q); 2 errors of 10.
      const rows = Array.from({ length: 10 }, (_, i) => ({
        ts: NOW - 60_000 + i,
        request_id: `q-${i}`,
        model: 'ch',
        total_ms: (i + 1) * 10,
        status: i % 5 === 4 ? 'error' : 'ok',
      }));
      expect((await post(server.url, '/v1/events', ndjson(rows))).body).toEqual({ accepted: 10, rejected: [] });
      // The same batch again, and half of it inside another batch: accepted, stored once.
      expect((await post(server.url, '/v1/events', ndjson(rows))).status).toBe(200);
      expect(
        (await post(server.url, '/v1/events', ndjson([...rows.slice(5), { ts: NOW - 1000, request_id: 'q-new', model: 'ch', total_ms: 1, status: 'ok' }])))
          .status,
      ).toBe(200);
      const [all] = await query(server.url, ['count', 'p50(total_ms)', 'p90(total_ms)', 'p99(total_ms)', 'error_rate'], { filters: { model: 'ch' } });
      expect(all).toMatchObject({ count: 11, 'p50(total_ms)': 50, error_rate: 2 / 11 });
      const [orig] = await query(server.url, ['count', 'p50(total_ms)', 'p90(total_ms)', 'p99(total_ms)', 'error_rate'], {
        filters: { model: 'ch' },
        to: iso(NOW - 30_000),
      });
      expect(orig).toEqual({ count: 10, 'p50(total_ms)': 55, 'p90(total_ms)': 91, 'p99(total_ms)': expect.closeTo(99.1, 9), error_rate: 0.2 });
      // The dashboard's approximate path answers from the materialized-view rollup.
      const approx = await post(
        server.url,
        '/v1/query',
        JSON.stringify({
          from: iso(Math.floor(NOW / 60_000) * 60_000 - 600_000),
          to: iso(Math.floor(NOW / 60_000) * 60_000),
          measures: ['count'],
          filters: { model: 'ch' },
          approx: true,
        }),
        'application/json',
      );
      expect(approx.body.data).toMatchObject({ approx: { source: 'rollup_1m' } });
    } finally {
      await server.stop();
    }
  });

  it('runs as separate ingest, query and alerting instances on one store', async () => {
    // Started together, so they migrate the new database together.
    const [ingest, ingest2, reader, alerting] = await Promise.all([
      startServer(config('roles', { role: 'ingest' }), { logger: silent }),
      startServer(config('roles', { role: 'ingest' }), { logger: silent }),
      startServer(config('roles', { role: 'query' }), { logger: silent, ui: false }),
      startServer(config('roles', { role: 'alerting' }), { logger: silent }),
    ]);
    try {
      const rows = (prefix: string) =>
        Array.from({ length: 6 }, (_, i) => ({
          ts: NOW - 30_000 + i,
          request_id: `${prefix}-${i}`,
          model: 'roles',
          tenant: prefix,
          total_ms: 5 + i,
          status: 'ok',
        }));
      expect((await post(ingest.url, '/v1/events', ndjson(rows('a')))).body).toEqual({ accepted: 6, rejected: [] });
      expect((await post(ingest2.url, '/v1/events', ndjson(rows('b')))).body).toEqual({ accepted: 6, rejected: [] });
      // A row re-sent to the other ingest instance is stored once.
      expect((await post(ingest2.url, '/v1/events', ndjson(rows('a').slice(0, 2)))).status).toBe(200);
      expect(await query(reader.url, ['count', 'max(total_ms)'], { filters: { model: 'roles' }, group_by: ['tenant'] })).toEqual([
        { tenant: 'a', count: 6, 'max(total_ms)': 10 },
        { tenant: 'b', count: 6, 'max(total_ms)': 10 },
      ]);
      // Each instance serves its role's routes only.
      expect((await post(reader.url, '/v1/events', ndjson(rows('c')))).status).toBe(404);
      expect((await post(ingest.url, '/v1/query', '{}', 'application/json')).status).toBe(404);
      expect((await post(alerting.url, '/v1/events', ndjson(rows('c')))).status).toBe(404);
      expect((await fetch(`${alerting.url}/v1/alerts`)).status).toBe(200);
      expect((await fetch(`${reader.url}/v1/alerts`)).status).toBe(404);
      for (const s of [ingest, ingest2, reader, alerting]) expect(await (await fetch(`${s.url}/readyz`)).text()).toBe('ready');
      expect(ingest.alerting).toBeUndefined();
      expect(reader.alerting).toBeUndefined();
      expect(alerting.alerting).toBeDefined();
    } finally {
      for (const s of [ingest, ingest2, reader, alerting]) await s.stop();
    }
  });

  it('refuses a role other than all on DuckDB, and ClickHouse without a place, with the reason', () => {
    expect(() => loadConfig({ flags: { role: 'ingest' } })).toThrow(/role ingest needs storage.backend clickhouse/);
    expect(() => loadConfig({ flags: { storage: { backend: 'clickhouse' } } })).toThrow(/exactly one of storage.clickhouse.url/);
    expect(
      loadConfig({ env: { INFERLENS_STORAGE_BACKEND: 'clickhouse', INFERLENS_CLICKHOUSE_URL: 'http://ch:8123', INFERLENS_CLICKHOUSE_PASSWORD: 'p' } }).storage
        .clickhouse,
    ).toMatchObject({ url: 'http://ch:8123', password: 'p', database: 'inferlens' });
  });

  it('starts not ready when ClickHouse cannot be reached, and answers ingest with 503 and Retry-After', async () => {
    const cfg = loadConfig({
      flags: {
        server: { port: 0 },
        storage: { dataDir: join(dir, 'down'), backend: 'clickhouse', clickhouse: { url: 'http://127.0.0.1:9', requestTimeoutMs: 2000 } },
        collectors: { host: { enabled: false }, gpu: { enabled: false } },
      },
    });
    const server = await startServer(cfg, { logger: silent, ui: false });
    try {
      const ready = await fetch(`${server.url}/readyz`);
      expect([ready.status, await ready.text()]).toEqual([503, 'not ready']);
      const r = await post(server.url, '/v1/events', ndjson([{ ts: NOW, model: 'down', total_ms: 1 }]));
      expect(r.status).toBe(503);
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(String(r.body.error)).toMatch(/ClickHouse schema at http:\/\/127\.0\.0\.1:9 is not migrated yet/);
      expect(
        (await post(server.url, '/v1/query', JSON.stringify({ from: iso(NOW - 60_000), to: iso(NOW), measures: ['count'] }), 'application/json')).status,
      ).toBe(503);
    } finally {
      await server.stop();
    }
  });

  it('recovers without a restart when ClickHouse comes back', async () => {
    // The real store behind a switch that fails every call as a refused connection would.
    const real = createClickHouseStore({ connection: await openChdbConnection(chdbPath), database: 'outage' });
    let down = true;
    const outage = () => new InferlensError('unavailable', 'ClickHouse at chdb is unreachable (test outage)', { retryAfterS: 5 });
    const store = new Proxy(real, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function' || prop === 'close') return v;
        return (...args: unknown[]) => (down ? Promise.reject(outage()) : (v as (...a: unknown[]) => unknown).apply(target, args));
      },
    }) as Store;
    const server = await startServer(config('outage'), { logger: silent, ui: false, store });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      const body = ndjson([{ ts: NOW - 1000, request_id: 'o-1', model: 'outage', total_ms: 3, status: 'ok' }]);
      expect((await post(server.url, '/v1/events', body)).status).toBe(503);
      down = false;
      // Reachable but not migrated yet: still 503 (retryable), never a 500.
      const early = await post(server.url, '/v1/events', body);
      if (early.status !== 200) expect([early.status, String(early.body.error)]).toEqual([503, expect.stringMatching(/not migrated yet/)]);
      // The background retry migrates; then the server is ready and takes writes.
      for (let i = 0; i < 200 && (await fetch(`${server.url}/readyz`)).status !== 200; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await (await fetch(`${server.url}/readyz`)).text()).toBe('ready');
      expect((await post(server.url, '/v1/events', body)).body).toEqual({ accepted: 1, rejected: [] });
      expect(await query(server.url, ['count'], { filters: { model: 'outage' } })).toEqual([{ count: 1 }]);
      // Down again after start: writes 503, then back.
      down = true;
      expect((await post(server.url, '/v1/events', body)).status).toBe(503);
      down = false;
      expect((await post(server.url, '/v1/events', body)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
