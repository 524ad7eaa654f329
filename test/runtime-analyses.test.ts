// The runtime analyses over HTTP on fixture traffic with known answers.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import type { ErrorSlicesReply, HistogramReply, SaturationReply, StagesReply } from '../src/schema/index.ts';

let server: InferlensServer;
const MIN = 60_000;
const END = Math.floor(Date.now() / MIN) * MIN - MIN; // a whole minute, a minute ago
const START = END - 40 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

async function post<T>(path: string, body: unknown): Promise<T> {
  const res = await fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as { status: string; data: T; error?: string };
  if (json.status !== 'success') throw new Error(`${path}: ${res.status} ${json.error}`);
  return json.data;
}

beforeAll(async () => {
  server = await startServer(loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' } } }), {
    logger: pino({ level: 'silent' }),
    collectors: false,
  });
  const rows: string[] = [];
  // 40 minutes of traffic for model "big": 100 requests a minute over 4 replicas and 2 versions.
  // Errors: 1 in 100 everywhere, except v2 × r3 where every 4th request fails in the last 20 minutes.
  // Latency: exec 20 ms, queue 5 ms; in the last 20 minutes replica r3's exec triples (60 ms).
  for (let m = 0; m < 40; m++) {
    for (let i = 0; i < 100; i++) {
      const replica = `r${i % 4}`;
      const version = i % 8 < 4 ? 'v1' : 'v2';
      const late = m >= 20;
      const exec = late && replica === 'r3' ? 60 : 20;
      const error = i === 50 || (late && version === 'v2' && replica === 'r3' && i % 16 === 7);
      rows.push(
        JSON.stringify({
          ts: START + m * MIN + i * 500,
          request_id: `big-${m}-${i}`,
          model: 'big',
          model_version: version,
          replica,
          tenant: 'acme',
          queue_ms: 5,
          exec_ms: exec,
          total_ms: 5 + exec + 1,
          status: error ? 'error' : 'ok',
          ...(error ? { error_type: 'internal' } : {}),
        }),
      );
    }
  }
  // A low-traffic model: 30 requests, 9 errors (30 %).
  for (let i = 0; i < 30; i++)
    rows.push(
      JSON.stringify({
        ts: START + 25 * MIN + i * 1000,
        model: 'small',
        model_version: 'v1',
        replica: 'r9',
        tenant: 'tiny',
        total_ms: 30,
        status: i % 10 < 3 ? 'error' : 'ok',
      }),
    );
  // A saturating service: constant 50 req/min while queue time and P99 grow minute by minute.
  for (let m = 0; m < 20; m++)
    for (let i = 0; i < 50; i++)
      rows.push(JSON.stringify({ ts: START + m * MIN + i * 1000, model: 'sat', queue_ms: 2 + m * 3 + (i % 5), total_ms: 20 + m * 5 + (i % 10), status: 'ok' }));
  // Before START (outside the other tests' windows), 40 minutes of 50 requests a minute for two
  // models. "onset": calm for 20 minutes (queue 5 ms, total 30 ms), then saturated and flat at
  // queue 60 ms, total 300 ms. "shed": steady latency; in the last 20 minutes 2 in 5 requests are
  // rate-limited (a load spike the service turns away at its limit).
  const EARLY = START - 40 * MIN;
  for (let m = 0; m < 40; m++) {
    for (let i = 0; i < 50; i++) {
      const late = m >= 20;
      const ts = EARLY + m * MIN + i * 1000;
      rows.push(JSON.stringify({ ts, model: 'onset', queue_ms: (late ? 60 : 5) + (i % 5), total_ms: (late ? 300 : 30) + (i % 10), status: 'ok' }));
      const limited = late && i % 5 < 2;
      rows.push(JSON.stringify({ ts, model: 'shed', queue_ms: 4 + (i % 3), total_ms: limited ? 1 : 25 + (i % 7), status: limited ? 'rate_limited' : 'ok' }));
    }
  }
  const res = await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: rows.join('\n') });
  expect(((await res.json()) as { accepted: number }).accepted).toBe(rows.length);
});
afterAll(() => server.stop());

describe('where errors concentrate', () => {
  it('ranks the v2 × r3 pair and the 30 %-error low-traffic model at the top', async () => {
    const data = await post<ErrorSlicesReply>('/v1/analysis/errors', {
      from: iso(START),
      to: iso(END),
      dimensions: ['model', 'model_version', 'replica'],
    });
    // Requests: big 4000 + small 30 + sat 1000 = 5030. Errors: big has 40 (i = 50 each minute)
    // + 20 late minutes × 6 (i % 16 = 7 → i ∈ {7, 23, 39, 55, 71, 87}, all r3 and v2) = 120; small 9.
    expect(data.total).toMatchObject({ n: 5030, k: 169 });
    const significant = data.slices.filter((s) => s.significant);
    // v2 × r3: 120 errors in 500 (24 %, Wilson lower bound ≈ 20.5 %) vs 1.1 % elsewhere; small: 9 in
    // 30 (30 %, lower bound ≈ 16.7 %) vs 3.2 %. Both far above the fleet's 3.4 %; ranked by lower bound − rest.
    expect(significant.slice(0, 2).map((s) => s.slice)).toEqual([{ model_version: 'v2', replica: 'r3' }, { model: 'small' }]);
    // The model-wide slice "big" (160 errors in 4000 = 4 %) is elevated too, but ranks below both.
    const rank = (slice: Record<string, string>) => data.slices.findIndex((s) => JSON.stringify(s.slice) === JSON.stringify(slice));
    expect(rank({ model: 'big' })).toBeGreaterThan(rank({ model: 'small' }));
  });

  it('localises slow requests above the window P99 too', async () => {
    const data = await post<ErrorSlicesReply>('/v1/analysis/errors', {
      from: iso(START),
      to: iso(END),
      filters: { model: 'big' },
      kind: 'slow',
      threshold_ms: 50,
      dimensions: ['replica', 'model_version'],
    });
    expect(data.kind).toBe('slow');
    expect(data.slices.find((s) => s.significant)!.slice).toEqual({ replica: 'r3' });
  });
});

describe('where requests are turned away', () => {
  it('kind "shed" counts rejected and rate-limited requests per slice', async () => {
    const data = await post<ErrorSlicesReply>('/v1/analysis/errors', {
      from: iso(START - 40 * MIN),
      to: iso(START),
      kind: 'shed',
      dimensions: ['model'],
    });
    // onset 2000 + shed 2000 requests; 20 minutes × 20 rate-limited = 400, all on model "shed".
    expect(data.total).toMatchObject({ n: 4000, k: 400 });
    expect(data.slices.filter((s) => s.significant).map((s) => s.slice)).toEqual([{ model: 'shed' }]);
  });
});

describe('stage attribution', () => {
  it('names exec_ms as the stage whose P99 grew, comparing with the window before', async () => {
    const data = await post<StagesReply>('/v1/analysis/stages', {
      from: iso(START + 20 * MIN),
      to: iso(START + 40 * MIN),
      filters: { model: 'big' },
    });
    expect(data.grew_most).toBe('exec_ms');
    const exec = data.stages.find((s) => s.stage === 'exec_ms')!;
    // P99 of exec now: 25 % of rows are 60 → 60; before: all 20.
    expect(exec).toMatchObject({ current_ms: 60, baseline_ms: 20, delta_ms: 40, n_current: 2000 });
    expect(data.stages.find((s) => s.stage === 'queue_ms')!.delta_ms).toBe(0);
  });

  it('tests each shift, names the slow replica, and keeps the tail shares to stages', async () => {
    type Stages = StagesReply;
    const data = await post<Stages>('/v1/analysis/stages', { from: iso(START + 20 * MIN), to: iso(START + 40 * MIN), filters: { model: 'big' } });
    const exec = data.stages.find((s) => s.stage === 'exec_ms')!;
    // 500 of 2000 requests (r3) above the old P99 of 20 ms, none before: significant.
    expect(exec).toMatchObject({ above_current: 500, above_baseline: 0, grew: true });
    expect(exec.p_value).toBeLessThan(1e-10);
    expect(data.stages.find((s) => s.stage === 'queue_ms')!.grew).toBe(false);
    // r3's exec P99 60 ms against its peers' 20 ms.
    expect(data.slow_replica).toMatchObject({ replica: 'r3', stage: 'exec_ms', ratio: 3 });
    expect(data.replicas.map((r) => r.replica).sort()).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(data.tail!.stages.map((s) => s.stage)).not.toContain('ts');
    // Clean traffic (replica r0: nothing changed) names no stage and no replica.
    const clean = await post<Stages>('/v1/analysis/stages', {
      from: iso(START + 20 * MIN),
      to: iso(START + 40 * MIN),
      filters: { model: 'big', replica: 'r0' },
    });
    expect(clean.grew_most).toBeNull();
    expect(clean.slow_replica).toBeNull();
  });
});

describe('saturation', () => {
  it('flags flat throughput with rising queue time and tail latency', async () => {
    const data = await post<SaturationReply>('/v1/analysis/saturation', { from: iso(START), to: iso(START + 20 * MIN), filters: { model: 'sat' }, step: '1m' });
    expect(data.points).toHaveLength(20);
    expect(data.saturated).toBe(true);
    const healthy = await post<{ saturated: boolean }>('/v1/analysis/saturation', {
      from: iso(START),
      to: iso(END),
      filters: { model: 'big', replica: 'r0' },
      step: '2m',
    });
    expect(healthy.saturated).toBe(false);
  });

  it('flags a window that starts at the onset, against the baseline just before it', async () => {
    const window = { from: iso(START - 20 * MIN), to: iso(START), filters: { model: 'onset' }, step: '1m' };
    const data = await post<SaturationReply>('/v1/analysis/saturation', window);
    expect(data.baseline_window).toEqual({ from: iso(START - 40 * MIN), to: iso(START - 20 * MIN) });
    expect(data.points.filter((p) => p.baseline)).toHaveLength(20);
    expect(data.n_baseline).toBe(20);
    expect(data.saturated).toBe(true);
    expect(data.signals).toEqual(['queueing']);
    // The calm half on its own is not saturated (its baseline holds no traffic).
    expect(
      (await post<{ saturated: boolean }>('/v1/analysis/saturation', { ...window, from: iso(START - 40 * MIN), to: iso(START - 20 * MIN) })).saturated,
    ).toBe(false);
  });

  it('counts rate-limited requests as shed load', async () => {
    const data = await post<SaturationReply>('/v1/analysis/saturation', {
      from: iso(START - 20 * MIN),
      to: iso(START),
      filters: { model: 'shed' },
    });
    expect(data.signals).toEqual(['shedding']);
    // 20 of 50 a minute rate-limited: 40 % shed, served 30/60 = 0.5 req/s of 50/60 offered.
    const late = data.points.filter((p) => !p.baseline);
    expect(late.every((p) => Math.abs(p.shed_rate! - 0.4) < 1e-9 && Math.abs(p.qps - 0.5) < 1e-9)).toBe(true);
    expect(data.reasons[0]).toMatch(/^40\.0 % of offered requests were rejected or rate-limited \(0\.0 % before\)/);
  });
});

describe('heatmap and drill-down', () => {
  it('histogram buckets hold every request, in log-spaced bounds', async () => {
    const data = await post<HistogramReply>('/v1/histogram', { from: iso(START), to: iso(END), filters: { model: 'big' }, step: '10m' });
    expect(data.rows).toHaveLength(4);
    expect(data.rows.map((r) => r.counts.reduce((a, b) => a + b, 0))).toEqual([1000, 1000, 1000, 1000]);
    expect(data.bounds_ms[0]).toBeCloseTo(0.1, 10);
  });

  it('returns the events behind a chart point', async () => {
    const data = await post<{ events: { request_id: string; replica: string; exec_ms: number }[] }>('/v1/events/search', {
      from: iso(START + 30 * MIN),
      to: iso(START + 31 * MIN),
      filters: { model: 'big', replica: 'r3' },
      min: { column: 'exec_ms', value: 50 },
      limit: 5,
    });
    expect(data.events).toHaveLength(5);
    expect(data.events.every((e) => e.replica === 'r3' && e.exec_ms === 60)).toBe(true);
  });
});

describe('approximate answers (approx: true)', () => {
  const window = { from: iso(START), to: iso(END) };
  it('the query reply says the rollup answered; counts are exact and quantiles within its relative error', async () => {
    const body = {
      ...window,
      step: '1m',
      measures: ['count', 'error_rate', 'mean(exec_ms)', 'p50(total_ms)', 'p99(total_ms)', 'max(total_ms)'],
    };
    const exact = await post<{ rows: Record<string, number>[]; approx?: unknown }>('/v1/query', body);
    const approx = await post<{ rows: Record<string, number>[]; approx: { relative_error: number; source: string } | null }>('/v1/query', {
      ...body,
      approx: true,
    });
    expect(exact.approx).toBeUndefined();
    expect(approx.approx).toEqual({ relative_error: 0.0096, source: 'rollup_1m' });
    expect(approx.rows.length).toBe(40);
    approx.rows.forEach((r, i) => {
      const e = exact.rows[i]!;
      expect([r.bucket, r.count, r.error_rate, r['max(total_ms)']]).toEqual([e.bucket, e.count, e.error_rate, e['max(total_ms)']]);
      expect(r['mean(exec_ms)']).toBeCloseTo(e['mean(exec_ms)']!, 9);
      for (const k of ['p50(total_ms)', 'p99(total_ms)']) expect(Math.abs(r[k]! / e[k]! - 1)).toBeLessThanOrEqual(0.0096);
    });
  });

  it('filtered by model: counts from the rollup, quantiles exact (DuckDB keeps no (model, version) sketch)', async () => {
    const body = { ...window, step: '1m', filters: { model: 'big' }, approx: true };
    const counts = await post<{ rows: Record<string, number>[]; approx: unknown }>('/v1/query', {
      ...body,
      measures: ['count', 'error_rate', 'max(total_ms)'],
    });
    expect(counts.approx).toEqual({ relative_error: 0.0096, source: 'rollup_1m' });
    expect(counts.rows.length).toBe(40);
    const quantiles = await post<{ rows: Record<string, number>[]; approx: unknown }>('/v1/query', { ...body, measures: ['count', 'p99(total_ms)'] });
    expect(quantiles.approx).toBeNull();
    // Late minutes: P99 of 75 × 26 ms and 25 × 66 ms (r3) is exactly 66 ms.
    expect(quantiles.rows.at(-1)).toMatchObject({ count: 100, 'p99(total_ms)': 66 });
  });

  it('a filter the rollup does not keep is answered exactly, and the reply says so', async () => {
    const data = await post<{ approx: unknown }>('/v1/query', { ...window, filters: { replica: 'r3' }, measures: ['p99(total_ms)'], approx: true });
    expect(data.approx).toBeNull();
  });

  it('histogram, stage attribution, saturation and the slice finder take approx too', async () => {
    const hist = { ...window, step: '1m' };
    const exactHist = await post<{ rows: unknown[] }>('/v1/histogram', hist);
    const approxHist = await post<HistogramReply>('/v1/histogram', { ...hist, approx: true });
    expect(approxHist.rows).toEqual(exactHist.rows);
    expect(approxHist.approx).toEqual({ relative_error: 0.000005, source: 'rollup_1m' });
    const stages = await post<StagesReply>('/v1/analysis/stages', { from: iso(END - 20 * MIN), to: iso(END), approx: true });
    expect(stages.grew_most).toBe('exec_ms');
    expect(stages.approx).toEqual({ relative_error: 0.0096, source: 'rollup_1m' });
    const sat = await post<{ saturated: boolean; approx: unknown }>('/v1/analysis/saturation', {
      from: iso(START),
      to: iso(START + 20 * MIN),
      filters: { model: 'sat' },
      approx: true,
    });
    expect(sat.saturated).toBe(true);
    // Filtered by model, its quantiles are exact on DuckDB (no (model, version) sketch), and it says so.
    expect(sat.approx).toBeNull();
    const all = await post<{ approx: unknown }>('/v1/analysis/saturation', { from: iso(START), to: iso(START + 20 * MIN), approx: true });
    expect(all.approx).toEqual({ relative_error: 0.0096, source: 'rollup_1m' });
    // 5,030 rows: far below the sampling threshold, so every row is counted.
    const errors = await post<{ total: { n: number; k: number }; sample: unknown }>('/v1/analysis/errors', {
      ...window,
      dimensions: ['model', 'model_version', 'replica'],
      approx: true,
    });
    expect(errors.total).toMatchObject({ n: 5030, k: 169 });
    expect(errors.sample).toBeNull();
  });
});
