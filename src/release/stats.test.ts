import { describe, expect, it } from 'vitest';
import { classify } from './judge.ts';
import { DEFAULT_TOLERANCE, metricDef } from './metrics.ts';
import type { MetricDef } from './metrics.ts';
import { confidenceDrift, labelDrift, latencyShift, quantileDiff, quantileSE, rateDiff, twoSidedP } from './stats.ts';

const def = (name: string): MetricDef => metricDef(name) as MetricDef;
const range = (n: number, f: (i: number) => number = (i) => i + 1) => Array.from({ length: n }, (_, i) => f(i));

describe('latencyShift', () => {
  it('gives the Hodges–Lehmann shift, its interval and the U test (worked in hodges-lehmann.ts)', () => {
    // x = 1…10, y = x + 5: shift 5, 95 % interval [2, 8]; band max(5 % × 5.5, 1 ms) = 1 ms.
    const m = latencyShift(
      def('shift(total_ms)'),
      range(10),
      range(10, (i) => i + 6),
      0.05,
      1,
      1,
    );
    expect(m.diff).toBe(5);
    expect(m.ci).toEqual([2, 8]);
    expect(m.baseline).toBe(5.5);
    expect(m.candidate).toBe(10.5);
    expect(m.tolerance).toBe(1);
    expect(m.pValue).toBeLessThan(0.01);
    expect(m.rule).toBe('interval');
  });
  it('band is 5 % of the baseline median when that is above 1 ms', () => {
    const x = range(101, (i) => 100 + i); // median 150
    expect(latencyShift(def('shift(exec_ms)'), x, x, 0.05, 1, 1).tolerance).toBeCloseTo(7.5, 12);
  });
});

describe('quantileSE and quantileDiff', () => {
  it('brackets the quantile by the binomial interval of its rank', () => {
    // 1…10 000, q = 0.99: nq = 9900, 1.96·√99 = 19.50 → ranks 9880 and 9920 → SE = 40/3.92 = 10.204.
    expect(quantileSE(range(10_000), 0.99)).toBeCloseTo(40 / (2 * 1.959963984540054), 9);
    // q = 0.5: 5000 ∓ 98 → ranks 4902 and 5098 → SE = 196/3.92 = 50.0009.
    expect(quantileSE(range(10_000), 0.5)).toBeCloseTo(50.0009, 3);
  });
  it('uses the exact store quantiles for the difference and both SEs for the interval', () => {
    const x = range(10_000);
    const y = range(10_000, (i) => 2 * (i + 1));
    const m = quantileDiff(def('p99(total_ms)'), 0.99, { baseline: 9900, candidate: 19_800 }, x, y, 0.05, 1);
    // SE_x = 10.204, SE_y = 20.408 → SE = 22.817; CI = 9900 ± 44.72.
    expect(m.diff).toBe(9900);
    expect(m.ci?.[0]).toBeCloseTo(9900 - 44.72, 1);
    expect(m.tolerance).toBeCloseTo(495, 9);
    expect(m.pValue).toBe(0);
  });
  it('falls back to the sample quantile when the store has none, and says so', () => {
    const m = quantileDiff(def('p50(exec_ms)'), 0.5, { baseline: null, candidate: null }, [1, 2, 3], [1, 2, 3], 0.05, 1);
    expect(m.diff).toBe(0);
    expect(m.pValue).toBe(1);
    expect(m.notes.join()).toMatch(/raw sample/);
  });
});

describe('rateDiff', () => {
  it('20/2000 → 40/2000: +1.00 pp, Newcombe CI [0.245, 1.794] pp, z-test p 0.0093', () => {
    // Wilson 1 %: [0.6490, 1.5393] %; 2 %: [1.2984, 3.0713] %.
    // lo = 1 − √((2 − 1.2984)² + (1.5393 − 1)²) = 0.2452 pp; hi = 1 + √((3.0713 − 2)² + (1 − 0.6490)²) = 1.7940 pp.
    const m = rateDiff(def('error_rate'), 20, 2000, 40, 2000, 0.5);
    expect(m.diff).toBeCloseTo(0.01, 12);
    expect(m.ci?.[0]).toBeCloseTo(0.002452, 5);
    expect(m.ci?.[1]).toBeCloseTo(0.01794, 5);
    expect(m.pValue).toBeCloseTo(0.00928, 4);
    expect(m.test).toBe('two_proportion_z');
    expect(m.tolerance).toBe(0.005);
  });
  it('uses Fisher when an expected count is below 5', () => {
    // expected errors on a side = 100·3/200 = 1.5 < 5.
    expect(rateDiff(def('error_rate'), 0, 100, 3, 100, 0.5).test).toBe('fisher_exact');
  });
});

describe('drift rows', () => {
  it('labels: identical mixes do not drift; a moved mix does (Jensen–Shannon above 1000 rows)', () => {
    const mix = (a: number, b: number) => [...Array<string>(a).fill('cat'), ...Array<string>(b).fill('dog')];
    const same = labelDrift(def('label_drift'), mix(1500, 500), mix(1500, 500), 30);
    expect(same.test).toBe('jensen_shannon');
    expect(same.diff).toBe(0);
    expect(same.drifted).toBe(false);
    expect(labelDrift(def('label_drift'), mix(1500, 500), mix(500, 1500), 30).drifted).toBe(true);
  });
  it('confidence: too few rows is no data', () => {
    expect(confidenceDrift(def('confidence_drift'), [0.9], [0.8], 30).noData).toMatch(/fewer/);
  });
});

it('twoSidedP(1.959964) = 0.05', () => {
  expect(twoSidedP(1.959963984540054)).toBeCloseTo(0.05, 10);
  expect(twoSidedP(NaN)).toBe(1);
});

describe('the default latency band scales with the metric', () => {
  it('a 2.5× exec regression on a sub-millisecond model is high, not inside a fixed 1 ms band', () => {
    // exec 0.30 ms ± 0.02 → 0.75 ms ± 0.05, 200 per side: HL shift ≈ +0.45 ms. Band with the
    // defaults: baseline median 0.299 ms → max(5 % × 0.299, 0.001) = 0.01495 ms (it was
    // max(0.01495, 1) = 1 ms, and the regression "passed").
    const x = range(200, (i) => 0.3 + ((i % 21) - 10) / 500);
    const y = range(200, (i) => 0.75 + ((i % 21) - 10) / 200);
    const m = latencyShift(def('shift(exec_ms)'), x, y, DEFAULT_TOLERANCE.latencyRelative, DEFAULT_TOLERANCE.latencyMinMs, 1);
    expect(m.tolerance).toBeCloseTo(0.01495, 12);
    expect(m.ci![0]).toBeGreaterThan(m.tolerance!);
    expect(classify(m, m.pValue).classification).toBe('high');
  });
});
