// latency_shift's `burst_hold`: a tail that rises with a burst of requests (a queue doing its job)
// must hold before it is a change; a lasting shortfall and a rise without a burst are still raised.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { lognormal } from '../alerting.test-support.ts';
import { ConditionSchema } from '../rule-schema.ts';
import { createSeriesCache } from '../series.ts';
import { evaluateCondition } from './index.ts';
import { held, loadBurst } from './shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
const HISTORY_MS = 150 * MIN;

let store: Store;

/**
 * A request a second per model, total time around 40 ms. `blip`: twice the requests over the last
 * 2 minutes, and a queue that makes a fifth of them 4× slower. `lasting`: the same burst, for the
 * last 6 minutes. `slow`: no more requests, a fifth of them 4× slower over the last 2 minutes.
 */
beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  const rnd = mulberry32(7);
  const lines: string[] = [];
  let seq = 0;
  const burstMinutes: Record<string, number> = { blip: 2, lasting: 6, slow: 0 };
  const slowMinutes: Record<string, number> = { blip: 2, lasting: 6, slow: 2 };
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 1000)
    for (const model of ['blip', 'lasting', 'slow']) {
      const copies = ts >= NOW - burstMinutes[model]! * MIN ? 2 : 1;
      for (let i = 0; i < copies; i++) {
        const slower = ts >= NOW - slowMinutes[model]! * MIN && rnd() < 0.2 ? 4 : 1;
        lines.push(
          JSON.stringify({ ts: ts + i * 400, request_id: `b${seq++}`, model, model_version: 'v1', total_ms: lognormal(rnd, 40, 0.2) * slower, status: 'ok' }),
        );
      }
    }
  for (let i = 0; i < lines.length; i += 50_000) await store.appendEvents(lines.slice(i, i + 50_000));
}, 60_000);

afterAll(async () => {
  await store?.close();
});

async function raised(condition: object, nowMs = NOW, active?: (labels: Record<string, string>) => boolean): Promise<string[]> {
  const c = ConditionSchema.parse({ kind: 'latency_shift', field: 'total_ms', quantile: 0.99, by: ['model', 'model_version'], ...condition });
  const series = createSeriesCache({ reads: typedReads(store) });
  const obs = await evaluateCondition(c, 'warning', { reads: typedReads(store), series, nowMs, maxSlices: 1000, ...(active ? { active } : {}) });
  return obs.map((o) => o.labels.model!).sort();
}

describe('a burst of requests, and a change that holds', () => {
  it('a burst is 1.25× the past rate and improbable for it', () => {
    // 224 in a minute after 7,800 in an hour: 1.7×, P(≥ 224 of 8,024 in 1 of 61 minutes) = 8.6e−14.
    expect(loadBurst(224, 7800, 1, 60)).toBe(true);
    // 150: P = 0.048, and 1.15× is under the ratio.
    expect(loadBurst(150, 7800, 1, 60)).toBe(false);
    // A thin slice's 5 after 120 (2 a minute): 2.5×, but P(≥ 5 of 125 in 1 of 61) = 0.056.
    expect(loadBurst(5, 120, 1, 60)).toBe(false);
    // The same rate over 3 minutes: 690 after 7,800 (1.77×) is one.
    expect(loadBurst(690, 7800, 3, 60)).toBe(true);
  });

  it('each of the last minutes must show the change on its own', () => {
    // Against p0 = 1.3 %: 8 of 191 above (P = 0.0038) shows it; 2 of 128 (P = 0.50) does not.
    const minutes = [
      { n: 191, k: 8 },
      { n: 191, k: 8 },
      { n: 128, k: 2 },
    ];
    const minute = (back: number) => minutes[back]!;
    expect(held({ window: 0, p0: 0.013 }, minute, 2)).toBe(true);
    expect(held({ window: 0, p0: 0.013 }, minute, 3)).toBe(false);
  });
});

describe('latency_shift burst_hold', () => {
  it('without it, a tail that rises with a burst of requests is raised like any other', async () => {
    expect(await raised({})).toEqual(['blip', 'lasting', 'slow']);
  });

  it('with it, a 2-minute burst is not a change; a lasting one is, and a rise without a burst at once', async () => {
    expect(await raised({ burst_hold: '3m' })).toEqual(['lasting', 'slow']);
    // An alert already pending (or firing) for the slice is not held again while the burst goes on.
    expect(await raised({ burst_hold: '3m' }, NOW, (l) => l.model === 'blip')).toEqual(['blip', 'lasting', 'slow']);
  });

  it('a lasting burst is raised once it has held that long, not before', async () => {
    // Two minutes into `lasting`'s burst it looks like `blip` now; three minutes in, it has held.
    expect(await raised({ burst_hold: '3m', filters: { model: ['lasting'] } }, NOW - 4 * MIN)).toEqual([]);
    expect(await raised({ burst_hold: '3m', filters: { model: ['lasting'] } }, NOW - 3 * MIN)).toEqual(['lasting']);
    expect(await raised({ filters: { model: ['lasting'] } }, NOW - 4 * MIN)).toEqual(['lasting']);
  });
});
