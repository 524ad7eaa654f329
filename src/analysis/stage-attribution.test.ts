import { describe, expect, it } from 'vitest';
import { attributeStages, compareReplicas, judgeStageShifts } from './stage-attribution.ts';
import type { StageSamples } from './stage-attribution.ts';

// 100 requests, i = 0…99: ingress 1, queue 2, batch 1, post 1 ms; exec 10 + 0.1·i ms (baseline),
// tripled to 30 + 0.3·i ms now. total = sum of stages.
function window(execFactor: number): StageSamples {
  const exec = Array.from({ length: 100 }, (_, i) => execFactor * (10 + 0.1 * i));
  return {
    ingress_ms: exec.map(() => 1),
    queue_ms: exec.map(() => 2),
    batch_ms: exec.map(() => 1),
    exec_ms: exec,
    post_ms: exec.map(() => 1),
    total_ms: exec.map((e) => e + 5),
  };
}

describe('attributeStages', () => {
  const r = attributeStages(window(3), window(1), 0.99);

  it('names exec_ms when it triples, with the worked quantiles', () => {
    // P99: h = 99·0.99 = 98.01. Baseline exec x98 = 19.8, x99 = 19.9 → 19.8 + 0.01·0.1 = 19.801.
    // Now: 59.4 + 0.01·0.3 = 59.403. Δ = 39.602 ms, ratio 3.
    expect(r.grewMost).toBe('exec_ms');
    const exec = r.stages.find((s) => s.stage === 'exec_ms');
    expect(exec?.baselineMs).toBeCloseTo(19.801, 10);
    expect(exec?.currentMs).toBeCloseTo(59.403, 10);
    expect(exec?.deltaMs).toBeCloseTo(39.602, 10);
    expect(exec?.ratio).toBeCloseTo(3, 12);
    expect(exec?.nCurrent).toBe(100);
    expect(exec?.nBaseline).toBe(100);
  });

  it('reports the unchanged stages with delta 0 and the total separately', () => {
    const queue = r.stages.find((s) => s.stage === 'queue_ms');
    expect(queue?.deltaMs).toBe(0);
    expect(queue?.ratio).toBe(1);
    expect(r.stages.map((s) => s.stage)).not.toContain('total_ms');
    // total P99: 24.8 + 0.01·0.1 = 24.801 → 64.4 + 0.01·0.3 = 64.403
    expect(r.total?.baselineMs).toBeCloseTo(24.801, 10);
    expect(r.total?.currentMs).toBeCloseTo(64.403, 10);
  });

  it('names no stage when nothing grew, and handles a stage missing from one window', () => {
    expect(attributeStages(window(1), window(1)).grewMost).toBeNull();
    const partial = attributeStages({ exec_ms: [1, 2, 3] }, { queue_ms: [4] });
    const queue = partial.stages.find((s) => s.stage === 'queue_ms');
    expect(queue?.nCurrent).toBe(0);
    expect(queue?.currentMs).toBeNaN();
    expect(partial.total).toBeNull();
    expect(partial.grewMost).toBeNull();
  });
});

describe('a stage is named only when it grew significantly and materially', () => {
  it('names nothing for ×1.003 on clean traffic, even with a million requests', () => {
    // exec P99 20.00 → 20.06 ms; with n = 10⁶ per window the share above 20.00 moves 1 % → 1.2 %
    // (z ≈ 13, significant), but ×1.003 is below the ×1.1 that matters.
    const r = judgeStageShifts([
      { stage: 'exec_ms', currentMs: 20.06, baselineMs: 20, nCurrent: 1e6, nBaseline: 1e6, aboveCurrent: 12_000, aboveBaseline: 10_000 },
    ]);
    expect(r.stages[0]!.pValue).toBeLessThan(1e-20);
    expect(r.stages[0]!.grew).toBe(false);
    expect(r.grewMost).toBeNull();
  });

  it('names nothing for a large jump carried by a handful of requests', () => {
    // 40 requests a window: P99 is the max; 2 above the old P99 now vs 1 before → Fisher p = 1.
    const r = judgeStageShifts([{ stage: 'batch_ms', currentMs: 90, baselineMs: 30, nCurrent: 40, nBaseline: 40, aboveCurrent: 2, aboveBaseline: 1 }]);
    expect(r.stages[0]!.pValue).toBeCloseTo(1, 12);
    expect(r.grewMost).toBeNull();
  });

  it('Holm-adjusts across stages and picks the largest growth in ms among those that grew', () => {
    const base = { nCurrent: 2000, nBaseline: 2000, aboveBaseline: 20 };
    const r = judgeStageShifts([
      { stage: 'queue_ms', currentMs: 12, baselineMs: 5, aboveCurrent: 400, ...base },
      { stage: 'exec_ms', currentMs: 60, baselineMs: 20, aboveCurrent: 500, ...base },
      { stage: 'post_ms', currentMs: 1, baselineMs: 1, aboveCurrent: 20, ...base },
    ]);
    expect(r.stages.map((s) => s.grew)).toEqual([true, true, false]);
    expect(r.grewMost).toBe('exec_ms');
    // post_ms: 20 vs 20 → z = 0, p = 1 (Holm keeps it at 1)
    expect(r.stages[2]!.pValue).toBe(1);
  });
});

describe('compareReplicas', () => {
  it("names the replica whose exec P99 is three times its peers'", () => {
    // peers of r2: median(21, 20, 19) = 20 → 62/20 = 3.1; batch is the same everywhere.
    const r = compareReplicas([
      { replica: 'r0', n: 500, stagesMs: { exec_ms: 21, batch_ms: 40 } },
      { replica: 'r1', n: 500, stagesMs: { exec_ms: 20, batch_ms: 41 } },
      { replica: 'r2', n: 480, stagesMs: { exec_ms: 62, batch_ms: 40 } },
      { replica: 'r3', n: 510, stagesMs: { exec_ms: 19, batch_ms: 39 } },
    ]);
    expect(r).toEqual({ replica: 'r2', stage: 'exec_ms', ms: 62, peersMs: 20, ratio: 3.1, n: 480 });
  });

  it('does not name a stage whose excess is too small to matter on that replica', () => {
    // queue 0.04 ms against 0.01 ms is ×4, an excess of 0.4 % of an 8 ms total; exec 0.75 against
    // 0.255 is ×2.9, an excess of 6 %.
    const r = compareReplicas([
      { replica: 'r0', n: 300, totalMs: 7.5, stagesMs: { queue_ms: 0.01, exec_ms: 0.25 } },
      { replica: 'r1', n: 300, totalMs: 8, stagesMs: { queue_ms: 0.04, exec_ms: 0.75 } },
      { replica: 'r2', n: 300, totalMs: 7.4, stagesMs: { queue_ms: 0.01, exec_ms: 0.26 } },
    ]);
    expect(r).toMatchObject({ replica: 'r1', stage: 'exec_ms' });
  });

  it('names none when replicas are alike, too few, or too small', () => {
    const alike = ['r0', 'r1', 'r2'].map((replica, i) => ({ replica, n: 100, stagesMs: { exec_ms: 20 + i } }));
    expect(compareReplicas(alike)).toBeNull();
    expect(compareReplicas(alike.slice(0, 2))).toBeNull();
    expect(compareReplicas([...alike, { replica: 'r9', n: 5, stagesMs: { exec_ms: 500 } }])).toBeNull();
  });
});
