import { describe, expect, it } from 'vitest';
import { attributeStages } from './stage-attribution.ts';
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
