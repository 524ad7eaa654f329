import { describe, expect, it } from 'vitest';
import { classify, judge } from './judge.ts';
import type { JudgeOptions } from './judge.ts';
import { metricDef } from './metrics.ts';
import type { MetricDef } from './metrics.ts';
import type { Measurement } from './stats.ts';

const def = (name: string): MetricDef => metricDef(name) as MetricDef;
const OPTS: JudgeOptions = { correction: 'bh', promoteScore: 75, rollbackScore: 50 };

function m(name: string, over: Partial<Measurement>): Measurement {
  return {
    def: def(name),
    baseline: 1,
    candidate: 1,
    diff: 0,
    ci: [0, 0],
    pValue: 0.5,
    test: 't',
    tolerance: 1,
    unit: 'ms',
    n: { baseline: 1000, candidate: 1000 },
    rule: 'interval',
    notes: [],
    ...over,
  };
}

describe('classify', () => {
  it('latency (interval rule): high only when the whole interval is above the band and q < 0.05', () => {
    // Baseline median 40 ms → band max(2, 1) = 2 ms. CI [2.5, 6]: beyond → high, worse.
    expect(classify(m('shift(total_ms)', { diff: 4, ci: [2.5, 6], tolerance: 2 }), 0.001)).toEqual({ classification: 'high', direction: 'worse' });
    // CI [1.5, 6] straddles the band edge → pass, however small q is.
    expect(classify(m('shift(total_ms)', { diff: 4, ci: [1.5, 6], tolerance: 2 }), 1e-9)).toEqual({ classification: 'pass', direction: 'same' });
    // Beyond the band but q ≥ 0.05 → pass.
    expect(classify(m('shift(total_ms)', { diff: 4, ci: [2.5, 6], tolerance: 2 }), 0.06).classification).toBe('pass');
    // Faster beyond the band → low, better.
    expect(classify(m('p99(total_ms)', { diff: -9, ci: [-12, -6], tolerance: 5 }), 0.001)).toEqual({ classification: 'low', direction: 'better' });
  });
  it('rates (point rule): worse when q < 0.05 and the rise exceeds the pp band', () => {
    // 1.0 % → 1.8 %: +0.8 pp > 0.5 pp, q 0.01 → high.
    expect(classify(m('error_rate', { rule: 'point', diff: 0.008, tolerance: 0.005 }), 0.01)).toEqual({ classification: 'high', direction: 'worse' });
    // 1.0 % → 1.4 %: +0.4 pp inside the band → pass even if significant.
    expect(classify(m('error_rate', { rule: 'point', diff: 0.004, tolerance: 0.005 }), 0.001).classification).toBe('pass');
  });
  it('accuracy: a drop is low and worse', () => {
    // 92 % → 90 % golden pass: −2 pp beyond −1 pp, q 0.001.
    expect(classify(m('golden_pass_rate', { rule: 'point', diff: -0.02, tolerance: 0.01 }), 0.001)).toEqual({ classification: 'low', direction: 'worse' });
  });
  it('drift: distance at its threshold is high and worse; no data stays no data', () => {
    expect(classify(m('label_drift', { rule: 'drift', diff: 0.12, pValue: null, drifted: true, tolerance: 0.1 }), null)).toEqual({
      classification: 'high',
      direction: 'worse',
    });
    expect(classify(m('label_drift', { rule: 'drift', diff: 0.02, pValue: null, drifted: false, tolerance: 0.1 }), null).classification).toBe('pass');
    expect(classify(m('golden_pass_rate', { noData: 'none' }), null).classification).toBe('no_data');
  });
});

describe('judge', () => {
  const pass = (name: string) => m(name, { pValue: 0.5 });
  const worse = (name: string) => m(name, { diff: 10, ci: [6, 14], tolerance: 2, pValue: 1e-6 });

  it('all passing → score 100, promote', () => {
    const j = judge([pass('shift(total_ms)'), pass('p99(total_ms)'), m('error_rate', { rule: 'point', pValue: 0.4 })], OPTS);
    expect(j.verdict).toBe('promote');
    expect(j.score).toBe(100);
  });
  it('a critical metric worse → rollback whatever the score', () => {
    // Weights: p99 2 worse; shift 2 + p50 1 + p95 1 + error_rate 3 pass → 7/9 = 77.8 ≥ 75, yet rollback.
    const rows = [worse('p99(total_ms)'), pass('shift(total_ms)'), pass('p50(total_ms)'), pass('p95(total_ms)'), m('error_rate', { rule: 'point' })];
    const j = judge(rows, OPTS);
    expect(j.score).toBe(77.8);
    expect(j.verdict).toBe('rollback');
    expect(j.reasons[0]).toMatch(/critical.*p99\(total_ms\)/);
  });
  it('score = weighted share of passing metrics; 50 ≤ score < 75 → hold, < 50 → rollback', () => {
    // shift(total_ms) weight 2 worse, p50 1 + p95 1 + timeout_rate 1 + reject_rate 1 pass → 4/6 = 66.7 → hold.
    const hold = judge(
      [worse('shift(total_ms)'), pass('p50(total_ms)'), pass('p95(total_ms)'), m('timeout_rate', { rule: 'point' }), m('reject_rate', { rule: 'point' })],
      OPTS,
    );
    expect(hold.score).toBe(66.7);
    expect(hold.verdict).toBe('hold');
    // shift 2 + p50 1 worse, p95 1 pass → 1/4 = 25 → rollback.
    const rb = judge([worse('shift(total_ms)'), worse('p50(total_ms)'), pass('p95(total_ms)')], OPTS);
    expect(rb.score).toBe(25);
    expect(rb.verdict).toBe('rollback');
  });
  it('no_data rows are not scored; only no_data → not_enough_data', () => {
    const j = judge([pass('shift(total_ms)'), m('golden_pass_rate', { noData: 'no probes' })], OPTS);
    expect(j.score).toBe(100);
    expect(j.evidence[1]?.classification).toBe('no_data');
    expect(j.evidence[1]?.note).toMatch(/no data: no probes/);
    expect(judge([m('golden_pass_rate', { noData: 'x' })], OPTS).verdict).toBe('not_enough_data');
  });
  it('too little traffic → not_enough_data, evidence kept', () => {
    const j = judge([pass('shift(total_ms)')], { ...OPTS, tooLittleTraffic: 'candidate has 40 requests, fewer than 100' });
    expect(j.verdict).toBe('not_enough_data');
    expect(j.evidence).toHaveLength(1);
  });
  it('adjusts p across metrics: BH q = m·p/rank, Holm (m − rank + 1)·p', () => {
    // p = [0.01, 0.04, 0.03, 0.005] (worked in analysis/p-adjust.ts): BH q = [0.02, 0.04, 0.04, 0.02].
    const ps = [0.01, 0.04, 0.03, 0.005];
    const rows = ps.map((p) => m('p50(exec_ms)', { pValue: p }));
    expect(judge(rows, OPTS).evidence.map((r) => r.qValue)).toEqual([0.02, 0.04, 0.04, 0.02]);
    expect(judge(rows, { ...OPTS, correction: 'holm' }).evidence.map((r) => r.qValue)).toEqual([0.03, 0.06, 0.06, 0.02]);
  });
  it('a significant raw p that does not survive the adjustment is not flagged', () => {
    // One metric at p = 0.02 among 20 nulls at p = 0.5: BH q = 0.02·21/1 = 0.42 → pass.
    const rows = [m('shift(exec_ms)', { diff: 10, ci: [6, 14], tolerance: 2, pValue: 0.02 }), ...Array.from({ length: 20 }, () => pass('p50(queue_ms)'))];
    expect(judge(rows, OPTS).evidence[0]?.classification).toBe('pass');
  });
});

describe('no promote beside a worse row', () => {
  it('holds when the score passes but a metric is worse, naming it', () => {
    // 20 shift(total_ms) rows of weight 2 pass; p95(exec_ms) (weight 0.5) is worse → score 100·40/40.5 = 98.8 ≥ 75.
    const rows = [...Array.from({ length: 20 }, () => m('shift(total_ms)', {})), m('p95(exec_ms)', { diff: 30, ci: [20, 40], tolerance: 1, pValue: 1e-9 })];
    const j = judge(rows, OPTS);
    expect(j.score).toBe(98.8);
    expect(j.evidence.at(-1)).toMatchObject({ classification: 'high', direction: 'worse' });
    expect(j.verdict).toBe('hold');
    expect(j.reasons[0]).toBe('hold: score 98.8 ≥ 75, but p95(exec_ms) is worse');
  });
});
