// Route × role × tenant, generated from the server's own route table: every declared route is
// called with no key and with a key of every role (and tenant-scoped keys), and must answer 401,
// 403 or pass the guard exactly as its declared access says. Every read route also has a sample
// request here, run with an unscoped and an acme-scoped read key over data of two tenants: the
// scoped answer must never hold the other tenant. A route added without a declared access stops
// createApi (checked below); a read route added without a sample here fails this test.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApi, createKeyring, generateKey } from '../src/api/index.ts';
import type { Route } from '../src/api/index.ts';
import type { InferlensServer } from '../src/main.ts';
import { roleAllows } from '../src/schema/index.ts';
import type { KeyRecord, Role } from '../src/schema/index.ts';
import { NOW, TENANTS, W, readSamples, startTenantServer } from './two-tenants.ts';

interface Cred {
  label: string;
  role: Role;
  tenants: string[] | null;
  key: string;
}

const specs: { label: string; role: Role; tenants?: string[] }[] = [
  { label: 'ingest', role: 'ingest' },
  { label: 'read', role: 'read' },
  { label: 'operate', role: 'operate' },
  { label: 'admin', role: 'admin' },
  { label: 'metrics', role: 'metrics' },
  { label: 'read@acme', role: 'read', tenants: ['acme'] },
  { label: 'ingest@acme', role: 'ingest', tenants: ['acme'] },
  { label: 'operate@acme', role: 'operate', tenants: ['acme'] },
];
const made = specs.map((s) => ({ s, ...generateKey({ name: s.label, role: s.role, tenants: s.tenants ?? null, nowMs: NOW }) }));
const creds: Cred[] = made.map((m) => ({ label: m.s.label, role: m.s.role, tenants: m.s.tenants ?? null, key: m.key }));
const cred = (label: string) => creds.find((c) => c.label === label)!;

let server: InferlensServer;
let tmp: string;

async function call(method: string, path: string, o: { key?: string; body?: string; type?: string } = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  if (o.key) headers.authorization = `Bearer ${o.key}`;
  if (o.type) headers['content-type'] = o.type;
  const res = await fetch(server.url + path, { method, headers, ...(o.body !== undefined ? { body: o.body } : {}) });
  return { status: res.status, text: await res.text() };
}

const post = (path: string, body: unknown, key: string, type = 'application/json') =>
  call('POST', path, { key, body: typeof body === 'string' ? body : JSON.stringify(body), type });

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'inferlens-matrix-'));
  const ui = join(tmp, 'ui');
  mkdirSync(ui);
  writeFileSync(join(ui, 'index.html'), '<!doctype html><title>inferlens</title>');
  server = await startTenantServer(tmp, {
    server: { keys: made.map((m) => m.record) },
    options: { uiDir: ui },
    key: made.find((m) => m.s.role === 'admin')!.key,
  });
  const admin = cred('admin').key;
  expect(
    (
      await post(
        '/v1/feedback',
        TENANTS.map((t) => ({ ts: NOW - 60_000, request_id: `${t[0]}-1`, kind: 'thumbs', value: true })),
        admin,
      )
    ).status,
  ).toBe(200);
  const resources = TENANTS.flatMap((t) =>
    Array.from({ length: 10 }, (_, i) => [
      { ts: NOW - 30 * 60_000 + i * 60_000, node: `${t}-node`, gpu: '0', metric: 'gpu_memory_used_bytes', value: 4e10 },
      { ts: NOW - 30 * 60_000 + i * 60_000, node: `${t}-node`, gpu: '0', metric: 'gpu_memory_total_bytes', value: 8e10 },
      { ts: NOW - 30 * 60_000 + i * 60_000, node: `${t}-node`, gpu: '0', metric: 'gpu_utilization_ratio', value: 0.5 },
    ]).flat(),
  );
  expect((await post('/v1/resources', resources, admin)).status).toBe(200);
  // A fleet-wide silence by the unscoped operator (audited, tenants null).
  expect((await post('/v1/silences', { matchers: ['model="globex-model"'], duration_s: 600 }, cred('operate').key)).status).toBe(200);
});

afterAll(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

/** A concrete path for a route: `:id` → x, `:dimension` → model, `*` → a dashboard page. */
const concrete = (r: Route) => (r.path === '*' ? '/runtime' : r.path.replace(':dimension', 'model').replace(/:\w+/g, 'x'));

describe('route × role × tenant', () => {
  it('every route answers each credential as its declared access says', async () => {
    const routes = server.routes;
    expect(routes.length).toBeGreaterThan(35);
    const wrong: string[] = [];
    for (const r of routes) {
      for (const c of [undefined, ...creds]) {
        const body = r.method === 'POST' ? '{}' : undefined;
        const res = await call(r.method, concrete(r), {
          ...(c ? { key: c.key } : {}),
          ...(body !== undefined ? { body, type: r.accepts?.[0] ?? 'application/json' } : {}),
        });
        const want = r.access === 'public' ? 'passes' : !c ? 401 : roleAllows(c.role, r.access) ? 'passes' : 403;
        // GET /v1/session itself answers 401 to a browser that is not signed in.
        const designed401 = r.path === '/v1/session' && r.method === 'GET' && !c;
        const got = res.status >= 500 ? `5xx ${res.status}` : (res.status === 401 && !designed401) || res.status === 403 ? res.status : 'passes';
        if (got !== want)
          wrong.push(`${r.method} ${r.path} as ${c?.label ?? 'no key'}: ${res.status} (declared ${r.access}, expected ${want}) ${res.text.slice(0, 120)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('state changes are never open to the read role or to anyone (except signing in and out)', () => {
    const changes = server.routes.filter((r) => r.method !== 'GET' && r.access !== 'read');
    const open = changes.filter((r) => r.access === 'public').map((r) => `${r.method} ${r.path}`);
    expect(open.sort()).toEqual(['DELETE /v1/session', 'POST /v1/session']);
    // A POST declared `read` must be a query: these are all of them (a new one is a conscious choice).
    expect(
      server.routes
        .filter((r) => r.method !== 'GET' && r.access === 'read')
        .map((r) => r.path)
        .sort(),
    ).toEqual([
      '/v1/analysis/capacity',
      '/v1/analysis/errors',
      '/v1/analysis/saturation',
      '/v1/analysis/stages',
      '/v1/compare',
      '/v1/cost',
      '/v1/events/search',
      '/v1/histogram',
      '/v1/quality/drift',
      '/v1/quality/feedback',
      '/v1/quality/summary',
      '/v1/query',
      '/v1/resources/quantiles',
      '/v1/resources/query',
      '/v1/samples/search',
    ]);
    // Every audited change is one a role grants, and the operator's changes are audited.
    for (const r of changes.filter((x) => x.access === 'operate')) expect(r.audit, `${r.method} ${r.path}`).toBeDefined();
  });

  it('a tenant-scoped read key never sees the other tenant on any read route', async () => {
    const samples = readSamples(W);
    const reads = server.routes.filter((r) => r.access === 'read').map((r) => `${r.method} ${r.path}`);
    expect(
      reads.filter((k) => !samples[k]),
      'read routes without a sample request in this test',
    ).toEqual([]);
    const leaks: string[] = [];
    const seen: string[] = [];
    for (const k of reads) {
      const s = samples[k]!;
      expect(JSON.stringify(s)).not.toContain('globex');
      const run = (key: string) => (s.body === undefined ? call('GET', s.path, { key }) : post(s.path, s.body, key));
      const all = await run(cred('read').key);
      const mine = await run(cred('read@acme').key);
      expect(all.status, `${k} unscoped: ${all.text.slice(0, 200)}`).toBe(200);
      expect(mine.status, `${k} acme: ${mine.text.slice(0, 200)}`).toBe(k === 'GET /v1/requests/:id' ? 404 : 200);
      if (all.text.includes('globex')) seen.push(k);
      if (mine.text.includes('globex')) leaks.push(`${k}: ${mine.text.slice(0, 300)}`);
    }
    expect(leaks).toEqual([]);
    // The check can fail: unscoped, these routes do answer with the other tenant's data.
    expect(seen).toEqual(
      expect.arrayContaining([
        'GET /v1/requests/:id',
        'GET /v1/labels/:dimension',
        'POST /v1/query',
        'POST /v1/events/search',
        'POST /v1/analysis/errors',
        'POST /v1/resources/query',
        'POST /v1/analysis/capacity',
        'GET /v1/audit',
        'POST /v1/samples/search',
        'POST /v1/cost',
        'GET /v1/reports',
        'POST /v1/quality/summary',
        'POST /v1/quality/feedback',
        'GET /v1/alerts',
        'GET /v1/incidents',
        'GET /v1/silences',
        'GET /v1/actions',
      ]),
    );
    // Naming the other tenant is refused, not answered empty.
    const other = await post('/v1/query', { ...W, filters: { tenant: 'globex' }, measures: ['count'] }, cred('read@acme').key);
    expect(other.status).toBe(403);
    expect(other.text).toMatch(/tenants acme only/);
    // The verdict is computed from the tenant's own traffic: half the requests of the unscoped one.
    const compare = samples['POST /v1/compare']!.body;
    const n = async (key: string) => (JSON.parse((await post('/v1/compare', compare, key)).text) as { data: { baseline: { n: number } } }).data.baseline.n;
    expect([await n(cred('read').key), await n(cred('read@acme').key)]).toEqual([60, 30]);
  });

  it('a tenant-scoped ingest key writes only its tenant', async () => {
    const key = cred('ingest@acme').key;
    const rows = [
      { ts: NOW - 1000, request_id: 'w-1', model: 'acme-model', tenant: 'acme', total_ms: 5, status: 'ok' },
      { ts: NOW - 1000, request_id: 'w-2', model: 'acme-model', tenant: 'globex', total_ms: 5, status: 'ok' },
      { ts: NOW - 1000, request_id: 'w-3', model: 'acme-model', total_ms: 5, status: 'ok' },
      // Duplicate keys: JSON.parse keeps the last; the stored row must be the checked one.
      '{"ts":' + (NOW - 1000) + ',"request_id":"w-4","model":"acme-model","tenant":"globex","tenant":"acme","total_ms":5,"status":"ok"}',
    ];
    const res = await post('/v1/events', rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n'), key, 'application/x-ndjson');
    expect(res.status).toBe(200);
    const reply = JSON.parse(res.text) as { accepted: number; rejected: { index: number; path: string; message: string }[] };
    expect(reply.accepted).toBe(2);
    expect(reply.rejected.map((r) => [r.index, r.path])).toEqual([
      [1, 'tenant'],
      [2, 'tenant'],
    ]);
    const stored = await post('/v1/query', { ...W, filters: { model: 'acme-model' }, group_by: ['tenant'], measures: ['n'] }, cred('read').key);
    const byTenant = (JSON.parse(stored.text) as { data: { rows: { tenant: string; n: number }[] } }).data.rows;
    expect(byTenant).toEqual([{ tenant: 'acme', n: 62 }]);
    // Resource samples and feedback carry no tenant: a scoped key cannot send them.
    const resources = await post('/v1/resources', [{ ts: NOW - 1000, node: 'n', metric: 'cpu_utilization_ratio', value: 0.5 }], key);
    expect(resources.status).toBe(400);
    expect(resources.text).toMatch(/carry no tenant/);
    expect((await post('/v1/feedback', [{ ts: NOW - 1000, request_id: 'w-1', kind: 'thumbs', value: true }], key)).status).toBe(400);
    // OTLP spans of another tenant are refused in the partial-success reply.
    const span = (tenant: string) => ({
      traceId: '0af7651916cd43dd8448eb211c80319c',
      spanId: 'b7ad6b7169203331',
      name: 'infer',
      startTimeUnixNano: String((NOW - 2000) * 1e6),
      endTimeUnixNano: String((NOW - 1990) * 1e6),
      attributes: [
        { key: 'inferlens.model', value: { stringValue: 'acme-model' } },
        { key: 'inferlens.tenant', value: { stringValue: tenant } },
      ],
    });
    const otlp = await post('/v1/traces', { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span('globex')] }] }] }, key);
    expect(otlp.status).toBe(200);
    expect(otlp.text).toMatch(/"rejectedSpans":"?1"?/);
    expect(otlp.text).toMatch(/tenant/);
  });

  it('docs/api.md lists every route with the role the route table declares', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'api.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| `(GET|POST|DELETE) ([^`]+)`(?: \([^)]*\))? \| (public|ingest|read|operate|admin|metrics) \| ([a-z.]*) ?\|$/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]} ${m[4]}`,
    );
    const declared = server.routes.map((r) => `${r.method} ${r.path} ${r.access} ${r.audit ?? ''}`);
    expect(listed.sort()).toEqual(declared.sort());
  });

  it('docs/api.md documents every route: one section each with its request, reply, errors and an example', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', 'docs', 'api.md'), 'utf8');
    // Sections are `### \`METHOD /path\`` headings; a section runs to the next heading.
    const sections = [...doc.matchAll(/^### `((?:GET|POST|DELETE) [^`]+)`\n([\s\S]*?)(?=^#{2,3} |(?![\s\S]))/gm)].map((m) => ({ route: m[1]!, body: m[2]! }));
    const documented = sections.map((x) => x.route);
    const declared = server.routes.map((r) => `${r.method} ${r.path}`);
    expect(
      documented.filter((r, i) => documented.indexOf(r) !== i),
      'documented twice',
    ).toEqual([]);
    expect([...documented].sort()).toEqual([...declared].sort());
    const incomplete = sections.flatMap((x) =>
      ['**Request**', '**Reply**', '**Errors**', '**Example**'].filter((part) => !x.body.includes(part)).map((part) => `${x.route}: no ${part}`),
    );
    expect(incomplete).toEqual([]);
  });

  it('a route without a declared access stops the API from being built', () => {
    const build = (mount: Parameters<typeof createApi>[0]['mounts']) =>
      createApi({
        sink: {
          admit: () => undefined,
          writeEvents: async () => ({ accepted: 0, rejected: [] }),
          writeResources: async () => ({ accepted: 0, rejected: [] }),
          writeFeedback: async () => ({ accepted: 0, rejected: [] }),
        },
        reads: () => {
          throw new Error('unused');
        },
        keyring: createKeyring({ keys: [] as KeyRecord[] }),
        logger: pino({ level: 'silent' }),
        registry: new Registry(),
        maxBodyBytes: 1024,
        ready: () => true,
        ...(mount ? { mounts: mount } : {}),
      });
    expect(() => build(undefined)).not.toThrow();
    expect(() => build([(app) => app.post('/v1/rules/backtest', (c) => c.text('unguarded'))])).toThrow(/without a declared access.*POST \/v1\/rules\/backtest/);
  });
});
