// The review as HTML (`GET /v1/reports?format=html`, what `inferlens report --format html` writes)
// opened in Debian's Chromium: every section is there, the charts are drawn (bars proportional to
// their numbers, the incident's timeline), nothing is fetched from elsewhere, and it prints (A4 PDF).
// The data: test/report-fixture.ts's rows, rule and incident, plus test/report-sections-fixture.ts's
// versions, tenants and golden probes in the same hours. Screenshot: artifacts/screenshots/report-html.png.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferlensServer } from '../src/main.ts';
import type { Report } from '../src/reports/index.ts';
import { startReportServer } from '../test/report-fixture.ts';
import { postSectionRows } from '../test/report-sections-fixture.ts';
import { SHOTS, hasChromium, openDashboardFixture } from './chromium.ts';
import type { DashboardFixture } from './chromium.ts';

let fx: DashboardFixture;
let page: Page;
let server: InferlensServer;
const requests: string[] = [];

describe.skipIf(!hasChromium)('the review as HTML, in Chromium', () => {
  beforeAll(async () => {
    fx = await openDashboardFixture('inferlens-report-html-');
    page = fx.page;
    server = await startReportServer(fx.tmp, { ui: true, uiDir: fx.dist });
    await postSectionRows(server.url);
    page.on('request', (r) => requests.push(r.url()));
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await fx?.close();
  });

  it('has every section, its tables and its charts, and loads nothing but itself', async () => {
    const res = await page.goto(`${server.url}/v1/reports?period=1h&format=html`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-type']).toContain('text/html');
    expect(res?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.title()).toBe('inferlens review 2026-11-30T11:00 → 2026-11-30T12:00');
    expect(await page.$$eval('section', (s) => s.map((x) => x.getAttribute('data-section')))).toEqual([
      'Worst tail latency by model',
      'Worst tail latency by model × version',
      'Versions whose error rate moved most',
      'Versions that behaved abnormally',
      'Tenants and entries with the largest error excess',
      'Tenants and entries with the largest latency excess',
      'Quality drift per version',
      'Golden pass rate per version',
      'GPU pools running hot',
      'GPU nodes running hot',
      'Alerting health',
      'Which signal was missing',
      'Cost',
    ]);
    // Bars: the tail-latency chart draws one bar per model and period, each as long as its value allows.
    const bars = await page.$$eval('section[data-section="Worst tail latency by model"] svg.bars rect.bar', (r) =>
      r.map((x) => [x.getAttribute('class'), Number(x.getAttribute('width'))]),
    );
    expect(bars.length).toBe(2);
    const [now, before] = bars.map((b) => b[1] as number);
    // m's P99: this hour's rows span 10 … 349 ms, the previous hour's 10 … 100 ms: the longer bar is this hour's, at full length (420 px).
    expect(now).toBeCloseTo(420, 0);
    expect(before! / now!).toBeGreaterThan(0);
    expect(before! / now!).toBeLessThan(1);
    // The golden chart: v2 at 60 % against 100 % before; v1 at 100 % both times → four bars, v2's now 0.6 of the longest.
    const golden = await page.$$eval('section[data-section="Golden pass rate per version"] svg.bars rect.bar', (r) =>
      r.map((x) => Number(x.getAttribute('width'))),
    );
    expect(golden.length).toBe(4);
    expect(golden[0]! / Math.max(...golden)).toBeCloseTo(0.6, 3);
    // The incident of the hour: VersionErrors on m v2, with its timeline.
    const missing = await page.textContent('section[data-section="Which signal was missing"]');
    expect(missing).toContain('first rule VersionErrors fired at 12:00 UTC');
    expect(await page.$$('section[data-section="Which signal was missing"] svg.timeline circle.mark.rule')).toHaveLength(1);
    // Tables: the release verdicts and the tenants.
    expect(await page.textContent('section[data-section="Versions that behaved abnormally"] table')).toContain('rollback');
    expect(await page.textContent('section[data-section="Tenants and entries with the largest error excess"] table')).toContain('tenant=t2');
    // Cost: priced, with its bar chart.
    expect(await page.$$('section[data-section="Cost"] svg.bars rect.bar')).not.toHaveLength(0);
    // Nothing but the page itself was requested.
    expect(requests.filter((u) => !u.startsWith(`${server.url}/v1/reports`))).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'report-html.png'), fullPage: true });
  });

  it('prints: an A4 PDF of a few pages, the charts in it', async () => {
    await page.emulateMedia({ media: 'print' });
    const pdf = await page.pdf({ format: 'A4', printBackground: true });
    writeFileSync(path.join(SHOTS, 'report-html.pdf'), pdf);
    const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
    expect(pages).toBeGreaterThanOrEqual(2);
    expect(pages).toBeLessThanOrEqual(12);
    await page.emulateMedia({ media: 'screen' });
  });

  it("the Review view shows the same: release verdicts, the tenants, quality and golden, the incident's timeline", async () => {
    const report = ((await (await fetch(`${server.url}/v1/reports?period=1h`)).json()) as { data: Report }).data;
    await page.goto(`${server.url}/review?period=1h`);
    await page.waitForSelector('[data-panel="review-missing"][data-state="ready"]', { timeout: 60_000 });
    const cells = (sel: string) => page.$$eval(sel, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    const v2 = report.versions.rows.find((v) => v.model_version === 'v2')!;
    const [row] = await cells('[data-panel="review-versions"] tr[data-version="v2"]');
    expect(row!.slice(0, 4)).toEqual([
      'm v2',
      String(v2.requests),
      String(v2.previous_requests),
      `${v2.vs_previous!.verdict} ${v2.vs_previous!.score!.toFixed(0)}`,
    ]);
    expect(row![4]).toBe(`${v2.vs_main!.verdict} ${v2.vs_main!.score!.toFixed(0)} vs v1`);
    // The error slice: t2 (30 of its 100 requests failed this hour).
    const t2 = report.slices.errors!.slices[0]!;
    expect(await cells('[data-panel="review-slices"] tr[data-kind="errors"]')).toEqual([
      [
        'tenant=t2',
        String(t2.n),
        String(t2.k),
        `${(t2.rate * 100).toFixed(2)} %`,
        `${(t2.rest_rate * 100).toFixed(2)} %`,
        t2.excess.toFixed(1),
        t2.q_value < 0.001 ? t2.q_value.toExponential(1) : t2.q_value.toFixed(3),
        '1.00 % (1 of 100)',
      ],
    ]);
    // Golden: v2 6 of 10 against 10 of 10.
    expect(await cells('[data-panel="review-quality"] tr[data-version="v2"]:not([data-field])')).toEqual([['m v2', '10', '60.0 %', '100.0 %', '10', '−40.0']]);
    expect(await page.getAttribute('[data-panel="review-quality"] tr[data-version="v2"][data-field="confidence"] .tag', 'class')).toContain('tag-drift');
    // The incident: its first rule on the timeline, at the evaluation (12:00).
    expect(await page.textContent('[data-panel="review-missing"] .review-timeline li[data-kind="rule"]')).toBe(
      '12:00 UTC VersionErrors fired — the first rule',
    );
    expect(await page.getAttribute('#review-html', 'href')).toBe('/v1/reports?period=1h&format=html');
    await page.screenshot({ path: path.join(SHOTS, 'review-sections.png'), fullPage: true });
    // The filter bar narrows it: tenant t2 is served by v1 alone.
    await page.goto(`${server.url}/review?period=1h&tenant=t2`);
    await page.waitForSelector('[data-panel="review-errors"][data-state="ready"]', { timeout: 60_000 });
    expect((await cells('[data-panel="review-errors"] tbody tr')).map((r) => r.slice(0, 3))).toEqual([['m v1', '100', '30.00 %']]);
    expect(await page.getAttribute('#review-markdown', 'href')).toBe('/v1/reports?period=1h&tenant=t2&format=md');
  });
});
