import { describe, expect, it } from 'vitest';
import type { MappedSample } from './engines.ts';
import { createRateState } from './rates.ts';

const m = (concept: string, part: MappedSample['part'], value: number, labels: Record<string, string> = {}): MappedSample => ({
  concept,
  part,
  labels,
  value,
  source: 'test',
});

describe('createRateState', () => {
  it('gauges and quantiles pass through on the first scrape', () => {
    const st = createRateState();
    expect(st.apply([m('queue_length', 'gauge', 3), m('request_latency_seconds', 'quantile', 0.2, { quantile: '0.5' })], 0)).toEqual([
      { metric: 'queue_length', labels: {}, value: 3 },
      { metric: 'request_latency_seconds', labels: { quantile: '0.5' }, value: 0.2 },
    ]);
  });

  it('a counter needs two scrapes, then gives the rate per second', () => {
    const st = createRateState();
    expect(st.apply([m('request_success', 'counter', 100)], 0)).toEqual([]);
    // 100 → 130 over 10 s: 3 per second.
    expect(st.apply([m('request_success', 'counter', 130)], 10_000)).toEqual([{ metric: 'request_success_per_second', labels: {}, value: 3 }]);
  });

  it('a lower value is a reset: the rate comes from the new value', () => {
    const st = createRateState();
    st.apply([m('request_success', 'counter', 100)], 0);
    // 100 → 30 over 10 s: restarted, so 30 new requests: 3 per second (not −7).
    expect(st.apply([m('request_success', 'counter', 30)], 10_000)).toEqual([{ metric: 'request_success_per_second', labels: {}, value: 3 }]);
    expect(st.resets()).toBe(1);
    // And it carries on from there: 30 → 50 over 5 s = 4 per second.
    expect(st.apply([m('request_success', 'counter', 50)], 15_000)[0]!.value).toBe(4);
  });

  it('histograms: per-interval bucket increases, count/sum rates and the interval mean', () => {
    const st = createRateState();
    const scrape = (b1: number, bInf: number, sum: number, count: number, t: number) =>
      st.apply(
        [
          m('ttft_seconds', 'bucket', b1, { le: '0.5' }),
          m('ttft_seconds', 'bucket', bInf, { le: '+Inf' }),
          m('ttft_seconds', 'sum', sum),
          m('ttft_seconds', 'count', count),
        ],
        t,
      );
    expect(scrape(1, 1, 0.3, 1, 0)).toEqual([]);
    // Over 2 s: 4 more observations (3 at ≤ 0.5 s), their sum 1.5 − 0.3 = 1.2 s, mean 0.3 s.
    const out = scrape(4, 5, 1.5, 5, 2000);
    expect(out).toEqual([
      { metric: 'ttft_seconds_bucket', labels: { le: '0.5' }, value: 3 },
      { metric: 'ttft_seconds_bucket', labels: { le: '+Inf' }, value: 4 },
      { metric: 'ttft_seconds_sum_per_second', labels: {}, value: expect.closeTo(0.6, 12) },
      { metric: 'ttft_seconds_count_per_second', labels: {}, value: 2 },
      { metric: 'ttft_seconds_mean', labels: {}, value: expect.closeTo(0.3, 12) },
    ]);
    // No new observations: no mean (0/0), rates are 0.
    const idle = scrape(4, 5, 1.5, 5, 4000);
    expect(idle.find((s) => s.metric === 'ttft_seconds_mean')).toBeUndefined();
    expect(idle.find((s) => s.metric === 'ttft_seconds_count_per_second')!.value).toBe(0);
  });

  it('series are kept apart by labels', () => {
    const st = createRateState();
    st.apply([m('tokens', 'counter', 10, { model: 'a' }), m('tokens', 'counter', 100, { model: 'b' })], 0);
    const out = st.apply([m('tokens', 'counter', 20, { model: 'a' }), m('tokens', 'counter', 100, { model: 'b' })], 1000);
    expect(out.map((s) => [s.labels.model, s.value])).toEqual([
      ['a', 10],
      ['b', 0],
    ]);
  });

  it('is bounded: series beyond maxSeries are counted, not tracked; stale series are forgotten', () => {
    const st = createRateState({ maxSeries: 2, staleAfterMs: 60_000 });
    st.apply([m('x', 'counter', 1, { i: '1' }), m('x', 'counter', 1, { i: '2' }), m('x', 'counter', 1, { i: '3' })], 0);
    expect(st.size()).toBe(2);
    expect(st.dropped()).toBe(1);
    st.apply([m('x', 'counter', 2, { i: '1' })], 30_000);
    st.apply([m('x', 'counter', 3, { i: '1' })], 70_000);
    expect(st.size()).toBe(1);
  });

  it('ignores a scrape that is not later than the previous one', () => {
    const st = createRateState();
    st.apply([m('x', 'counter', 1)], 1000);
    expect(st.apply([m('x', 'counter', 5)], 1000)).toEqual([]);
  });
});
