// The release comparer against a real DuckDB: A/A calibration, injected regressions, too little
// traffic. All traffic is written once into one store, each scenario under its own tenant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueries } from '../query/index.ts';
import type { Queries } from '../query/index.ts';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { createComparer as createTypedComparer } from './comparer.ts';
import type { ComparerOptions } from './comparer.ts';
import type { CompareResult } from './comparer.ts';
import { syntheticTraffic } from './synthetic-traffic.test-support.ts';
import type { TrafficOptions } from './synthetic-traffic.test-support.ts';
import { CompareRequestSchema, decode } from '../schema/index.ts';

/** The comparer behind the route: decode the body, then compare. */
function createComparer(q: Queries, options?: ComparerOptions) {
  const c = createTypedComparer(q, options);
  return { compare: async (input: unknown) => c.compare(decode(CompareRequestSchema, input, 'compare request')) };
}

const T0 = Date.parse('2026-01-01T00:00:00Z');
const HOUR = 3_600_000;
const FROM = new Date(T0).toISOString();
const TO = new Date(T0 + HOUR).toISOString();
/** A/A: trials × requests per side (the bench runs 100 × 2000: bench/aa-trials.ts). */
const AA_TRIALS = 100;
const AA_PER_SIDE = 500;
const SEEDS = [11, 12, 13];

let store: Store;
let queries: Queries;

const side = (o: Omit<TrafficOptions, 'fromMs' | 'toMs'>) => syntheticTraffic({ fromMs: T0, toMs: T0 + HOUR, ...o });
const canary = (tenant: string, extra: Record<string, unknown> = {}) =>
  createComparer(queries).compare({
    baseline: { filters: { model: 'm', model_version: 'v1' } },
    candidate: { filters: { model: 'm', model_version: 'v2' } },
    from: FROM,
    to: TO,
    tenant,
    ...extra,
  });
const row = (r: CompareResult, metric: string) => r.evidence.find((e) => e.metric === metric);

beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  queries = createQueries(store);
  const lines: string[] = [];
  for (let t = 0; t < AA_TRIALS; t++) {
    lines.push(
      ...side({ seed: 1000 + t, n: 2 * AA_PER_SIDE, modelVersion: 'v1', tenant: `aa-${t}`, replicas: ['r1', 'r2'], probes: 100, idPrefix: `aa-${t}` }),
    );
  }
  for (const s of SEEDS) {
    const n = 10_000;
    // Whole exec_ms × 1.2; exec_ms × 1.2 in its slowest 10 % only (z > 1.2816); golden pass 92 % → 90 %.
    lines.push(...side({ seed: s, n, modelVersion: 'v1', tenant: `slow-${s}`, idPrefix: `slow-b-${s}` }));
    lines.push(...side({ seed: s + 100, n, modelVersion: 'v2', tenant: `slow-${s}`, execFactor: 1.2, idPrefix: `slow-c-${s}` }));
    lines.push(...side({ seed: s + 200, n, modelVersion: 'v1', tenant: `tail-${s}`, idPrefix: `tail-b-${s}` }));
    lines.push(...side({ seed: s + 300, n, modelVersion: 'v2', tenant: `tail-${s}`, execFactor: 1.2, execTailZ: 1.2816, idPrefix: `tail-c-${s}` }));
    lines.push(...side({ seed: s + 400, n: 2000, probes: 8000, goldenPassRate: 0.92, modelVersion: 'v1', tenant: `acc-${s}`, idPrefix: `acc-b-${s}` }));
    lines.push(...side({ seed: s + 500, n: 2000, probes: 8000, goldenPassRate: 0.9, modelVersion: 'v2', tenant: `acc-${s}`, idPrefix: `acc-c-${s}` }));
  }
  lines.push(...side({ seed: 7, n: 60, modelVersion: 'v1', tenant: 'tiny', idPrefix: 'tiny-b' }));
  lines.push(...side({ seed: 8, n: 60, modelVersion: 'v2', tenant: 'tiny', idPrefix: 'tiny-c' }));
  for (let i = 0; i < lines.length; i += 100_000) await store.appendEvents(lines.slice(i, i + 100_000));
}, 120_000);

afterAll(async () => {
  await store?.close();
});

describe('A/A: the same version split in two by replica', () => {
  it(`says rollback in at most 5 % of ${AA_TRIALS} trials`, async () => {
    const comparer = createComparer(queries);
    const verdicts: Record<string, number> = {};
    for (let t = 0; t < AA_TRIALS; t++) {
      const r = await comparer.compare({
        baseline: { filters: { model: 'm', model_version: 'v1', replica: 'r1' } },
        candidate: { filters: { model: 'm', model_version: 'v1', replica: 'r2' } },
        from: FROM,
        to: TO,
        tenant: `aa-${t}`,
      });
      verdicts[r.verdict] = (verdicts[r.verdict] ?? 0) + 1;
    }
    const rollbackShare = (verdicts.rollback ?? 0) / AA_TRIALS;
    process.stdout.write(`A/A ${AA_TRIALS} trials × ~${AA_PER_SIDE}/side: ${JSON.stringify(verdicts)}; rollback share ${(100 * rollbackShare).toFixed(1)} %\n`);
    expect(rollbackShare).toBeLessThanOrEqual(0.05);
    expect(verdicts.not_enough_data ?? 0).toBe(0);
  }, 120_000);
});

describe('injected regressions (10 000 requests per side)', () => {
  it.each(SEEDS)('exec_ms × 1.2 overall: never promote, P99 flagged (seed %i)', async (s) => {
    const r = await canary(`slow-${s}`);
    expect(r.verdict).not.toBe('promote');
    expect(r.verdict).toBe('rollback');
    expect(row(r, 'p99(exec_ms)')?.direction).toBe('worse');
    expect(row(r, 'shift(exec_ms)')?.classification).toBe('high');
    expect(row(r, 'error_rate')?.classification).toBe('pass');
  });
  it.each(SEEDS)('exec_ms × 1.2 in its slowest 10 % only: never promote (seed %i)', async (s) => {
    const r = await canary(`tail-${s}`);
    expect(r.verdict).not.toBe('promote');
    expect(row(r, 'p99(exec_ms)')?.classification).toBe('high');
    // The median does not move: the rank test alone would miss this.
    expect(row(r, 'p50(exec_ms)')?.classification).toBe('pass');
  });
  it.each(SEEDS)('golden pass rate 92 % → 90 % (8 000 probes per side): not promote (seed %i)', async (s) => {
    const r = await canary(`acc-${s}`);
    expect(r.verdict).not.toBe('promote');
    const g = row(r, 'golden_pass_rate');
    expect(g?.direction).toBe('worse');
    expect(g?.critical).toBe(true);
  });
});

describe('evidence and edge cases', () => {
  it('too little traffic → not_enough_data', async () => {
    const r = await canary('tiny');
    expect(r.verdict).toBe('not_enough_data');
    expect(r.reasons[0]).toMatch(/baseline has \d+ requests, fewer than 100/);
    expect(r.baseline.n).toBeLessThan(100);
  });
  it('feedback hit rate says no data without a feedback source, and is judged with one', async () => {
    const without = await canary('slow-11', { metrics: ['accuracy'] });
    expect(row(without, 'feedback_hit_rate')).toMatchObject({ classification: 'no_data', note: expect.stringMatching(/feedback join not available/) });
    expect(row(without, 'golden_pass_rate')?.classification).toBe('no_data');
    expect(without.verdict).toBe('not_enough_data');
    const fb = createComparer(queries, { feedback: async (w) => (w.filters.model_version === 'v1' ? { hits: 900, n: 1000 } : { hits: 800, n: 1000 }) });
    const r = await fb.compare({
      baseline: { filters: { model: 'm', model_version: 'v1' } },
      candidate: { filters: { model: 'm', model_version: 'v2' } },
      from: FROM,
      to: TO,
      tenant: 'slow-11',
      metrics: ['feedback_hit_rate'],
    });
    expect(row(r, 'feedback_hit_rate')).toMatchObject({ classification: 'low', direction: 'worse', baseline: 0.9, candidate: 0.8 });
    expect(r.verdict).toBe('rollback');
  });
  it('evidence rows carry every field, JSON-safe; the sample is stratified and says so', async () => {
    const r = await canary('slow-12', { max_events_per_side: 2000 });
    expect(r.baseline.sample).toEqual({ rows: 2000, of: 10_000, stratified: true });
    const p99 = row(r, 'p99(total_ms)');
    expect(Object.keys(p99 ?? {}).sort()).toEqual(
      [
        'baseline',
        'candidate',
        'ci',
        'classification',
        'critical',
        'diff',
        'direction',
        'family',
        'metric',
        'n',
        'note',
        'p_value',
        'q_value',
        'test',
        'tolerance',
        'unit',
        'weight',
      ].sort(),
    );
    expect(p99?.note).toMatch(/most recent of each of 10 equal slices/);
    expect(JSON.parse(JSON.stringify(r))).toEqual(r);
    // ttft/tpot are not sent by this service: no rows for them.
    expect(r.evidence.some((e) => e.metric.includes('ttft_ms'))).toBe(false);
  });
  it('offset windows compare before/after; metrics selects families', async () => {
    const r = await createComparer(queries).compare({
      baseline: { filters: { model: 'm', model_version: 'v1' }, from: FROM, to: TO },
      candidate: { filters: { model: 'm', model_version: 'v1' }, from: new Date(T0 + 30 * 60_000).toISOString(), to: TO },
      tenant: 'aa-0',
      metrics: ['rates'],
    });
    expect(r.evidence.map((e) => e.metric)).toEqual(['error_rate', 'timeout_rate', 'reject_rate']);
    expect(r.candidate.from).toBe('2026-01-01T00:30:00.000Z');
  });
  it('bad input is answered with field paths', async () => {
    await expect(createComparer(queries).compare({ baseline: {}, candidate: {} })).rejects.toMatchObject({
      code: 'invalid_argument',
      issues: [{ path: 'baseline.from' }, { path: 'candidate.from' }],
    });
  });
});
