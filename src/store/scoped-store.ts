/**
 * The read scope, applied in one place: a decorator of the Store's reads that limits every read
 * to the scope's tenants. main.ts wraps the store with it for each API caller, so every query,
 * analysis, sample search, request lookup, label list, feedback join, quality summary, golden
 * result and release comparison sees only the caller's tenants; no route can forget it.
 *
 * - Reads with filters (aggregate, histogram, bucket counts, slice counts, raw events, feedback
 *   join, samples)
 *   get `tenant IN (scope)`; a request that names a tenant outside the scope is refused
 *   (permission_denied, naming the tenants the key may read) rather than answered empty.
 * - The rollup keeps no tenant, so a scoped aggregate is answered exactly (`approx*` see the
 *   tenant filter and decline).
 * - Request lookup drops events of other tenants (a request id of another tenant is not found).
 * - Label values come from a grouped count over the scope's events (most frequent first).
 * - Resource samples carry no tenant: a scoped caller reads none. Orphan feedback (no stored
 *   request yet) belongs to no known tenant: a scoped caller's count is 0.
 */
import { InferlensError, MAX_GROUPS } from '../schema/index.ts';
import type { Filters, ReadScope } from '../schema/index.ts';
import type { StoreReads } from './store.ts';

/** The filters with the tenant limited to the scope's tenants. */
export function scopeFilters<F extends { tenant?: string | string[] | undefined }>(filters: F, tenants: readonly string[]): F {
  const asked = filters.tenant === undefined ? undefined : Array.isArray(filters.tenant) ? filters.tenant : [filters.tenant];
  if (asked === undefined) return { ...filters, tenant: tenants.length === 1 ? tenants[0]! : [...tenants] };
  const outside = asked.filter((t) => !tenants.includes(t));
  if (outside.length > 0) {
    throw new InferlensError('permission_denied', `this key may read tenants ${tenants.join(', ')} only, not ${outside.slice(0, 5).join(', ')}`, {
      issues: [{ path: 'filters.tenant', message: `outside this key's tenants (${tenants.join(', ')})` }],
    });
  }
  return filters;
}

/** The store's reads limited to `scope`; the store itself when the scope is every tenant. */
export function scopeStore(store: StoreReads, scope: ReadScope): StoreReads {
  const tenants = scope.tenants;
  if (tenants === null) return store;
  const f = <T extends { filters: Filters }>(spec: T): T => ({ ...spec, filters: scopeFilters(spec.filters, tenants) });
  return {
    aggregate: (spec) => store.aggregate(f(spec)),
    approxAggregate: (spec) => store.approxAggregate(f(spec)),
    histogram: (spec) => store.histogram(f(spec)),
    approxHistogram: (spec) => store.approxHistogram(f(spec)),
    bucketCounts: (spec) => store.bucketCounts(f(spec)),
    sliceCounts: (spec) => store.sliceCounts(f(spec)),
    listEvents: (spec) => store.listEvents(f(spec)),
    async getEvents(requestId) {
      return (await store.getEvents(requestId)).filter((e) => typeof e.tenant === 'string' && tenants.includes(e.tenant));
    },
    async resources() {
      return [];
    },
    async distinctValues(dimension, fromMs, toMs, limit) {
      const rows = await store.aggregate({
        fromMs,
        toMs,
        filters: scopeFilters({}, tenants),
        groupBy: [dimension],
        measures: [{ name: 'n', measure: { kind: 'n' } }],
        includeProbes: true,
        limit: MAX_GROUPS,
      });
      return rows
        .filter((r) => typeof r[dimension] === 'string')
        .sort((a, b) => Number(b.n) - Number(a.n) || String(a[dimension]).localeCompare(String(b[dimension])))
        .slice(0, limit)
        .map((r) => r[dimension] as string);
    },
    async feedbackStats(spec) {
      const r = await store.feedbackStats(f(spec));
      return { ...r, orphans: 0 };
    },
    listSamples: (spec) => store.listSamples({ ...spec, filters: scopeFilters(spec.filters, tenants) }),
  };
}
