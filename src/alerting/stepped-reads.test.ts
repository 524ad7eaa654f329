// The backtest's held spread reads against a direct read of the same range at every tick (real DuckDB).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMeasure } from '../schema/index.ts';
import type { QuerySpec } from '../schema/index.ts';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { holdSteppedReads } from './stepped-reads.ts';

const T0 = Date.parse('2025-03-01T10:00:00Z');
const MIN = 60_000;
let store: Store;

beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  // Two models over 100 minutes at irregular seconds, some 10-second bins empty, some errors.
  const lines: string[] = [];
  for (let i = 0; i < 1500; i++) {
    const ts = T0 + i * 4000 + ((i * 7919) % 4) * 1000;
    if (i % 17 === 5) continue;
    lines.push(JSON.stringify({ ts, model: i % 3 ? 'm1' : 'm2', status: i % 7 ? 'ok' : 'error', exec_ms: 10 + ((i * 31) % 50) }));
  }
  await store.appendEvents(lines);
});

afterAll(async () => {
  await store?.close();
});

const spec = (fromMs: number, toMs: number, over: Partial<QuerySpec> = {}): QuerySpec => ({
  fromMs,
  toMs,
  filters: { model: 'm1' },
  groupBy: [],
  stepMs: 10_000,
  measures: ['count', 'error_rate', 'below_rate(exec_ms, 30)'].map((name) => ({ name, measure: parseMeasure(name) as never })),
  includeProbes: false,
  limit: 10_000,
  ...over,
});

describe('held stepped reads', () => {
  it('answer every window of a minute-by-minute run exactly as a direct read, with a fraction of the queries', async () => {
    let queries = 0;
    const held = holdSteppedReads((s) => {
      queries++;
      return store.aggregate(s);
    }, 30 * MIN);
    let compared = 0;
    for (let now = T0 + 20 * MIN; now <= T0 + 100 * MIN; now += MIN) {
      // Windows as the spread check asks them: mostly growing with the change, sometimes jumping.
      const minutes = [1, 5, 13, 13, 20][Math.floor((now - T0) / MIN) % 5]!;
      const got = await held(spec(now - minutes * MIN, now));
      const want = await store.aggregate(spec(now - minutes * MIN, now));
      expect(got).toEqual([...want].sort((a, b) => Number(a.bucket) - Number(b.bucket)));
      compared += want.length;
    }
    expect(compared).toBeGreaterThan(1000);
    expect(queries).toBeLessThan(81 / 3);
  });

  it('passes through what it cannot hold: live (no read-ahead), a group-by, a range off the step grid', async () => {
    let queries = 0;
    const count = (s: QuerySpec) => {
      queries++;
      return store.aggregate(s);
    };
    const now = T0 + 30 * MIN;
    for (let i = 0; i < 2; i++) await holdSteppedReads(count, 0)(spec(now - 5 * MIN, now));
    const held = holdSteppedReads(count, 30 * MIN);
    for (let i = 0; i < 2; i++) await held(spec(now - 5 * MIN, now, { groupBy: ['model'], filters: {} }));
    for (let i = 0; i < 2; i++) await held(spec(now - 5 * MIN + 1000, now));
    expect(queries).toBe(6);
  });
});
