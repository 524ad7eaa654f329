// The periodic review over HTTP (`GET /v1/reports`): each section's numbers computed by hand from
// the rows of test/report-fixture.ts, for the hour before NOW against the hour before that. The server's clock
// is fixed at NOW.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferlensServer } from '../src/main.ts';
import type { Report } from '../src/reports/index.ts';
import { BIN } from './serve-process.ts';
import { H, startReportServer } from './report-fixture.ts';

let server: InferlensServer;
let dir: string;

async function get(path: string): Promise<Response> {
  return fetch(server.url + path);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-report-'));
  server = await startReportServer(dir);
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
    expect(m).toMatchObject({
      model: 'm',
      n: 14,
      p99_ms: expect.closeTo(197.4, 9),
      p999_ms: expect.closeTo(199.74, 9),
      previous: { n: 10, p99_ms: expect.closeTo(99.1, 9), p999_ms: expect.closeTo(99.91, 9) },
    });
    expect(m!.p99_change).toBeCloseTo(197.4 / 99.1 - 1, 9);
    // By version, worst P99 first: v1 (20 … 200: h = 8.91 → 180 + 0.91 · 20 = 198.2, twice before) then v2 (h = 2.97 → 99.7, new).
    expect(
      r.latency.by_version.map((v) => [v.model_version, Number(v.p99_ms!.toFixed(9)), v.n, v.p99_change === null ? null : Number(v.p99_change.toFixed(9))]),
    ).toEqual([
      ['v1', 198.2, 10, 1],
      ['v2', 99.7, 4, null],
    ]);

    // v1: 0 % of 10 (before 1 of 10: 10 %) → −10 points; v2: 50 % of 4, nothing before.
    expect(
      r.errors.map((e) => [
        e.model_version,
        e.requests,
        e.error_rate,
        e.previous_error_rate,
        e.change_points === null ? null : Number(e.change_points.toFixed(9)),
      ]),
    ).toEqual([
      ['v2', 4, 0.5, null, null],
      ['v1', 10, 0, 0.1, -10],
    ]);

    // GPU-minutes: 90 % and 50 % → mean 70 %, peak 90 %, one of two at ≥ 85 %; headroom 1 − 60/80; before 40 %.
    const pool = {
      pool: 'a100',
      gpus: 1,
      mean_utilization: expect.closeTo(0.7, 12),
      peak_utilization: 0.9,
      hot_share: 0.5,
      gpu_minutes: 2,
      min_memory_headroom: 0.25,
      previous_mean_utilization: expect.closeTo(0.4, 12),
    };
    expect(r.gpu.by_pool).toEqual([pool]);
    expect(r.gpu.by_node).toEqual([{ ...pool, pool: undefined, node: 'n1' }].map(({ pool: _p, ...rest }) => rest));

    // One incident, one episode of VersionErrors (no action in the rule); no rule stayed silent.
    expect(r.alerting).toEqual({
      available: true,
      incidents: 1,
      episodes: 1,
      action_share: 0,
      acknowledged_incidents: 0,
      median_minutes_to_acknowledge: null,
      noisiest: [{ alertname: 'VersionErrors', episodes: 1, with_action: 0, acknowledged: 0, median_minutes_to_acknowledge: null }],
      never_fired: [],
    });

    // Cost: the held minutes at 0.06 each. Current: 11:30 goes to m (its requests ran on n1 then),
    // 11:31 is idle. Previous: 10:30 to m. m: 0.06 over 14 requests → 4.2857 per 1,000; no change.
    expect(r.cost).toMatchObject({ currency: 'USD', priced: true, total: expect.closeTo(0.06, 12), previous_total: expect.closeTo(0.06, 12), gpu_seconds: 60 });
    expect(r.cost.change).toBeCloseTo(0, 12);
    expect(r.cost.by_model).toEqual([
      {
        model: 'm',
        cost: expect.closeTo(0.06, 12),
        previous: expect.closeTo(0.06, 12),
        change: expect.closeTo(0, 12),
        requests: 14,
        cost_per_1k_requests: expect.closeTo(60 / 14, 9),
      },
    ]);
  });

  it('renders Markdown for a chat tool, with the same numbers', async () => {
    const res = await get('/v1/reports?period=1h&format=md');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/markdown');
    const md = await res.text();
    expect(md).toContain('# inferlens review: 2026-11-30 11:00 → 2026-11-30 12:00 UTC');
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
    const html = join(dir, 'review.html');
    await promisify(execFile)(process.execPath, [BIN, 'report', '--url', server.url, '--period', '1h', '--format', 'html', '--out', html]);
    expect(readFileSync(html, 'utf8')).toBe(await (await get('/v1/reports?period=1h&format=html')).text());
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>[\s\S]*<svg class="chart bars"/);
    const bad = await promisify(execFile)(process.execPath, [BIN, 'report', '--url', server.url, '--period', '5m']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad).toMatchObject({ code: 1, stderr: expect.stringContaining('report failed (400)') });
  });
});
