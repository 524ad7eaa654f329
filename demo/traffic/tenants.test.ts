import { describe, expect, it } from 'vitest';
import { createRandom } from '../model/index.ts';
import { createRateModel } from './rate.ts';
import { createTenantPicker, createTenants, tenantRateLimits } from './tenants.ts';

describe('tenants', () => {
  it('shares follow Zipf(1.1) over 40 tenants (worked numbers of tenants.ts)', () => {
    const tenants = createTenants();
    expect(tenants).toHaveLength(40);
    expect(tenants.reduce((s, t) => s + t.share, 0)).toBeCloseTo(1, 12);
    // Σ k^-1.1 for k = 1..40 ≈ 3.678 → top share 1 / 3.678 ≈ 0.272; rank 2: 0.4665 / 3.678 ≈ 0.127
    expect(tenants[0]?.share).toBeCloseTo(0.272, 3);
    expect(tenants[1]?.share).toBeCloseTo(0.127, 3);
    expect(tenants.map((t) => t.name).slice(0, 3)).toEqual(['acme', 'globex', 'initech']);
    expect(tenants.filter((t) => t.tier === 'enterprise')).toHaveLength(3);
  });

  it('a seeded draw is heavy-tailed: the top tenant sends ≥ 5× the median tenant', () => {
    const tenants = createTenants();
    const picker = createTenantPicker(tenants, createRandom(42));
    const counts = new Map<string, number>(tenants.map((t) => [t.name, 0]));
    const entries = new Map<string, number>();
    const draws = 100_000;
    for (let i = 0; i < draws; i++) {
      const { tenant, entry } = picker.pick();
      counts.set(tenant.name, (counts.get(tenant.name) ?? 0) + 1);
      entries.set(entry, (entries.get(entry) ?? 0) + 1);
    }
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const top = sorted[0] as number;
    const median = ((sorted[19] as number) + (sorted[20] as number)) / 2;
    // expected ≈ 28× (0.272 / 0.0099); the bar is 5×
    expect(top / median).toBeGreaterThan(5);
    expect(counts.get('acme')).toBe(top);
    // every tenant appears, the five largest send more than half of the traffic
    expect(sorted.every((c) => c > 0)).toBe(true);
    expect(sorted.slice(0, 5).reduce((a, b) => a + b, 0) / draws).toBeGreaterThan(0.5);
    expect(new Set(entries.keys())).toEqual(new Set(['api', 'batch', 'web']));
    // the same seed gives the same draws
    const again = createTenantPicker(tenants, createRandom(42));
    const first = createTenantPicker(tenants, createRandom(42));
    for (let i = 0; i < 100; i++) expect(again.pick()).toEqual(first.pick());
  });

  it('rate limits leave normal traffic through and scale with the share', () => {
    const limits = tenantRateLimits(createTenants(), 12);
    // acme: 3 × 0.2719 × 12 + 1 = 10.8 req/s, burst round(21.6) = 22
    expect(limits.acme?.ratePerS).toBe(10.8);
    expect(limits.acme?.burst).toBe(22);
    expect(limits['smb-40']?.ratePerS).toBeGreaterThanOrEqual(1);
  });
});

describe('rate model', () => {
  it('follows the daily cycle: peak at 15:00 UTC, trough at 03:00, mean over a day ≈ the mean', () => {
    const rate = createRateModel({ meanRatePerS: 6, noiseSigma: 0, burstsPerDay: 0 });
    const day = Date.UTC(2026, 0, 10);
    expect(rate.ratePerS(day + 15 * 3_600_000)).toBeCloseTo(9, 6);
    expect(rate.ratePerS(day + 3 * 3_600_000)).toBeCloseTo(3, 6);
    let sum = 0;
    for (let m = 0; m < 1440; m++) sum += rate.ratePerS(day + m * 60_000);
    expect(sum / 1440).toBeCloseTo(6, 6);
  });

  it('noise and bursts stay within their bounds and repeat for the same seed', () => {
    const a = createRateModel({ meanRatePerS: 6, seed: 3 });
    const b = createRateModel({ meanRatePerS: 6, seed: 3 });
    const day = Date.UTC(2026, 0, 10);
    let bursts = 0;
    for (let s = 0; s < 86_400; s += 30) {
      const t = day + s * 1000;
      const r = a.ratePerS(t);
      expect(r).toBe(b.ratePerS(t));
      expect(r).toBeLessThanOrEqual(a.peakRatePerS);
      expect(r).toBeGreaterThan(0);
      if (r > 9 * 1.35) bursts++;
    }
    expect(bursts).toBeLessThan(400);
  });
});
