// The Runtime view's Engine panels in Debian's Chromium, fed by real scrapes: a vLLM and an SGLang
// /metrics capture served as live endpoints (test/capture-replay.ts), scraped every 5 minutes over
// the last hour by the server's own scraper. Screenshot: artifacts/screenshots/runtime-engine.png.
import path from 'node:path';
import pino from 'pino';
import type { Page } from 'playwright-core';
import type uPlot from 'uplot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { startReplayServer } from '../test/capture-replay.ts';
import type { ReplayServer } from '../test/capture-replay.ts';
import { SHOTS, hasChromium, openDashboardFixture } from './chromium.ts';
import type { DashboardFixture } from './chromium.ts';

type WithCharts = { inferlens?: { charts: Map<string, uPlot> } };

let server: InferlensServer;
let engines: ReplayServer;
let fx: DashboardFixture;
let page: Page;
let tmp: string;
/** The server's clock: twelve scrapes 5 minutes apart, the last a minute ago (inside the view's last hour). */
const SCRAPES = 12;
const INTERVAL_MS = 300_000;
let clock = Date.now() - 60_000 - (SCRAPES - 1) * INTERVAL_MS;

const VLLM = 'vllm · meta-llama/Llama-3.1-8B-Instruct @ vllm-0';
const SGLANG = 'sglang · facebook/opt-125m @ sglang-0';

/** label → the series' values, read from the chart the user sees. */
function chartSeries(chart: string): Promise<Record<string, (number | null)[]>> {
  return page.evaluate((c) => {
    const u = (window as unknown as WithCharts).inferlens?.charts.get(c);
    if (!u) return {};
    return Object.fromEntries(u.series.slice(1).map((s, i) => [String(s.label), (u.data[i + 1] ?? []) as (number | null)[]]));
  }, chart);
}
const present = (values: (number | null)[] | undefined) => (values ?? []).filter((v): v is number => v != null);

describe.skipIf(!hasChromium)('Runtime view: Engine panels from scraped vLLM and SGLang targets', () => {
  beforeAll(async () => {
    fx = await openDashboardFixture('inferlens-engine-');
    ({ tmp, page } = fx);
    const dist = fx.dist;
    engines = await startReplayServer({ vllm: 'vllm/synthetic-from-definitions-vllm-v1.txt', sglang: 'sglang/datadog-sglang-metrics.txt' });
    const targets = [
      { url: engines.urls.vllm!, labels: { node: 'gpu-1', replica: 'vllm-0' }, intervalMs: 3_600_000 },
      { url: engines.urls.sglang!, labels: { node: 'gpu-2', replica: 'sglang-0' }, intervalMs: 3_600_000 },
    ];
    server = await startServer(loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: path.join(tmp, 'data') }, scrape: { targets } } }), {
      logger: pino({ level: 'silent' }),
      uiDir: dist,
      now: () => clock,
    });
    for (let i = 0; i < SCRAPES; i++) {
      await server.scraper!.scrapeOnce();
      if (i < SCRAPES - 1) clock += INTERVAL_MS;
    }
    // A few requests, so the rest of the view has something to draw on the same axis.
    const rows = Array.from({ length: 30 }, (_, i) => JSON.stringify({ ts: clock - 30 * 60_000 + i * 60_000, model: 'chat', total_ms: 100 + i, status: 'ok' }));
    const res = await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: rows.join('\n') });
    expect(res.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await engines?.close();
    await fx?.close();
  });

  it('draws KV cache, running/waiting, token throughput and prefix-cache hits per engine, and the targets table', async () => {
    await page.goto(`${server.url}/runtime?from=now-1h&to=now`);
    await page.waitForSelector('[data-panel="engine"][data-state="ready"] [data-engine="engine-kv"] canvas', { timeout: 30_000 });

    // As captured: vLLM's KV cache 83 %, SGLang's token_usage 25 %.
    const kv = await chartSeries('engine-kv');
    expect(Object.keys(kv).sort()).toEqual([SGLANG, VLLM]);
    expect(Math.max(...present(kv[VLLM]))).toBeCloseTo(0.83, 12);
    expect(Math.max(...present(kv[SGLANG]))).toBeCloseTo(0.25, 12);

    // vLLM: 7 running, 12 waiting.
    const req = await chartSeries('engine-requests');
    expect(present(req[`${VLLM} running`])).toContain(7);
    expect(present(req[`${VLLM} waiting`])).toContain(12);

    // Each 5-minute interval added the capture's totals once: vLLM 95,321 generated tokens, SGLang 32.
    const tokens = await chartSeries('engine-tokens');
    const rate = (label: string) => {
      const v = present(tokens[label]);
      return v.reduce((a, b) => a + b, 0) / v.length;
    };
    expect(rate(`${VLLM} generated`)).toBeCloseTo(95321 / 300, 6);
    expect(rate(`${SGLANG} generated`)).toBeCloseTo(32 / 300, 9);
    expect(present(tokens[`${VLLM} generated`])).toHaveLength(SCRAPES - 1);

    // SGLang reports its prefix-cache hit rate (0.2); this vLLM capture has no prefix-cache counters.
    const prefix = await chartSeries('engine-prefix');
    expect(Object.keys(prefix)).toEqual([SGLANG]);
    expect(Math.max(...present(prefix[SGLANG]))).toBeCloseTo(0.2, 12);

    const targetRows = await page.$$eval('[data-engine="engine-targets"] tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(targetRows.map((r) => [r[0], r[1], r[2]])).toEqual([
      [engines.urls.vllm, 'up', 'vllm'],
      [engines.urls.sglang, 'up', 'sglang'],
    ]);
    await page.locator('[data-panel="engine"]').scrollIntoViewIfNeeded();
    await page.locator('[data-panel="engine"]').screenshot({ path: path.join(SHOTS, 'runtime-engine.png') });
  });
});
