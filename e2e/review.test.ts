// The Review view in Debian's Chromium over test/report-fixture.ts's rows (the hour before NOW
// against the hour before that; every figure computed by hand in test/report.test.ts): the
// sections as a platform owner reads them. Screenshot: artifacts/screenshots/review.png.
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InferlensServer } from '../src/main.ts';
import { startReportServer } from '../test/report-fixture.ts';
import { SHOTS, hasChromium, openDashboardFixture } from './chromium.ts';
import type { DashboardFixture } from './chromium.ts';

let fx: DashboardFixture;
let page: Page;
let tmp: string;
let server: InferlensServer;

const cells = (sel: string) => page.$$eval(sel, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));

describe.skipIf(!hasChromium)('Review view: the periodic review of the last hour', () => {
  beforeAll(async () => {
    fx = await openDashboardFixture('inferlens-review-');
    ({ tmp, page } = fx);
    server = await startReportServer(tmp, { ui: true, uiDir: fx.dist });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await fx?.close();
  });

  it('shows tail latency, error changes, hot GPUs, alerting health and cost against the hour before', async () => {
    await page.goto(`${server.url}/review?period=1h`);
    await page.waitForSelector('[data-panel="review-cost"][data-state="ready"]', { timeout: 30_000 });
    // v1's P99 doubled (99.1 → 198.2 ms); v2 is new.
    expect(await cells('[data-panel="review-latency"] tr[data-version]:not([data-version=""])')).toEqual([
      ['m v1', '198 ms', '200 ms', '10', '99.1 ms', '10', '+100 %', '+100 %'],
      // v2: 70, 80, 90, 100: P99 99.7, P99.9 99.97 (shown to one decimal).
      ['m v2', '99.7 ms', '100.0 ms', '4', '–', '–', '–', '–'],
    ]);
    // m over the hour: 14 requests, P99 197.4 ms against 99.1 (+99 %).
    expect(await cells('[data-panel="review-latency"] tr[data-version=""]')).toEqual([['m', '197 ms', '200 ms', '14', '99.1 ms', '10', '+99 %', '+100 %']]);
    expect(await cells('[data-panel="review-errors"] tbody tr')).toEqual([
      ['m v2', '4', '50.00 %', '–', '0', '–'],
      ['m v1', '10', '0.00 %', '10.00 %', '10', '−10.00'],
    ]);
    expect(await cells('[data-panel="review-gpu"] tr[data-pool]')).toEqual([['a100', '1', '70.0 %', '90.0 %', '50.0 %', '2', '25.0 %', '40.0 %']]);
    expect(await cells('[data-panel="review-alerting"] tr[data-rule]')).toEqual([['VersionErrors', '1', '0', '0', '–']]);
    expect(await page.textContent('[data-panel="review-alerting"] .review-summary')).toBe(
      '1 incidents, 1 alert episodes; 0 % proposed an action; 0 acknowledged.',
    );
    expect(await page.textContent('[data-panel="review-cost"] .review-summary')).toBe('Total 0.0600 USD (before 0.0600 USD) +0 %');
    expect(await page.getAttribute('#review-markdown', 'href')).toBe('/v1/reports?period=1h&format=md');
    await page.screenshot({ path: path.join(SHOTS, 'review.png'), fullPage: true });
  });
});
