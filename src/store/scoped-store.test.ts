import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDBStore } from './duckdb/duckdb-store.ts';
import type { Store } from './store.ts';
import type { Filters } from '../schema/index.ts';
import { scopeFilters, scopeStore } from './scoped-store.ts';

const T0 = Date.parse('2026-03-02T10:00:00Z');
let store: Store;

beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  // acme: 3 requests on r1, 1 on r2; globex: 5 on r9; one request without a tenant.
  const rows = [
    ...[0, 1, 2].map((i) => ({ ts: T0 + i, request_id: `a${i}`, model: 'm', tenant: 'acme', replica: 'r1', total_ms: 10, status: 'ok' })),
    { ts: T0 + 3, request_id: 'a3', model: 'm', tenant: 'acme', replica: 'r2', total_ms: 10, status: 'ok' },
    ...[0, 1, 2, 3, 4].map((i) => ({ ts: T0 + 10 + i, request_id: `g${i}`, model: 'm', tenant: 'globex', replica: 'r9', total_ms: 10, status: 'ok' })),
    { ts: T0 + 20, request_id: 'shared', model: 'm', replica: 'r0', total_ms: 10, status: 'ok' },
  ];
  await store.appendEvents(rows.map((r) => JSON.stringify(r)));
  await store.appendFeedback([{ ts: T0 + 5, request_id: 'nobody', kind: 'thumbs', value: true }]);
});
afterAll(() => store.close());

const range = { fromMs: T0, toMs: T0 + 60_000 };
const count = { name: 'n', measure: { kind: 'n' as const } };

describe('scopeStore', () => {
  const acme = () => scopeStore(store, { tenants: ['acme'] });

  it('is the store itself for an unscoped caller', () => {
    expect(scopeStore(store, { tenants: null })).toBe(store);
  });

  it('adds the tenant to every filtered read, and refuses a tenant outside the scope', async () => {
    expect(await acme().aggregate({ ...range, filters: {}, groupBy: [], measures: [count], includeProbes: false, limit: 10 })).toEqual([{ n: 4 }]);
    expect(await acme().approxAggregate({ ...range, filters: {}, groupBy: [], measures: [count], includeProbes: false, limit: 10 })).toBeNull();
    expect((await acme().listEvents({ ...range, filters: {}, limit: 100 })).map((e) => e.request_id).sort()).toEqual(['a0', 'a1', 'a2', 'a3']);
    expect(() => scopeFilters({ tenant: ['acme', 'globex'] }, ['acme'])).toThrow(/tenants acme only, not globex/);
    expect(scopeFilters<Filters>({ tenant: 'acme', model: 'm' }, ['acme', 'b'])).toEqual({ tenant: 'acme', model: 'm' });
    expect(scopeFilters<Filters>({ model: 'm' }, ['acme', 'b'])).toEqual({ model: 'm', tenant: ['acme', 'b'] });
  });

  it("label values: the scope's own, most frequent first", async () => {
    expect(await store.distinctValues('replica', range.fromMs, range.toMs, 10)).toEqual(['r9', 'r1', 'r0', 'r2']);
    expect(await acme().distinctValues('replica', range.fromMs, range.toMs, 10)).toEqual(['r1', 'r2']);
    expect(await acme().distinctValues('replica', range.fromMs, range.toMs, 1)).toEqual(['r1']);
    expect(await acme().distinctValues('tenant', range.fromMs, range.toMs, 10)).toEqual(['acme']);
  });

  it('request lookup, resources and orphan feedback stay inside the scope', async () => {
    expect(await acme().getEvents('g1')).toEqual([]);
    expect(await acme().getEvents('shared')).toEqual([]);
    expect((await acme().getEvents('a1')).map((e) => e.request_id)).toEqual(['a1']);
    expect(await acme().resources({ ...range, stepMs: 60_000, metrics: ['cpu_utilization_ratio'], filters: {}, groupBy: [] })).toEqual([]);
    expect((await store.feedbackStats({ ...range, filters: {}, groupBy: [], limit: 10 })).orphans).toBe(1);
    expect((await acme().feedbackStats({ ...range, filters: {}, groupBy: [], limit: 10 })).orphans).toBe(0);
  });
});
