// The periodic review over HTTP (`GET /v1/reports`): each section's numbers computed by hand from
// the rows stored below, for the hour before NOW against the hour before that. The server's clock
// is fixed at NOW.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import type { Report } from '../src/reports/index.ts';
import { BIN } from './serve-process.ts';
import { ruleFile } from './two-tenants.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const H = 3_600_000;
const MIN = 60_000;
const GiB = 1024 ** 3;
let server: InferlensServer;
let dir: string;

/**
 * Previous hour: m v1 takes 10 requests at 10:30, total_ms 10, 20, …, 100, one an error, on node n1
 * (exec 5 ms each). Current hour: m v1 10 requests at 11:30, total_ms 20, 40, …, 200, no error, on
 * n1; m v2 4 requests at 11:45, total_ms 70–100, two errors, no node.
 * GPU n1/0 (pool a100, 3.60 per hour): previous 10:30 at 40 %; current 11:30 at 90 % and 11:31 at
 * 50 %, 60 of 80 GiB used.
 */
function rows(): { events: unknown[]; resources: unknown[] } {
  const events: unknown[] = [];
  for (let i = 0; i < 10; i++) {
    events.push({ ts: NOW - 1.5 * H + i * 3000, model: 'm', model_version: 'v1', node: 'n1', total_ms: (i + 1) * 10, exec_ms: 5, status: i === 0 ? 'error' : 'ok' });
    events.push({ ts: NOW - 0.5 * H + i * 3000, model: 'm', model_version: 'v1', node: 'n1', total_ms: (i + 1) * 20, exec_ms: 5, status: 'ok' });
  }
  for (let i = 0; i < 4; i++) events.push({ ts: NOW - 0.25 * H + i * 1000, model: 'm', model_version: 'v2', total_ms: 70 + i * 10, status: i < 2 ? 'error' : 'ok' });
  const gpu = (ts: number, metric: string, value: number) => ({ ts, node: 'n1', gpu: '0', pool: 'a100', metric, value });
  const resources = [
    gpu(NOW - 1.5 * H + 30_000, 'gpu_utilization_ratio', 0.4),
    gpu(NOW - 0.5 * H + 30_000, 'gpu_utilization_ratio', 0.9),
    gpu(NOW - 0.5 * H + MIN + 30_000, 'gpu_utilization_ratio', 0.5),
    gpu(NOW - 0.5 * H + 30_000, 'gpu_memory_used_bytes', 60 * GiB),
    gpu(NOW - 0.5 * H + 30_000, 'gpu_memory_total_bytes', 80 * GiB),
  ];
  return { events, resources };
}

async function get(path: string): Promise<Response> {
  return fetch(server.url + path);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-report-'));
  const rules = ruleFile(
    dir,
    `alert: VersionErrors
condition: { kind: threshold, measure: error_rate, window: 1h, by: [model, model_version], op: '>', value: 0.3, min_count: 2 }
for: 0s
severity: warning`,
  );
  server = await startServer(
    loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: join(dir, 'data') }, alerting: { defaultRules: false, ruleFiles: [rules] }, cost: { gpuHour: [{ pool: 'a100', price: 3.6 }] }, log: { level: 'silent' } } }),
    { logger: pino({ level: 'silent' }), now: () => NOW, collectors: false, ui: false },
  );
  const { events, resources } = rows();
  for (const [p, list] of [['/v1/events', events], ['/v1/resources', resources]] as const) {
    const res = await fetch(server.url + p, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: list.map((r) => JSON.stringify(r)).join('\n') });
    expect(res.status).toBe(200);
  }
  // One evaluation at NOW: v2's 2 errors in 4 requests (50 %) fire VersionErrors.
  await server.alerting!.evaluateAt(NOW);
});
afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GET /v1/reports', () => {
  it('ranks tail latency, error changes, hot GPUs, alerting health and cost, each against the previous period', async () => {
    const res = await get('/v1/reports?period=1h');
    expect(res.status).toBe(200);
    const r = ((await res.json()) as { data: Report }).data;
    expect(r.period).toEqual({ from: '2026-11-30T11:00:00.000Z', to: '2026-11-30T12:00:00.000Z', ms: H });
    expect(r.previous).toEqual({ from: '2026-11-30T10:00:00.000Z', to: '2026-11-30T11:00:00.000Z' });

    // m over the hour: 20, 40, …, 200 and 70, 80, 90, 100 (14 values). Type 7: h = 13 · 0.99 = 12.87
    // → 180 + 0.87 · 20 = 197.4; P99.9: h = 12.987 → 199.74. Before: 10 … 100, P99 99.1, P99.9 99.91.
    const [m] = r.latency.by_model;
    expect(m).toMatchObject({ model: 'm', n: 14, p99_ms: expect.closeTo(197.4, 9), p999_ms: expect.closeTo(199.74, 9), previous: { n: 10, p99_ms: expect.closeTo(99.1, 9), p999_ms: expect.closeTo(99.91, 9) } });
    expect(m!.p99_change).toBeCloseTo(197.4 / 99.1 - 1, 9);
    // By version, worst P99 first: v1 (20 … 200: h = 8.91 → 180 + 0.91 · 20 = 198.2, twice before) then v2 (h = 2.97 → 99.7, new).
    expect(r.latency.by_version.map((v) => [v.model_version, Number(v.p99_ms!.toFixed(9)), v.n, v.p99_change === null ? null : Number(v.p99_change.toFixed(9))])).toEqual([
      ['v1', 198.2, 10, 1],
      ['v2', 99.7, 4, null],
    ]);

    // v1: 0 % of 10 (before 1 of 10: 10 %) → −10 points; v2: 50 % of 4, nothing before.
    expect(r.errors.map((e) => [e.model_version, e.requests, e.error_rate, e.previous_error_rate, e.change_points === null ? null : Number(e.change_points.toFixed(9))])).toEqual([
      ['v2', 4, 0.5, null, null],
      ['v1', 10, 0, 0.1, -10],
    ]);

    // GPU-minutes: 90 % and 50 % → mean 70 %, peak 90 %, one of two at ≥ 85 %; headroom 1 − 60/80; before 40 %.
    const pool = { pool: 'a100', gpus: 1, mean_utilization: expect.closeTo(0.7, 12), peak_utilization: 0.9, hot_share: 0.5, gpu_minutes: 2, min_memory_headroom: 0.25, previous_mean_utilization: expect.closeTo(0.4, 12) };
    expect(r.gpu.by_pool).toEqual([pool]);
    expect(r.gpu.by_node).toEqual([{ ...pool, pool: undefined, node: 'n1' }].map(({ pool: _p, ...rest }) => rest));

    // One incident, one episode of VersionErrors (no action in the rule); no rule stayed silent.
    expect(r.alerting).toEqual({ available: true, incidents: 1, episodes: 1, action_share: 0, noisiest: [{ alertname: 'VersionErrors', episodes: 1, with_action: 0, acknowledged: 0, median_minutes_to_acknowledge: null }], never_fired: [] });

    // Cost: the held minutes at 0.06 each. Current: 11:30 goes to m (its requests ran on n1 then),
    // 11:31 is idle. Previous: 10:30 to m. m: 0.06 over 14 requests → 4.2857 per 1,000; no change.
    expect(r.cost).toMatchObject({ currency: 'USD', priced: true, total: expect.closeTo(0.06, 12), previous_total: expect.closeTo(0.06, 12), gpu_seconds: 60 });
    expect(r.cost.change).toBeCloseTo(0, 12);
    expect(r.cost.by_model).toEqual([{ model: 'm', cost: expect.closeTo(0.06, 12), previous: expect.closeTo(0.06, 12), change: expect.closeTo(0, 12), requests: 14, cost_per_1k_requests: expect.closeTo(60 / 14, 9) }]);
  });

  it('renders Markdown for a chat tool, with the same numbers', async () => {
    const res = await get('/v1/reports?period=1h&format=md');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/markdown');
    const md = await res.text();
    expect(md).toContain('# inferlens review: 2026-11-30T11:00:00.000Z → 2026-11-30T12:00:00.000Z');
    expect(md).toContain('| m v1 | 198 ms | 200 ms | 10 | 99.1 ms (n 10) | +100 % | +100 % |');
    expect(md).toContain('| a100 | 1 | 70.0 % | 90.0 % | 50.0 % | 2 | 25.0 % | 40.0 % |');
    expect(md).toContain('| VersionErrors | 1 | 0 | 0 | – |');
    expect(md).toContain('Total 0.0600 USD (before: 0.0600 USD, +0 %).');
  });

  it('refuses a period outside 1h–90d and an unknown format, naming the field', async () => {
    for (const q of ['period=10m', 'period=365d', 'format=pdf', 'bogus=1']) {
      const res = await get(`/v1/reports?${q}`);
      expect(res.status, q).toBe(400);
    }
    expect(await (await get('/v1/reports?period=10m')).text()).toContain('period');
  });

  it('inferlens report fetches it from a running server and writes the Markdown to a file', async () => {
    const out = join(dir, 'review.md');
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'report', '--url', server.url, '--period', '1h', '--out', out]);
    expect(stdout.trim()).toBe(`wrote ${out}`);
    expect(readFileSync(out, 'utf8')).toBe(await (await get('/v1/reports?period=1h&format=md')).text());
    const bad = await promisify(execFile)(process.execPath, [BIN, 'report', '--url', server.url, '--period', '5m']).catch((e: { code: number; stderr: string }) => e);
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('report failed (400)') });
  });
});
