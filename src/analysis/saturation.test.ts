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

describe('detectSaturation with a baseline before the window', () => {
  // Ten calm minutes, then ten saturated ones: flat inside each, a step between them.
  const calm = (i: number): SaturationPoint => ({ t: i, qps: 500 + wobble(i), queueMs: 5 + wobble(i + 2) / 2, p99Ms: 80 + wobble(i + 1), baseline: true });
  const busy = (i: number): SaturationPoint => ({ t: i, qps: 500 + wobble(i), queueMs: 60 + wobble(i + 2) / 2, p99Ms: 400 + wobble(i + 1) });

  it('flags a window that starts at the onset, which its own points cannot show', () => {
    const window = Array.from({ length: 10 }, (_, i) => busy(10 + i));
    // Inside the window alone: flat queue and P99 → no trend.
    expect(detectSaturation(window).verdict).toBe('not_saturated');
    const r = detectSaturation([...Array.from({ length: 10 }, (_, i) => calm(i)), ...window]);
    expect(r.verdict).toBe('saturated');
    expect(r.signals).toEqual(['queueing']);
    expect(r.nBaseline).toBe(10);
    expect(r.reasons[0]).toMatch(/median 60\.\d ms vs 5\.\d ms before/);
  });

  it('does not flag a calm window after a saturated baseline', () => {
    const r = detectSaturation([
      ...Array.from({ length: 10 }, (_, i) => ({ ...busy(i), baseline: true })),
      ...Array.from({ length: 10 }, (_, i) => ({ ...calm(10 + i), baseline: false })),
    ]);
    expect(r.saturated).toBe(false);
  });

  it('flags load shedding even while served throughput rises to the ceiling', () => {
    // A spike: served qps climbs 300 → 500 and stays; 0.2 % shed before, 40 % rate-limited after.
    const points: SaturationPoint[] = Array.from({ length: 20 }, (_, i) => ({
      t: i,
      qps: i < 10 ? 300 + wobble(i) : 500 + wobble(i),
      queueMs: i < 10 ? 5 : 12 + wobble(i) / 2,
      p99Ms: i < 10 ? 80 + wobble(i) : 140 + wobble(i + 1),
      shedRate: i < 10 ? 0.002 : 0.4 + wobble(i) / 100,
      baseline: i < 10,
    }));
    const r = detectSaturation(points);
    expect(r.qps.trend).toBe('up');
    expect(r.verdict).toBe('saturated');
    expect(r.signals).toEqual(['shedding']);
    expect(r.reasons[0]).toMatch(/^40\.0 % of offered requests were rejected or rate-limited \(0\.2 % before\)/);
  });

  it('does not call a steady trickle of rate limiting saturation', () => {
    const points = Array.from({ length: 20 }, (_, i) => ({ ...calm(i), baseline: i < 10, shedRate: 0.003 + wobble(i) / 1000 }));
    expect(detectSaturation(points).saturated).toBe(false);
  });
});
