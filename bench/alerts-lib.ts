// The default rule pack on a simulated fleet: one seed's run (generate, backtest, score) and the
// summary over many, shared by `npm run bench:alerts` (bench/alerts.ts) and its short version in
// `npm test` (bench/alerts.test.ts).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBacktest, scoreBacktest } from '../src/alerting/index.ts';
import type { BacktestRun, BacktestScore, RuleGroup } from '../src/alerting/index.ts';
import { typedReads } from '../src/query/index.ts';
import { createDuckDBStore } from '../src/store/index.ts';
import { INCIDENT_KINDS, generateFleet, writeFleet } from './fleet/index.ts';
import type { IncidentKind } from './fleet/index.ts';

export interface FleetRunOptions {
  seed: number;
  clean: boolean;
  hours: number;
  history: number;
  scale: number;
  kinds?: IncidentKind[];
  /** Keep the data directory here (default: a temporary one, removed). */
  keep?: string;
}

export interface RunFigures {
  seed: number;
  clean: boolean;
  events: number;
  generate_s: number;
  backtest_s: number;
  peak_rss_mb: number;
  run: BacktestRun;
  score: BacktestScore;
}

/** One seed (or its clean twin): the fleet written to a DuckDB data directory, backtested and scored. */
export async function fleetRun(o: FleetRunOptions, groups: readonly RuleGroup[]): Promise<RunFigures> {
  const dir = o.keep ? join(o.keep, `seed-${o.seed}${o.clean ? '-clean' : ''}`) : mkdtempSync(join(tmpdir(), `inferlens-bench-alerts-${o.seed}-`));
  mkdirSync(dir, { recursive: true });
  const store = await createDuckDBStore({ path: join(dir, 'data', 'inferlens.duckdb') });
  let peakRss = 0;
  const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));
  try {
    await store.migrate();
    const t0 = performance.now();
    const fleet = generateFleet({
      seed: o.seed,
      hours: o.hours,
      historyHours: o.history,
      clean: o.clean,
      scale: o.scale,
      ...(o.kinds && { incidents: o.kinds }),
    });
    await writeFleet(fleet, store);
    const generateS = (performance.now() - t0) / 1000;
    const events = (await store.stats()).events;
    const fromMs = Date.parse(fleet.description.scoredStart);
    const toMs = Date.parse(fleet.description.end);
    // A kept directory is a CLI backtest's input as is: `inferlens rules backtest --data DIR/data --truth DIR/truth.json`.
    if (o.keep) {
      writeFileSync(join(dir, 'truth.json'), JSON.stringify(fleet.truth, null, 1));
      writeFileSync(join(dir, 'run.json'), JSON.stringify({ from: fleet.description.scoredStart, to: fleet.description.end }));
    }
    const timer = setInterval(sampleRss, 200);
    let run: BacktestRun;
    try {
      run = await runBacktest({ groups, reads: typedReads(store), fromMs, toMs, onProgress: sampleRss });
    } finally {
      clearInterval(timer);
      sampleRss();
    }
    const score = scoreBacktest(run.episodes, fleet.truth, { fromMs, toMs });
    const figures: RunFigures = {
      seed: o.seed,
      clean: o.clean,
      events,
      generate_s: generateS,
      backtest_s: run.stats.seconds,
      peak_rss_mb: peakRss / 2 ** 20,
      run,
      score,
    };
    // …and the figures, so runs made apart (two processes, two machines) are summarized together (`--summarize DIR`).
    if (o.keep) writeFileSync(join(dir, 'figures.json'), JSON.stringify(figures));
    return figures;
  } finally {
    await store.close();
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) / 2;
  return (s[Math.floor(h)]! + s[Math.ceil(h)]!) / 2;
};
const ratio = (a: number, b: number) => (b > 0 ? a / b : null);

export const TARGETS = { recall: 0.95, top1: 0.9, median_delay_intervals: 2, clean_episodes: 0, backtest_s: 30, peak_rss_mb: 1024 };

/** The figures over runs of seeds and their clean twins: overall, per incident kind, per rule. */
export function summarize(
  runs: readonly RunFigures[],
  groups: readonly RuleGroup[],
  setup: { fromSeed: number; seeds: number; hours: number; history: number; scale: number },
) {
  const inc = runs.filter((r) => !r.clean);
  const cln = runs.filter((r) => r.clean);
  const all = inc.flatMap((r) => r.score.per_incident);
  const detected = all.filter((i) => i.detected);
  const perKind = Object.fromEntries(
    INCIDENT_KINDS.map((k) => {
      const list = all.filter((i) => i.kind === k);
      const d = list.filter((i) => i.detected);
      return [
        k,
        {
          incidents: list.length,
          recall: ratio(d.length, list.length),
          top1: ratio(d.filter((i) => i.top1).length, d.length),
          median_delay_intervals: median(d.map((i) => i.delay_intervals!)),
          within_target_delay: d.filter((i) => i.delay_intervals! <= TARGETS.median_delay_intervals).length,
          first_alerts: [...new Set(d.map((i) => i.alert!.alertname))],
        },
      ];
    }),
  );
  const ruleNames = groups.flatMap((g) => g.rules.map((r) => r.alert));
  const perRule = Object.fromEntries(
    ruleNames.map((name) => {
      const rows = runs.flatMap((r) => r.run.rules.filter((x) => x.alert === name));
      return [
        name,
        {
          clean_episodes: cln.reduce((a, r) => a + r.run.episodes.filter((e) => e.alertname === name).length, 0),
          incident_run_episodes: inc.reduce((a, r) => a + r.run.episodes.filter((e) => e.alertname === name).length, 0),
          mean_eval_ms: rows.reduce((a, x) => a + x.mean_eval_ms, 0) / Math.max(1, rows.length),
          errors: rows.reduce((a, x) => a + x.errors, 0),
        },
      ];
    }),
  );
  const cleanHours = cln.reduce((a, r) => a + r.score.clean_hours, 0);
  const cleanEpisodes = cln.reduce((a, r) => a + r.score.episodes, 0);
  // Of those, the ones that lasted past their rule's `for` and fired (were sent to receivers); the
  // others were pending only: on the Alerts view, never notified.
  const cleanFired = cln.reduce((a, r) => a + r.run.episodes.filter((e) => e.firing_at !== null).length, 0);
  return {
    seeds: { from: setup.fromSeed, count: setup.seeds },
    hours: setup.hours,
    history_hours: setup.history,
    scale: setup.scale,
    incidents: all.length,
    recall: ratio(detected.length, all.length),
    top1: ratio(detected.filter((i) => i.top1).length, detected.length),
    median_delay_intervals: median(detected.map((i) => i.delay_intervals!)),
    // How far the median is from its target: the raised incidents within it, and how many make sure
    // of it (more than half of those raised; with an even count, half can do if the next is close).
    delay_within_target: {
      within: detected.filter((i) => i.delay_intervals! <= TARGETS.median_delay_intervals).length,
      needed: Math.floor(detected.length / 2) + 1,
    },
    p90_delay_intervals: (() => {
      const s = detected.map((i) => i.delay_intervals!).sort((a, b) => a - b);
      return s.length ? s[Math.min(s.length - 1, Math.floor(0.9 * (s.length - 1)))]! : null;
    })(),
    precision: ratio(
      inc.reduce((a, r) => a + r.score.true_episodes, 0),
      inc.reduce((a, r) => a + r.score.episodes, 0),
    ),
    false_episodes_incident_runs: inc.reduce((a, r) => a + r.score.false_episodes, 0),
    clean_episodes: cleanEpisodes,
    clean_fired_episodes: cleanFired,
    clean_hours: cleanHours,
    clean_false_per_hour: ratio(cleanEpisodes, cleanHours),
    backtest_s: { median: median(runs.map((r) => r.backtest_s)), max: Math.max(...runs.map((r) => r.backtest_s)) },
    events_per_run: { median: median(runs.map((r) => r.events)) },
    peak_rss_mb: Math.max(...runs.map((r) => r.peak_rss_mb)),
    per_kind: perKind,
    per_rule: perRule,
    targets: TARGETS,
  };
}
export type AlertsSummary = ReturnType<typeof summarize>;
