// The Cost view in Debian's Chromium: money per model and tenant, per 1,000 requests and per 1,000
// tokens, with the trend, over test/cost-fixture.ts's rows (every figure computed by hand there and
// in test/cost.test.ts); and, on a server without prices, GPU-seconds with the setting that unlocks
// money. The servers' clocks are fixed at the fixture's time. Screenshots: artifacts/screenshots/cost-money.png, cost-unpriced.png.
import path from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import type uPlot from 'uplot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import type { ConfigInput } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { COST_PRICES, MIN, T0, costFixture, iso } from '../test/cost-fixture.ts';
import { SHOTS, hasChromium, openDashboardFixture } from './chromium.ts';
import type { DashboardFixture } from './chromium.ts';

type WithCharts = { inferlens?: { charts: Map<string, uPlot> } };

let fx: DashboardFixture;
let page: Page;
let tmp: string;
let dist: string;
const servers: InferlensServer[] = [];
/** The fixture's two minutes: the view's 10 s buckets, and 1-minute cost steps (its floor). */
const URL_WINDOW = `from=${iso(T0)}&to=${iso(T0 + 2 * MIN)}`;

async function serve(name: string, cost: ConfigInput['cost']): Promise<InferlensServer> {
  const server = await startServer(
    loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: path.join(tmp, name) }, alerting: { enabled: false }, cost } }),
    {
      logger: pino({ level: 'silent' }),
      uiDir: dist,
      collectors: false,
      now: () => T0 + 10 * MIN,
    },
  );
  servers.push(server);
  const { events, resources } = costFixture();
  for (const [p, rows] of [
    ['/v1/events', events],
    ['/v1/resources', resources],
  ] as const) {
    const res = await fetch(server.url + p, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: rows.map((r) => JSON.stringify(r)).join('\n'),
    });
    expect(res.status).toBe(200);
  }
  return server;
}

/** The rows of a cost table as the user sees them, with the raw figures the cells were drawn from. */
function tableRows(panel: string): Promise<{ key: string; cells: string[]; cost: string; per1kRequests: string; per1kTokens: string }[]> {
  return page.$$eval(`[data-panel="${panel}"] tbody tr`, (trs) =>
    trs.map((tr) => {
      const d = (tr as HTMLElement).dataset;
      return {
        key: d['model'] ?? d['tenant'] ?? '',
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
        cost: d['cost'] ?? '',
        per1kRequests: d['per1kRequests'] ?? '',
        per1kTokens: d['per1kTokens'] ?? '',
      };
    }),
  );
}

describe.skipIf(!hasChromium)('Cost view: money per model, tenant, 1,000 requests and 1,000 tokens', () => {
  beforeAll(async () => {
    fx = await openDashboardFixture('inferlens-cost-');
    ({ tmp, dist, page } = fx);
  }, 120_000);

  afterAll(async () => {
    for (const s of servers) await s.stop();
    await fx?.close();
  });

  it('shows the hand-computed money per model and tenant, the trend chart, and what is not attributed', async () => {
    const server = await serve('priced', COST_PRICES);
    await page.goto(`${server.url}/cost?${URL_WINDOW}`);
    await page.waitForSelector('[data-panel="cost-models"][data-state="ready"]', { timeout: 30_000 });
    await page.waitForSelector('[data-panel="cost-tenants"][data-state="ready"]');

    const models = await tableRows('cost-models');
    expect(models.map((r) => r.key)).toEqual(['m', 'gpt-hosted']);
    // m: 0.18 over 12 requests = 15 per 1,000, both minutes 15 (no change); gpt-hosted: 0.014 over 3
    // requests and 5,500 tokens, 6 per 1,000 requests in minute 0 (0.006 / 1), 4 in minute 1 (0.008 / 2): −33 %.
    const [m, hosted] = models;
    expect(Number(m!.cost)).toBeCloseTo(0.18, 12);
    expect(Number(m!.per1kRequests)).toBeCloseTo(15, 9);
    expect(m!.per1kTokens).toBe('');
    expect(m!.cells).toEqual(['m', '12', '–', '150', '€0.180', '€0.00', '€0.180', '€15.0', '–', '▲ 0 %']);
    expect(Number(hosted!.per1kTokens)).toBeCloseTo(0.014 / 5.5, 12);
    expect(hosted!.cells).toEqual(['gpt-hosted', '3', '5500', '0', '€0.00', '€0.0140', '€0.0140', '€4.67', '€0.00255', '▼ 33 %']);

    const tenants = await tableRows('cost-tenants');
    expect(tenants.map((r) => r.key)).toEqual(['a', 'b']);
    // a: 0.113 over 10 requests and 4,000 tokens (0.02825 per 1,000, 0.028249… in floating point), 15 → 2.67 per 1,000 requests (−82 %); b: 0.081 over 5
    // and 1,500, minute 0 (0.015 + 0.006) / 2 = 10.5, minute 1 0.06 / 3 = 20 per 1,000 (+90 %).
    expect(tenants[0]!.cells).toEqual(['a', '10', '4000', '75', '€0.105', '€0.00800', '€0.113', '€11.3', '€0.0282', '▼ 82 %']);
    expect(tenants[1]!.cells).toEqual(['b', '5', '1500', '75', '€0.0750', '€0.00600', '€0.0810', '€16.2', '€0.0540', '▲ 90 %']);

    expect(await page.getAttribute('[data-panel="cost-models"] .cost-total', 'data-total-cost')).toMatch(/^0\.19(4|39999)/);
    expect(await page.textContent('[data-panel="cost-models"] .cost-total')).toContain('Total €0.194 · €12.9 per 1,000 requests');
    expect(await page.textContent('[data-panel="cost-models"] [data-unattributed]')).toBe(
      'Not attributed: idle (no request ran there) 60 GPU-s (€0.0600) · requests without exec_ms 60 GPU-s (€0.0600) · probes and filtered-out traffic 30 GPU-s (€0.0600)',
    );
    expect(await page.$('[data-panel="cost-models"] [data-unlock]')).toBeNull();

    // The trend chart: money per 1-minute step, stacked by model, on the cost steps (1 minute, not the view's 10 s).
    await page.waitForSelector('[data-panel="cost-trend"][data-state="ready"] canvas');
    const series = await page.evaluate(() => {
      const u = (window as unknown as WithCharts).inferlens!.charts.get('cost-trend')!;
      return { labels: u.series.slice(1).map((s) => s.label), xs: [...(u.data[0] as number[])] };
    });
    expect([...series.labels].sort()).toEqual(['gpt-hosted', 'm']);
    expect(series.xs).toEqual([T0 / 1000, (T0 + MIN) / 1000]);

    // Per node, on 1-minute steps: n1 held 2 GPUs × 2 minutes = 240 s, busy 60 × (0.5 + 0.1 + 0.2 + 0.9)
    // = 102 s, 0.24; n2 one minute at 0.8 = 48 s, 0.12.
    await page.waitForSelector('[data-panel="cost-gpu"][data-state="ready"]');
    expect(await page.$$eval('[data-panel="cost-gpu"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)))).toEqual(
      [
        ['n1', '2', '102', '240', '43 %', '€0.240', ''],
        ['n2', '1', '48', '60', '80 %', '€0.120', ''],
      ],
    );
    // Tokens are weighted: gpt-hosted's row for tenant a stands for 2 requests of 2,000 input tokens.
    await page.waitForSelector('[data-panel="cost-usage"][data-state="ready"]');
    const usage = await page.$$eval('[data-panel="cost-usage"] tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(usage).toContainEqual(['gpt-hosted', 'a', '2', '4000', '–', '2000']);
    await page.screenshot({ path: path.join(SHOTS, 'cost-money.png'), fullPage: true });
  });

  it('without prices: GPU-seconds, no money columns, and the note naming cost.gpu_hour and cost.tokens', async () => {
    const server = await serve('unpriced', {});
    await page.goto(`${server.url}/cost?${URL_WINDOW}`);
    await page.waitForSelector('[data-panel="cost-models"][data-state="ready"]', { timeout: 30_000 });
    const note = await page.textContent('[data-panel="cost-models"] [data-unlock="cost"]');
    expect(note).toContain(
      'Money figures need prices. Set cost.gpu_hour (price per GPU-hour by pool or GPU model) or cost.tokens (price per 1 M input / output tokens by model) in the config file',
    );
    expect(await page.$$eval('[data-panel="cost-models"] thead th', (ths) => ths.map((t) => t.textContent))).toEqual([
      'model',
      'requests',
      'tokens',
      'GPU-seconds',
      'trend',
    ]);
    const models = await tableRows('cost-models');
    expect(models.map((r) => [r.key, r.cells[3]])).toEqual([
      ['m', '150'],
      ['gpt-hosted', '0'],
    ]);
    expect(await page.textContent('[data-panel="cost-models"] .cost-total')).toBe('150 GPU-s attributed over 15 requests');
    await page.screenshot({ path: path.join(SHOTS, 'cost-unpriced.png'), fullPage: true });
  });
});
