import { describe, expect, it } from 'vitest';
import { createRateLimiter } from './rate-limiter.ts';

describe('token bucket rate limiter', () => {
  it('follows the worked numbers: rate 10/s, burst 5', () => {
    let now = 0;
    const limiter = createRateLimiter({ limits: { acme: { ratePerS: 10, burst: 5 } }, nowMs: () => now });
    for (let i = 0; i < 5; i++) expect(limiter.take('acme').allowed).toBe(true);
    // empty bucket: one token comes back after 1 / 10 s = 100 ms
    expect(limiter.take('acme')).toEqual({ allowed: false, retryAfterMs: 100 });
    now = 250; // + 0.25 s × 10/s = 2.5 tokens
    expect(limiter.take('acme').allowed).toBe(true);
    expect(limiter.take('acme').allowed).toBe(true);
    const third = limiter.take('acme'); // 0.5 tokens left: (1 − 0.5) / 10 s = 50 ms
    expect(third.allowed).toBe(false);
    expect(third.allowed === false && third.retryAfterMs).toBeCloseTo(50, 9);
  });

  it('never holds more than burst tokens after a long idle time', () => {
    let now = 0;
    const limiter = createRateLimiter({ limits: { acme: { ratePerS: 100, burst: 3 } }, nowMs: () => now });
    now = 60_000;
    const allowed = Array.from({ length: 5 }, () => limiter.take('acme').allowed);
    expect(allowed).toEqual([true, true, true, false, false]);
  });

  it('keeps tenants apart, applies the default limit to unlisted tenants, and can change a limit', () => {
    const now = 0;
    const limiter = createRateLimiter({ limits: { big: { ratePerS: 1, burst: 3 } }, defaultLimit: { ratePerS: 1, burst: 1 }, nowMs: () => now });
    expect(limiter.take('small').allowed).toBe(true);
    expect(limiter.take('small').allowed).toBe(false);
    expect(limiter.take('big').allowed).toBe(true);
    expect(limiter.take('other').allowed).toBe(true);
    limiter.setLimit('small', { ratePerS: 1, burst: 2 });
    expect(limiter.take('small').allowed).toBe(true);
    expect(limiter.take('small').allowed).toBe(true);
    expect(limiter.take('small').allowed).toBe(false);
  });

  it('lets everyone through when there is no limit at all', () => {
    const limiter = createRateLimiter();
    expect(Array.from({ length: 1000 }, () => limiter.take('x').allowed).every(Boolean)).toBe(true);
  });
});
