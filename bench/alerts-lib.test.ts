// The report's summary over runs, on episodes and truth small enough to count by hand.
import { describe, expect, it } from 'vitest';
import { scoreBacktest } from '../src/alerting/index.ts';
import type { BacktestRun, Episode, TruthIncident } from '../src/alerting/index.ts';
import { summarize } from './alerts-lib.ts';
import type { RunFigures } from './alerts-lib.ts';

const FROM = Date.parse('2026-06-01T10:00:00Z');
const TO = FROM + 3_600_000;
const at = (min: number) => new Date(FROM + min * 60_000).toISOString();

function episode(model: string, pending: number, firing: number | null, resolved: number | null): Episode {
  return {
    alertname: 'LatencyTailUp',
    group: 'latency',
    severity: 'warning',
    labels: { model, model_version: 'v1' },
    pending_at: at(pending),
    firing_at: firing === null ? null : at(firing),
    resolved_at: resolved === null ? null : at(resolved),
    peak_value: 2,
    details: {},
    interval_ms: 60_000,
  };
}

function run(seed: number, clean: boolean, episodes: Episode[], truth: TruthIncident[]): RunFigures {
  const backtest: BacktestRun = {
    from: at(0),
    to: at(60),
    evaluations: 60,
    episodes,
    rules: [],
    stats: { seconds: 10, queries: 1, peak_series_cells: 0 },
  };
  return {
    seed,
    clean,
    events: 1000,
    generate_s: 1,
    backtest_s: clean ? 10 : 20,
    peak_rss_mb: 300,
    run: backtest,
    score: scoreBacktest(episodes, truth, { fromMs: FROM, toMs: TO }),
  };
}

describe('summarize', () => {
  it('recall, delay, precision and the clean twins’ episodes, of which those that fired', () => {
    const truth: TruthIncident[] = [{ id: 'i1', kind: 'latency_tail', slice: { model: 'a', model_version: 'v1' }, start: at(10), end: at(30) }];
    const runs = [
      // Raised 2 minutes in and fired 2 later; one episode on another model is false.
      run(1, false, [episode('a', 12, 14, 35), episode('b', 40, null, 41)], truth),
      // The clean twin: one episode pending for a minute (never sent), one that fired.
      run(1, true, [episode('c', 5, null, 6), episode('d', 20, 22, 30)], []),
    ];
    const s = summarize(runs, [], { fromSeed: 1, seeds: 1, hours: 1, history: 2, scale: 1 });
    expect(s).toMatchObject({
      incidents: 1,
      recall: 1,
      top1: 1,
      median_delay_intervals: 2,
      delay_within_target: { within: 1, needed: 1 },
      precision: 0.5,
      false_episodes_incident_runs: 1,
      clean_episodes: 2,
      clean_fired_episodes: 1,
      clean_hours: 1,
      clean_false_per_hour: 2,
      backtest_s: { median: 15, max: 20 },
    });
    expect(s.per_kind.latency_tail).toMatchObject({ incidents: 1, recall: 1, median_delay_intervals: 2, within_target_delay: 1 });
  });
});
