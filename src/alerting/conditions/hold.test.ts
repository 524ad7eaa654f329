// Holding a change before it is raised. latency_shift's `burst_hold`: a tail that rises with a burst
// of requests (a queue doing its job) must hold before it is a change; a lasting shortfall and a rise
// without a burst are still raised. The shift detectors' `hold`: each of the last minutes must show
// the change on its own, whatever the load, so that one minute's spike of a slice whose rate wanders
// is not a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, packCondition } from '../alerting.test-support.ts';
import { ConditionSchema } from '../rule-schema.ts';
import { createSeriesCache } from '../series.ts';
import { evaluateCondition } from './index.ts';
import { held, loadBurst, spreadRuns } from './shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
const HISTORY_MS = 150 * MIN;

let store: Store;

/**
 * A request a second per model, total time around 40 ms. `blip`: twice the requests over the last
 * 2 minutes, and a queue that makes a fifth of them 4× slower. `lasting`: the same burst, for the
 * last 6 minutes. `slow`: no more requests, a fifth of them 4× slower over the last 2 minutes.
 * Two requests a second, 1 % failing: `spike`, over the last minute only, a fifth of the requests
 * fail and a fifth are 4× slower, spread over the minute (not a burst of seconds: the spread check
 * keeps it); `steady`, the same over the last 3 minutes; `surge`, half of them fail over the last
 * minute (a rate is judged over two minutes at least, where `spike`'s minute is too weak).
 */
beforeAll(async () => {
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
  const re = mulberry32(11);
  const changed: Record<string, number> = { spike: 1, steady: 3 };
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 500)
    for (const model of ['spike', 'steady']) {
      const on = ts >= NOW - changed[model]! * MIN;
      const failed = re() < (on ? 0.2 : 0.01);
      const slower = on && re() < 0.2 ? 4 : 1;
      lines.push(
        JSON.stringify({
          ts,
          request_id: `h${seq++}`,
          model,
          model_version: 'v1',
          total_ms: lognormal(re, 40, 0.2) * slower,
          status: failed ? 'error' : 'ok',
          ...(failed && { error_type: 'internal' }),
        }),
      );
    }
  // `surge`: two requests a second, 1 % failing, half of them over the last minute.
  const rs = mulberry32(17);
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 500) {
    const failed = rs() < (ts >= NOW - MIN ? 0.5 : 0.01);
    lines.push(
      JSON.stringify({
        ts,
        request_id: `s${seq++}`,
        model: 'surge',
        model_version: 'v1',
        total_ms: 40,
        status: failed ? 'error' : 'ok',
        ...(failed && { error_type: 'internal' }),
      }),
    );
  }
  // `pair`: two requests a second, 1 % failing, and two blips of 20 seconds at 80 % two minutes apart
  // (from 2:50 and 0:40 before the end); `lasting3`: 20 % failing, spread, over the last 3 minutes.
  const rp = mulberry32(13);
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 500)
    for (const model of ['pair', 'lasting3']) {
      const blip = model === 'pair' && ((ts >= NOW - 170_000 && ts < NOW - 150_000) || (ts >= NOW - 40_000 && ts < NOW - 20_000));
      const p = blip ? 0.8 : model === 'lasting3' && ts >= NOW - 3 * MIN ? 0.2 : 0.01;
      const failed = rp() < p;
      lines.push(
        JSON.stringify({
          ts,
          request_id: `p${seq++}`,
          model,
          model_version: 'v1',
          total_ms: 40,
          status: failed ? 'error' : 'ok',
          ...(failed && { error_type: 'internal' }),
        }),
      );
    }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
}, 60_000);

afterAll(async () => {
  await store?.close();
});

const latency = { kind: 'latency_shift', field: 'total_ms', quantile: 0.99 };

/** The models a condition raises at nowMs. */
async function raised(condition: object, nowMs = NOW, active?: (labels: Record<string, string>) => boolean): Promise<string[]> {
  const c = ConditionSchema.parse({ by: ['model', 'model_version'], ...condition });
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
    expect(held({ window: 0, p0: 0.013 }, minute, 2, 60)).toBe(true);
    expect(held({ window: 0, p0: 0.013 }, minute, 3, 60)).toBe(false);
  });

  it('a slice too thin for one minute to show it is held over the fewest minutes that can', () => {
    // p0 = 7.5 %: two requests, both slow, are improbable (0.0056); one is not (0.075).
    const thin = [1, 0, 2, 1, 1].map((n) => ({ n, k: n }));
    const minute = (back: number) => thin[back] ?? { n: 0, k: 0 };
    // Stretches of minutes {0, 1, 2} (3 requests) and {3, 4} (2).
    expect(held({ window: 0, p0: 0.075 }, minute, 2, 60)).toBe(true);
    // A third stretch reaches past the data (or past maxBack): not held.
    expect(held({ window: 0, p0: 0.075 }, minute, 3, 60)).toBe(false);
    expect(held({ window: 0, p0: 0.075 }, minute, 2, 4)).toBe(false);
    // One of the two requests of the second stretch normal: 1 of 2 at 7.5 % has tail 0.144.
    const mixed = [...thin.slice(0, 3), { n: 1, k: 0 }, { n: 1, k: 1 }];
    expect(held({ window: 0, p0: 0.075 }, (back) => mixed[back] ?? { n: 0, k: 0 }, 2, 60)).toBe(false);
  });
});

describe('latency_shift burst_hold', () => {
  it('without it, a tail that rises with a burst of requests is raised like any other', async () => {
    expect(await raised({ ...latency, filters: { model: ['blip', 'lasting', 'slow'] } })).toEqual(['blip', 'lasting', 'slow']);
  });

  it('with it, a 2-minute burst is not a change; a lasting one is, and a rise without a burst at once', async () => {
    expect(await raised({ ...latency, burst_hold: '3m', filters: { model: ['blip', 'lasting', 'slow'] } })).toEqual(['lasting', 'slow']);
    // An alert already pending (or firing) for the slice is not held again while the burst goes on.
    expect(await raised({ ...latency, burst_hold: '3m', filters: { model: ['blip', 'lasting', 'slow'] } }, NOW, (l) => l.model === 'blip')).toEqual([
      'blip',
      'lasting',
      'slow',
    ]);
  });

  it('a lasting burst is raised once it has held that long, not before', async () => {
    // Two minutes into `lasting`'s burst it looks like `blip` now; three minutes in, it has held.
    expect(await raised({ ...latency, burst_hold: '3m', filters: { model: ['lasting'] } }, NOW - 4 * MIN)).toEqual([]);
    expect(await raised({ ...latency, burst_hold: '3m', filters: { model: ['lasting'] } }, NOW - 3 * MIN)).toEqual(['lasting']);
    expect(await raised({ ...latency, filters: { model: ['lasting'] } }, NOW - 4 * MIN)).toEqual(['lasting']);
  });
});

const errors = { kind: 'rate_shift', signal: 'errors', fdr: 0.001 };

describe('rate_shift shortest window', () => {
  it('judges a rate over two minutes at least, so one minute counts at half its strength', async () => {
    // `spike`: 19 of 120 requests failed in the last minute, none the minute before. Over the two,
    // the bad requests outside the densest 30 s are 7 of 180 against 3.2 expected at p0 = 1.75 %
    // (spread p 0.043 > 0.01): not a change. `surge`'s minute (half failing) and `steady`'s three
    // minutes (a fifth) are.
    expect(await raised({ ...errors, filters: { model: ['spike', 'surge', 'steady'] } })).toEqual(['steady', 'surge']);
  });
});

describe.each([
  ['rate_shift', errors, 'surge'],
  ['latency_shift', latency, 'spike'],
])('%s hold', (_, condition, minute) => {
  const only = { model: [minute, 'steady'] };
  it('without it, one minute of change is raised like a change that lasts', async () => {
    expect(await raised({ ...condition, filters: only })).toEqual([minute, 'steady'].sort());
  });

  it('with it, one minute is not a change; a change that lasts is, once it has held that long', async () => {
    expect(await raised({ ...condition, hold: '2m', filters: only })).toEqual(['steady']);
    // One minute into `steady`'s change it looks like the one-minute change now; two minutes in, it has held.
    expect(await raised({ ...condition, hold: '2m', filters: { model: ['steady'] } }, NOW - 2 * MIN)).toEqual([]);
    expect(await raised({ ...condition, hold: '2m', filters: { model: ['steady'] } }, NOW - MIN)).toEqual(['steady']);
    expect(await raised({ ...condition, filters: { model: ['steady'] } }, NOW - 2 * MIN)).toEqual(['steady']);
  });

  it('an alert already pending (or firing) for the slice is not held again', async () => {
    expect(await raised({ ...condition, hold: '2m', filters: only }, NOW, (l) => l.model === minute)).toEqual([minute, 'steady'].sort());
  });
});

describe("the default pack's ErrorsHigh", () => {
  it('pages a version failing a fifth of its requests for two minutes, not for one (a fifth or half of them)', async () => {
    const rule = packCondition('ErrorsHigh');
    expect(await raised({ ...rule, filters: { model: ['spike', 'surge', 'steady'] } })).toEqual(['steady']);
    expect(await raised({ ...rule, filters: { model: ['steady'] } }, NOW - 2 * MIN)).toEqual([]);
  });
});

describe('the spread check', () => {
  it('takes out a run per 10 minutes begun, and from 3 minutes one more if it is a burst on its own', () => {
    expect([1, 2, 3, 5, 8, 13, 20, 30, 60].map(spreadRuns)).toEqual([1, 1, 1, 1, 1, 2, 2, 3, 6].map((bursts, i) => ({ bursts, extra: i < 2 ? 0 : 1 })));
  });

  it('two blips two minutes apart are not a change; a change that lasts three minutes is', async () => {
    const rule = { kind: 'rate_shift', signal: 'errors' };
    expect(await raised({ ...rule, filters: { model: ['pair', 'lasting3'] } })).toEqual(['lasting3']);
  });
});
