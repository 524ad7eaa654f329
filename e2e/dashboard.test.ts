// User journeys through the dashboard in Debian's Chromium, against the real server on a temp data
// dir, seeded through the public ingest API. Screenshots of each view go to artifacts/screenshots/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type uPlot from 'uplot';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountUi } from '../src/api/ui.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { SPIKE_MINUTES_AGO, XSS_INPUT, XSS_OUTPUT, seedEvents, seedResources } from './seed.ts';

/** What the dashboard exposes for tests (web/src/charts/registry.ts). */
type WithCharts = { inferlens?: { charts: Map<string, uPlot> } };

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.resolve(import.meta.dirname, '..');
const SHOTS = path.join(ROOT, 'artifacts', 'screenshots');
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`e2e: ${CHROMIUM} is missing (apt-get install -y chromium): skipping the browser tests`);

let server: InferlensServer;
let browser: Browser;
let page: Page;
let tmp: string;
const NOW = Date.now();

async function post(pathname: string, rows: unknown[]): Promise<void> {
  const res = await fetch(server.url + pathname, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: rows.map((r) => JSON.stringify(r)).join('\n') });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function storedCount(): Promise<number> {
  const res = await fetch(server.url + '/v1/query', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: new Date(NOW - 7_200_000).toISOString(), to: new Date(NOW + 60_000).toISOString(), measures: ['n'] }),
  });
  const body = (await res.json()) as { data: { rows: { n: number }[] } };
  return body.data.rows[0]?.n ?? 0;
}

/** Waits until the view finished a render after `before` (the shell counts them on <body>). */
async function rendered(before: number): Promise<number> {
  await page.waitForFunction((b) => Number(document.body.dataset['renders'] ?? 0) > b, before, { timeout: 20_000 });
  return Number(await page.evaluate(() => document.body.dataset['renders'] ?? 0));
}

const renders = () => page.evaluate(() => Number(document.body.dataset['renders'] ?? 0));

/** The largest value of a chart series, read from the chart the user sees. */
function seriesMax(chart: string, label: string): Promise<number> {
  return page.evaluate(
    ([c, l]) => {
      const u = (window as unknown as WithCharts).inferlens?.charts.get(c!);
      if (!u) return -1;
      const si = u.series.findIndex((s) => s.label === l);
      const vals = (u.data[si] ?? []) as (number | null)[];
      return Math.max(-1, ...vals.filter((v): v is number => v != null));
    },
    [chart, label],
  );
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

describe.skipIf(!hasChromium)('dashboard in Chromium', () => {
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'inferlens-e2e-'));
    const dist = path.join(tmp, 'dist');
    // Build the current web/ sources, so the test never runs against a stale web/dist.
    await build({ configFile: path.join(ROOT, 'web', 'vite.config.ts'), logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
    const config = loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: path.join(tmp, 'data') } } });
    server = await startServer(config, { logger: pino({ level: 'silent' }), collectors: false, mounts: [(app) => mountUi(app, dist)] });
    const events = seedEvents(NOW);
    await post('/v1/events', events);
    await post('/v1/resources', seedResources(NOW));
    for (let i = 0; i < 100 && (await storedCount()) < events.length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await storedCount()).toBe(events.length);
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('opens the runtime view and shows the P99 chart with the spike', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="latency"][data-state="ready"] canvas');
    expect(await seriesMax('latency', 'P99')).toBeGreaterThan(1400);
    // The other runtime panels filled in too: no empty chart anywhere.
    for (const id of ['stages', 'heatmap', 'qps', 'queue', 'rejects', 'errors', 'concentration', 'resources', 'stage-shift']) {
      expect(await page.getAttribute(`[data-panel="${id}"]`, 'data-state'), id).toBe('ready');
    }
    // Generative timings were never sent: the panel says which fields unlock it.
    expect(await page.getAttribute('[data-panel="generative"]', 'data-state')).toBe('needs');
    expect(await page.textContent('[data-panel="generative"]')).toContain('ttft_ms');
    // The slice finder points at replica r3; the simulated GPU is labelled.
    // r3 is n2's only replica, so the finder may name either (its parent rule keeps the broader one).
    expect(await page.textContent('[data-panel="concentration"] tbody tr:first-child')).toMatch(/replica=r3|node=n2/);
    expect(await page.textContent('[data-panel="resources"]')).toContain('simulated');
    await shot('runtime');
  });

  it('filters by version, keeps it in the URL, and the chart changes', async () => {
    const before = await renders();
    await page.selectOption('#filter-model_version', 'v1');
    await rendered(before);
    expect(page.url()).toContain('model_version=v1');
    expect(await seriesMax('latency', 'P99')).toBeLessThan(500);
    await shot('runtime-v1');
    // A link reproduces the view.
    await page.goto(page.url());
    await rendered(0);
    expect(await page.inputValue('#filter-model_version')).toBe('v1');
    expect(await seriesMax('latency', 'P99')).toBeLessThan(500);
  });

  it('clicks the spike and sees its samples, with captured text inert', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now&model_version=v2`);
    await rendered(0);
    await page.waitForSelector('[data-panel="latency"][data-state="ready"] canvas');
    const at = await page.evaluate(() => {
      const u = (window as unknown as WithCharts).inferlens!.charts.get('latency')!;
      const si = u.series.findIndex((s) => s.label === 'P99');
      const vals = u.data[si] as (number | null)[];
      let idx = 0;
      vals.forEach((v, i) => {
        if (v != null && v > (vals[idx] ?? -1)) idx = i;
      });
      const r = u.over.getBoundingClientRect();
      return { x: r.left + u.valToPos(u.data[0][idx]!, 'x'), y: r.top + u.valToPos(vals[idx]!, 'y'), t: u.data[0][idx]! * 1000 };
    });
    const minuteMs = 60_000;
    expect(at.t).toBe(Math.floor(NOW / minuteMs) * minuteMs - SPIKE_MINUTES_AGO * minuteMs);
    await page.mouse.move(at.x, at.y);
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('#drawer[data-state="ready"][data-kind="samples"]');
    const ids = await page.$$eval('#drawer tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).dataset['requestId']));
    expect(ids).toContain('req-xss');
    const row = await page.textContent('#drawer tr[data-request-id="req-xss"]');
    expect(row).toContain('<script>');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$eval('#drawer script, #drawer img', (els) => els.length)).toBe(0);
    await shot('samples');

    // Open the whole request from the samples.
    await page.click('#drawer tr[data-request-id="req-xss"] a.reqlink');
    await page.waitForSelector('#drawer[data-state="ready"][data-kind="request"]');
    expect(page.url()).toContain('request=req-xss');
    expect(await page.textContent('#drawer pre[data-captured="input"]')).toBe(XSS_INPUT);
    expect(await page.textContent('#drawer pre[data-captured="output"]')).toBe(XSS_OUTPUT);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await shot('request');
  });

  it('searches a request id and sees the whole request', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now`);
    await rendered(0);
    await page.fill('#request-search', 'req-xss');
    await page.press('#request-search', 'Enter');
    await page.waitForSelector('#drawer[data-state="ready"][data-kind="request"]');
    expect(await page.textContent('#drawer')).toContain('queue_ms');
    await page.fill('#request-search', 'no-such-request');
    await page.press('#request-search', 'Enter');
    await page.waitForSelector('#drawer[data-state="error"]');
    expect(await page.textContent('#drawer')).toContain('no request with id');
  });

  it('takes an absolute window from the URL, and auto-refreshes', async () => {
    const to = Math.floor(NOW / 60_000) * 60_000 - 5 * 60_000;
    const from = to - 20 * 60_000;
    await page.goto(`${server.url}/runtime?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&refresh=10`);
    const first = await rendered(0);
    expect(await page.inputValue('#window')).toBe('absolute');
    expect(await page.isVisible('#from')).toBe(true);
    // The spike (10 min ago) is inside [25, 5) min ago: the P99 chart shows it.
    expect(await seriesMax('latency', 'P99')).toBeGreaterThan(1400);
    const xs = await page.evaluate(() => (window as unknown as WithCharts).inferlens!.charts.get('latency')!.data[0]!.length);
    expect(xs).toBe(40); // 20 min at a 30 s step (the smallest step giving ≤ 90 buckets)
    // refresh=10: a second render comes by itself.
    await rendered(first);
  });

  it('shows which fields would unlock a panel (staged adoption)', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now&model=legacy`);
    await rendered(0);
    expect(await page.getAttribute('[data-panel="latency"]', 'data-state')).toBe('ready');
    expect(await page.getAttribute('[data-panel="stages"]', 'data-state')).toBe('needs');
    expect(await page.textContent('[data-panel="stages"]')).toContain('queue_ms');
    expect(await page.getAttribute('[data-panel="queue"]', 'data-state')).toBe('needs');
    await shot('runtime-legacy');
  });

  it('compares two versions side by side and reads the verdict when the API has it', async () => {
    await page.goto(`${server.url}/release?from=now-1h&to=now&baseline=v1&candidate=v2`);
    await rendered(0);
    await page.waitForSelector('[data-panel="side-by-side"][data-state="ready"]');
    expect(await page.textContent('[data-panel="side-by-side"]')).toContain('candidate v2');
    const verdictState = await page.getAttribute('[data-panel="verdict"]', 'data-state');
    if (verdictState === 'ready') {
      expect(await page.getAttribute('[data-verdict]', 'data-verdict')).toMatch(/\w/);
    } else {
      expect(verdictState).toBe('missing-api');
      expect(await page.textContent('[data-panel="verdict"]')).toContain('/v1/compare');
    }
    await shot('release');
  });

  it('renders every other role view without an empty chart', async () => {
    for (const view of ['quality', 'cost', 'business', 'alerts']) {
      await page.goto(`${server.url}/${view}?from=now-1h&to=now`);
      await rendered(0);
      const states = await page.$$eval('[data-panel][data-state]', (els) => els.map((e) => `${(e as HTMLElement).dataset['panel']}:${(e as HTMLElement).dataset['state']}`));
      expect(states.length, view).toBeGreaterThan(0);
      for (const s of states) expect(s, view).toMatch(/:(ready|needs|missing-api|empty)$/);
      await shot(view);
    }
  });
});
