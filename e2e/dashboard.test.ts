// Over 400 lines on purpose: one suite: the dashboard's journeys over one seeded server and browser (the fixture is shared, not repeated).
// User journeys through the dashboard in Debian's Chromium, against the real server on a temp data
// dir, seeded through the public ingest API. Screenshots of each view go to artifacts/screenshots/.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import type uPlot from 'uplot';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { FEEDBACK_PENDING_MINUTES, SPIKE_MINUTES_AGO, XSS_INPUT, XSS_OUTPUT, seedEvents, seedFeedback, seedProbes, seedResources } from './seed.ts';

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
let stub: Server;
const NOW = Date.now();

async function post(pathname: string, rows: unknown[]): Promise<void> {
  const res = await fetch(server.url + pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: rows.map((r) => JSON.stringify(r)).join('\n'),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

async function postJson(pathname: string, body: unknown): Promise<unknown> {
  const res = await fetch(server.url + pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status, pathname).toBe(200);
  return ((await res.json()) as { data: unknown }).data;
}

/** Requests with feedback joined (to wait for the feedback writes). */
async function joinedFeedback(): Promise<number> {
  const data = (await postJson('/v1/quality/feedback', { from: new Date(NOW - 7_200_000).toISOString(), to: new Date(NOW + 60_000).toISOString() })) as {
    rows: { with_feedback: number }[];
  };
  return data.rows.reduce((a, r) => a + r.with_feedback, 0);
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

/** The page at 1440 × 900 and 1920 × 1080 (full page, re-rendered at each size), then back to 1440 × 1000. */
async function shotSizes(name: string, url: string, ready: string): Promise<void> {
  for (const [width, height] of [
    [1440, 900],
    [1920, 1080],
  ] as const) {
    await page.setViewportSize({ width, height });
    await page.goto(url);
    await rendered(0);
    await page.waitForSelector(ready);
    await page.screenshot({ path: path.join(SHOTS, `${name}-${width}x${height}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1440, height: 1000 });
}

describe.skipIf(!hasChromium)('dashboard in Chromium', () => {
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'inferlens-e2e-'));
    const dist = path.join(tmp, 'dist');
    // Build the current web/ sources, so the test never runs against a stale web/dist.
    await build({ configFile: path.join(ROOT, 'web', 'vite.config.ts'), logLevel: 'warn', build: { outDir: dist, emptyOutDir: true } });
    // Alerting on (the default rule pack and e2e/seed-rules.yaml), actions waiting for approval so
    // the approve button shows; switch_route goes to a stub on loopback, the other action types
    // have no endpoint.
    stub = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    await new Promise<void>((r) => stub.listen(0, '127.0.0.1', r));
    const stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}/switch_route`;
    const config = loadConfig({
      env: {},
      flags: {
        server: { port: 0 },
        storage: { dataDir: path.join(tmp, 'data') },
        alerting: {
          enabled: true,
          ruleFiles: [path.join(ROOT, 'e2e', 'seed-rules.yaml')],
          actions: { mode: 'approval', endpoints: { switch_route: { url: stubUrl } } },
        },
      },
    });
    server = await startServer(config, { logger: pino({ level: 'silent' }), collectors: false, uiDir: dist });
    const events = seedEvents(NOW);
    await post('/v1/events', seedProbes(NOW));
    await post('/v1/events', events);
    await post('/v1/resources', seedResources(NOW));
    for (let i = 0; i < 100 && (await storedCount()) < events.length; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await storedCount()).toBe(events.length);
    const feedback = seedFeedback(events, NOW);
    await post('/v1/feedback', feedback);
    const joined = new Set(feedback.map((f) => f['request_id'])).size;
    for (let i = 0; i < 100 && (await joinedFeedback()) < joined; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await joinedFeedback()).toBe(joined);
    // One evaluation now, so what fires does not depend on where the 30 s rule ticks fall.
    await server.alerting!.evaluateAt(Date.now());
    mkdirSync(SHOTS, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    stub?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('opens the runtime view and shows the P99 chart with the spike', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="latency"][data-state="ready"] canvas');
    expect(await seriesMax('latency', 'P99')).toBeGreaterThan(1400);
    // The other runtime panels filled in too: no empty chart anywhere.
    for (const id of ['stages', 'heatmap', 'qps', 'queue', 'rejects', 'errors', 'concentration', 'resources', 'stage-shift', 'replicas']) {
      expect(await page.getAttribute(`[data-panel="${id}"]`, 'data-state'), id).toBe('ready');
    }
    // Generative timings were never sent: the panel says which fields unlock it.
    expect(await page.getAttribute('[data-panel="generative"]', 'data-state')).toBe('needs');
    expect(await page.textContent('[data-panel="generative"]')).toContain('ttft_ms');
    // The slice finder points at replica r3; the simulated GPU is labelled.
    // r3 is n2's only replica, so the finder may name either (its parent rule keeps the broader one).
    expect(await page.textContent('[data-panel="concentration"] tbody tr:first-child')).toMatch(/replica=r3|node=n2/);
    expect(await page.textContent('[data-panel="resources"]')).toContain('simulated');
    // Its quantiles come from the per-minute rollup, and the panel says so (never silently approximate).
    expect(await page.textContent('[data-panel="latency"] .panel-meta')).toContain('quantiles ±0.96 %');
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
    // The event carries no payload any more: its text comes from the captured sample, as text.
    const row = await page.textContent('#drawer tr[data-request-id="req-xss"]');
    expect(row).toContain('<script>');
    expect(await page.getAttribute('#drawer tr[data-request-id="req-xss"] td.captured', 'title')).toBe(XSS_INPUT);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$eval('#drawer script, #drawer img', (els) => els.length)).toBe(0);
    await shot('samples');

    // Open the whole request from the samples.
    await page.click('#drawer tr[data-request-id="req-xss"] a.reqlink');
    await page.waitForSelector('#drawer[data-state="ready"][data-kind="request"]');
    expect(page.url()).toContain('request=req-xss');
    expect(await page.textContent('#drawer pre[data-captured="input"]')).toBe(XSS_INPUT);
    expect(await page.textContent('#drawer pre[data-captured="output"]')).toBe(XSS_OUTPUT);
    expect(await page.textContent('#drawer .sample')).toContain('error');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.$$eval('#drawer script, #drawer img', (els) => els.length)).toBe(0);
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

  it('compares two versions and reads the verdict: the slower candidate is rolled back', async () => {
    // No versions in the URL: the two most frequent ones, the lower as baseline.
    await page.goto(`${server.url}/release?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="verdict"][data-state="ready"]');
    expect(await page.inputValue('#baseline')).toBe('v1');
    expect(await page.inputValue('#candidate')).toBe('v2');
    expect(await page.getAttribute('[data-verdict]', 'data-verdict')).toBe('rollback');
    expect(Number(await page.getAttribute('[data-score]', 'data-score'))).toBeLessThan(75);
    expect(await page.textContent('[data-panel="verdict"] ul.reasons')).toContain('p99(total_ms)');
    // The evidence: the critical P99 is beyond its band, with its interval and q-value.
    const p99 = '[data-panel="evidence"] tr[data-metric="p99(total_ms)"]';
    expect(await page.getAttribute(p99, 'data-classification')).toBe('high');
    expect(await page.getAttribute(p99, 'data-direction')).toBe('worse');
    expect(await page.textContent(p99)).toMatch(/\[\+[\d.]+ s, \+[\d.]+ s\]/);
    expect(await page.textContent('[data-panel="side-by-side"]')).toContain('candidate v2');
    // v1 serves acme and globex, v2 acme only: the verdict panel warns about the tenant mix.
    expect(await page.textContent('[data-panel="verdict"] .warnings')).toMatch(
      /different tenant mixes \(Jensen–Shannon distance 0\.\d\d; baseline globex \d+ %, acme \d+ %; candidate acme 100 %\)/,
    );
    await shot('release');

    // Picking versions keeps both in the URL; the same pair reads the same verdict.
    const before = await renders();
    await page.selectOption('#candidate', 'v2');
    await rendered(before);
    expect(page.url()).toMatch(/baseline=v1&candidate=v2/);
    await page.waitForSelector('[data-panel="verdict"][data-state="ready"]');
    expect(await page.getAttribute('[data-verdict]', 'data-verdict')).toBe('rollback');
  });

  it('explores samples kept for errors: a captured <script> is text and never runs', async () => {
    await page.goto(`${server.url}/quality?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="quality-samples"][data-state="ready"]');
    const before = await renders();
    await page.selectOption('#sample-reason', 'error');
    await page.click('#sample-search');
    await rendered(before);
    expect(page.url()).toContain('sreason=error');
    await page.waitForSelector('[data-panel="quality-samples"] .sample[data-request-id="req-xss"]');
    const card = '[data-panel="quality-samples"] .sample[data-request-id="req-xss"]';
    expect(await page.textContent(`${card} pre[data-captured="input"]`)).toBe(XSS_INPUT);
    expect(await page.textContent(`${card} pre[data-captured="output"]`)).toBe(XSS_OUTPUT);
    expect(await page.textContent(card)).toContain('error');
    // Every sample listed was kept for an error.
    const reasons = await page.$$eval('[data-panel="quality-samples"] .sample', (els) =>
      els.map((e) => [...e.querySelectorAll('.chip.reason')].map((c) => c.textContent)),
    );
    for (const r of reasons) expect(r).toContain('error');
    expect(await page.$$eval('#content script, #content img', (els) => els.length)).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await page.click(`${card} a.reqlink`);
    await page.waitForSelector('#drawer[data-state="ready"][data-kind="request"]');
    expect(await page.textContent('#drawer pre[data-captured="input"]')).toBe(XSS_INPUT);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    await shot('quality-samples');
  });

  it('shows the drift verdict for the shifted confidence against a chosen version', async () => {
    await page.goto(`${server.url}/quality?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="quality-drift"][data-state="ready"]');
    // Against the previous window (empty): no verdict, and the sizes say why.
    expect(await page.getAttribute('[data-panel="quality-drift"] tr[data-field="confidence"]', 'data-verdict')).toBe('not_enough_data');
    const before = await renders();
    await page.selectOption('#drift-reference', 'version:v1');
    await rendered(before);
    await page.waitForSelector('[data-panel="quality-drift"][data-state="ready"]');
    expect(await page.inputValue('#drift-current')).toBe('v2');
    const row = '[data-panel="quality-drift"] tr[data-field="confidence"]';
    expect(await page.getAttribute(row, 'data-verdict')).toBe('drift');
    expect(await page.textContent(row)).toContain('ks');
    expect(await page.getAttribute('[data-panel="quality-drift"] tr[data-field="output_length"]', 'data-verdict')).toBe('no_drift');
    // The rest of the view: model type, labels by version, feedback hit rate, golden failures.
    expect(await page.getAttribute('[data-panel="quality-model"] [data-model="ranker"]', 'data-model-type')).toBe('classifier');
    expect(await page.textContent('[data-panel="quality-labels"] tr[data-label="spam"]')).toMatch(/%.*%/);
    expect(await page.getAttribute('[data-panel="quality-feedback"]', 'data-state')).toBe('ready');
    expect(await page.textContent('[data-panel="quality-golden"] tr[data-golden-id="g3"]')).toContain('v2');
    await shot('quality');
  });

  it('actions: approve and reject are on screen at 1440 px; an action nobody can execute is never put up', async () => {
    // ReplicaErrorsHigh (for: 5m, e2e/seed-rules.yaml) fires 6 minutes on and proposes a
    // switch_route, which has an endpoint here (a stub); LoadShedding on model "burst" proposes a
    // scale_out, which has none: recorded, never put up for approval.
    await server.alerting!.evaluateAt(Date.now() + 6 * 60_000);
    await server.alerting!.evaluateAt(Date.now());
    const url = `${server.url}/alerts?from=now-1h&to=now`;
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(url);
    await rendered(0);
    await page.waitForSelector('[data-panel="alerts-actions"][data-state="ready"]');
    const rows = await page.$$eval('[data-panel="alerts-actions"] tbody tr', (trs) =>
      trs.map((tr) => ({ state: (tr as HTMLElement).dataset['state'], text: tr.textContent ?? '', buttons: tr.querySelectorAll('button').length })),
    );
    const waiting = rows.filter((r) => r.state === 'awaiting_approval');
    expect(waiting.length).toBeGreaterThan(0);
    for (const r of waiting) expect(r.text).toMatch(/^\s*approve\s*(reject|dismiss)\s*switch_route/);
    const unexecutable = rows.filter((x) => x.state === 'no_endpoint');
    expect(unexecutable.length).toBeGreaterThan(0);
    for (const r of unexecutable) {
      expect(r.buttons).toBe(0);
      expect(r.text).toMatch(/no endpoint for/);
    }
    // Both buttons and the audit trail are inside the 1440 px viewport, without scrolling sideways.
    for (const sel of ['button.approve', 'button.reject', 'ul.trail']) {
      const box = await page.$eval(
        `[data-panel="alerts-actions"] tr[data-state="awaiting_approval"] ${sel}`,
        (el) => el.getBoundingClientRect().toJSON() as DOMRect,
      );
      expect(box.right, sel).toBeLessThanOrEqual(1440);
      expect(box.left, sel).toBeGreaterThanOrEqual(0);
    }
    await page.setViewportSize({ width: 1440, height: 1000 });
    await shotSizes('alerts', url, '[data-panel="alerts-actions"][data-state="ready"]');
  });

  it('lists alerts and rules, creates and expires a silence, approves an action, and is empty where nothing fires', async () => {
    // ReplicaErrorsHigh (for: 5m) on r3: pending since the first evaluation, firing 6 minutes later,
    // proposing a switch_route (waiting for approval); then back to now, as the next tick would.
    await server.alerting!.evaluateAt(Date.now() + 6 * 60_000);
    expect(server.alerting!.actions.list().map((a) => a.state)).toContain('awaiting_approval');
    await server.alerting!.evaluateAt(Date.now());
    await page.goto(`${server.url}/alerts?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="alerts-rules"][data-state="ready"]');
    expect(await page.textContent('[data-panel="alerts-rules"]')).toContain('ReplicaSlow');
    expect(await page.getAttribute('[data-panel="alerts-alerts"]', 'data-state')).toBe('ready');
    expect(await page.textContent('[data-panel="alerts-alerts"]')).toContain('ReplicaErrorsHigh');
    expect(await page.getAttribute('[data-panel="alerts-incidents"]', 'data-state')).toBe('ready');

    await page.fill('#silence-matchers', 'alertname="ReplicaErrorsHigh", model="ranker"');
    await page.fill('#silence-comment', 'e2e');
    await page.click('#silence-create');
    await page.waitForSelector('[data-panel="alerts-silences"] tr[data-state="active"]');
    expect(await page.textContent('[data-panel="alerts-silences"] tr[data-state="active"]')).toContain('alertname="ReplicaErrorsHigh"');

    const approve = '[data-panel="alerts-actions"] tr[data-state="awaiting_approval"] button.approve';
    await page.waitForSelector(approve);
    await shot('alerts');
    const id = (await page.getAttribute(approve, 'data-action'))!;
    await page.click(approve);
    // Approved (then sent to the stub, answered there); the trail says who approved it.
    const row = `[data-panel="alerts-actions"] tr[data-action="${id}"]:not([data-state="awaiting_approval"])`;
    await page.waitForSelector(row);
    expect(await page.textContent(`${row} ul.trail`)).toContain('approved');
    expect(await page.textContent(`${row} ul.trail`)).toContain('by anonymous'); // the approver is whoever is signed in: here, without keys, the anonymous principal

    await page.click('[data-panel="alerts-silences"] tr[data-state="active"] button.expire');
    await page.waitForSelector('[data-panel="alerts-silences"] tr[data-state="expired"]');
    expect(await page.$$eval('[data-panel="alerts-silences"] tr[data-state="active"]', (els) => els.length)).toBe(0);
    // The audit log shows the three changes, newest first.
    await page.waitForFunction(() => document.querySelectorAll('[data-panel="alerts-audit"] tr[data-audit]').length >= 3);
    expect(await page.$$eval('[data-panel="alerts-audit"] tr[data-audit]', (els) => els.slice(0, 3).map((e) => (e as HTMLElement).dataset['audit']))).toEqual([
      'silence.expire',
      'action.approve',
      'silence.create',
    ]);
    expect(await page.textContent('#principal')).toBe('open server (no API keys)');

    // Nothing fires for a model that sent nothing (the legacy model can raise ReplicaNoData once the
    // forced evaluation 6 minutes ahead finds it silent): the panel says so instead of an empty table.
    expect(server.alerting!.alerts().filter((a) => a.labels['model'] === 'quiet-model')).toEqual([]);
    await page.goto(`${server.url}/alerts?from=now-1h&to=now&model=quiet-model`);
    await rendered(0);
    await page.waitForSelector('[data-panel="alerts-alerts"][data-state="empty"]');
    expect(await page.textContent('[data-panel="alerts-alerts"]')).toContain('Nothing firing or pending for model=quiet-model');
    expect(await page.textContent('[data-panel="alerts-rules"]')).toContain('GoldenSamplesFailing');
    await shot('alerts-empty');
  });

  it('renders every role view without an empty chart', async () => {
    for (const view of ['runtime', 'quality', 'release', 'cost', 'business', 'alerts']) {
      await page.goto(`${server.url}/${view}?from=now-1h&to=now`);
      await rendered(0);
      const states = await page.$$eval('[data-panel][data-state]', (els) =>
        els.map((e) => `${(e as HTMLElement).dataset['panel']}:${(e as HTMLElement).dataset['state']}`),
      );
      expect(states.length, view).toBeGreaterThan(0);
      for (const s of states) expect(s, view).toMatch(/:(ready|needs|empty|ok|saturated)$/);
      await shot(`view-${view}`);
    }
    // Cost: input tokens are sent, output tokens are not: one column, and a note for the other.
    await page.goto(`${server.url}/cost?from=now-1h&to=now`);
    await rendered(0);
    expect(await page.textContent('[data-panel="cost-usage"] thead')).toContain('input tokens');
    expect(await page.getAttribute('[data-panel="cost-usage"] [data-needs]', 'data-needs')).toBe('output_tokens');
    // Business: conversion by version and tenant from the feedback join.
    await page.goto(`${server.url}/business?from=now-1h&to=now`);
    await rendered(0);
    expect(await page.textContent('[data-panel="business-versions"] tr[data-version="v1"]')).toMatch(/%/);
    expect(await page.$$eval('[data-panel="business-feedback"] tbody tr', (els) => els.length)).toBeGreaterThanOrEqual(3);
  });

  it('latency percentiles on a log axis with P95; the max and the request count do not flatten them', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="latency"][data-state="ready"] canvas');
    const chart = await page.evaluate(() => {
      const u = (window as unknown as WithCharts).inferlens!.charts.get('latency')!;
      const px = (label: string) => {
        const si = u.series.findIndex((s) => s.label === label);
        const vals = (u.data[si] as (number | null)[]).filter((v): v is number => v != null);
        const sorted = [...vals].sort((a, b) => a - b);
        return u.valToPos(sorted[Math.floor(sorted.length / 2)]!, 'y');
      };
      return {
        distr: u.scales['y']!.distr,
        labels: u.series.map((s) => s.label),
        nScale: u.series.find((s) => s.label === 'n')!.scale,
        height: u.bbox.height / devicePixelRatio,
        p50: px('P50'),
        p99: px('P99'),
      };
    });
    expect(chart.distr).toBe(3); // log
    expect(chart.labels).toEqual(expect.arrayContaining(['P50', 'P90', 'P95', 'P99', 'P99.9', 'max', 'n']));
    expect(chart.nScale).toBe('y2');
    // The median P50 and P99 sit apart on the plot and off its floor (a linear axis up to the 3 s
    // max put both within a few pixels of zero).
    expect(chart.height - chart.p50).toBeGreaterThan(0.1 * chart.height);
    expect(chart.p50 - chart.p99).toBeGreaterThan(0.05 * chart.height);
  });

  it('throughput: a click inside the ok area opens ok requests', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="qps"][data-state="ready"] canvas');
    const at = await page.evaluate(() => {
      const u = (window as unknown as WithCharts).inferlens!.charts.get('qps')!;
      const idx = Math.floor(u.data[0].length / 2);
      const ok = u.series.findIndex((s) => s.label === 'ok');
      const top = u.data[ok]![idx]!; // stacked: ok is the bottom band, its top is its own value
      const r = u.over.getBoundingClientRect();
      return { x: r.left + u.valToPos(u.data[0][idx]!, 'x'), y: r.top + u.valToPos(top * 0.4, 'y') };
    });
    await page.mouse.move(at.x, at.y);
    await page.mouse.click(at.x, at.y);
    await page.waitForSelector('#drawer[data-state="ready"][data-kind="samples"]');
    expect(await page.textContent('#drawer')).toMatch(/^\s*ok requests in/m);
    expect(await page.$$eval('#drawer tbody tr', (trs) => trs.length)).toBeGreaterThan(0);
  });

  it('runtime: exec latency by replica names the slow one; per-GPU resources; route rule filter; only significant slices', async () => {
    const url = `${server.url}/runtime?from=now-1h&to=now`;
    await page.goto(url);
    await rendered(0);
    await page.waitForSelector('[data-panel="replicas"][data-state="ready"] canvas');
    const labels = await page.evaluate(() => (window as unknown as WithCharts).inferlens!.charts.get('replicas')!.series.map((s) => s.label));
    expect(labels).toEqual(expect.arrayContaining(['r1 P50', 'r2 P50', 'r3 P50', 'r3 P99']));
    // r3 executes 3× slower than r1 and r2: the stage attribution names it.
    expect(await page.getAttribute('[data-panel="stage-shift"] [data-slow-replica]', 'data-slow-replica')).toBe('r3');
    expect(await page.textContent('[data-panel="replicas"] .panel-meta')).toMatch(/^r3: exec_ms \d/);
    // GPU memory per GPU of n1: gpu 1 at 85 %, not averaged with gpu 0 (~56 %) into ~70 %.
    const gpuMem = await page.evaluate(() => (window as unknown as WithCharts).inferlens!.charts.get('res-gpumem')!.series.map((s) => s.label));
    expect(gpuMem).toEqual(expect.arrayContaining(['n1/gpu0', 'n1/gpu1']));
    expect(await seriesMax('res-gpumem', 'n1/gpu1')).toBeCloseTo(0.85, 6);
    // Network, disk, GPU power and temperature beside them (e2e/seed.ts: n1 receives up to 5 MiB/s).
    const labelsOf = (id: string) => page.evaluate((c) => (window as unknown as WithCharts).inferlens!.charts.get(c)!.series.map((s) => s.label), id);
    expect(await labelsOf('res-net')).toEqual(['Time', 'n1 in', 'n1 out']);
    expect(await seriesMax('res-net', 'n1 in')).toBe(5 * 2 ** 20);
    expect(await labelsOf('res-disk')).toEqual(['Time', 'n1 read', 'n1 write']);
    expect(await seriesMax('res-gpupower', 'n1/gpu0')).toBe(500);
    expect(await seriesMax('res-gputemp', 'n1/gpu0')).toBe(59);
    // The queue panel shows the queue length (Little's law) beside the batch size.
    expect(await page.evaluate(() => (window as unknown as WithCharts).inferlens!.charts.get('queue')!.series.map((s) => s.label))).toContain('queue length');
    // Where it concentrates: every listed slice is significant and above the rest.
    const rows = await page.$$eval('[data-panel="concentration"] tbody tr', (trs) => trs.map((tr) => tr.className));
    expect(rows.length).toBeGreaterThan(0);
    for (const c of rows) expect(c).toContain('significant');
    // Turned away: globex's rate limiting.
    await page.click('[data-panel="concentration"] button[data-kind="shed"]');
    await page.waitForSelector('[data-panel="concentration"][data-state="ready"] tbody tr[data-slice="model=burst"]');
    // The route rule is a filter of its own.
    expect(await page.isVisible('#filter-route_rule')).toBe(true);
    await shotSizes('runtime', url, '[data-panel="replicas"][data-state="ready"] canvas');
  });

  it('scroll boxes say how many rows they hide', async () => {
    await page.goto(`${server.url}/release?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="evidence"][data-state="ready"]');
    const cue = '[data-panel="evidence"] .scroll-cue';
    const total = await page.$$eval('[data-panel="evidence"] tbody tr', (trs) => trs.length);
    const hidden = Number(await page.getAttribute(cue, 'data-hidden'));
    expect(hidden).toBeGreaterThan(0);
    expect(await page.textContent(cue)).toBe(`↓ ${hidden} more row${hidden === 1 ? '' : 's'} below (${total} in all): scroll the table`);
    // Scrolled to the end, the cue goes.
    await page.$eval('[data-panel="evidence"] .table-wrap', (el) => el.scrollTo(0, el.scrollHeight));
    await page.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('data-hidden') === '0', cue);
    await shotSizes('release', `${server.url}/release?from=now-1h&to=now`, '[data-panel="evidence"][data-state="ready"]');
  });

  it('cost: busy GPU-seconds of a node are summed over its GPUs', async () => {
    await page.goto(`${server.url}/cost?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="cost-gpu"][data-state="ready"]');
    // The same numbers from the API: Σ over n1's two GPUs of mean utilisation × step.
    const rows = await page.$$eval('[data-panel="cost-gpu"] tbody tr', (trs) =>
      trs.map((tr) => ({ node: (tr as HTMLElement).dataset['node'], s: Number((tr as HTMLElement).dataset['gpuSeconds']), gpus: tr.children[1]!.textContent })),
    );
    const n1 = rows.find((r) => r.node === 'n1')!;
    expect(n1.gpus).toBe('2');
    const data = (await postJson('/v1/resources/query', {
      from: new Date(NOW - 3_600_000).toISOString(),
      to: new Date(NOW).toISOString(),
      step: '1m',
      metrics: ['gpu_utilization_ratio'],
      filters: { node: 'n1' },
      group_by: ['gpu'],
    })) as { rows: { avg: number }[] };
    const expected = data.rows.reduce((a, r) => a + r.avg * 60, 0);
    expect(Math.abs(n1.s - expected) / expected).toBeLessThan(0.05);
    await shotSizes('cost', `${server.url}/cost?from=now-1h&to=now`, '[data-panel="cost-gpu"][data-state="ready"]');
  });

  it('business: the conversion chart shows requests per bucket and marks buckets whose feedback is still arriving', async () => {
    await page.goto(`${server.url}/business?from=now-1h&to=now`);
    await rendered(0);
    await page.waitForSelector('[data-panel="business-trend"][data-state="ready"] canvas');
    const labels = await page.evaluate(() => (window as unknown as WithCharts).inferlens!.charts.get('business-trend')!.series.map((s) => s.label));
    expect(labels).toEqual(expect.arrayContaining(['v1', 'v1 requests', 'v1 (feedback arriving)']));
    // The last FEEDBACK_PENDING_MINUTES minutes (and the partial current one) carry no feedback yet.
    expect(Number(await page.getAttribute('[data-panel="business-trend"]', 'data-incomplete'))).toBeGreaterThanOrEqual(FEEDBACK_PENDING_MINUTES);
    expect(await page.textContent('[data-panel="business-trend"] .panel-meta')).toMatch(/feedback still arriving/);
    await shotSizes('business', `${server.url}/business?from=now-1h&to=now`, '[data-panel="business-trend"][data-state="ready"] canvas');
  });

  it('the saturation banner flags shed load against the window before', async () => {
    // model "burst": 40 % rate-limited in the last 10 minutes, none before (e2e/seed.ts).
    await page.goto(`${server.url}/runtime?from=now-15m&to=now&model=burst`);
    await rendered(0);
    await page.waitForSelector('[data-panel="saturation"][data-state="saturated"]');
    expect(await page.getAttribute('[data-panel="saturation"]', 'data-signals')).toContain('shedding');
    expect(await page.textContent('[data-panel="saturation"]')).toMatch(
      /^Saturating: requests are turned away at the limit\. \d+\.\d % of offered requests were rejected or rate-limited/,
    );
    await page.goto(`${server.url}/runtime?from=now-15m&to=now&model=ranker`);
    await rendered(0);
    expect(await page.getAttribute('[data-panel="saturation"]', 'data-state')).toBe('ok');
  });
});
