// First render of the runtime view on a large store, in real Chromium.
// Usage: npm run bench:dashboard -- --json [--events 10000000] [--hours 6] [--runs 3] [--requests]
// --requests prints each API request of the last run (start and end, ms from navigation).
// Loads N synthetic events straight into a fresh DuckDB file (the read path is what is measured),
// rolls up their closed minutes as a running server would have (the backfill time is printed),
// starts `inferlens serve` on it, opens /runtime in Debian's Chromium and times navigation →
// first complete render (every panel drawn). Baseline in the same run: the same page on a store
// holding 1 % of the events. The last line is one JSON object.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serveProcess, stopProcess } from '../test/serve-process.ts';
import { createDuckDBStore } from '../src/store/index.ts';
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = arg('events', 10_000_000);
const HOURS = arg('hours', 6);
const ROOT = resolve(import.meta.dirname, '..');

if (!existsSync(join(ROOT, 'web', 'dist', 'index.html'))) {
  console.log('building the dashboard…');
  await new Promise<void>((res, rej) =>
    spawn('npm', ['run', 'build:web'], { cwd: ROOT, stdio: 'inherit' }).once('exit', (c) => (c === 0 ? res() : rej(new Error(`build failed ${c}`)))),
  );
}

/** Fills a fresh data dir with n events over the last `hours`, generated inside DuckDB; returns the rollup backfill ms. */
async function fill(dir: string, n: number): Promise<number> {
  const file = join(dir, 'inferlens.duckdb');
  const store = await createDuckDBStore({ path: file });
  await store.migrate();
  await store.close();
  const inst = await DuckDBInstance.create(file);
  const conn = await inst.connect();
  const end = Date.now() - 30_000;
  const span = HOURS * 3_600_000;
  await conn.run('SELECT setseed(0.42)');
  await conn.run(`
    INSERT INTO events (ts, request_id, model, model_version, tenant, entry, node, replica, service_tier,
                        ingress_ms, queue_ms, batch_ms, exec_ms, post_ms, total_ms, batch_size, status, input_tokens, output_tokens)
    SELECT ts, rid, model, v, tenant, entry, node, replica, 'standard', ing, q, b, e, p, round(ing + q + b + e + p, 3), bs, status, it, ot
    FROM (
      SELECT make_timestamp(CAST((${end - span} + i * ${span / n}) * 1000 AS BIGINT)) AS ts,
             printf('%012x', i * 2654435761 % 281474976710655) AS rid,
             'model-' || (i % 20) AS model, 'v' || (1 + (hash(i) % 3)) AS v,
             'tenant-' || CAST(floor(50 * pow(random(), 3)) AS INT) AS tenant,
             ['api', 'batch', 'web'][1 + i % 3] AS entry, 'node-' || ((i % 16) // 4) AS node, 'replica-' || (i % 16) AS replica,
             round(0.4 * exp(0.5 * (random() - 0.5)), 3) AS ing, round(3 * exp(1.5 * (random() - 0.5)), 3) AS q,
             round(2 * exp(0.6 * (random() - 0.5)), 3) AS b, round((15 + i % 20) * exp(0.5 * (random() - 0.5)), 3) AS e,
             round(0.6 * exp(0.4 * (random() - 0.5)), 3) AS p,
             1 + CAST(random() * 16 AS INT) AS bs, CASE WHEN random() < 0.01 THEN 'error' ELSE 'ok' END AS status,
             50 + CAST(random() * 400 AS INT) AS it, 1 + CAST(random() * 200 AS INT) AS ot
      FROM range(${n}) t(i)
    )`);
  await conn.run('CHECKPOINT');
  conn.closeSync();
  inst.closeSync();
  // A server keeps the rollup up to date as rows arrive; rows loaded behind its back are rolled up
  // here, with the server's default lag of one minute.
  const t = performance.now();
  const rolled = await createDuckDBStore({ path: file });
  await rolled.migrate();
  await rolled.maintainRollup(Date.now() - 60_000);
  await rolled.close();
  return performance.now() - t;
}

async function serve(dir: string): Promise<{ url: string; stop: () => Promise<unknown> }> {
  const p = await serveProcess(['--port', '0', '--data', dir, '--log-level', 'warn'], { INFERLENS_RETENTION_DAYS: '30' });
  return { url: p.url, stop: () => stopProcess(p.child) };
}

const RUNS = arg('runs', 3);
const SHOW_REQUESTS = args.includes('--requests');

async function firstRenderMs(url: string, runs = RUNS): Promise<number[]> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const times: number[] = [];
  try {
    for (let r = 0; r < runs; r++) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      const t0 = performance.now();
      await page.goto(`${url}/runtime?from=now-1h&to=now`);
      await page.waitForFunction(
        () => Number(document.body.dataset['renders'] ?? 0) >= 1 && document.querySelectorAll('[data-panel][data-state="loading"]').length === 0,
        undefined,
        { timeout: 120_000 },
      );
      times.push(performance.now() - t0);
      if (SHOW_REQUESTS && r === runs - 1) {
        const entries = await page.evaluate(() =>
          performance
            .getEntriesByType('resource')
            .filter((e) => e.name.includes('/v1/'))
            .map((e) => ({ name: new URL(e.name).pathname, start: Math.round(e.startTime), end: Math.round((e as PerformanceResourceTiming).responseEnd) })),
        );
        for (const e of entries) console.log(`    ${e.name.padEnd(28)} ${String(e.start).padStart(5)} → ${String(e.end).padStart(5)} ms`);
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results: Record<string, number> = {};
for (const [name, n] of [
  ['baseline', Math.max(1000, Math.round(N / 100))],
  ['full', N],
] as const) {
  const dir = mkdtempSync(join(tmpdir(), `inferlens-dash-${name}-`));
  const t = performance.now();
  const rollupMs = await fill(dir, n);
  console.log(
    `${name}: ${n} events loaded in ${((performance.now() - t) / 1000).toFixed(1)} s, rollup backfill ${(rollupMs / 1000).toFixed(1)} s (${(statSync(join(dir, 'inferlens.duckdb')).size / n).toFixed(1)} bytes/event)`,
  );
  const server = await serve(dir);
  const times = await firstRenderMs(server.url);
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  console.log(`  first render of /runtime (last 1 h): ${times.map((x) => x.toFixed(0)).join(', ')} ms`);
  results[`${name}_events`] = n;
  results[`${name}_first_render_ms`] = Math.round(median(times));
}
const out = { ...results, hours: HOURS, render_ratio: +(results.full_first_render_ms! / results.baseline_first_render_ms!).toFixed(2) };
console.log(JSON.stringify(out));
