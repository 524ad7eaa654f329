// Each rule kind on fixture data in a real in-memory DuckDB, read through the Queries seam.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedReads } from '../../query/index.ts';
import { createSeriesCache } from '../series.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { mulberry32 } from '../../analysis/index.ts';
import { ConditionSchema } from '../rule-schema.ts';
import type { Severity } from '../rule-schema.ts';
import { evaluateCondition } from './index.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
/** The golden rule's sequential form, as the pack has it but over 30 minutes. */
const GOLDEN_SEQUENTIAL = { kind: 'golden_failure', window: '30m', by: ['model', 'model_version'], min_pass_rate: 0.9, min_count: 5, fdr: 0.01 };
let store: Store;

/** Events every `everyMs` in [fromMs, toMs) with fields from `f(i)`. */
function series(fromMs: number, toMs: number, everyMs: number, f: (i: number) => Record<string, unknown>): string[] {
  const out: string[] = [];
  for (let ts = fromMs, i = 0; ts < toMs; ts += everyMs, i++) out.push(JSON.stringify({ ts, ...f(i) }));
  return out;
}

beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  const rnd = mulberry32(7);
  const lines = [
    // latency: model lat, replica r1 slow (1000 ms) in the last 5 min, r2 fast; 1 h earlier both fast.
    ...series(NOW - 5 * MIN, NOW, 1000, (i) => ({ model: 'lat', replica: i % 2 ? 'r1' : 'r2', total_ms: i % 2 ? 1000 : 100, status: 'ok' })),
    ...series(NOW - 65 * MIN, NOW - 60 * MIN, 1000, (i) => ({ model: 'lat', replica: i % 2 ? 'r1' : 'r2', total_ms: 100, status: 'ok' })),
    // peers: model pr on three replicas (exec 2.0 / 6.3 / 2.2 ms) and model pr2 on two (2.0 / 6.3 ms).
    ...series(NOW - 5 * MIN, NOW, 1000, (i) => ({ model: 'pr', replica: `pr-${i % 3}`, exec_ms: [2.0, 6.3, 2.2][i % 3], status: 'ok' })),
    ...series(NOW - 5 * MIN, NOW, 1000, (i) => ({ model: 'pr2', replica: `pr-${i % 2}`, exec_ms: [2.0, 6.3][i % 2], status: 'ok' })),
    // baseline: model cb, the canary route executes in 5.0 ms, the default route in 2.0 ms.
    ...series(NOW - 5 * MIN, NOW, 1000, (i) => ({
      model: 'cb',
      model_version: i % 4 ? 'v1' : 'v2',
      route_rule: i % 4 ? 'default' : 'canary',
      exec_ms: i % 4 ? 2.0 : 5.0,
      status: 'ok',
    })),
    // errors: model err fails 10 % in the last 6 h (budget 0.5 % → burn 20 in every window).
    ...series(NOW - 6 * 60 * MIN, NOW, 5000, (i) => ({ model: 'err', status: i % 10 === 0 ? 'error' : 'ok', total_ms: 50 })),
    // model okish fails 0.2 % (burn 0.4: no page).
    ...series(NOW - 6 * 60 * MIN, NOW, 5000, (i) => ({ model: 'okish', status: i % 500 === 0 ? 'error' : 'ok', total_ms: 50 })),
    // quality: empty 2 % in the previous hour, 10 % in the last hour (model q); model q2 steady at 2 %.
    ...series(NOW - 120 * MIN, NOW - 60 * MIN, 2000, (i) => ({
      model: 'q',
      status: 'ok',
      empty: i % 50 === 0,
      label: i % 2 ? 'ham' : 'spam',
      confidence: 0.5 + 0.4 * rnd(),
    })),
    ...series(NOW - 60 * MIN, NOW, 2000, (i) => ({
      model: 'q',
      status: 'ok',
      empty: i % 10 === 0,
      label: i % 5 ? 'spam' : 'ham',
      confidence: 0.1 + 0.4 * rnd(),
    })),
    ...series(NOW - 120 * MIN, NOW, 2000, (i) => ({
      model: 'q2',
      status: 'ok',
      empty: i % 50 === 0,
      label: i % 2 ? 'ham' : 'spam',
      confidence: 0.5 + 0.4 * rnd(),
    })),
    // golden probes: v1 passes 10/10, v2 passes 6/10 (one without the attribute but with an error).
    ...series(NOW - 10 * MIN, NOW, MIN, (i) => ({
      model: 'g',
      model_version: 'v1',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: 'true' },
      total_ms: 10 + i,
    })),
    ...series(NOW - 10 * MIN, NOW, MIN, (i) => ({
      model: 'g',
      model_version: 'v2',
      probe: true,
      status: i === 9 ? 'error' : 'ok',
      ...(i < 9 && { attributes: { golden_pass: i < 6 ? 'true' : 'false' } }),
      total_ms: 10 + i,
    })),
    // golden probes, judged sequentially: gs v1 fails 12 of its last 20 (3 of every 5), gs v2 6 of its last 12 (every other).
    ...series(NOW - 20 * MIN, NOW, MIN, (i) => ({
      model: 'gs',
      model_version: 'v1',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: i % 5 < 2 ? 'true' : 'false' },
    })),
    ...series(NOW - 12 * MIN, NOW, MIN, (i) => ({
      model: 'gs',
      model_version: 'v2',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: i % 2 === 0 ? 'true' : 'false' },
    })),
    // golden probes against their own past: gr v1 failed 1 of 150 in the 2.5 h before the last
    // half hour, and 8 of the last 30 (every fourth, oldest first).
    ...series(NOW - 180 * MIN, NOW - 30 * MIN, MIN, (i) => ({
      model: 'gr',
      model_version: 'v1',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: i === 70 ? 'false' : 'true' },
    })),
    ...series(NOW - 30 * MIN, NOW, MIN, (i) => ({
      model: 'gr',
      model_version: 'v1',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: i % 4 === 0 ? 'false' : 'true' },
    })),
    // golden probes of a thin past: gk v1 failed 1 of its 60 before the last half hour and 8 of the
    // last 30 (every fourth, oldest first); gk v2 failed 1 of its 180, in its first half hour.
    ...series(NOW - 90 * MIN, NOW, MIN, (i) => ({
      model: 'gk',
      model_version: 'v1',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: i === 20 || (i >= 60 && (i - 60) % 4 === 0) ? 'false' : 'true' },
    })),
    ...series(NOW - 180 * MIN, NOW, MIN, (i) => ({
      model: 'gk',
      model_version: 'v2',
      probe: true,
      status: 'ok',
      attributes: { golden_pass: i === 10 ? 'false' : 'true' },
    })),
    // golden probes whose calls failed: ge v1 answered all of its 150 before the last 10 minutes and
    // 6 of the last 10 (4 calls failed: an outage the error rules judge); every call of ge v2 failed
    // over the last 20 minutes.
    ...series(NOW - 160 * MIN, NOW, MIN, (i) =>
      i >= 150 && i % 2 === 1 && i < 158
        ? { model: 'ge', model_version: 'v1', probe: true, status: 'error', error_type: 'dependency_timeout', attributes: { golden_pass: 'false' } }
        : { model: 'ge', model_version: 'v1', probe: true, status: 'ok', attributes: { golden_pass: 'true' } },
    ),
    ...series(NOW - 160 * MIN, NOW, MIN, (i) =>
      i >= 140
        ? { model: 'ge', model_version: 'v2', probe: true, status: 'error', error_type: 'other', attributes: { golden_pass: 'false' } }
        : { model: 'ge', model_version: 'v2', probe: true, status: 'ok', attributes: { golden_pass: 'true' } },
    ),
    // no data: replica nd-r1 sent until 10 min ago; nd-r2 still sends.
    ...series(NOW - 40 * MIN, NOW - 10 * MIN, 10_000, () => ({ model: 'nd', replica: 'nd-r1', status: 'ok', total_ms: 10 })),
    ...series(NOW - 40 * MIN, NOW, 10_000, () => ({ model: 'nd', replica: 'nd-r2', status: 'ok', total_ms: 10 })),
    // …and rejections without a replica that stopped too (a load spike that ended): not a silent replica.
    ...series(NOW - 40 * MIN, NOW - 10 * MIN, 10_000, () => ({ model: 'nd', status: 'rejected' })),
  ];
  await store.appendEvents(lines);
  const GiB = 2 ** 30;
  const samples: ResourceSample[] = [];
  for (let ts = NOW - 30 * MIN; ts < NOW; ts += 15_000) {
    const k = (ts - (NOW - 30 * MIN)) / 15_000;
    samples.push({ ts, node: 'n1', gpu: '0', metric: 'gpu_memory_used_bytes', value: (60 + k * 0.25) * GiB }); // creeps 60 → 89.75 GiB
    samples.push({ ts, node: 'n1', gpu: '0', metric: 'gpu_memory_total_bytes', value: 96 * GiB });
    samples.push({ ts, node: 'n1', gpu: '1', metric: 'gpu_memory_used_bytes', value: 20 * GiB });
    samples.push({ ts, node: 'n1', gpu: '1', metric: 'gpu_memory_total_bytes', value: 80 * GiB });
    // GPU 2 steps up with the load 1 min before NOW (20 → 30 GiB) and stays: a step, not a creep.
    samples.push({ ts, node: 'n1', gpu: '2', metric: 'gpu_memory_used_bytes', value: (ts >= NOW - MIN ? 30 : 20) * GiB });
    samples.push({ ts, node: 'n1', gpu: '2', metric: 'gpu_memory_total_bytes', value: 80 * GiB });
    samples.push({ ts, node: 'n1', replica: 'r1', metric: 'replica_restarts_total', value: Math.floor(k / 20) }); // +5 in 30 min
    samples.push({ ts, node: 'n1', replica: 'r2', metric: 'replica_restarts_total', value: 1 });
    samples.push({ ts, node: 'n1', replica: 'pr-0', metric: 'replica_restarts_total', value: Math.floor(k / 20) }); // +5, a replica two models share
  }
  await store.appendResources(samples);
});

afterAll(async () => {
  await store?.close();
});

async function run(condition: unknown, severity: Severity = 'warning', nowMs = NOW) {
  const c = ConditionSchema.parse(condition);
  const reads = typedReads(store);
  const obs = await evaluateCondition(c, severity, { reads, series: createSeriesCache({ reads }), nowMs, maxSlices: 1000 });
  return obs.sort((a, b) => JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)));
}

describe('rule kinds on DuckDB', () => {
  it('threshold: P99 per replica, and relative to an hour ago', async () => {
    const abs = await run({
      kind: 'threshold',
      measure: 'p99(total_ms)',
      window: '5m',
      by: ['model', 'replica'],
      filters: { model: 'lat' },
      op: '>',
      value: 500,
      min_count: 50,
    });
    expect(abs).toEqual([{ labels: { model: 'lat', replica: 'r1' }, value: 1000 }]);
    const rel = await run({
      kind: 'threshold',
      measure: 'p99(total_ms)',
      window: '5m',
      by: ['replica'],
      filters: { model: 'lat' },
      relative_to: { offset: '1h' },
      op: '>',
      value: 1.5,
      min_count: 50,
    });
    expect(rel).toEqual([{ labels: { replica: 'r1' }, value: 10 }]);
    // min_count above the slice size: no verdict.
    expect(
      await run({
        kind: 'threshold',
        measure: 'p99(total_ms)',
        window: '5m',
        by: ['replica'],
        filters: { model: 'lat' },
        op: '>',
        value: 500,
        min_count: 1000,
      }),
    ).toEqual([]);
  });

  it('threshold relative to peers: the one slow replica of three, not a model with two', async () => {
    const obs = await run({
      kind: 'threshold',
      measure: 'p99(exec_ms)',
      window: '5m',
      by: ['model', 'replica'],
      filters: { model: ['pr', 'pr2'] },
      relative_to: { peers: 'replica' },
      op: '>',
      value: 1.5,
      min_count: 50,
    });
    // pr: median of 2.0, 6.3, 2.2 is 2.2 → pr-1 reads 6.3 / 2.2 = 2.864; pr2 has 2 peers < min_peers 3.
    expect(obs).toHaveLength(1);
    expect(obs[0]!.labels).toEqual({ model: 'pr', replica: 'pr-1' });
    expect(obs[0]!.value).toBeCloseTo(6.3 / 2.2, 9);
    const below = await run({
      kind: 'threshold',
      measure: 'p99(exec_ms)',
      window: '5m',
      by: ['model', 'replica'],
      filters: { model: 'pr' },
      relative_to: { peers: 'replica' },
      op: '<',
      value: 1,
      min_count: 50,
    });
    expect(below).toEqual([{ labels: { model: 'pr', replica: 'pr-0' }, value: 2.0 / 2.2 }]);
  });

  it('threshold relative to a baseline: the canary route against the default route at the same time', async () => {
    const obs = await run({
      kind: 'threshold',
      measure: 'p95(exec_ms)',
      window: '5m',
      by: ['model', 'route_rule'],
      filters: { model: 'cb', route_rule: 'canary' },
      relative_to: { baseline: { route_rule: 'default' } },
      op: '>',
      value: 1.4,
      min_count: 50,
    });
    // 75 canary rows at 5.0 ms, 225 default rows at 2.0 ms → 2.5.
    expect(obs).toEqual([{ labels: { model: 'cb', route_rule: 'canary' }, value: 2.5 }]);
    // 75 canary rows are fewer than min_count 100: no verdict.
    expect(
      await run({
        kind: 'threshold',
        measure: 'p95(exec_ms)',
        window: '5m',
        by: ['model', 'route_rule'],
        filters: { model: 'cb', route_rule: 'canary' },
        relative_to: { baseline: { route_rule: 'default' } },
        op: '>',
        value: 1.4,
        min_count: 100,
      }),
    ).toEqual([]);
  });

  it('slo_burn_rate: 10 % errors against a 99.5 % SLO burns 20× in every window → page', async () => {
    const obs = await run({ kind: 'slo_burn_rate', objective: 0.995, by: ['model'], filters: { model: ['err', 'okish'] } }, 'critical');
    expect(obs).toHaveLength(1);
    expect(obs[0]!.labels).toEqual({ model: 'err' });
    // 6 h window: 4320 events, every 10th an error → 432/4320 = 0.1 → 0.1 / 0.005 = 20.
    expect(obs[0]!.value).toBeCloseTo(20, 1);
    // Latency SLO on the same data: every request is 50 ms < 100 ms → no burn.
    expect(
      await run(
        { kind: 'slo_burn_rate', objective: 0.99, latency: { field: 'total_ms', threshold_ms: 100 }, by: ['model'], filters: { model: 'err' } },
        'critical',
      ),
    ).toEqual([]);
  });

  it('quality_change proportion: empty rate 10 % vs 2 % the hour before fires on q only', async () => {
    const obs = await run({
      kind: 'quality_change',
      measure: 'empty_rate',
      window: '1h',
      by: ['model'],
      filters: { model: ['q', 'q2'] },
      min_count: 200,
      min_delta: 0.02,
    });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'q' }]);
    expect(obs[0]!.value).toBeCloseTo(0.1, 2);
    // Too few requests for a verdict.
    expect(await run({ kind: 'quality_change', measure: 'empty_rate', window: '1h', by: ['model'], filters: { model: 'q' }, min_count: 5000 })).toEqual([]);
  });

  it('quality_change drift: label mix and confidence moved on q, not on q2', async () => {
    const labels = await run({
      kind: 'quality_change',
      test: 'drift',
      field: 'label',
      window: '1h',
      by: ['model'],
      filters: { model: ['q', 'q2'] },
      min_count: 100,
    });
    expect(labels.map((o) => o.labels)).toEqual([{ model: 'q' }]);
    const conf = await run({
      kind: 'quality_change',
      test: 'drift',
      field: 'confidence',
      window: '1h',
      by: ['model'],
      filters: { model: ['q', 'q2'] },
      min_count: 100,
    });
    expect(conf.map((o) => o.labels)).toEqual([{ model: 'q' }]);
    expect(conf[0]!.value).toBeGreaterThan(0.5); // KS D: the two uniform ranges barely overlap
  });
  it("quality_change drift: without yesterday's data the hour before stands in, and what cannot be judged is counted", async () => {
    // Nothing was stored a day ago: the trailing hour is the reference, so q's move is still found.
    const c = ConditionSchema.parse({
      kind: 'quality_change',
      test: 'drift',
      field: 'label',
      window: '1h',
      reference: { offset: '1d' },
      by: ['model'],
      filters: { model: ['q', 'q2', 'g'] },
      min_count: 100,
    });
    let coverage: unknown = null;
    const reads = typedReads(store);
    const obs = await evaluateCondition(c, 'warning', {
      reads,
      series: createSeriesCache({ reads }),
      nowMs: NOW,
      maxSlices: 1000,
      note: (x) => (coverage = x),
    });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'q' }]);
    // q and q2 judged against the trailing hour; g sent 20 probes only (excluded): not a slice here.
    expect(coverage).toEqual({ judged: 2, without_reference: 0 });
    // Stratified: 100 rows per slice, so a small model is read as much as a large one.
    const rows = await reads.events({
      fromMs: NOW - 3_600_000,
      toMs: NOW,
      filters: { model: ['q', 'lat'] },
      columns: ['model'],
      limit: 1000,
      order: 'sample',
      perSlice: { by: ['model'], limit: 100 },
    });
    expect(rows.filter((r) => r.model === 'q')).toHaveLength(100);
    expect(rows.filter((r) => r.model === 'lat')).toHaveLength(100);
  });

  it('resource: GPU memory ratio near its limit, and restarts counted by increase', async () => {
    const mem = await run({
      kind: 'resource',
      metric: 'gpu_memory_used_bytes',
      divide_by: 'gpu_memory_total_bytes',
      window: '5m',
      by: ['node', 'gpu'],
      op: '>',
      value: 0.9,
    });
    // GPU 0 creeps to 60 + 119·0.25 = 89.75 GiB of 96 GiB = 0.935 > 0.9; GPU 1 stays at 20/80 = 0.25.
    expect(mem.map((o) => o.labels)).toEqual([{ node: 'n1', gpu: '0' }]);
    expect(mem[0]!.value).toBeCloseTo(89.75 / 96, 3);
    const restarts = await run({ kind: 'resource', metric: 'replica_restarts_total', window: '30m', agg: 'increase', by: ['replica'], op: '>', value: 3 });
    // r1 served only model lat (no version) in the window, so the alert names it; pr-0 served pr and pr2: left as it is.
    expect(restarts).toEqual([
      { labels: { replica: 'pr-0' }, value: 5 },
      { labels: { replica: 'r1', model: 'lat' }, value: 5 },
    ]);
  });

  it('resource trend: a creep is a trend, a step with the load and a flat line are not', async () => {
    const obs = await run({
      kind: 'resource',
      metric: 'gpu_memory_used_bytes',
      divide_by: 'gpu_memory_total_bytes',
      window: '5m',
      agg: 'trend',
      step: '15s',
      by: ['node', 'gpu'],
      op: '>',
      value: 0.1,
    });
    // GPU 0: +0.25 GiB every 15 s = 60 GiB/h of 96 GiB → Theil–Sen slope 0.625 of the card per hour.
    // GPU 2: 16 steps at 20 GiB, 4 at 30 GiB → S = 64, ties 16·15·37 + 4·3·13 = 9036,
    // Var = (20·19·45 − 9036)/18 = 448, z = 63/√448 = 2.98, p = 0.0029 ≥ 0.001: no trend. GPU 1 is flat.
    expect(obs.map((o) => o.labels)).toEqual([{ node: 'n1', gpu: '0' }]);
    expect(obs[0]!.value).toBeCloseTo(0.625, 6);
    // At alpha 0.01 the step of GPU 2 reads as a rise (p 0.0029), but its Theil–Sen slope is 0
    // (most pairs lie on the flat part), so it stays below any positive threshold.
    const loose = await run({
      kind: 'resource',
      metric: 'gpu_memory_used_bytes',
      divide_by: 'gpu_memory_total_bytes',
      window: '5m',
      agg: 'trend',
      step: '15s',
      alpha: 0.01,
      by: ['node', 'gpu'],
      op: '>',
      value: 0.1,
    });
    expect(loose.map((o) => o.labels)).toEqual([{ node: 'n1', gpu: '0' }]);
  });

  it('golden_failure: v2 passes 6 of 10 probes (the error without a verdict counts as a failure)', async () => {
    const obs = await run({ kind: 'golden_failure', window: '15m', by: ['model', 'model_version'], filters: { model: 'g' }, min_pass_rate: 0.9, min_count: 5 });
    expect(obs).toEqual([{ labels: { model: 'g', model_version: 'v2' }, value: 0.6 }]);
  });

  it('golden_failure with fdr: 12 of 20 failing is a failing version, 6 of 12 is not yet', async () => {
    // Against "at most 10 % fail": 12 of 20 → ln LR 12.5, p = 60·e^−12.5 = 2e-4; 6 of 12 → ln LR 4.7, p = 0.57
    // (hand-checked with the mixture over 20 %, 40 %, 80 %, 95 %); over 20 minutes the 15-minute window
    // holds 9 failures of 15 and is no stronger.
    const obs = await run({ ...GOLDEN_SEQUENTIAL, filters: { model: 'gs' } });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'gs', model_version: 'v1' }]);
    expect(obs[0]!.value).toBeCloseTo(0.4, 2);
  });

  it('golden_failure with a reference: 8 of 30 failing is raised against the version’s own 1 in 150, not against a fixed 10 %', async () => {
    // Reference 1/150 → Wilson upper bound 2.93 %; the 30-minute window's 8 of 30 against it, alternatives
    // from 10.67 % up: ln LR 9.909 (sequential.ts's mixture), p = 2 tests · 60 · e^−9.909 = 0.0060 < 0.01.
    // Against "at most 10 % fail" the same window has ln LR 1.94: without the reference, nothing.
    const c = { ...GOLDEN_SEQUENTIAL, filters: { model: 'gr' } };
    expect(await run(c)).toEqual([]);
    const obs = await run({ ...c, reference: { window: '150m' } });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'gr', model_version: 'v1' }]);
    expect(obs[0]!.value).toBeCloseTo(22 / 30, 6);
  });

  it('golden_failure with a reference: a thin past is shrunk toward the other versions’ probes', async () => {
    // gk v1's own 1 of 60 → Wilson upper bound 7.13 %: 8 of the last 30 has ln LR 3.82, p = 1. The two
    // versions' references (1 of 60, 1 of 150) differ no more than their counts do (S = 0.00429 under
    // chance's 0.00943: betaBinomialStrength ∞), so v1's is pooled with v2's 150 → 2 of 210, bound
    // 2.84 %, alternatives from 10.95 % up: ln LR 10.162, p = 2 tests · 60 · e^−10.162 = 0.0046 < 0.01
    // (BH over v1 alone: v2 has no failures to test).
    const c = { ...GOLDEN_SEQUENTIAL, reference: { window: '150m' } };
    expect(await run({ ...c, filters: { model: 'gk', model_version: 'v1' } })).toEqual([]);
    const obs = await run({ ...c, filters: { model: 'gk' } });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'gk', model_version: 'v1' }]);
    expect(obs[0]!.value).toBeCloseTo(22 / 30, 6);
  });

  it('golden_failure with a reference: failed calls are judged against what is tolerated, answers against their past', async () => {
    // ge v1: 4 of its last 10 probes failed calls (status error), its 6 answers all passed: against its
    // own past only the answers count (none failed); all 10 against "at most 10 % fail" have 4 failures,
    // ln LR < 3. ge v2: 20 of 20 calls failed, against "at most 10 % fail": raised. Were failed calls
    // answers, v1's 4 of 10 against its own 0 of 150 (bound 1.8 %) would be raised too.
    const obs = await run({ ...GOLDEN_SEQUENTIAL, filters: { model: 'ge' }, reference: { window: '150m' } });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'ge', model_version: 'v2' }]);
    expect(obs[0]!.value).toBe(0);
  });

  it('no_data: the replica that stopped sending, not the one still sending', async () => {
    const rule = { kind: 'no_data', window: '5m', reference: { window: '30m' }, by: ['model', 'replica'], filters: { model: 'nd' }, min_count: 10 };
    const want = [{ labels: { model: 'nd', replica: 'nd-r1' }, value: 0 }];
    // On the minute, from the per-minute series; 30 s past it, from two queries: the same answer.
    expect(await run(rule)).toEqual(want);
    expect(await run(rule, 'warning', NOW + 30_000)).toEqual(want);
    // Ten minutes ago nd-r1 had just stopped: 5 minutes of silence were not there yet.
    expect(await run(rule, 'warning', NOW - 9 * MIN)).toEqual([]);
    expect(await run(rule, 'warning', NOW - 9 * MIN + 30_000)).toEqual([]);
  });
});
