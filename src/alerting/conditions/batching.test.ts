// The default pack's BatchingSlow: one entry's batching against its own past, for a model whose
// other entries are too quiet to compare with (EntryStageSlow's peers); a batcher that fills with
// the load, by less than 3×, is not raised (a rise with a burst of the slice's own requests is held
// 3 minutes, as LatencyTailUp's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, observe, packCondition } from '../alerting.test-support.ts';

const NOW = Date.parse('2025-03-05T12:00:00Z');
const MIN = 60_000;
/** Minutes of the regression (and of the load rise), up to NOW. */
const RECENT_MIN = 15;

let store: Store;

beforeAll(async () => {
  // Two models of one version, ~5 requests a minute through public-api and one every ten minutes
  // through partner-gateway, batching ~3 ms (lognormal σ 0.4), for three hours. one: public-api's
  // batching gains 3 s over the last RECENT_MIN minutes (seed 1150's code-helper: +18.5 s). busy:
  // its batcher fills with other traffic over the same minutes, 1.8× (its own requests steady).
  const rnd = mulberry32(1150);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = NOW - 180 * MIN; ts < NOW; ts += 6_000) {
    const recent = ts >= NOW - RECENT_MIN * MIN;
    for (const model of ['one', 'busy']) {
      if (rnd() < 0.5) {
        const entry = rnd() < 0.02 ? 'partner-gateway' : 'public-api';
        let batchMs = lognormal(rnd, 3, 0.4);
        if (recent && model === 'one' && entry === 'public-api') batchMs += 3000;
        if (recent && model === 'busy') batchMs *= 1.8;
        lines.push(
          JSON.stringify({
            ts,
            request_id: `b${seq++}`,
            model,
            model_version: 'v1',
            entry,
            batch_ms: batchMs,
            queue_ms: 20,
            total_ms: 40 + batchMs,
            status: 'ok',
          }),
        );
      }
    }
  }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
});

afterAll(async () => {
  await store.close();
});

const at = (alert: string, t = NOW) => observe(typedReads(store), packCondition(alert), t);

describe('BatchingSlow', () => {
  it("raises an entry whose batching regressed, where the version's other entries are too quiet for EntryStageSlow", async () => {
    const obs = await at('BatchingSlow');
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'one', entry: 'public-api' }]);
    // ~3 ms → ~3 s: the P95 three decades up, read on bucket bounds.
    expect(obs[0]!.value).toBeGreaterThan(300);
    expect((await at('EntryStageSlow')).filter((o) => o.labels.model === 'one')).toEqual([]);
  });

  it('stays silent before it, every 5 minutes of an hour, and on a batcher that fills with the load', async () => {
    for (let t = NOW - (RECENT_MIN + 60) * MIN; t <= NOW - RECENT_MIN * MIN; t += 5 * MIN)
      expect(await at('BatchingSlow', t), new Date(t).toISOString()).toEqual([]);
    expect((await at('BatchingSlow')).filter((o) => o.labels.model === 'busy')).toEqual([]);
    // It is a change (1.8×, strong evidence): what keeps it out is the 3× asked.
    const lower = await observe(typedReads(store), { ...packCondition('BatchingSlow'), min_slowdown: 1.5 }, NOW);
    expect(lower.map((o) => o.labels.model).sort()).toEqual(['busy', 'one']);
  });
});
