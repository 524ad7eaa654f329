import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { MAX_NUMERIC_ROWS, STRATA, driftQuery, expandCounts, numericValues } from './drift.ts';
import type { QualityReads } from './reads.ts';
import { MIN, T0, iso, lines, readsOver } from './quality.test-support.ts';
import { DriftRequestSchema, decode } from '../schema/index.ts';

/** The route's path: decode the body, then answer. */
const drift = async (reads: QualityReads, input: unknown) => driftQuery(reads, decode(DriftRequestSchema, input, 'drift request'));

const HOUR = 60 * MIN;
/** 200 evenly spaced confidences lo, lo + 1/512, …: dyadic, so shifted copies compare exactly. */
const spread = (lo: number) => Array.from({ length: 200 }, (_, i) => (lo * 512 + i) / 512);

function rows(fromMs: number, confidences: number[], version: string, labelOf: (i: number) => string) {
  return lines(confidences.map((c, i) => ({ ts: fromMs + i * 1000, model: 'm', model_version: version, status: 'ok', confidence: c, label: labelOf(i) })));
}

describe('drift query', () => {
  let store: Store;
  let reads: QualityReads;
  beforeEach(async () => {
    store = await createDuckDBStore({ path: ':memory:', threads: 2 });
    await store.migrate();
    reads = readsOver(store);
  });
  afterEach(() => store.close());

  it('finds nothing when the window repeats the previous one (PSI 0, KS D 0)', async () => {
    const label = (i: number) => ['a', 'b', 'c'][i % 3]!;
    await store.appendEvents(rows(T0 - HOUR, spread(0.5), 'v1', label));
    await store.appendEvents(rows(T0, spread(0.5), 'v1', label));
    const r = await drift(reads, { from: iso(T0), to: iso(T0 + HOUR), fields: ['confidence', 'label'] });
    expect(r.reference).toMatchObject({ from: iso(T0 - HOUR), to: iso(T0) });
    const [conf, lab] = r.fields;
    // 200 reference rows ≤ 1000 → KS; identical samples: D = 0, p = 1.
    expect(conf!.test).toMatchObject({ method: 'ks', statistic: 0, verdict: 'no_drift', n_ref: 200, n_cur: 200, threshold: 0.05 });
    expect(conf!.test.p_value).toBeCloseTo(1, 9);
    expect(conf!.psi).toMatchObject({ method: 'psi', statistic: 0, verdict: 'no_drift', level: 'stable' });
    // Three labels → chi-square; identical counts (67, 67, 66) → statistic 0, p = 1.
    expect(lab!.test).toMatchObject({ method: 'chi_square', statistic: 0, verdict: 'no_drift', n_ref: 200, n_cur: 200 });
    expect(lab!.psi.statistic).toBe(0);
    expect(conf!.q_value).toBeCloseTo(1, 9);
  });

  it('detects confidence shifted down by 0.25', async () => {
    await store.appendEvents(rows(T0 - HOUR, spread(0.5), 'v1', () => 'a'));
    await store.appendEvents(rows(T0, spread(0.25), 'v1', () => 'a'));
    const r = await drift(reads, { from: iso(T0), to: iso(T0 + HOUR), fields: ['confidence'] });
    const [conf] = r.fields;
    // Reference k/512 for k = 256..455, current k = 128..327: the shift is 128 steps, so the ECDFs
    // differ by at most 128/200 = 0.64 = D (n = m = 200: Kolmogorov p ≈ 2·e^(−2·100·0.64²) ≈ 1e-35).
    expect(conf!.test.method).toBe('ks');
    expect(conf!.test.statistic).toBeCloseTo(0.64, 12);
    expect(conf!.test.verdict).toBe('drift');
    expect(conf!.test.p_value!).toBeLessThan(1e-10);
    // PSI on the reference's deciles: 74 % of the current rows (k ≤ 275) fall in the lowest bin (10 % of the
    // reference) and the top 6 bins are empty (floored to 1e-4): far beyond 0.25.
    expect(conf!.psi.level).toBe('significant');
    expect(conf!.psi.drift).toBe(true);
    expect(conf!.q_value).toBeCloseTo(conf!.test.p_value!, 15);
  });

  it('compares one version with another over the same window', async () => {
    await store.appendEvents(rows(T0, spread(0.5), 'v1', (i) => (i < 100 ? 'a' : 'b')));
    await store.appendEvents(rows(T0, spread(0.25), 'v2', (i) => (i < 100 ? 'a' : 'b')));
    const r = await drift(reads, {
      from: iso(T0),
      to: iso(T0 + HOUR),
      filters: { model_version: 'v2' },
      reference: { kind: 'version', model_version: 'v1' },
      fields: ['confidence', 'label'],
    });
    expect(r.reference.filters).toEqual({ model_version: 'v1' });
    expect(r.fields[0]!.test.verdict).toBe('drift');
    // Two labels, same split 100/100 → z-test, z = 0, p = 1.
    expect(r.fields[1]!.test).toMatchObject({ method: 'z', statistic: 0, p_value: 1, verdict: 'no_drift' });
    // BH over the two p-values (tiny, 1): q of the larger stays 1.
    expect(r.fields[1]!.q_value).toBe(1);
    await expect(drift(reads, { from: iso(T0), to: iso(T0 + HOUR), reference: { kind: 'version', model_version: 'v1' } })).rejects.toMatchObject({
      code: 'invalid_argument',
      issues: [{ path: 'filters.model_version' }],
    });
  });

  it('says not_enough_data below the minimum sample size, for the test and PSI', async () => {
    await store.appendEvents(rows(T0 - HOUR, spread(0.5).slice(0, 10), 'v1', () => 'a'));
    await store.appendEvents(rows(T0, spread(0.25).slice(0, 10), 'v1', () => 'a'));
    const r = await drift(reads, { from: iso(T0), to: iso(T0 + HOUR), fields: ['confidence', 'score'] });
    expect(r.fields[0]!.test).toMatchObject({ verdict: 'not_enough_data', n_ref: 10, n_cur: 10 });
    expect(r.fields[0]!.psi.verdict).toBe('not_enough_data');
    expect(r.fields[1]!.test).toMatchObject({ verdict: 'not_enough_data', n_ref: 0, n_cur: 0 });
    expect(r.fields.map((f) => f.q_value)).toEqual([null, null]);
  });

  it('pinned reference windows and bad input', async () => {
    await expect(drift(reads, { from: iso(T0), to: iso(T0 + HOUR), reference: { kind: 'window', from: iso(T0), to: iso(T0 - 1) } })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(drift(reads, { from: iso(T0), to: iso(T0 + HOUR), fields: ['latency'] })).rejects.toMatchObject({
      code: 'invalid_argument',
      issues: [{ path: 'fields.0' }],
    });
    const r = await drift(reads, { from: iso(T0), to: iso(T0 + HOUR), reference: { kind: 'window', from: iso(T0 - 3 * HOUR), to: iso(T0 - 2 * HOUR) } });
    expect(r.reference).toMatchObject({ from: iso(T0 - 3 * HOUR), to: iso(T0 - 2 * HOUR) });
  });

  it('scales large categorical counts down, keeping shares', () => {
    // 300 000 a + 100 000 b, cap 4 → 3 a + 1 b.
    expect(expandCounts({ b: 100_000, a: 300_000 }, 4)).toEqual({ values: ['a', 'a', 'a', 'b'], sampled: true });
    expect(expandCounts({ a: 2 })).toEqual({ values: ['a', 'a'], sampled: false });
  });
});

describe('numeric samples stay bounded', () => {
  it('falls back to a stratified subsample when a window holds more than MAX_NUMERIC_ROWS', async () => {
    const calls: { fromMs: number; toMs: number; limit: number }[] = [];
    // A fake window with more rows than the bound: every list call returns `limit` rows.
    const reads = {
      aggregate: async () => [],
      feedbackStats: async () => ({ rows: [], orphans: 0 }),
      events: async (s: { fromMs: number; toMs: number; limit: number }) => {
        calls.push({ fromMs: s.fromMs, toMs: s.toMs, limit: s.limit });
        return Array.from({ length: s.limit }, () => ({ ts: iso(s.fromMs), confidence: 0.5 }));
      },
    } as unknown as QualityReads;
    const { values, sampled } = await numericValues(reads, { fromMs: T0, toMs: T0 + 20 * MIN, filters: {} }, 'confidence');
    expect(sampled).toBe(true);
    expect(values).toHaveLength(MAX_NUMERIC_ROWS);
    // First the bounded probe (20 001 rows), then 20 one-minute strata of 1000 rows each.
    expect(calls[0]).toEqual({ fromMs: T0, toMs: T0 + 20 * MIN, limit: MAX_NUMERIC_ROWS + 1 });
    expect(calls.slice(1)).toHaveLength(STRATA);
    expect(calls[1]).toEqual({ fromMs: T0, toMs: T0 + MIN, limit: 1000 });
    expect(calls[STRATA]).toEqual({ fromMs: T0 + 19 * MIN, toMs: T0 + 20 * MIN, limit: 1000 });
  });
});
