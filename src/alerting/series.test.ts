// The series cache's raw rows (golden probes) against a direct read of the same range at every tick.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { typedReads } from '../query/index.ts';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import type { ResourceSample } from '../schema/index.ts';
import { createSeriesCache } from './series.ts';
import type { RowsSpec } from './series.ts';

const T0 = Date.parse('2025-03-01T10:00:00Z');
const MIN = 60_000;
const SPEC: RowsSpec = { filters: { probe: 'true' }, includeProbes: true, columns: ['model', 'status'] };
let store: Store;

beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  // Probes at irregular seconds over 90 minutes (some minutes empty, some with three), and user
  // traffic beside them that the spec's filter leaves out.
  const lines: string[] = [];
  for (let i = 0; i < 180; i++) {
    const ts = T0 + i * 30_000 + ((i * 7919) % 29) * 1000;
    if (i % 11 === 3) continue;
    lines.push(JSON.stringify({ ts, model: `m${i % 3}`, probe: true, status: i % 5 ? 'ok' : 'error' }));
    lines.push(JSON.stringify({ ts, model: 'user', status: 'ok' }));
  }
  await store.appendEvents(lines);
  // GPU memory every 5 s on two GPUs, some samples missing.
  const samples: ResourceSample[] = [];
  for (let ts = T0; ts < T0 + 100 * MIN; ts += 5000)
    for (const gpu of ['0', '1'])
      if ((ts / 5000) % 13 !== 4)
        samples.push({ ts, node: 'n1', gpu, metric: 'gpu_memory_used_bytes', value: 1e9 + ((ts / 5000) % 97) * 1e6 + (gpu === '1' ? 5e8 : 0) });
  await store.appendResources(samples);
});

afterAll(async () => {
  await store?.close();
});

const direct = async (nowMs: number, spanMs: number) =>
  (
    await store.listEvents({
      fromMs: nowMs - spanMs,
      toMs: nowMs,
      filters: SPEC.filters,
      includeProbes: true,
      columns: ['ts', 'model', 'status'],
      limit: 10_000,
      order: 'ts_asc',
    })
  ).map((r) => `${r.ts} ${r.model} ${r.status}`);

describe('series cache rows', () => {
  it('at every minute, live and with read-ahead, the rows of [now − span, now) exactly, with a fraction of the queries', async () => {
    const reads = typedReads(store);
    const live = createSeriesCache({ reads });
    const ahead = createSeriesCache({ reads, readAheadMs: 30 * MIN });
    const span = 25 * MIN;
    let compared = 0;
    for (let now = T0 + 5 * MIN; now <= T0 + 95 * MIN; now += MIN) {
      const want = await direct(now, span);
      for (const cache of [live, ahead]) {
        const got = (await cache.rows(SPEC, now, span, 1000)).map((r) => `${r.ts} ${r.model} ${r.status}`);
        expect(got).toEqual(want);
      }
      compared += want.length;
    }
    expect(compared).toBeGreaterThan(2000);
    // 91 ticks: live reads once per tick (the newest minute and the last one again); read-ahead first
    // reads 25 minutes back and 30 ahead (two chunks), then each next 30 minutes in the background
    // as the last is reached (three).
    expect(live.queries()).toBe(91);
    expect(ahead.queries()).toBe(5);
  });

  it('a clock that goes back, or a longer span, starts over; a row that arrives within the settle time is seen', async () => {
    const reads = typedReads(store);
    const live = createSeriesCache({ reads });
    const at = T0 + 60 * MIN;
    expect((await live.rows(SPEC, at, 10 * MIN, 1000)).length).toBe((await direct(at, 10 * MIN)).length);
    expect((await live.rows(SPEC, at - 20 * MIN, 10 * MIN, 1000)).map((r) => `${r.ts} ${r.model} ${r.status}`)).toEqual(await direct(at - 20 * MIN, 10 * MIN));
    expect((await live.rows(SPEC, at - 19 * MIN, 30 * MIN, 1000)).map((r) => `${r.ts} ${r.model} ${r.status}`)).toEqual(await direct(at - 19 * MIN, 30 * MIN));
    // A probe of 30 s before the last evaluation, stored after it: the next tick re-reads that minute.
    await store.appendEvents([JSON.stringify({ ts: at - 19 * MIN - 30_000, model: 'late', probe: true, status: 'ok' })]);
    const next = await live.rows(SPEC, at - 18 * MIN, 30 * MIN, 1000);
    expect(next.some((r) => r.model === 'late')).toBe(true);
    expect(next.map((r) => `${r.ts} ${r.model} ${r.status}`)).toEqual(await direct(at - 18 * MIN, 30 * MIN));
  });

  it('resource step buckets: at every minute, live and with read-ahead, the buckets of a direct read of [now − span, now)', async () => {
    const reads = typedReads(store);
    const spec = { stepMs: 15_000, metrics: ['gpu_memory_used_bytes'], filters: {}, groupBy: ['node', 'gpu'] as const };
    const key = (r: { bucketMs: number; gpu?: string | null; avg: number; max: number; n: number }) => `${r.bucketMs} ${r.gpu} ${r.avg} ${r.max} ${r.n}`;
    const live = createSeriesCache({ reads });
    const ahead = createSeriesCache({ reads, readAheadMs: 30 * MIN });
    for (let now = T0 + 2 * MIN; now <= T0 + 100 * MIN; now += MIN) {
      const want = (await store.resources({ ...spec, groupBy: [...spec.groupBy], fromMs: now - 15 * MIN, toMs: now })).map(key).sort();
      expect(want.length).toBeGreaterThan(0);
      for (const cache of [live, ahead]) expect((await cache.resources({ ...spec, groupBy: [...spec.groupBy] }, now, 15 * MIN)).map(key).sort()).toEqual(want);
    }
  });

  it('more rows than the bound is a clear resource_exhausted, not a silent truncation', async () => {
    const cache = createSeriesCache({ reads: typedReads(store) });
    await expect(cache.rows(SPEC, T0 + 90 * MIN, 60 * MIN, 50)).rejects.toMatchObject({ code: 'resource_exhausted' });
  });
});

describe('series cache buckets', () => {
  let s2: Store;
  beforeAll(async () => {
    s2 = await createDuckDBStore({ path: ':memory:' });
    await s2.migrate();
    // Two versions over 60 minutes; v2's latencies reach higher buckets only after minute 30, so a
    // bucket first appears in a later read (after the slice's bucket order was built).
    const lines: string[] = [];
    for (let i = 0; i < 1200; i++) {
      const ts = T0 + i * 3000 + ((i * 7919) % 3) * 1000;
      const v = i % 2 ? 'v1' : 'v2';
      const late = ts >= T0 + 30 * MIN;
      const ms = 5 + ((i * 37) % 97) * (v === 'v2' && late ? 40 : 1);
      lines.push(JSON.stringify({ ts, model: 'm', model_version: v, status: 'ok', total_ms: ms }));
    }
    await s2.appendEvents(lines);
  });
  afterAll(async () => {
    await s2?.close();
  });

  it('countsOver answers the same counts as count, and a direct read, at every minute, live and with read-ahead', async () => {
    const reads = typedReads(s2);
    const spec = { kind: 'buckets', filters: {}, by: ['model_version'], column: 'total_ms', buckets: { perDecade: 20 } } as const;
    const caches = [createSeriesCache({ reads }), createSeriesCache({ reads, readAheadMs: 30 * MIN })];
    let compared = 0;
    let grew = false;
    for (let now = T0 + 5 * MIN; now <= T0 + 60 * MIN; now += MIN) {
      const from = now - 10 * MIN;
      const direct = new Map<string, number>();
      for (const r of await s2.bucketCounts({
        fromMs: from,
        toMs: now,
        stepMs: MIN,
        filters: {},
        groupBy: ['model_version'],
        column: 'total_ms',
        buckets: { perDecade: 20 },
        limit: 10_000,
      }))
        r.indices.forEach((i, x) => direct.set(`${r.slice.model_version} ${i}`, (direct.get(`${r.slice.model_version} ${i}`) ?? 0) + r.counts[x]!));
      for (const cache of caches) {
        const got = new Map<string, number>();
        for (const s of (await cache.buckets(spec, now, 40 * MIN)).values()) {
          const indices = s.indices();
          const over = s.countsOver(from, now);
          let total = 0;
          indices.forEach((i, x) => {
            expect(over(x)).toBe(s.count(i, from, now));
            total += over(x);
            if (over(x) !== 0) got.set(`${s.labels.model_version} ${i}`, over(x));
          });
          expect(total).toBe(s.total(from, now));
          if (s.labels.model_version === 'v2' && indices[indices.length - 1]! > 40) grew = true;
        }
        expect(got).toEqual(direct);
        compared += got.size;
      }
    }
    expect(grew).toBe(true);
    expect(compared).toBeGreaterThan(1000);
  });

  it('a failed read fails the tick that needs it, with its error, and the next tick reads again (a first read, or a stretch read in the background)', async () => {
    const reads = typedReads(s2);
    // Reads of stretches that start at or after this fail.
    let failFrom = Infinity;
    const calls: number[] = [];
    const failing = {
      ...reads,
      bucketCounts: (spec: Parameters<typeof reads.bucketCounts>[0]) => {
        calls.push(spec.fromMs);
        return spec.fromMs >= failFrom ? Promise.reject(new Error('store gone')) : reads.bucketCounts(spec);
      },
    };
    const spec = { kind: 'buckets', filters: {}, by: ['model_version'], column: 'total_ms', buckets: { perDecade: 20 } } as const;
    const cache = createSeriesCache({ reads: failing, readAheadMs: 10 * MIN });
    const total = async (now: number) => [...(await cache.buckets(spec, now, 5 * MIN)).values()].reduce((t, s) => t + s.total(now - 5 * MIN, now), 0);
    const want = async (now: number) =>
      (
        await s2.bucketCounts({
          fromMs: now - 5 * MIN,
          toMs: now,
          stepMs: MIN,
          filters: {},
          groupBy: [],
          column: 'total_ms',
          buckets: { perDecade: 20 },
          limit: 100,
        })
      )
        .flatMap((r) => r.counts)
        .reduce((t, v) => t + v, 0);
    expect(await want(T0 + 10 * MIN)).toBeGreaterThan(0);
    failFrom = 0;
    await expect(total(T0 + 10 * MIN)).rejects.toThrow('store gone');
    // The first read is [now − 5 min, now + 10 min); the stretch behind it, read in the background, fails.
    failFrom = T0 + 20 * MIN;
    expect(await total(T0 + 10 * MIN)).toBe(await want(T0 + 10 * MIN));
    await cache.settled();
    failFrom = Infinity;
    expect(calls.filter((from) => from === T0 + 20 * MIN)).toHaveLength(1);
    // Within what was read: answered. Past it: the background read's error, then a fresh read.
    expect(await total(T0 + 20 * MIN)).toBe(await want(T0 + 20 * MIN));
    await expect(total(T0 + 21 * MIN)).rejects.toThrow('store gone');
    expect(await total(T0 + 21 * MIN)).toBe(await want(T0 + 21 * MIN));
    expect(await total(T0 + 40 * MIN)).toBe(await want(T0 + 40 * MIN));
  });

  it('a series read of more slice-minutes than the bound is a clear resource_exhausted, counts and buckets alike, not a truncated series', async () => {
    const reads = typedReads(s2);
    const buckets = { kind: 'buckets', filters: {}, by: ['model_version'], column: 'total_ms', buckets: { perDecade: 20 } } as const;
    const counts = { kind: 'counts', filters: {}, by: ['model_version'], measures: ['count'] } as const;
    // Two versions over 20 minutes: 40 slice-minutes.
    for (const readAheadMs of [0, 30 * MIN]) {
      const tight = createSeriesCache({ reads, readAheadMs, maxRowsPerRead: 40 });
      await expect(tight.buckets(buckets, T0 + 20 * MIN, 20 * MIN)).rejects.toMatchObject({ code: 'resource_exhausted' });
      await expect(tight.counts(counts, T0 + 20 * MIN, 20 * MIN)).rejects.toMatchObject({
        code: 'resource_exhausted',
        message: expect.stringContaining('slice-minutes'),
      });
    }
    // 41 holds the 40 slice-minutes of counts (bucket counts are a row per bucket of a slice-minute).
    expect((await createSeriesCache({ reads, maxRowsPerRead: 41 }).counts(counts, T0 + 20 * MIN, 20 * MIN)).size).toBe(2);
    expect((await createSeriesCache({ reads, maxRowsPerRead: 10_000 }).buckets(buckets, T0 + 20 * MIN, 20 * MIN)).size).toBe(2);
  });

  it("holds a product's rate × weight and the weight per minute, not the rate itself", async () => {
    const cache = createSeriesCache({ reads: typedReads(s2) });
    const spec = {
      kind: 'counts',
      filters: {},
      by: ['model_version'],
      measures: ['count', 'error_rate'],
      products: [{ name: 'bad', rate: 'error_rate', weight: 'count' }],
    } as const;
    const series = await cache.counts(spec, T0 + 20 * MIN, 20 * MIN);
    expect(series.size).toBe(2);
    for (const s of series.values()) {
      expect(s.sum('count', T0, T0 + 20 * MIN)).toBe(200);
      expect(s.sum('error_rate', T0, T0 + 20 * MIN)).toBe(0);
    }
    // Two slices × two columns (count, bad) × (2 × 82 minutes held + 1): 20 asked, 2 of margin, 60 of slack.
    expect(cache.cells()).toBe(2 * 2 * (2 * 82 + 1));
  });
});
