/**
 * Per-tenant token buckets. A bucket holds at most `burst` tokens and refills at `ratePerS`
 * tokens per second; a request takes one token or is rate limited.
 *
 * Worked numbers: ratePerS 10, burst 5. Five requests at t = 0 empty the bucket; a sixth at
 * t = 0 is refused with retry after (1 − 0) / 10 s = 100 ms; at t = 250 ms the bucket holds
 * 0.25 × 10 = 2.5 tokens, so two more pass and the third is refused.
 */
export interface RateLimit {
  ratePerS: number;
  burst: number;
}

export interface RateLimiterOptions {
  /** Limits per tenant; tenants not listed get `defaultLimit`, or no limit when that is absent. */
  limits?: Record<string, RateLimit>;
  defaultLimit?: RateLimit;
  /** Milliseconds on a monotonic clock; injected in tests. */
  nowMs?: () => number;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface RateLimiter {
  take(tenant: string): RateDecision;
  setLimit(tenant: string, limit: RateLimit | null): void;
}

interface Bucket {
  tokens: number;
  lastMs: number;
  limit: RateLimit;
}

/** Buckets kept at most; beyond this the oldest are dropped (they refill to full anyway). */
const MAX_BUCKETS = 10_000;

export function createRateLimiter(options: RateLimiterOptions = {}): RateLimiter {
  const nowMs = options.nowMs ?? (() => performance.now());
  const limits = new Map(Object.entries(options.limits ?? {}));
  const buckets = new Map<string, Bucket>();
  return {
    take(tenant) {
      const limit = limits.get(tenant) ?? options.defaultLimit;
      if (!limit) return { allowed: true };
      const now = nowMs();
      let b = buckets.get(tenant);
      if (!b || b.limit !== limit) {
        if (!b && buckets.size >= MAX_BUCKETS) {
          const oldest = buckets.keys().next();
          if (!oldest.done) buckets.delete(oldest.value);
        }
        b = { tokens: limit.burst, lastMs: now, limit };
        buckets.set(tenant, b);
      }
      b.tokens = Math.min(limit.burst, b.tokens + (Math.max(0, now - b.lastMs) / 1000) * limit.ratePerS);
      b.lastMs = now;
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterMs: ((1 - b.tokens) / limit.ratePerS) * 1000 };
    },
    setLimit(tenant, limit) {
      if (limit) limits.set(tenant, limit);
      else limits.delete(tenant);
      buckets.delete(tenant);
    },
  };
}
