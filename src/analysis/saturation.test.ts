import { describe, expect, it } from 'vitest';
import { detectSaturation } from './saturation.ts';
import type { SaturationPoint } from './saturation.ts';

// A fixed wobble so the series are not perfect lines: 0, +1, −1, +2, −2, 0, …
const wobble = (i: number): number => [0, 1, -1, 2, -2][i % 5] as number;

describe('detectSaturation', () => {
  it('flags flat throughput with rising queue time and P99', () => {
    // 20 one-minute points: qps 500 ± 2, queue 5 + 2i ± 1 ms, P99 80 + 6i ± 2 ms
    const points: SaturationPoint[] = Array.from({ length: 20 }, (_, i) => ({
      t: i * 60,
      qps: 500 + wobble(i),
      queueMs: 5 + 2 * i + wobble(i + 2) / 2,
      p99Ms: 80 + 6 * i + wobble(i + 1),
    }));
    const r = detectSaturation(points);
    expect(r.verdict).toBe('saturated');
    expect(r.saturated).toBe(true);
    expect(r.qps.trend).toBe('none');
    expect(r.queueMs.trend).toBe('up');
    expect(r.p99Ms.trend).toBe('up');
    // queue grows 2 ms per minute-long step = 2/60 ms per second of t
    expect(r.queueMs.slope).toBeCloseTo(2 / 60, 2);
    expect(r.queueMs.slopeLo).toBeGreaterThan(0);
  });

  it('also flags falling throughput', () => {
    const points = Array.from({ length: 12 }, (_, i) => ({ t: i, qps: 500 - 10 * i, queueMs: 5 + i, p99Ms: 80 + 5 * i }));
    const r = detectSaturation(points);
    expect(r.qps.trend).toBe('down');
    expect(r.saturated).toBe(true);
  });

  it('does not flag a healthy ramp-up (qps up, latency flat)', () => {
    const points = Array.from({ length: 20 }, (_, i) => ({
      t: i * 60,
      qps: 100 + 25 * i + wobble(i),
      queueMs: 5 + wobble(i + 2) / 2,
      p99Ms: 80 + wobble(i + 1),
    }));
    const r = detectSaturation(points);
    expect(r.verdict).toBe('not_saturated');
    expect(r.qps.trend).toBe('up');
    expect(r.queueMs.trend).toBe('none');
    expect(r.p99Ms.trend).toBe('none');
  });

  it('does not flag latency rising together with throughput (load, not saturation)', () => {
    const points = Array.from({ length: 15 }, (_, i) => ({ t: i, qps: 100 + 10 * i, queueMs: 5 + i, p99Ms: 80 + 2 * i }));
    expect(detectSaturation(points).saturated).toBe(false);
  });

  it('gives no verdict on too few points, and sorts by t', () => {
    const points = Array.from({ length: 6 }, (_, i) => ({ t: 5 - i, qps: 100, queueMs: 10 - i, p99Ms: 90 - i }));
    const r = detectSaturation(points);
    expect(r.verdict).toBe('not_enough_data');
    expect(r.n).toBe(6);
    // after sorting by t the queue rises: 5, 6, …, 10 → S = 15
    expect(r.queueMs.s).toBe(15);
  });
});
