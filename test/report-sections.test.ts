// The review's sections that reuse the platform's analyses (GET /v1/reports): versions that behaved
// abnormally (release verdicts), tenants with the largest error and latency excess (the slice
// finder), quality drift and golden pass rates per version — each against the previous period,
// over rows written to a real DuckDB file and figures computed by hand below. The server's clock
// stands at NOW; the period is the hour before it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferlensServer } from '../src/main.ts';
import type { Report } from '../src/reports/index.ts';
import { H, NOW, startSectionsServer } from './report-sections-fixture.ts';

let server: InferlensServer;
let dir: string;
let r: Report;
let md: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-report-sections-'));
  server = await startSectionsServer(dir);
  r = ((await (await fetch(`${server.url}/v1/reports?period=1h`)).json()) as { data: Report }).data;
  md = await (await fetch(`${server.url}/v1/reports?period=1h&format=md`)).text();
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function compare(body: unknown): Promise<{ verdict: string; score: number | null }> {
  const res = await fetch(`${server.url}/v1/compare`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: { verdict: string; score: number | null } }).data;
}

describe('the review sections against the store', () => {
  it("versions: each against its previous period and beside its main version, the release comparer's verdicts, worst first", async () => {
    expect(r.versions.available).toBe(true);
    const rows = r.versions.rows.map((v) => [v.model_version, v.requests, v.previous_requests, v.main]);
    // v1 (200 requests) is the main version; v2 serves 100.
    expect(rows).toEqual(
      expect.arrayContaining([
        ['v1', 200, 200, true],
        ['v2', 100, 100, false],
      ]),
    );
    const v2 = r.versions.rows.find((v) => v.model_version === 'v2')!;
    // v2 is 2.5–3.5× slower than before and than v1: rolled back on both counts.
    expect(v2.vs_main).toMatchObject({ verdict: 'rollback', main_version: 'v1', baseline_requests: 200, candidate_requests: 100 });
    expect(v2.vs_previous).toMatchObject({ verdict: 'rollback', baseline_requests: 100, candidate_requests: 100 });
    // The same verdicts and scores as POST /v1/compare gives for the same sides.
    const side = (version: string, from: number) => ({
      filters: { model: 'm', model_version: version },
      from: new Date(from).toISOString(),
      to: new Date(from + H).toISOString(),
    });
    const vsMain = await compare({ baseline: side('v1', NOW - H), candidate: side('v2', NOW - H), max_events_per_side: 5000 });
    expect([v2.vs_main!.verdict, v2.vs_main!.score]).toEqual([vsMain.verdict, vsMain.score]);
    const v1 = r.versions.rows.find((v) => v.model_version === 'v1')!;
    const v1Before = await compare({ baseline: side('v1', NOW - 2 * H), candidate: side('v1', NOW - H), max_events_per_side: 5000 });
    expect([v1.vs_previous!.verdict, v1.vs_previous!.score]).toEqual([v1Before.verdict, v1Before.score]);
    expect(v1.vs_main).toBeNull();
  });

  it("error excess by tenant: t2 with 30 of 100 against the rest's 3 of 200, beside its 1 of 100 before", () => {
    const e = r.slices.errors!;
    // 1 + 30 + 2 = 33 errors in 300; before 3 in 300.
    expect(e.total).toEqual({ n: 300, k: 33, rate: 0.11 });
    expect(e.previous_total).toEqual({ n: 300, k: 3, rate: 0.01 });
    // t2: 30 %, rest 3 / 200 = 1.5 %, excess 100 · (0.30 − 0.015) = 28.5; t1 (1.5 %) is below its rest.
    expect(e.slices.map((s) => [s.slice, s.n, s.k, s.rate, s.rest_rate, Number(s.excess.toFixed(9))])).toEqual([[{ tenant: 't2' }, 100, 30, 0.3, 0.015, 28.5]]);
    expect(e.slices[0]!.q_value).toBeLessThan(0.05);
    // Before: 1 of 100, rest 2 of 200 → excess 100 · (0.01 − 0.01) = 0.
    expect(e.slices[0]!.previous).toEqual({ n: 100, k: 1, rate: 0.01, excess: 0 });
  });

  it("latency excess by tenant: the requests above the period's P95, all t1's (v2)", () => {
    const s = r.slices.slow!;
    // 300 totals: 200 × 100 ms and 250 … 349; type-7 P95 at h = 299 · 0.95 = 284.05 → 334 + 0.05 = 334.05 ms.
    expect(s.threshold_ms).toBeCloseTo(334.05, 9);
    // Above it: 335 … 349, 15 requests, all t1's (200): 7.5 % against t2's 0 %, excess 200 · 0.075 = 15.
    expect(s.total).toEqual({ n: 300, k: 15, rate: 0.05 });
    expect(s.slices.map((x) => [x.slice, x.n, x.k, x.rate, x.rest_rate, Number(x.excess.toFixed(9))])).toEqual([[{ tenant: 't1' }, 200, 15, 0.075, 0, 15]]);
    // Before, every request took 100 ms: P95 100, none above.
    expect(s.previous_threshold_ms).toBe(100);
    expect(s.previous_total.k).toBe(0);
  });

  it("quality drift per version: v2's confidence moved wholly (KS D = 1), v1's not at all (D = 0)", () => {
    const conf = (v: string) => r.quality.drift.find((d) => d.model_version === v && d.field === 'confidence')!;
    // 100 rows each side (≤ 1,000 reference rows: KS). v2: every value now (0.500–0.599) below every value before (0.900–0.9495).
    expect(conf('v2')).toMatchObject({ method: 'ks', statistic: 1, drift: true, n: 100, reference_n: 100 });
    expect(conf('v2').p_value!).toBeLessThan(1e-10);
    expect(conf('v1')).toMatchObject({ method: 'ks', statistic: 0, drift: false, n: 200, reference_n: 200 });
    // Drifted first.
    expect(r.quality.drift[0]).toMatchObject({ model_version: 'v2', field: 'confidence' });
  });

  it('golden pass rate per version: v2 6 of 10 against 10 of 10 before (−40 points), lowest first', () => {
    expect(r.quality.golden).toEqual([
      { model: 'm', model_version: 'v2', runs: 10, passed: 6, pass_rate: 0.6, previous_runs: 10, previous_pass_rate: 1, change_points: expect.closeTo(-40, 9) },
      { model: 'm', model_version: 'v1', runs: 10, passed: 10, pass_rate: 1, previous_runs: 10, previous_pass_rate: 1, change_points: 0 },
    ]);
  });

  it("narrowed to a tenant (the filter bar): t2's requests only, in every section", async () => {
    const t2 = ((await (await fetch(`${server.url}/v1/reports?period=1h&tenant=t2`)).json()) as { data: Report }).data;
    expect(t2.filters).toEqual({ tenant: 't2' });
    // t2 is served by v1 only: 100 requests, 30 errors now, 1 before.
    expect(t2.errors.map((e) => [e.model_version, e.requests, e.error_rate, e.previous_error_rate])).toEqual([['v1', 100, 0.3, 0.01]]);
    expect(t2.latency.by_version.map((v) => [v.model_version, v.n])).toEqual([['v1', 100]]);
    expect(t2.versions.rows.map((v) => [v.model_version, v.requests, v.main])).toEqual([['v1', 100, true]]);
    // One tenant left: no slice differs from the rest (a slice of all the traffic is not tested).
    expect(t2.slices.errors!.total).toEqual({ n: 100, k: 30, rate: 0.3 });
    expect(t2.slices.errors!.slices).toEqual([]);
    expect(t2.quality.drift.filter((d) => d.field === 'confidence').map((d) => [d.model_version, d.n, d.reference_n])).toEqual([['v1', 100, 100]]);
    const md = await (await fetch(`${server.url}/v1/reports?period=1h&tenant=t2&format=md`)).text();
    expect(md).toContain('Narrowed to tenant=t2 (GPUs: by node and replica only).');
    expect((await fetch(`${server.url}/v1/reports?period=1h&tenant=`)).status).toBe(400);
  });

  it('builds one review at a time with four waiting: a sixth at once is answered 429 with Retry-After', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, () => fetch(`${server.url}/v1/reports?period=1h`)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(answers.find((a) => a.status === 429)!.headers.get('retry-after')).toBe('10');
    await Promise.all(answers.map((a) => a.body?.cancel()));
  });

  it('says the same in the Markdown', () => {
    expect(md).toContain('## Versions that behaved abnormally');
    expect(md).toMatch(/\| m v2 \| 100 \| 100 \| \*\*rollback\*\*/);
    expect(md).toContain('| tenant=t2 | 100 | 30 | 30.00 % | 1.50 % | 28.5 |');
    expect(md).toContain('| tenant=t1 | 200 | 15 | 7.50 % | 0.00 % | 15.0 |');
    expect(md).toContain('| m v2 | 10 | 60.0 % | 100.0 % (10) | −40.0 |');
    // The summary on top names the worst of each.
    expect(md).toContain('- Most error excess: tenant=t2, 30.0 % of 100 against 1.5 % elsewhere.');
    expect(md).toContain('- Golden pass rate fell for m v2: 60 % (was 100 %).');
    const rolledBack = r.versions.rows
      .filter((v) => v.vs_previous?.verdict === 'rollback' || v.vs_main?.verdict === 'rollback')
      .map((v) => `\`m ${v.model_version}\``);
    expect(rolledBack).toContain('`m v2`');
    expect(md).toContain(`- Versions judged **rollback**: ${rolledBack.join(', ')}.`);
  });
});
