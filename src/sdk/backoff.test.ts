import { describe, expect, it } from 'vitest';
import { MAX_RETRY_AFTER_MS, backoffDelayMs, parseRetryAfterMs } from './backoff.ts';

describe('backoffDelayMs', () => {
  it('is full jitter under a cap that doubles up to the maximum', () => {
    const top = () => 0.999_999;
    // initial 100, max 10 000: caps 100, 200, 400, 800, …, 6 400, then 10 000 from the 8th retry.
    const caps = [0, 1, 2, 3, 6, 7, 8, 40].map((a) => Math.round(backoffDelayMs(a, 100, 10_000, top)));
    expect(caps).toEqual([100, 200, 400, 800, 6400, 10_000, 10_000, 10_000]);
    expect(backoffDelayMs(5, 100, 10_000, () => 0)).toBe(0);
    for (let i = 0; i < 100; i++) {
      const d = backoffDelayMs(2, 100, 10_000);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(400);
    }
  });
});

describe('parseRetryAfterMs', () => {
  it('reads delay-seconds, HTTP-dates, and ignores garbage', () => {
    expect(parseRetryAfterMs('2')).toBe(2000);
    expect(parseRetryAfterMs(' 0.25 ')).toBe(250);
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs('soon')).toBeUndefined();
    expect(parseRetryAfterMs('-3')).toBeUndefined();
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:00:03 GMT', now)).toBe(3000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 23:59:00 GMT', now)).toBe(0);
  });

  it('clamps a huge Retry-After', () => {
    expect(parseRetryAfterMs('86400')).toBe(MAX_RETRY_AFTER_MS);
  });
});
