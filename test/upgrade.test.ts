// A data directory made by an earlier schema opens, migrates and keeps working: the DuckDB file in
// test/fixtures/duckdb-v3 was written by commit d0eda59 (schema version 3; make.ts there says how
// and what it holds). After the upgrade it takes rows with what version 4 added — the prefill_ms
// stage, the cached_tokens field, status cancelled, error type dependency_error — and the rollup
// minutes stored before the upgrade still read as the fields they were made from.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueryRow, QuerySpec } from '../src/schema/index.ts';
import { SKETCH_RELATIVE_ERROR, createDuckDBStore } from '../src/store/index.ts';
import { spec as conformanceSpec } from '../src/store/conformance.test-support.ts';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const MIN = 60_000;
const dir = mkdtempSync(join(tmpdir(), 'inferlens-upgrade-'));
const path = join(dir, 'inferlens.duckdb');
writeFileSync(path, gunzipSync(readFileSync(new URL('fixtures/duckdb-v3/inferlens.duckdb.gz', import.meta.url))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A spec over [10:00, 10:20) unless told otherwise (the conformance suite's builder). */
const spec = (measures: string[], extra: Partial<QuerySpec> = {}): QuerySpec => conformanceSpec(measures, { toMs: T0 + 20 * MIN, ...extra });

async function versions(): Promise<number[]> {
  const inst = await DuckDBInstance.create(path);
  const conn = await inst.connect();
  const rows = (await conn.runAndReadAll('SELECT version FROM schema_migrations ORDER BY version')).getRowObjectsJS();
  conn.closeSync();
  inst.closeSync();
  return rows.map((r) => Number(r.version));
}

/** Quantiles within the sketch's α of the exact ones, everything else equal. */
function expectRollupMatches(approx: QueryRow[] | null, exact: QueryRow[]): void {
  expect(approx).not.toBeNull();
  expect(approx!.length).toBe(exact.length);
  exact.forEach((row, i) => {
    for (const [k, v] of Object.entries(row)) {
      const got = approx![i]![k];
      if (typeof v === 'number' && /^p\d+\(/.test(k))
        expect(Math.abs((got as number) - v), `${k} row ${i}`).toBeLessThanOrEqual(SKETCH_RELATIVE_ERROR * v + 1e-9);
      else if (typeof v === 'number') expect(got as number, `${k} row ${i}`).toBeCloseTo(v, 9);
      else expect(got, `${k} row ${i}`).toEqual(v);
    }
  });
}

describe('upgrade from schema version 3 (commit d0eda59)', () => {
  it('migrates the old file, keeps its rows and rollup, and stores what version 4 added', async () => {
    expect(await versions()).toEqual([1, 2, 3]);
    const store = await createDuckDBStore({ path, threads: 1 });
    await store.migrate();

    // The old rows, hand-computed (make.ts): total_ms = 10 + (i % 40) over i = 0…119, so each of
    // 10…49 three times; P50: h = 119 · 0.5 = 59.5 → ranks 59, 60 → 29 and 30 → 29.5; P99:
    // h = 117.81 → ranks 117, 118 → 49. Errors: i % 10 = 9 → 12 of 120; rejected: i = 3, 28, 53,
    // 78, 103 → 5 of 120.
    const old = spec(['count', 'p50(total_ms)', 'p99(total_ms)', 'max(total_ms)', 'error_rate', 'rejected_rate', 'error_rate(replica_fault)'], {
      toMs: T0 + 5 * MIN,
    });
    expect(await store.aggregate(old)).toEqual([
      {
        count: 120,
        'p50(total_ms)': 29.5,
        'p99(total_ms)': 49,
        'max(total_ms)': 49,
        error_rate: 0.1,
        rejected_rate: 5 / 120,
        'error_rate(replica_fault)': 0.1,
      },
    ]);
    // The rollup made by version 3 (minutes 10:00–10:03) still answers, its sketches read as the
    // fields they were made from (a shifted code would read queue_ms or ttft_ms for total_ms).
    // Quantiles come from the "all" level's sketch, the only one DuckDB reads now (rollup-sql.ts
    // `hasSketch`); the counters by model from the (model, version) level.
    const oldByMinute = spec(['count', 'p50(total_ms)', 'p99(total_ms)', 'p50(ttft_ms)', 'p90(queue_ms)', 'error_rate'], { toMs: T0 + 4 * MIN, stepMs: MIN });
    expectRollupMatches(await store.approxAggregate(oldByMinute), await store.aggregate(oldByMinute));
    const oldByModel = spec(['count', 'max(total_ms)', 'error_rate'], { toMs: T0 + 4 * MIN, stepMs: MIN, groupBy: ['model'] });
    expectRollupMatches(await store.approxAggregate(oldByModel), await store.aggregate(oldByModel));

    // New rows with what version 4 added: prefill_ms 1…10, cached_tokens 0, 10, …, 90; two
    // cancelled, three dependency errors, five ok.
    const lines = Array.from({ length: 10 }, (_, i) =>
      JSON.stringify({
        ts: T0 + 10 * MIN + i * 1000,
        request_id: `new-${i}`,
        model: 'm1',
        model_version: 'v3',
        total_ms: 100 + i,
        prefill_ms: i + 1,
        cached_tokens: 10 * i,
        status: i < 2 ? 'cancelled' : i < 5 ? 'error' : 'ok',
        ...(i >= 2 && i < 5 ? { error_type: 'dependency_error' } : {}),
      }),
    );
    expect(await store.appendEvents(lines)).toEqual({ inserted: 10 });
    // P50 of prefill 1…10: h = 4.5 → 5.5; sum of cached tokens 450; cancelled 2/10; dependency errors 3/10.
    const fresh = spec(['count', 'p50(prefill_ms)', 'sum(cached_tokens)', 'cancelled_rate', 'error_rate(dependency_error)', 'error_rate'], {
      fromMs: T0 + 10 * MIN,
      toMs: T0 + 11 * MIN,
    });
    expect(await store.aggregate(fresh)).toEqual([
      { count: 10, 'p50(prefill_ms)': 5.5, 'sum(cached_tokens)': 450, cancelled_rate: 0.2, 'error_rate(dependency_error)': 0.3, error_rate: 0.3 },
    ]);
    const [e] = await store.getEvents('new-3');
    expect(e).toMatchObject({ prefill_ms: 4, cached_tokens: 30, status: 'error', error_type: 'dependency_error' });
    const [o] = await store.getEvents('old-0');
    expect(o).toMatchObject({
      ts: new Date(T0).toISOString(),
      attributes: { region: 'eu' },
      features: { len: 0 },
      risk_tags: ['pii'],
      prefill_ms: null,
      cached_tokens: null,
    });

    // Roll up the rest with the new columns; old and new minutes together match the raw rows.
    await store.maintainRollup(T0 + 20 * MIN);
    const all = spec(
      [
        'count',
        'p99(total_ms)',
        'p50(prefill_ms)',
        'max(prefill_ms)',
        'cancelled_rate',
        'error_rate(dependency_error)',
        'error_rate(replica_fault)',
        'p90(ttft_ms)',
      ],
      { stepMs: MIN },
    );
    expectRollupMatches(await store.approxAggregate(all), await store.aggregate(all));
    const byVersion = spec(['count', 'max(prefill_ms)', 'cancelled_rate', 'error_rate(dependency_error)'], { stepMs: MIN, groupBy: ['model_version'] });
    expectRollupMatches(await store.approxAggregate(byVersion), await store.aggregate(byVersion));

    // The other tables came through too.
    expect((await store.listSamples({ fromMs: T0, toMs: T0 + MIN, filters: {}, limit: 10 })).map((s) => s.request_id)).toEqual(['old-9']);
    expect(await store.resources({ fromMs: T0, toMs: T0 + 2 * MIN, stepMs: 2 * MIN, metrics: ['gpu_utilization_ratio'], filters: {}, groupBy: [] })).toEqual([
      { bucketMs: T0, metric: 'gpu_utilization_ratio', avg: 0.5, max: 0.75, sum: 1, n: 2, simulated: false },
    ]);
    expect((await store.feedbackStats({ fromMs: T0, toMs: T0 + 5 * MIN, filters: {}, groupBy: [], limit: 10 })).rows[0]).toMatchObject({
      requests: 120,
      correctN: 2,
      correctRate: 0.5,
    });
    await store.close();
    expect(await versions()).toEqual([1, 2, 3, 4, 5]);

    // Reopening runs nothing again.
    const again = await createDuckDBStore({ path, threads: 1 });
    await again.migrate();
    expect(await again.aggregate(spec(['count']))).toEqual([{ count: 130 }]);
    await again.close();
  });
});
