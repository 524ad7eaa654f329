// latency_shift's far tail: a thin version whose few requests turn several times slower is raised
// from the share beyond twice its old quantile, where its past holds almost nothing; the share just
// above the quantile (padded by the tolerance over a thin reference's upper bound) cannot show it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, runCondition } from '../alerting.test-support.ts';
import { createSeriesCache } from '../series.ts';
import { FAR_TAIL_FACTOR } from './latency-slices.ts';

const NOW = Date.parse('2025-03-04T12:00:00Z');
const MIN = 60_000;
/** Minutes of the slowdown, up to NOW. */
const SLOW_MIN = 20;

let store: Store;

beforeAll(async () => {
  // thin: ~5 requests a minute for 4 hours, exec ~50 ms (lognormal σ 0.3) with 0.3 % stalls of
  // 6–15×, as seed 1138's query-suggest version; over the last SLOW_MIN minutes 13 % of requests
  // take 8× longer (15 % is found by the share above P96 alone). Its P96 is ~82 ms (1 − 10 / 300 is the highest quantile an hour can fix).
  const rnd = mulberry32(1138);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = NOW - 240 * MIN; ts < NOW; ts += 12_000) {
    const stall = rnd() < 0.003 ? 6 + 9 * rnd() : 1;
    const slow = ts >= NOW - SLOW_MIN * MIN && rnd() < 0.13 ? 8 : 1;
    const execMs = lognormal(rnd, 50, 0.3) * stall * slow;
    lines.push(JSON.stringify({ ts, request_id: `f${seq++}`, model: 'thin', model_version: 'v1', exec_ms: execMs, total_ms: execMs + 5, status: 'ok' }));
  }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
});

afterAll(async () => {
  await store.close();
});

const rule = { kind: 'latency_shift', field: 'exec_ms', quantile: 0.99, by: ['model', 'model_version'] };
const run = async (t: number) => runCondition(typedReads(store), createSeriesCache({ reads: typedReads(store) }), rule, t);

describe('latency_shift far tail', () => {
  it('raises a thin version whose slow share lies beyond twice its old quantile, judged there', async () => {
    const { obs } = await run(NOW);
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'thin', model_version: 'v1' }]);
    const d = obs[0]!.details!;
    expect(d.threshold_factor).toBe(FAR_TAIL_FACTOR);
    // The annotations' share stays the one above the old quantile: the slow 13 % and the normal few.
    expect(d.share_above as number).toBeGreaterThan(0.1);
    expect(d.reference_share as number).toBeLessThan(0.05);
    // The slow requests are 8× a ~50 ms median: the current P99 is several times the old one.
    expect(obs[0]!.value).toBeGreaterThan(3);
  });

  it('stays silent on the same traffic before the slowdown, every 2 minutes of an hour', async () => {
    for (let t = NOW - (SLOW_MIN + 60) * MIN; t <= NOW - SLOW_MIN * MIN; t += 2 * MIN) expect((await run(t)).obs, new Date(t).toISOString()).toEqual([]);
  });
});
