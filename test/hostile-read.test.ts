// Hostile input on every read, query, analysis and alerting route of a real server (over HTTP, with
// data of two tenants and firing alerts): malformed JSON, wrong types, numeric edges, huge strings,
// prototype keys, SQL-looking values, path traversal, Unicode edge cases, impossible timestamps and
// steps. Every answer must be a 4xx (or a 2xx for what is valid) in the error envelope, never a
// 5xx; the server must stay up and still answer a real query the same way afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferlensServer } from '../src/main.ts';
import { W, readSamples, startTenantServer } from './two-tenants.ts';

let server: InferlensServer;
let tmp: string;

/** Values that have broken parsers, SQL builders and date code somewhere. */
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  -1e308,
  5e-324,
  2 ** 53 + 1,
  '',
  'NaN',
  '-Infinity',
  'x'.repeat(100_000),
  "'; DROP TABLE events; --",
  '1 OR 1=1',
  '../../../../etc/passwd',
  '..%2F..%2Fetc%2Fpasswd',
  '\u0000',
  '\ud800',
  '\u202e\u0645\u0631\u062d\u0628\u0627',
  '👩‍👩‍👧‍👦',
  [],
  ['__proto__'],
  {},
  { __proto__: 'x' },
  { constructor: { prototype: { polluted: 1 } } },
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '2026-02-30T00:00:00Z',
  '99999999999999999999d',
  '0s',
  Array.from({ length: 5000 }, (_, i) => `v${i}`),
];

/** Whole bodies: not JSON, the wrong JSON, too deep. */
const RAW_BODIES: string[] = [
  '',
  '{',
  '[',
  '}',
  'null',
  'true',
  '1',
  '"x"',
  '[]',
  '[{}]',
  '{"a":}',
  '{"from": NaN}',
  '{"from": Infinity}',
  '{,}',
  '\u0000',
  '\ufeff{}',
  '{"from":"2026-01-01T00:00:00Z","to":"2026-01-01T01:00:00Z",}',
  '{"__proto__":{"isAdmin":true},"from":"2026-01-01T00:00:00Z","to":"2026-01-01T01:00:00Z"}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '['.repeat(100_000) + ']'.repeat(100_000),
  '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000),
  '{"from":"' + 'x'.repeat(2_000_000) + '"}',
  'x'.repeat(3 * 1024 * 1024),
];

/** Query strings of the GET routes. */
const HOSTILE_QUERIES = [
  'limit=abc',
  'limit=-1',
  'limit=0',
  'limit=1e9',
  'limit=99999999999999999999',
  'limit=1.5',
  'from=garbage',
  'from=2026-02-30T00:00:00Z',
  'from=%2B275760-09-13T00:00:00.000Z',
  `from=${W.to}&to=${W.from}`,
  'to=',
  'step=99999999999999999999d',
  'state=bogus',
  'state=firing&state=pending',
  '__proto__=x',
  'constructor=x',
  'action=%00',
  `severity=${'x'.repeat(10_000)}`,
  'alertname=%27%3B%20DROP%20TABLE%20events%3B--',
];

const HOSTILE_PATHS = [
  '/v1/requests/..%2F..%2Fetc%2Fpasswd',
  '/v1/requests/%00',
  `/v1/requests/${'x'.repeat(10_000)}`,
  '/v1/requests/%27%20OR%201%3D1',
  '/v1/requests/%F0%9F%92%A9',
  '/v1/requests/%ED%A0%80',
  '/v1/labels/__proto__',
  '/v1/labels/constructor',
  '/v1/labels/..%2F..%2Fetc',
  '/v1/labels/tenant%00',
  '/v1/labels/model%27%3B--',
  '/v1/silences/..%2F..%2F',
  '/v1/actions/__proto__/approve',
  '/v1/../v1/query',
  '/v1/query/../../etc/passwd',
  '/..%2F..%2Fetc%2Fpasswd',
  '/%2e%2e/%2e%2e/etc/passwd',
  '/assets/..%2F..%2Fpackage.json',
];

interface Outcome {
  label: string;
  status: number;
  text: string;
}

async function send(method: string, path: string, body?: string): Promise<Outcome> {
  const res = await fetch(server.url + path, { method, ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}) });
  return { label: `${method} ${path.slice(0, 120)} ${body === undefined ? '' : body.slice(0, 80)}`, status: res.status, text: await res.text() };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'inferlens-hostile-'));
  server = await startTenantServer(tmp, { server: { maxBodyBytes: 1024 * 1024 } });
});

afterAll(async () => {
  await server?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function mutations(body: Record<string, unknown>): string[] {
  const out: string[] = [];
  const keys = [...Object.keys(body), 'filters', 'step', 'limit', 'measures'];
  for (const k of [...new Set(keys)]) for (const v of HOSTILE_VALUES) out.push(JSON.stringify({ ...body, [k]: v }));
  for (const v of HOSTILE_VALUES.slice(0, 20)) out.push(JSON.stringify({ ...body, filters: { tenant: v, model: v } }));
  return out;
}

describe('hostile input on the read routes', () => {
  it('never answers 5xx, always in the error envelope, and the server stays up', async () => {
    const before = await send('POST', '/v1/query', JSON.stringify({ ...W, group_by: ['tenant'], measures: ['count', 'p99(total_ms)'] }));
    expect(before.status).toBe(200);
    const samples = readSamples(W);
    const reads = server.routes.filter((r) => r.access === 'read');
    expect(reads.filter((r) => !samples[`${r.method} ${r.path}`]).map((r) => r.path)).toEqual([]);

    const outcomes: Outcome[] = [];
    for (const r of reads) {
      const s = samples[`${r.method} ${r.path}`]!;
      if (r.method === 'POST') {
        for (const raw of RAW_BODIES) outcomes.push(await send('POST', s.path, raw));
        for (const body of mutations(s.body!)) outcomes.push(await send('POST', s.path, body));
      } else {
        const base = s.path.split('?')[0]!;
        for (const q of HOSTILE_QUERIES) outcomes.push(await send('GET', `${base}?${q}`));
      }
    }
    for (const p of HOSTILE_PATHS) outcomes.push(await send('GET', p));
    // The alerting changes an operator makes, with hostile bodies (the server has no keys: open).
    const silence = { matchers: ['tenant="acme"'], duration_s: 60 };
    for (const raw of RAW_BODIES) outcomes.push(await send('POST', '/v1/silences', raw));
    for (const body of mutations(silence)) outcomes.push(await send('POST', '/v1/silences', body));
    for (const m of ['a="', '=~"(', 'x=~"[z-a]"', 'tenant=~"(a+)+"', '__proto__="x"', `a="${'x'.repeat(2000)}"`])
      outcomes.push(await send('POST', '/v1/silences', JSON.stringify({ matchers: [m], duration_s: 60 })));
    for (const t of ['+275760-09-13T00:00:00.000Z', '9999-12-31T23:59:59.999Z', '0000-01-01T00:00:00Z', '2026-02-29T00:00:00Z']) {
      outcomes.push(await send('POST', '/v1/silences', JSON.stringify({ matchers: ['tenant="acme"'], startsAt: t, endsAt: '9999-12-31T23:59:59.999Z' })));
      outcomes.push(await send('POST', '/v1/silences', JSON.stringify({ matchers: ['tenant="acme"'], startsAt: t, duration_s: 365 * 86_400 })));
    }
    for (const raw of RAW_BODIES.slice(0, 12)) outcomes.push(await send('POST', '/v1/actions/x/approve', raw));
    for (const raw of RAW_BODIES.slice(0, 12)) outcomes.push(await send('POST', '/v1/session', raw));
    // A backtest replays rules over a range: impossible and huge ranges, malformed rule text.
    for (const raw of RAW_BODIES.slice(0, 12)) outcomes.push(await send('POST', '/v1/rules/backtest', raw));
    for (const [from, to] of [
      ['+275760-09-13T00:00:00.000Z', '+275760-09-13T00:00:01.000Z'],
      ['-271821-04-20T00:00:00.000Z', W.to],
      ['2026-02-30T00:00:00Z', W.to],
      ['0000-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z'],
    ]) {
      outcomes.push(await send('POST', '/v1/rules/backtest', JSON.stringify({ from, to })));
    }
    outcomes.push(await send('POST', '/v1/rules/backtest', JSON.stringify({ ...W, rules: [{ text: 'groups: [' }] })));
    outcomes.push(await send('POST', '/v1/rules/backtest', JSON.stringify({ ...W, rules: [{ text: '&a [*a, *a, *a, *a, *a, *a]' }] })));

    expect(outcomes.length).toBeGreaterThan(1500);
    const failures = outcomes.filter((o) => o.status >= 500).map((o) => `${o.status} ${o.label}: ${o.text.slice(0, 200)}`);
    expect(failures).toEqual([]);
    // Every refusal is the JSON error envelope (the dashboard and clients read error_type).
    const notEnvelope = outcomes
      .filter((o) => o.status >= 400 && !/^\{"status":"error","error_type":"[a-z_]+","error":/.test(o.text) && !o.text.startsWith('not found'))
      .map((o) => `${o.status} ${o.label}: ${o.text.slice(0, 100)}`);
    expect(notEnvelope).toEqual([]);
    // Some of it was valid, most of it not: both paths ran.
    expect(outcomes.filter((o) => o.status === 200).length).toBeGreaterThan(50);
    expect(outcomes.filter((o) => o.status === 400).length).toBeGreaterThan(1000);
    // Nothing leaked onto Object.prototype, the server is up and answers as before.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    expect((await send('GET', '/healthz')).status).toBe(200);
    const after = await send('POST', '/v1/query', JSON.stringify({ ...W, group_by: ['tenant'], measures: ['count', 'p99(total_ms)'] }));
    expect(after).toEqual(before);
  });

  it('the three 5xx of the issue are 400s naming the field', async () => {
    const labels = await send('GET', '/v1/labels/model?limit=abc');
    expect(labels.status).toBe(400);
    expect(JSON.parse(labels.text)).toMatchObject({ error_type: 'invalid_argument', issues: [{ path: 'limit' }] });
    const step = await send('POST', '/v1/query', JSON.stringify({ ...W, step: '99999999999999999999d', measures: ['count'] }));
    expect(step.status).toBe(400);
    expect(JSON.parse(step.text)).toMatchObject({ issues: [{ path: 'step' }] });
    const silence = await send(
      'POST',
      '/v1/silences',
      JSON.stringify({ matchers: ['tenant="acme"'], startsAt: '+275760-09-13T00:00:00.000Z', duration_s: 60 }),
    );
    expect(silence.status).toBe(400);
    expect(JSON.parse(silence.text)).toMatchObject({ issues: [{ path: 'startsAt' }] });
  });
});
