// The Alerts view's Backtest in Debian's Chromium: a past hour in which a small tenant's requests
// failed, the server's rules replayed over it from the browser, the episode on the timeline and its
// labels on a click. Data at a fixed date, the server's clock injected.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../src/analysis/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { SHOTS, hasChromium, openDashboardFixture } from './chromium.ts';
import type { DashboardFixture } from './chromium.ts';

const T0 = Date.parse('2026-06-01T08:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

let server: InferlensServer;
let fx: DashboardFixture;

describe.skipIf(!hasChromium)('backtest in the Alerts view (Chromium)', () => {
  beforeAll(async () => {
    fx = await openDashboardFixture('inferlens-e2e-backtest-');
    const { tmp, dist } = fx;
    const rules = path.join(tmp, 'rules.yaml');
    writeFileSync(
      rules,
      `groups:
  - name: errors
    interval: 1m
    rules:
      - alert: TenantErrorsUp
        condition: { kind: rate_shift, signal: error, by: [model, model_version], localize: [tenant] }
        for: 2m
        severity: warning
`,
    );
    const config = loadConfig({
      env: {},
      flags: { server: { port: 0 }, storage: { dataDir: path.join(tmp, 'data') }, alerting: { enabled: true, defaultRules: false, ruleFiles: [rules] } },
    });
    server = await startServer(config, { logger: pino({ level: 'silent' }), collectors: false, uiDir: dist, now: () => T0 + 121 * MIN });
    // Two hours: tenant t7 (a request every 20 s) fails half its requests from minute 90 to 105.
    const rnd = mulberry32(3);
    const rows: string[] = [];
    for (let ts = T0; ts < T0 + 120 * MIN; ts += 1000) {
      const small = ts % 20_000 === 0;
      const bad = small && ts >= T0 + 90 * MIN && ts < T0 + 105 * MIN && rnd() < 0.5;
      rows.push(
        JSON.stringify({
          ts,
          request_id: `e${ts}`,
          model: 'ranker',
          model_version: 'v1',
          tenant: small ? 't7' : 'acme',
          total_ms: 20,
          status: bad || rnd() < 0.005 ? 'error' : 'ok',
        }),
      );
    }
    const res = await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: rows.join('\n') });
    expect(res.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await fx?.close();
  });

  it("runs the rules over the view's range and shows the episode on a timeline", async () => {
    const page = await fx.browser.newPage({ viewport: { width: 1440, height: 900 }, timezoneId: 'UTC' });
    page.on('pageerror', (e) => console.error('page error:', e.message));
    await page.goto(`${server.url}/alerts?from=${iso(T0 + 60 * MIN)}&to=${iso(T0 + 120 * MIN)}`);
    await page.waitForSelector('[data-panel="alerts-backtest"][data-state="ready"] #backtest-run');
    expect(await page.inputValue('#backtest-from')).toBe('2026-06-01T09:00');
    await page.click('#backtest-run');
    await page.waitForSelector('#backtest-timeline .episode', { timeout: 30_000 });
    expect(await page.locator('#backtest-timeline .lane[data-rule="TenantErrorsUp"] .episode').count()).toBe(1);
    // Pending, then firing two minutes later: the bar has a firing part.
    expect(await page.locator('#backtest-timeline .episode .episode-firing').count()).toBe(1);
    await page.click('#backtest-timeline .episode');
    const detail = await page.textContent('#backtest-detail');
    expect(detail).toContain('tenant=t7');
    expect(detail).toMatch(/pending 2026-06-01 09:3\d/);
    expect(await page.textContent('[data-panel="alerts-backtest"] .panel-meta')).toMatch(/^1 episode · 61 evaluations in/);
    await page.screenshot({ path: path.join(SHOTS, 'alerts-backtest.png'), fullPage: true });
    await page.close();
  });
});
