// Over 400 lines on purpose: one suite: the Store contract every backend runs; its cases share the fixture rows and are read as one specification.
/**
 * The Store conformance suite: the behaviour every backend must have, run against each one
 * (`runStoreConformance('duckdb', () => createDuckDBStore({ path: ':memory:' }))`). A backend
 * that cannot support a case skips it with a written reason.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { QueryRow, QuerySpec } from '../schema/index.ts';
import { parseMeasure } from '../schema/index.ts';
import type { IncidentLogEntry, SampleListSpec, SampleRow, Store } from './store.ts';
import { rollupLevelFor } from './rollup.ts';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const MIN = 60_000;

/** Builds a QuerySpec from measure strings. */
export function spec(measures: string[], extra: Partial<QuerySpec> = {}): QuerySpec {
  return {
    fromMs: T0,
    toMs: T0 + 10 * MIN,
    filters: {},
    groupBy: [],
    includeProbes: false,
    limit: 1000,
    measures: measures.map((name) => {
      const m = parseMeasure(name);
      if (typeof m === 'string') throw new Error(m);
      return { name, measure: m };
    }),
    ...extra,
  };
}

const line = (o: Record<string, unknown>) => JSON.stringify(o);

/**
 * Fixture: 10 requests of model m1 in the first minute, total_ms 10, 20, …, 100; versions v1 (the
 * first 6) and v2 (the last 4); 2 errors (both v2), 1 rejected (v1). Hand-computed values:
 *  - P50 of 10..100 (type 7): h = (10−1)·0.5 = 4.5 → 50 + 0.5·(60−50) = 55
 *  - P90: h = 8.1 → 90 + 0.1·10 = 91;  P99: h = 8.91 → 90 + 0.91·10 = 99.1
 *  - v2 (70, 80, 90, 100): P50: h = 1.5 → 85; error_rate 2/4 = 0.5
 *  - v1 (10..60): P99: h = 5·0.99 = 4.95 → 50 + 0.95·10 = 59.5; rejected_rate 1/6
 */
export function fixtureLines(): string[] {
  return Array.from({ length: 10 }, (_, i) =>
    line({
      ts: T0 + i * 1000,
      request_id: `r${i}`,
      model: 'm1',
      model_version: i < 6 ? 'v1' : 'v2',
      tenant: i % 2 === 0 ? 'a' : 'b',
      replica: `r${i % 3}`,
      total_ms: (i + 1) * 10,
      queue_ms: i,
      status: i === 7 || i === 9 ? 'error' : i === 2 ? 'rejected' : 'ok',
      error_type: i === 7 || i === 9 ? 'replica_fault' : undefined,
      input_tokens: 100,
      attributes: { region: 'eu' },
      risk_tags: i === 0 ? ['pii'] : undefined,
    }),
  );
}

/** What a backend's rollup answers, where backends differ. */
export interface ConformanceOptions {
  /** Cases skipped, with the reason. */
  skip?: Partial<Record<string, string>>;
  /**
   * The rollup levels (`ROLLUP_LEVELS` names) whose sketch answers quantiles and histograms; at the
   * others `approxAggregate` with a quantile, and `approxHistogram`, must answer null. Default all.
   */
  sketchLevels?: readonly string[];
}

export function runStoreConformance(name: string, open: () => Promise<Store>, options: ConformanceOptions = {}): void {
  const skip = options.skip ?? {};
  const sketched = (s: QuerySpec) => {
    const level = rollupLevelFor(s);
    return !options.sketchLevels || !level || options.sketchLevels.includes(level.name) || !s.measures.some((m) => m.measure.kind === 'quantile');
  };
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await open();
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
    });
    const test = (title: string, fn: () => Promise<void>) => (skip[title] ? it.skip(`${title} (skipped: ${skip[title]})`, fn) : it(title, fn));

    test('migrate is idempotent', async () => {
      await store.migrate();
      await store.migrate();
      expect((await store.stats()).events).toBe(0);
    });

    test('aggregates match hand-computed values', async () => {
      await store.appendEvents(fixtureLines());
      const [all] = await store.aggregate(
        spec(['count', 'n', 'p50(total_ms)', 'p90(total_ms)', 'p99(total_ms)', 'max(total_ms)', 'mean(total_ms)', 'error_rate', 'sum(input_tokens)', 'qps']),
      );
      expect(all).toEqual({
        count: 10,
        n: 10,
        'p50(total_ms)': 55,
        'p90(total_ms)': expect.closeTo(91, 9),
        'p99(total_ms)': expect.closeTo(99.1, 9),
        'max(total_ms)': 100,
        'mean(total_ms)': 55,
        error_rate: 0.2,
        'sum(input_tokens)': 1000,
        qps: 10 / 600,
      });
      const byVersion = await store.aggregate(
        spec(['count', 'p50(total_ms)', 'p99(total_ms)', 'error_rate', 'rejected_rate', 'error_rate(replica_fault)'], { groupBy: ['model_version'] }),
      );
      expect(byVersion).toEqual([
        {
          model_version: 'v1',
          count: 6,
          'p50(total_ms)': 35,
          'p99(total_ms)': expect.closeTo(59.5, 9),
          error_rate: 0,
          rejected_rate: 1 / 6,
          'error_rate(replica_fault)': 0,
        },
        {
          model_version: 'v2',
          count: 4,
          'p50(total_ms)': 85,
          'p99(total_ms)': expect.closeTo(99.7, 9),
          error_rate: 0.5,
          rejected_rate: 0,
          'error_rate(replica_fault)': 0.5,
        },
      ]);
    });

    test('filters take one value or a list; step makes buckets', async () => {
      await store.appendEvents(fixtureLines());
      await store.appendEvents([line({ ts: T0 + 2 * MIN + 5000, model: 'm2', total_ms: 5, status: 'ok', tenant: 'a' })]);
      expect(await store.aggregate(spec(['count'], { filters: { tenant: 'a' } }))).toEqual([{ count: 6 }]);
      expect(await store.aggregate(spec(['count'], { filters: { model: ['m1', 'm2'], status: 'error' } }))).toEqual([{ count: 2 }]);
      const buckets = await store.aggregate(spec(['count', 'max(total_ms)'], { stepMs: MIN, groupBy: ['model'] }));
      expect(buckets).toEqual([
        { bucket: T0, model: 'm1', count: 10, 'max(total_ms)': 100 },
        { bucket: T0 + 2 * MIN, model: 'm2', count: 1, 'max(total_ms)': 5 },
      ]);
    });

    test('the time range is [from, to)', async () => {
      await store.appendEvents(fixtureLines());
      expect(await store.aggregate(spec(['count'], { fromMs: T0 + 1000, toMs: T0 + 9000 }))).toEqual([{ count: 8 }]);
    });

    test('re-sent rows are stored once (idempotent on request_id and ts)', async () => {
      const r1 = await store.appendEvents(fixtureLines());
      const r2 = await store.appendEvents(fixtureLines());
      const dupInBatch = line({ ts: T0, request_id: 'same', model: 'm1', total_ms: 1 });
      await store.appendEvents([dupInBatch, dupInBatch]);
      // Rows without request_id are always stored.
      const anon = line({ ts: T0, model: 'm1', total_ms: 1 });
      await store.appendEvents([anon, anon]);
      expect(r1.inserted).toBe(10);
      expect(r2.inserted).toBe(0);
      expect((await store.stats()).events).toBe(13);
    });

    test('a batch hinted to repeat no request_id is stored, and still not over rows already stored', async () => {
      const hint = { minTsMs: T0, maxTsMs: T0 + 9000, distinctRequestIds: true };
      expect((await store.appendEvents(fixtureLines(), hint)).inserted).toBe(10);
      expect((await store.appendEvents(fixtureLines(), hint)).inserted).toBe(0);
      expect((await store.stats()).events).toBe(10);
    });

    test('latencies are stored rounded to microseconds', async () => {
      await store.appendEvents([line({ ts: T0, request_id: 'x', model: 'm1', total_ms: 12.3456789, queue_ms: 0.0004 })]);
      const [e] = await store.getEvents('x');
      expect(e?.total_ms).toBe(12.346);
      expect(e?.queue_ms).toBe(0);
    });

    test('round-trips every field kind', async () => {
      await store.appendEvents([
        line({
          ts: '2026-11-30T10:00:01.5Z',
          request_id: 'full',
          trace_id: 't',
          model: 'm',
          attributes: { k: 'v' },
          features: { f1: 0.5 },
          risk_tags: ['pii', 'long'],
          empty: false,
          refused: true,
          format_ok: true,
          probe: false,
          http_status: 200,
          confidence: 0.75,
          label: 'spam',
          input: '<script>x</script>',
          status: 'ok',
        }),
      ]);
      const [e] = await store.getEvents('full');
      expect(e).toMatchObject({
        ts: '2026-11-30T10:00:01.500Z',
        trace_id: 't',
        attributes: { k: 'v' },
        features: { f1: 0.5 },
        risk_tags: ['pii', 'long'],
        refused: true,
        http_status: 200,
        confidence: 0.75,
        input: '<script>x</script>',
      });
    });

    test('probes are excluded from aggregates unless asked for', async () => {
      await store.appendEvents(fixtureLines());
      await store.appendEvents([line({ ts: T0, model: 'm1', total_ms: 1000, status: 'ok', probe: true })]);
      expect(await store.aggregate(spec(['count', 'max(total_ms)']))).toEqual([{ count: 10, 'max(total_ms)': 100 }]);
      expect(await store.aggregate(spec(['count'], { includeProbes: true }))).toEqual([{ count: 11 }]);
    });

    test('quality rates: empty, refused, format errors, share below a threshold; group by label', async () => {
      await store.appendEvents([
        line({ ts: T0, model: 'q', status: 'ok', label: 'spam', confidence: 0.9, empty: false, format_ok: true }),
        line({ ts: T0, model: 'q', status: 'ok', label: 'spam', confidence: 0.55, empty: true, format_ok: false }),
        line({ ts: T0, model: 'q', status: 'ok', label: 'ham', confidence: 0.4, refused: true }),
        line({ ts: T0, model: 'q', status: 'ok', label: 'ham' }),
      ]);
      // empty: 1 of 2 rows that carry the flag; refused: 1 of 1; format errors: 1 of 2; confidence < 0.6: 2 of 3.
      expect(await store.aggregate(spec(['empty_rate', 'refused_rate', 'format_error_rate', 'below_rate(confidence, 0.6)']))).toEqual([
        { empty_rate: 0.5, refused_rate: 1, format_error_rate: 0.5, 'below_rate(confidence, 0.6)': 2 / 3 },
      ]);
      expect(await store.aggregate(spec(['count'], { groupBy: ['label'] }))).toEqual([
        { label: 'ham', count: 2 },
        { label: 'spam', count: 2 },
      ]);
    });

    test('sample_weight weights counts and rates', async () => {
      // 1 ok row standing for 9 requests + 1 error row standing for 1: error rate 1/10.
      await store.appendEvents([line({ ts: T0, model: 'm', status: 'ok', sample_weight: 9 }), line({ ts: T0, model: 'm', status: 'error' })]);
      expect(await store.aggregate(spec(['count', 'n', 'error_rate']))).toEqual([{ count: 10, n: 2, error_rate: 0.1 }]);
    });

    test('total(field) is Σ field × sample_weight; null where no row carries the field', async () => {
      // 40 ms standing for 9 requests + 100 ms for 1 + a row without exec_ms: 9·40 + 100 = 460 (sum: 140).
      await store.appendEvents([
        line({ ts: T0, model: 'm', status: 'ok', exec_ms: 40, input_tokens: 7, sample_weight: 9 }),
        line({ ts: T0, model: 'm', status: 'ok', exec_ms: 100 }),
        line({ ts: T0, model: 'm', status: 'ok' }),
      ]);
      expect(await store.aggregate(spec(['total(exec_ms)', 'sum(exec_ms)', 'total(input_tokens)', 'total(output_tokens)']))).toEqual([
        { 'total(exec_ms)': 460, 'sum(exec_ms)': 140, 'total(input_tokens)': 63, 'total(output_tokens)': null },
      ]);
    });

    test('the incident log: idempotent on id, by time range or by incident, oldest first', async () => {
      const entry = (i: number, incident: string | null, kind: string, tsMs: number): IncidentLogEntry => ({
        ts: tsMs,
        id: `e${i}`,
        incident_id: incident,
        kind,
        alertname: incident ? 'TenantErrors' : null,
        fingerprint: incident ? 'fp1' : null,
        severity: incident ? 'critical' : null,
        tenant: 'acme',
        labels: incident ? { alertname: 'TenantErrors', tenant: 'acme', model: 'm "1"' } : {},
        detail: { value: 0.25, by: 'ops (k1)', matchers: ['tenant="acme"'] },
      });
      const all = [
        entry(1, 'inc-a', 'opened', T0),
        entry(2, 'inc-a', 'alert_firing', T0),
        entry(3, null, 'silence_created', T0 + MIN),
        entry(4, 'inc-a', 'resolved', T0 + 5 * MIN),
        entry(5, 'inc-b', 'opened', T0 + 9 * MIN),
      ];
      await store.appendIncidentLog(all.slice(0, 3));
      // Re-sent with more: the first three are stored once.
      await store.appendIncidentLog(all);
      await store.appendIncidentLog([]);
      expect(await store.listIncidentLog({ fromMs: T0, toMs: T0 + 10 * MIN, limit: 100 })).toEqual(all);
      expect((await store.listIncidentLog({ fromMs: T0 + MIN, toMs: T0 + 9 * MIN, limit: 100 })).map((e) => e.id)).toEqual(['e3', 'e4']);
      expect((await store.listIncidentLog({ fromMs: 0, toMs: 1, incidentIds: ['inc-a'], limit: 100 })).map((e) => e.id)).toEqual(['e1', 'e2', 'e4']);
      expect((await store.listIncidentLog({ fromMs: T0, toMs: T0 + 10 * MIN, limit: 2 })).map((e) => e.id)).toEqual(['e1', 'e2']);
    });

    test('histogram counts per bucket', async () => {
      await store.appendEvents(fixtureLines());
      const h = await store.histogram({ fromMs: T0, toMs: T0 + 10 * MIN, filters: {}, stepMs: MIN, column: 'total_ms', boundsMs: [25, 50, 75] });
      // ≤25: 10, 20; ≤50: 30, 40, 50; ≤75: 60, 70; overflow: 80, 90, 100
      expect(h).toEqual([{ bucketMs: T0, counts: [2, 3, 2, 3] }]);
    });

    test('a stratified read keeps at most n rows per slice', async () => {
      await store.appendEvents(fixtureLines());
      const rows = await store.listEvents({
        fromMs: T0,
        toMs: T0 + 10 * MIN,
        filters: {},
        columns: ['model_version', 'total_ms'],
        limit: 100,
        order: 'ts_asc',
        perSlice: { by: ['model_version'], limit: 2 },
      });
      // v1 holds total_ms 10 … 60, v2 70 … 100: the first two of each.
      expect(rows.map((r) => [r.model_version, r.total_ms])).toEqual([
        ['v1', 10],
        ['v1', 20],
        ['v2', 70],
        ['v2', 80],
      ]);
    });

    test('bucket counts per slice and step, log and linear buckets', async () => {
      await store.appendEvents(fixtureLines());
      await store.appendEvents([line({ ts: T0 + MIN + 1, model: 'm1', model_version: 'v1', total_ms: 0, queue_ms: 0, status: 'ok', confidence: 0.93 })]);
      const rows = await store.bucketCounts({
        fromMs: T0,
        toMs: T0 + 10 * MIN,
        stepMs: MIN,
        filters: {},
        groupBy: ['model_version'],
        column: 'total_ms',
        buckets: { perDecade: 20 },
        limit: 100,
      });
      const sorted = [...rows].sort((a, b) => a.bucketMs - b.bucketMs || String(a.slice.model_version).localeCompare(String(b.slice.model_version)));
      // 20 per decade: ⌈20·log10 v⌉ → 10 → 20, 20 → 27 (26.02), 30 → 30 (29.54), 40 → 33 (32.04),
      // 50 → 34 (33.98), 60 → 36 (35.56); v2: 70 → 37 (36.90), 80 → 39 (38.06), 90 → 40 (39.08),
      // 100 → 40 (exactly 40: a bound closes its bucket); 0 ms goes to the zero bucket. One row per
      // step and slice, its buckets ascending.
      expect(sorted).toEqual([
        { bucketMs: T0, slice: { model_version: 'v1' }, indices: [20, 27, 30, 33, 34, 36], counts: [1, 1, 1, 1, 1, 1] },
        { bucketMs: T0, slice: { model_version: 'v2' }, indices: [37, 39, 40], counts: [1, 1, 2] },
        { bucketMs: T0 + MIN, slice: { model_version: 'v1' }, indices: [-32768], counts: [1] },
      ]);
      const conf = await store.bucketCounts({
        fromMs: T0,
        toMs: T0 + 10 * MIN,
        stepMs: 10 * MIN,
        filters: { model: 'm1' },
        groupBy: [],
        column: 'confidence',
        buckets: { width: 0.05 },
        limit: 100,
      });
      expect(conf).toEqual([{ bucketMs: T0, slice: {}, indices: [18], counts: [1] }]);
      await expect(
        store.bucketCounts({
          fromMs: T0,
          toMs: T0 + 10 * MIN,
          stepMs: MIN,
          filters: {},
          groupBy: ['model_version'],
          column: 'total_ms',
          buckets: { perDecade: 20 },
          limit: 5,
        }),
      ).rejects.toThrow(/more than 5/);
    });

    test('slice counts for single dimensions, pairs and the total', async () => {
      await store.appendEvents(fixtureLines());
      const rows = await store.sliceCounts({
        fromMs: T0,
        toMs: T0 + 10 * MIN,
        filters: {},
        dimensions: ['model_version', 'tenant'],
        bad: { statuses: ['error'] },
        pairs: true,
        minSupport: 1,
      });
      const find = (s: Record<string, string>) => rows.find((r) => JSON.stringify(r.slice) === JSON.stringify(s));
      expect(find({})).toEqual({ slice: {}, n: 10, k: 2 });
      expect(find({ model_version: 'v2' })).toEqual({ slice: { model_version: 'v2' }, n: 4, k: 2 });
      // errors are i = 7, 9: both odd → tenant b
      expect(find({ model_version: 'v2', tenant: 'b' })).toEqual({ slice: { model_version: 'v2', tenant: 'b' }, n: 2, k: 2 });
      const slow = await store.sliceCounts({
        fromMs: T0,
        toMs: T0 + 10 * MIN,
        filters: {},
        dimensions: ['replica'],
        bad: { column: 'total_ms', aboveMs: 85 },
        pairs: false,
        minSupport: 1,
      });
      // above 85: 90 (i=8, r2), 100 (i=9, r0)
      expect(slow.find((r) => r.slice.replica === 'r2')?.k).toBe(1);
      expect(slow.find((r) => r.slice.replica === 'r1')?.k).toBe(0);
    });

    test('listEvents is bounded and ordered', async () => {
      await store.appendEvents(fixtureLines());
      const rows = await store.listEvents({ fromMs: T0, toMs: T0 + MIN, filters: { model_version: 'v2' }, limit: 2, columns: ['request_id', 'total_ms'] });
      expect(rows).toEqual([
        { ts: new Date(T0 + 9000).toISOString(), request_id: 'r9', total_ms: 100 },
        { ts: new Date(T0 + 8000).toISOString(), request_id: 'r8', total_ms: 90 },
      ]);
    });

    test('listEvents order sample: spread over the window, the same rows every time', async () => {
      await store.appendEvents(fixtureLines());
      const spec = { fromMs: T0, toMs: T0 + MIN, filters: {}, limit: 5, columns: ['request_id'], order: 'sample' as const };
      const a = await store.listEvents(spec);
      expect(a).toHaveLength(5);
      expect(await store.listEvents(spec)).toEqual(a);
      // Not simply the newest or the oldest five.
      const all = await store.listEvents({ ...spec, limit: 1000, order: 'ts_asc' });
      const ids = (rows: typeof a) => rows.map((r) => r.request_id).sort();
      expect(ids(a)).not.toEqual(ids(all.slice(0, 5)));
      expect(ids(a)).not.toEqual(ids(all.slice(-5)));
    });

    test('distinct values, most frequent first', async () => {
      await store.appendEvents(fixtureLines());
      expect(await store.distinctValues('model_version', T0, T0 + MIN, 10)).toEqual(['v1', 'v2']);
    });

    test('deleteBefore removes old events, resources and feedback', async () => {
      await store.appendEvents(fixtureLines());
      await store.appendResources([{ ts: T0, node: 'n1', metric: 'gpu_utilization_ratio', value: 0.5 }]);
      await store.appendFeedback([{ ts: T0, request_id: 'r1', kind: 'correct', value: true }]);
      const d = await store.deleteBefore(T0 + 5000);
      expect(d).toEqual({ events: 5, resources: 1, feedback: 1 });
      expect((await store.stats()).events).toBe(5);
    });

    test('resources aggregate on the same buckets', async () => {
      await store.appendResources([
        { ts: T0 + 1000, node: 'n1', gpu: '0', metric: 'gpu_memory_used_bytes', value: 10 },
        { ts: T0 + 2000, node: 'n1', gpu: '0', metric: 'gpu_memory_used_bytes', value: 30, simulated: true },
        { ts: T0 + MIN + 1000, node: 'n1', gpu: '0', metric: 'gpu_memory_used_bytes', value: 50 },
      ]);
      const rows = await store.resources({
        fromMs: T0,
        toMs: T0 + 2 * MIN,
        stepMs: MIN,
        metrics: ['gpu_memory_used_bytes'],
        filters: { node: 'n1' },
        groupBy: ['node'],
      });
      expect(rows).toEqual([
        { bucketMs: T0, metric: 'gpu_memory_used_bytes', node: 'n1', avg: 20, max: 30, sum: 40, n: 2, simulated: true },
        { bucketMs: T0 + MIN, metric: 'gpu_memory_used_bytes', node: 'n1', avg: 50, max: 50, sum: 50, n: 1, simulated: false },
      ]);
    });

    test('resources filter and group by their own labels (model, le, token type), null where a sample lacks one', async () => {
      const tok = (ts: number, type: string, model: string, value: number) => ({
        ts,
        node: 'n1',
        metric: 'gen_ai.client.token.usage_sum',
        labels: { 'gen_ai.token.type': type, 'gen_ai.request.model': model },
        value,
      });
      await store.appendResources([
        tok(T0 + 1000, 'input', 'm1', 120),
        tok(T0 + 2000, 'output', 'm1', 30),
        tok(T0 + 3000, 'input', 'm2', 7),
        tok(T0 + 4000, 'input', 'm1', 80),
        { ts: T0 + 5000, node: 'n1', metric: 'gen_ai.client.token.usage_sum', value: 1 },
        { ts: T0 + 1000, node: 'n1', metric: 'ttft_seconds_bucket', labels: { le: '0.1', model: 'opt' }, value: 3 },
        { ts: T0 + 1000, node: 'n1', metric: 'ttft_seconds_bucket', labels: { le: '+Inf', model: 'opt' }, value: 4 },
        { ts: T0 + 2000, node: 'n1', metric: 'ttft_seconds_bucket', labels: { le: '+Inf', model: 'opt' }, value: 2 },
      ]);
      const base = { fromMs: T0, toMs: T0 + MIN, stepMs: MIN, filters: {} };
      const byType = await store.resources({ ...base, metrics: ['gen_ai.client.token.usage_sum'], groupBy: ['labels.gen_ai.token.type'] });
      expect(byType.map((r) => [r.labels, r.sum, r.n]).sort((a, b) => String(JSON.stringify(a[0])).localeCompare(JSON.stringify(b[0])))).toEqual([
        [{ 'gen_ai.token.type': 'input' }, 207, 3],
        [{ 'gen_ai.token.type': 'output' }, 30, 1],
        [{ 'gen_ai.token.type': null }, 1, 1],
      ]);
      const m1Input = await store.resources({
        ...base,
        metrics: ['gen_ai.client.token.usage_sum'],
        filters: { labels: { 'gen_ai.request.model': 'm1', 'gen_ai.token.type': ['input'] } },
        groupBy: ['node', 'labels.gen_ai.request.model'],
      });
      expect(m1Input).toEqual([
        {
          bucketMs: T0,
          metric: 'gen_ai.client.token.usage_sum',
          node: 'n1',
          labels: { 'gen_ai.request.model': 'm1' },
          avg: 100,
          max: 120,
          sum: 200,
          n: 2,
          simulated: false,
        },
      ]);
      const byLe = await store.resources({ ...base, metrics: ['ttft_seconds_bucket'], groupBy: ['labels.model', 'labels.le'] });
      expect(byLe.map((r) => [r.labels!.le, r.sum]).sort()).toEqual([
        ['+Inf', 6],
        ['0.1', 3],
      ]);
    });

    test('feedback joins events by request_id at query time; late and early feedback match, orphans are counted', async () => {
      const ev = (id: string, i: number, version: string, label: string) =>
        line({ ts: T0 + i * 1000, request_id: id, model: 'fb', model_version: version, label, status: 'ok' });
      const FB = T0 + 30 * MIN;
      await store.appendEvents([
        ev('e1', 1, 'v1', 'spam'),
        ev('e2', 2, 'v1', 'ham'),
        ev('e3', 3, 'v1', 'spam'),
        ev('e4', 4, 'v2', 'spam'),
        ev('e5', 5, 'v2', 'ham'),
        ev('e6', 6, 'v2', 'ham'),
      ]);
      await store.appendFeedback([
        { ts: FB, request_id: 'e1', kind: 'correct', value: true },
        { ts: FB, request_id: 'e1', kind: 'label', value: 'spam' },
        { ts: FB, request_id: 'e1', kind: 'thumbs', value: true },
        { ts: FB + 1000, request_id: 'e1', kind: 'thumbs', value: false }, // the latest thumbs wins
        { ts: FB, request_id: 'e2', kind: 'correct', value: false },
        { ts: FB, request_id: 'e2', kind: 'label', value: 'spam' }, // predicted ham: a miss
        { ts: FB, request_id: 'e2', kind: 'rating', value: 4 },
        { ts: FB, request_id: 'e3', kind: 'conversion', value: true },
        { ts: FB, request_id: 'e3', kind: 'click', value: 1 },
        { ts: FB, request_id: 'e4', kind: 'correct', value: 'true' },
        { ts: FB, request_id: 'e4', kind: 'rating', value: 2 },
        { ts: FB, request_id: 'e4', kind: 'click', value: true },
        { ts: FB, request_id: 'e5', kind: 'label', value: 'ham' },
        { ts: FB, request_id: 'e5', kind: 'thumbs', value: 'up' },
        { ts: FB, request_id: 'late', kind: 'correct', value: true }, // stored before its request
        { ts: FB, request_id: 'ghost', kind: 'click', value: true }, // never gets a request
      ]);
      const q = { fromMs: T0, toMs: T0 + 120 * MIN, filters: {}, groupBy: ['model_version'] as const, limit: 100 };
      const v1 = {
        group: { model_version: 'v1' },
        requests: 3,
        withFeedback: 3,
        correctN: 2,
        correctRate: 0.5,
        labelN: 2,
        labelAccuracy: 0.5,
        thumbsN: 1,
        thumbsUpRate: 0,
        ratingN: 1,
        ratingMean: 4,
        conversions: 1,
        conversionRate: 1 / 3,
        clicks: 1,
        clickRate: 1 / 3,
      };
      // v2 before 'late' arrives: e4 (correct, rating 2, click), e5 (label hit, thumbs up), e6 (nothing).
      expect(await store.feedbackStats(q)).toEqual({
        orphans: 2,
        rows: [
          v1,
          {
            group: { model_version: 'v2' },
            requests: 3,
            withFeedback: 2,
            correctN: 1,
            correctRate: 1,
            labelN: 1,
            labelAccuracy: 1,
            thumbsN: 1,
            thumbsUpRate: 1,
            ratingN: 1,
            ratingMean: 2,
            conversions: 0,
            conversionRate: 0,
            clicks: 1,
            clickRate: 1 / 3,
          },
        ],
      });
      await store.appendEvents([ev('late', 7, 'v2', 'spam')]);
      // Now 'late' joins: v2 has 4 requests, 3 with feedback, correct 2 of 2, clicks 1 of 4; only 'ghost' is an orphan.
      expect(await store.feedbackStats(q)).toEqual({
        orphans: 1,
        rows: [
          v1,
          {
            group: { model_version: 'v2' },
            requests: 4,
            withFeedback: 3,
            correctN: 2,
            correctRate: 1,
            labelN: 1,
            labelAccuracy: 1,
            thumbsN: 1,
            thumbsUpRate: 1,
            ratingN: 1,
            ratingMean: 2,
            conversions: 0,
            conversionRate: 0,
            clicks: 1,
            clickRate: 0.25,
          },
        ],
      });
      // Buckets are on the request time: all 7 requests fall in the first hour; label accuracy 2 of 3.
      const [all] = (await store.feedbackStats({ ...q, groupBy: [], stepMs: 60 * MIN })).rows;
      expect(all).toMatchObject({ bucketMs: T0, group: {}, requests: 7, withFeedback: 6, labelN: 3, labelAccuracy: 2 / 3, conversionRate: 1 / 7 });
    });

    test('the probe filter selects probes or user traffic', async () => {
      await store.appendEvents(fixtureLines());
      await store.appendEvents([
        line({ ts: T0, model: 'm1', total_ms: 1000, status: 'ok', probe: true }),
        line({ ts: T0, model: 'm1', total_ms: 1, status: 'ok', probe: false }),
      ]);
      // 10 fixture rows without the flag + 1 with probe: false are user traffic; 1 row is a probe.
      expect(await store.aggregate(spec(['count'], { includeProbes: true, filters: { probe: 'true' } }))).toEqual([{ count: 1 }]);
      expect(await store.aggregate(spec(['count'], { includeProbes: true, filters: { probe: 'false' } }))).toEqual([{ count: 11 }]);
      const rows = await store.listEvents({ fromMs: T0, toMs: T0 + MIN, filters: { probe: 'true' }, limit: 10, columns: ['total_ms'] });
      expect(rows.map((r) => r.total_ms)).toEqual([1000]);
      await expect(store.aggregate(spec(['count'], { filters: { probe: 'yes' } }))).rejects.toThrow(/probe/);
    });

    test('samples: appended, searched by slice, reason, tag, request id and time, newest first, deleted by retention', async () => {
      const sample = (i: number, o: Partial<SampleRow> = {}): SampleRow => ({
        ts: T0 + i * 1000,
        request_id: `s${i}`,
        model: 'm1',
        model_version: i < 3 ? 'v1' : 'v2',
        tenant: 'a',
        entry: null,
        node: null,
        replica: 'r0',
        route_rule: null,
        status: i === 4 ? 'error' : 'ok',
        error_type: i === 4 ? 'internal' : null,
        label: 'cat',
        confidence: 0.25 * (i % 4),
        reasons: i === 4 ? ['error', 'new_version'] : ['baseline'],
        risk_tags: i === 1 ? ['pii'] : [],
        sample_weight: i === 4 ? 1 : 100,
        input: `input ${i} ✓ "quoted"\nnext line`,
        output: i === 2 ? null : `output ${i}`,
        ...o,
      });
      await store.appendSamples([0, 1, 2, 3, 4].map((i) => sample(i)));
      await store.appendSamples([]);
      const all = await store.listSamples({ fromMs: T0, toMs: T0 + MIN, filters: {}, limit: 100 });
      expect(all.map((s) => s.request_id)).toEqual(['s4', 's3', 's2', 's1', 's0']);
      expect(all[0]).toEqual({ ...sample(4), ts: new Date(T0 + 4000).toISOString() });
      expect(all[2]!.output).toBeNull();
      const ids = async (o: Partial<SampleListSpec>) =>
        (await store.listSamples({ fromMs: T0, toMs: T0 + MIN, filters: {}, limit: 100, ...o })).map((s) => s.request_id);
      expect(await ids({ filters: { model_version: 'v1' } })).toEqual(['s2', 's1', 's0']);
      expect(await ids({ filters: { status: ['error', 'timeout'], model: 'm1' } })).toEqual(['s4']);
      expect(await ids({ reasons: ['new_version', 'risk_tag'] })).toEqual(['s4']);
      expect(await ids({ tags: ['pii'] })).toEqual(['s1']);
      expect(await ids({ requestId: 's3' })).toEqual(['s3']);
      // The time range is [from, to): a chart point's bucket.
      expect(await ids({ fromMs: T0 + 1000, toMs: T0 + 3000 })).toEqual(['s2', 's1']);
      expect(await ids({ limit: 2 })).toEqual(['s4', 's3']);
      await expect(store.listSamples({ fromMs: T0, toMs: T0 + MIN, filters: { pool: 'x' } as never, limit: 10 })).rejects.toThrow(/pool/);
      await store.deleteBefore(T0 + 2000);
      expect(await ids({})).toEqual(['s4', 's3', 's2']);
    });

    // ---------- the per-minute rollup (rollup.ts) ----------

    test('rollup: answers equal the exact ones, quantiles within the sketch error, across rolled-up minutes and the raw tail', async () => {
      await store.appendEvents(rollupLines());
      // Minutes 0–6 rolled up (a backend with a maintainer rolls them up now, one with materialized
      // views already has); 7–9 are the open tail, read raw by a maintainer backend.
      expect((await store.maintainRollup(T0 + 7 * MIN + 30_000)).watermarkMs).toBe(T0 + 7 * MIN);
      const measures = [
        'count',
        'n',
        'qps',
        'error_rate',
        'rejected_rate',
        'error_rate(replica_fault)',
        'p50(total_ms)',
        'p90(total_ms)',
        'p99(total_ms)',
        'p999(total_ms)',
        'max(total_ms)',
        'min(total_ms)',
        'mean(queue_ms)',
        'sum(queue_ms)',
        'n(queue_ms)',
        'p99(queue_ms)',
        'mean(batch_size)',
        'max(batch_size)',
      ];
      const specs = [
        spec(measures),
        spec(measures, { stepMs: MIN }),
        spec(measures, { stepMs: 2 * MIN, groupBy: ['model_version'] }),
        spec(measures, { filters: { model: 'm2' }, groupBy: ['model_version'] }),
        spec(measures, { includeProbes: true }),
        spec(measures, { filters: { probe: 'true' } }),
        // Partial minutes at both ends come from raw rows.
        spec(measures, { fromMs: T0 + 30_500, toMs: T0 + 8 * MIN + 1234 }),
      ];
      for (const s of specs) {
        if (sketched(s)) expectClose(await store.approxAggregate(s), await store.aggregate(s), s);
        else expect(await store.approxAggregate(s), JSON.stringify(s)).toBeNull();
      }
      // Without quantiles every level answers.
      const counters = measures.filter((m) => !m.startsWith('p'));
      for (const s of [
        spec(counters, { stepMs: 2 * MIN, groupBy: ['model_version'] }),
        spec(counters, { filters: { model: 'm2' }, groupBy: ['model_version'] }),
      ])
        expectClose(await store.approxAggregate(s), await store.aggregate(s), s);
    });

    test('rollup: null when it cannot answer (other dimensions, unaligned buckets, measures it does not keep)', async () => {
      await store.appendEvents(rollupLines());
      await store.maintainRollup(T0 + 10 * MIN);
      expect(await store.approxAggregate(spec(['count']))).not.toBeNull();
      expect(await store.approxAggregate(spec(['count'], { filters: { tenant: 'a' } }))).toBeNull();
      expect(await store.approxAggregate(spec(['count'], { groupBy: ['status'] }))).toBeNull();
      expect(await store.approxAggregate(spec(['count'], { stepMs: 30_000 }))).toBeNull();
      expect(await store.approxAggregate(spec(['count'], { stepMs: MIN, fromMs: T0 + 1000 }))).toBeNull();
      expect(await store.approxAggregate(spec(['empty_rate']))).toBeNull();
      expect(await store.approxAggregate(spec(['p99(confidence)']))).toBeNull();
      // A range inside one minute holds no rolled-up minute.
      expect(await store.approxAggregate(spec(['count'], { fromMs: T0 + 1000, toMs: T0 + 50_000 }))).toBeNull();
    });

    test('rollup: a range with no rows answers like the exact query', async () => {
      await store.maintainRollup(T0 + 10 * MIN);
      const s = spec(['count', 'n', 'p99(total_ms)', 'mean(queue_ms)']);
      expect(await store.approxAggregate(s)).toEqual(await store.aggregate(s));
      const stepped = spec(['count', 'p99(total_ms)'], { stepMs: MIN });
      expect(await store.approxAggregate(stepped)).toEqual(await store.aggregate(stepped));
    });

    test('rollup: late rows below the watermark rebuild their minutes', async () => {
      await store.appendEvents(rollupLines());
      await store.maintainRollup(T0 + 10 * MIN);
      const bucket = async (ms: number) => (await store.approxAggregate(spec(['count'], { stepMs: MIN })))!.find((r) => r.bucket === ms)!.count;
      const [before2, before4] = [await bucket(T0 + 2 * MIN), await bucket(T0 + 4 * MIN)];
      const late = [line({ ts: T0 + 2 * MIN + 1, request_id: 'late-1', model: 'm1', total_ms: 5000, status: 'error', error_type: 'replica_fault' })];
      await store.appendEvents(late, { minTsMs: T0 + 2 * MIN + 1, maxTsMs: T0 + 2 * MIN + 1 });
      // Without a hint too, and a re-sent row changes nothing.
      await store.appendEvents([line({ ts: T0 + 4 * MIN + 7, request_id: 'late-2', model: 'm2', total_ms: 1, status: 'ok' }), ...late]);
      const s = spec(['count', 'error_rate', 'max(total_ms)', 'p99(total_ms)', 'min(total_ms)'], { stepMs: MIN });
      expectClose(await store.approxAggregate(s), await store.aggregate(s), s);
      expect([await bucket(T0 + 2 * MIN), await bucket(T0 + 4 * MIN)]).toEqual([Number(before2) + 1, Number(before4) + 1]);
      // The next maintainer run (a DuckDB store leaves those minutes to it) changes no answer.
      await store.maintainRollup(T0 + 10 * MIN);
      expectClose(await store.approxAggregate(s), await store.aggregate(s), s);
      expect([await bucket(T0 + 2 * MIN), await bucket(T0 + 4 * MIN)]).toEqual([Number(before2) + 1, Number(before4) + 1]);
    });

    test('rollup: retention deletes rollup minutes with the events (a minute it splits is rebuilt)', async () => {
      await store.appendEvents(rollupLines());
      await store.maintainRollup(T0 + 10 * MIN);
      await store.deleteBefore(T0 + 3 * MIN + 30_000);
      const s = spec(['count', 'n', 'p50(total_ms)', 'max(total_ms)'], { stepMs: MIN });
      const exact = await store.aggregate(s);
      expect(exact[0]!.bucket).toBe(T0 + 3 * MIN);
      expectClose(await store.approxAggregate(s), exact, s);
      // Nothing of the deleted minutes is left in the rollup.
      expect(await store.approxAggregate(spec(['count', 'n'], { toMs: T0 + 3 * MIN }))).toEqual([{ count: 0, n: 0 }]);
    });

    test('rollup: the histogram on the sketch scale equals the exact one', async () => {
      await store.appendEvents(rollupLines());
      await store.maintainRollup(T0 + 7 * MIN);
      // logBuckets(0.1, 60000, 10): every bound is a sketch bound (120 per decade).
      const boundsMs = Array.from({ length: 59 }, (_, i) => Number((10 ** ((i - 10) / 10)).toPrecision(6)));
      const h = { fromMs: T0, toMs: T0 + 10 * MIN, stepMs: MIN, filters: {}, column: 'total_ms', boundsMs };
      const approx = await store.approxHistogram(h);
      expect(approx).toEqual(await store.histogram(h));
      expect(approx!.reduce((a, r) => a + r.counts.reduce((x, c) => x + c, 0), 0)).toBe(588); // 600 less 12 probes
      // Bounds off the sketch's scale: the rollup cannot answer.
      expect(await store.approxHistogram({ ...h, boundsMs: [1, 2, 3] })).toBeNull();
      // A filter on the model: the (model, version) level's sketch, where the backend keeps one.
      const byModel = { ...h, filters: { model: 'm2' } };
      if (!options.sketchLevels || options.sketchLevels.includes('model')) expect(await store.approxHistogram(byModel)).toEqual(await store.histogram(byModel));
      else expect(await store.approxHistogram(byModel)).toBeNull();
    });
  });
}

/** The sketch's relative error bound α (log-sketch.ts), with room for float rounding. */
const SKETCH_ALPHA = 0.00959382;

/** Approx rows equal exact ones: quantiles within α (relative), everything else to 9 digits. */
function expectClose(approx: QueryRow[] | null, exact: QueryRow[], s: QuerySpec): void {
  expect(approx, JSON.stringify(s)).not.toBeNull();
  expect(approx!.length).toBe(exact.length);
  exact.forEach((row, i) => {
    const a = approx![i]!;
    expect(Object.keys(a).sort()).toEqual(Object.keys(row).sort());
    for (const [k, v] of Object.entries(row)) {
      const got = a[k];
      if (typeof v !== 'number' || typeof got !== 'number') {
        expect(got, `${k} in row ${i}`).toEqual(v);
      } else if (/^p\d+\(/.test(k)) {
        expect(Math.abs(got - v), `${k} in row ${i}: ${got} vs exact ${v}`).toBeLessThanOrEqual(SKETCH_ALPHA * Math.abs(v) + 1e-12);
      } else {
        expect(got, `${k} in row ${i}`).toBeCloseTo(v, 9);
      }
    }
  });
}

/**
 * 600 requests over 10 minutes (one per second): models m1/m2, versions v1/v2, latencies spread
 * over three decades, a few errors, rejects and probes, weights of 1 and 4, some rows without
 * queue_ms, 10 with total_ms = 0.
 */
export function rollupLines(): string[] {
  return Array.from({ length: 600 }, (_, i) => {
    const total = i % 60 === 0 ? 0 : Math.round(((i * 7919) % 1000) + 1 + ((i * 37) % 97) / 7) / 1000 ** ((i % 3) - 1);
    return line({
      ts: T0 + i * 1000,
      request_id: `q${i}`,
      model: i % 2 === 0 ? 'm1' : 'm2',
      model_version: i % 5 === 0 ? 'v2' : 'v1',
      tenant: i % 3 === 0 ? 'a' : 'b',
      total_ms: Math.round(total * 1000) / 1000,
      queue_ms: i % 4 === 0 ? undefined : (i % 13) + 0.5,
      batch_size: 1 + (i % 8),
      status: i % 17 === 0 ? 'error' : i % 23 === 0 ? 'rejected' : 'ok',
      error_type: i % 17 === 0 ? (i % 2 === 0 ? 'replica_fault' : 'internal') : undefined,
      sample_weight: i % 10 === 0 ? 4 : undefined,
      probe: i % 50 === 7 ? true : undefined,
    });
  });
}
