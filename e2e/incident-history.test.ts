// The Alerts view's incident history in Debian's Chromium: a server at a fixed time raises two
// incidents (one per tenant's model), is stopped, and a new server on the same data folder shows
// them from the incident log with their timelines — "unfinished", since the first process stopped
// before they resolved. Screenshot: artifacts/screenshots/alerts-history.png.
import path from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { NOW, TENANT_ERRORS_RULE, iso, ruleFile, startTenantServer } from '../test/two-tenants.ts';
import { SHOTS, hasChromium, openDashboardFixture } from './chromium.ts';
import type { DashboardFixture } from './chromium.ts';

let fx: DashboardFixture;
let page: Page;
let tmp: string;
let server: InferlensServer | undefined;

describe.skipIf(!hasChromium)('Alerts view: incident history from the incident log, across a restart', () => {
  beforeAll(async () => {
    fx = await openDashboardFixture('inferlens-history-');
    ({ tmp, page } = fx);
    const dist = fx.dist;
    // One evaluation at NOW: TenantErrors fires for acme and globex, each proposing a rate limit.
    const first = await startTenantServer(tmp, { options: { ui: true, uiDir: dist } });
    await first.stop();
    server = await startServer(
      loadConfig({
        env: {},
        flags: {
          server: { port: 0 },
          storage: { dataDir: path.join(tmp, 'data') },
          alerting: { defaultRules: false, ruleFiles: [ruleFile(tmp, TENANT_ERRORS_RULE)] },
          log: { level: 'silent' },
        },
      }),
      { logger: pino({ level: 'silent' }), now: () => NOW, collectors: false, uiDir: dist },
    );
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await fx?.close();
  });

  it('lists both incidents with their steps after the restart', async () => {
    await page.goto(`${server!.url}/alerts?from=${iso(NOW - 3_600_000)}&to=${iso(NOW + 3_600_000)}`);
    await page.waitForSelector('[data-panel="alerts-history"][data-state="ready"]', { timeout: 30_000 });
    const incidents = await page.$$eval('[data-panel="alerts-history"] details.incident', (ds) =>
      ds.map((d) => ({ status: (d as HTMLElement).dataset['status'], summary: d.querySelector('summary')!.textContent ?? '' })),
    );
    expect(incidents.filter((i) => i.status === 'unfinished')).toHaveLength(2);
    expect(incidents.map((i) => i.summary).join('\n')).toMatch(/model=acme-model[\s\S]*1 alert \(TenantErrors\)[\s\S]*rate_limit no endpoint/);
    expect(await page.textContent('[data-panel="alerts-history"] .panel-meta')).toBe('2 incidents · 0 silences in the window');
    // Open the acme incident: its timeline, step by step.
    const acme = page.locator('[data-panel="alerts-history"] details.incident', { hasText: 'model=acme-model' });
    await acme.locator('summary').click();
    const steps = await acme.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset['kind']));
    expect(steps).toEqual(['opened', 'alert_firing', 'action_proposed']);
    const detail = await acme.locator('tbody tr').nth(1).textContent();
    expect(detail).toContain('TenantErrors');
    expect(detail).toContain('value 0.333');
    await page.locator('[data-panel="alerts-history"]').scrollIntoViewIfNeeded();
    await page.locator('[data-panel="alerts-history"]').screenshot({ path: path.join(SHOTS, 'alerts-history.png') });
  });

  it('acknowledges an incident from its summary: written to the incident log, shown with who and when', async () => {
    const globex = () => page.locator('[data-panel="alerts-history"] details.incident', { hasText: 'model=globex-model' });
    await globex().locator('button.ack').click();
    await page.waitForSelector('[data-panel="alerts-history"] details.incident .acked', { timeout: 30_000 });
    expect(await globex().locator('.acked').textContent()).toMatch(/^ · acknowledged .+ by anonymous$/);
    expect(await globex().locator('button.ack').count()).toBe(0);
    // The other incident is still to be acknowledged.
    expect(await page.locator('[data-panel="alerts-history"] details.incident', { hasText: 'model=acme-model' }).locator('button.ack').count()).toBe(1);
    await globex().locator('summary').click();
    // Every step of this server is at NOW, the acknowledgement too: the log orders steps of one instant by entry id, whose prefix is random per process.
    expect(
      (
        await globex()
          .locator('tbody tr')
          .evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset['kind']))
      ).sort(),
    ).toEqual(['acknowledged', 'action_proposed', 'alert_firing', 'opened']);
    // In the log, so in the API's answer too.
    const res = (await (await fetch(`${server!.url}/v1/incidents?from=${iso(NOW - 3_600_000)}&to=${iso(NOW + 3_600_000)}`)).json()) as {
      data: { incidents: { group_labels: Record<string, string>; acknowledged_by: string | null }[] };
    };
    expect(res.data.incidents.map((i) => [i.group_labels['model'], i.acknowledged_by]).sort()).toEqual([
      ['acme-model', null],
      ['globex-model', 'anonymous'],
    ]);
  });
});
