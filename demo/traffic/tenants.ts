/**
 * The demo's customers: 40 tenants whose traffic shares follow a Zipf law, as real API customers
 * do (a few large accounts, a long tail of small ones), each with a service tier and a mix of
 * entry points.
 *
 * Worked numbers (s = 1.1, 40 tenants): weight of rank k is k^-1.1; the weights sum to 3.68, so
 * the top tenant (acme) sends 1 / 3.68 = 27.2 % of the requests, rank 2 (globex) 2^-1.1 / 3.68 =
 * 12.7 %, and the median tenants (ranks 20–21) about 1 % each: the top tenant is ≈ 28× the median.
 */
import { createRandom } from '../model/index.ts';

export type Entry = 'api' | 'batch' | 'web';
export const ENTRIES: readonly Entry[] = ['api', 'batch', 'web'];
export type ServiceTier = 'enterprise' | 'pro' | 'free';

export interface Tenant {
  name: string;
  /** 1 = the largest. */
  rank: number;
  /** Expected share of all requests, 0–1; the shares sum to 1. */
  share: number;
  tier: ServiceTier;
  /** Share of this tenant's requests per entry point; sums to 1. */
  entries: Record<Entry, number>;
}

export const ZIPF_EXPONENT = 1.1;
export const TENANT_COUNT = 40;
const NAMED = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark', 'wayne', 'cyberdyne', 'tyrell', 'wonka', 'soylent', 'oscorp'];

/** The low-traffic tenant that the v2 pilot rule serves and the tenant-error incident hits. */
export const PILOT_TENANT = 'wonka';

/** The tenant table: rank k gets share k^-s / Σ j^-s; tiers by rank (1–3 enterprise, 4–12 pro, rest free). */
export function createTenants(count = TENANT_COUNT, exponent = ZIPF_EXPONENT): Tenant[] {
  const weights = Array.from({ length: count }, (_, i) => (i + 1) ** -exponent);
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w, i) => {
    const rank = i + 1;
    const tier: ServiceTier = rank <= 3 ? 'enterprise' : rank <= 12 ? 'pro' : 'free';
    // Large accounts integrate through the API and nightly batch jobs; small ones mostly use the web app.
    const entries: Record<Entry, number> =
      tier === 'enterprise' ? { api: 0.6, batch: 0.3, web: 0.1 } : tier === 'pro' ? { api: 0.5, batch: 0.1, web: 0.4 } : { api: 0.3, batch: 0, web: 0.7 };
    return { name: NAMED[i] ?? `smb-${String(rank).padStart(2, '0')}`, rank, share: w / total, tier, entries };
  });
}

/** Service tier per tenant, in the shape the demo service takes (`tenantTiers`). */
export function tenantTiers(tenants: readonly Tenant[]): Record<string, string> {
  return Object.fromEntries(tenants.map((t) => [t.name, t.tier]));
}

/**
 * Per-tenant token buckets sized from the expected peak: 3 × the tenant's share of `peakRatePerS`
 * plus 1 req/s, burst 2 × that. Normal traffic passes; a load spike or a batch dump pushes the
 * bigger tenants into `rate_limited`. Example: acme at 27.2 % of a 12 req/s peak → 3 × 3.26 + 1 = 10.8 req/s, burst 22.
 */
export function tenantRateLimits(tenants: readonly Tenant[], peakRatePerS: number): Record<string, { ratePerS: number; burst: number }> {
  return Object.fromEntries(
    tenants.map((t) => {
      const ratePerS = Math.round((3 * t.share * peakRatePerS + 1) * 10) / 10;
      return [t.name, { ratePerS, burst: Math.max(2, Math.round(2 * ratePerS)) }];
    }),
  );
}

/** Draws tenants and entries by their shares (inverse CDF over cumulative weights). */
export interface TenantPicker {
  pick(): { tenant: Tenant; entry: Entry };
}

export function createTenantPicker(tenants: readonly Tenant[], random: () => number = createRandom(1)): TenantPicker {
  if (tenants.length === 0) throw new Error('createTenantPicker needs at least one tenant');
  const cumulative: number[] = [];
  let acc = 0;
  for (const t of tenants) cumulative.push((acc += t.share));
  const pickIndex = (u: number): number => {
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) > u * acc) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return {
    pick() {
      const tenant = tenants[pickIndex(random())] as Tenant;
      let u = random();
      let entry: Entry = 'api';
      for (const e of ENTRIES) {
        u -= tenant.entries[e];
        if (u < 0) {
          entry = e;
          break;
        }
      }
      return { tenant, entry };
    },
  };
}
