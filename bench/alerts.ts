// The default rule pack on fleets it was not tuned on: for each seed, the fleet simulator
// (bench/fleet) writes history and a scored range with its incidents into a DuckDB data directory,
// and a clean twin (the same traffic without the incidents) into another; the backtest replays the
// pack over each scored range on the live evaluator and scores the episodes against the truth.
//
// Usage: npm run bench:alerts -- [--seeds 10] [--from-seed 101] [--hours 3] [--history 2]
//        [--scale 1] [--rules FILE …] [--kinds a,b] [--json] [--keep DIR]
// Seeds 1–4 are the ones the pack was tuned on; the default report starts at 101, seeds never
// looked at while tuning. With --json the last line printed is the summary as JSON.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_RULE_PACK, loadRuleFiles, runBacktest, scoreBacktest } from '../src/alerting/index.ts';
import type { BacktestRun, BacktestScore, RuleGroup } from '../src/alerting/index.ts';
import { typedReads } from '../src/query/index.ts';
import { createDuckDBStore } from '../src/store/index.ts';
import { INCIDENT_KINDS, generateFleet, writeFleet } from './fleet/index.ts';
import type { IncidentKind } from './fleet/index.ts';

const args = process.argv.slice(2);
const opt = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
const many = (name: string): string[] => args.flatMap((a, i) => (a === `--${name}` && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const SEEDS = Number(opt('seeds', '10'));
const FROM_SEED = Number(opt('from-seed', '101'));
const HOURS = Number(opt('hours', '3'));
const HISTORY = Number(opt('history', '2'));
const SCALE = Number(opt('scale', '1'));
const JSON_OUT = args.includes('--json');
const KEEP = opt('keep', '');
const KINDS = opt('kinds', '') ? (opt('kinds', '').split(',') as IncidentKind[]) : undefined;
const RULES = many('rules');

const log = (line: string) => {
  if (!JSON_OUT || process.stderr.isTTY) process.stderr.write(`${line}\n`);
};

interface RunFigures {
  seed: number;
  clean: boolean;
  events: number;
  generate_s: number;
  backtest_s: number;
  peak_rss_mb: number;
  run: BacktestRun;
  score: BacktestScore;
}

let peakRss = 0;
const sampleRss = () => (peakRss = Math.max(peakRss, process.memoryUsage().rss));

async function one(seed: number, clean: boolean, groups: readonly RuleGroup[]): Promise<RunFigures> {
  const dir = KEEP ? join(KEEP, `seed-${seed}${clean ? '-clean' : ''}`) : mkdtempSync(join(tmpdir(), `inferlens-bench-alerts-${seed}-`));
  mkdirSync(dir, { recursive: true });
  const store = await createDuckDBStore({ path: join(dir, 'data', 'inferlens.duckdb') });
  try {
    await store.migrate();
    const t0 = performance.now();
    const fleet = generateFleet({ seed, hours: HOURS, historyHours: HISTORY, clean, scale: SCALE, ...(KINDS && { incidents: KINDS }) });
    await writeFleet(fleet, store);
    const generateS = (performance.now() - t0) / 1000;
    const events = (await store.stats()).events;
    const fromMs = Date.parse(fleet.description.scoredStart);
    const toMs = Date.parse(fleet.description.end);
    peakRss = 0;
    const timer = setInterval(sampleRss, 200);
    let run: BacktestRun;
    try {
      run = await runBacktest({ groups, reads: typedReads(store), fromMs, toMs, onProgress: sampleRss });
    } finally {
      clearInterval(timer);
      sampleRss();
    }
    const score = scoreBacktest(run.episodes, fleet.truth, { fromMs, toMs });
    return { seed, clean, events, generate_s: generateS, backtest_s: run.stats.seconds, peak_rss_mb: peakRss / 2 ** 20, run, score };
  } finally {
    await store.close();
    if (!KEEP) rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const h = (s.length - 1) / 2;
  return (s[Math.floor(h)]! + s[Math.ceil(h)]!) / 2;
};
const ratio = (a: number, b: number) => (b > 0 ? a / b : null);
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);

async function main(): Promise<void> {
  const groups = loadRuleFiles(RULES.length > 0 ? RULES : [DEFAULT_RULE_PACK]);
  if (groups.problems.length > 0) throw new Error(groups.problems.map((p) => `${p.file}:${p.line}: ${p.path}: ${p.message}`).join('\n'));
  const runs: RunFigures[] = [];
  for (let seed = FROM_SEED; seed < FROM_SEED + SEEDS; seed++) {
    for (const clean of [false, true]) {
      const r = await one(seed, clean, groups.groups);
      runs.push(r);
      const s = r.score;
      log(
        clean
          ? `seed ${seed} clean: ${s.episodes} episodes${s.episodes ? ` (${r.run.episodes.map((e) => `${e.alertname} ${JSON.stringify(e.labels)} @${e.pending_at.slice(11, 16)}`).join('; ')})` : ''} · backtest ${r.backtest_s.toFixed(1)} s of ${r.events} events`
          : `seed ${seed}: ${s.detected}/${s.incidents} raised, top-1 ${pct(s.top1)}, delay median ${s.median_delay_intervals?.toFixed(1) ?? '-'} intervals, ${s.false_episodes} false · backtest ${r.backtest_s.toFixed(1)} s, peak RSS ${r.peak_rss_mb.toFixed(0)} MB, ${r.events} events`,
      );
      for (const m of clean ? [] : s.per_incident.filter((i) => !i.detected)) log(`  missed ${m.id} (${m.kind})`);
    }
  }
  const inc = runs.filter((r) => !r.clean);
  const cln = runs.filter((r) => r.clean);
  const all = inc.flatMap((r) => r.score.per_incident);
  const detected = all.filter((i) => i.detected);
  const perKind = Object.fromEntries(
    INCIDENT_KINDS.map((k) => {
      const list = all.filter((i) => i.kind === k);
      const d = list.filter((i) => i.detected);
      return [k, { incidents: list.length, recall: ratio(d.length, list.length), top1: ratio(d.filter((i) => i.top1).length, d.length), median_delay_intervals: median(d.map((i) => i.delay_intervals!)), first_alerts: [...new Set(d.map((i) => i.alert!.alertname))] }];
    }),
  );
  const ruleNames = groups.groups.flatMap((g) => g.rules.map((r) => r.alert));
  const perRule = Object.fromEntries(
    ruleNames.map((name) => {
      const rows = runs.flatMap((r) => r.run.rules.filter((x) => x.alert === name));
      return [name, { clean_episodes: cln.reduce((a, r) => a + r.run.episodes.filter((e) => e.alertname === name).length, 0), incident_run_episodes: inc.reduce((a, r) => a + r.run.episodes.filter((e) => e.alertname === name).length, 0), mean_eval_ms: rows.reduce((a, x) => a + x.mean_eval_ms, 0) / Math.max(1, rows.length), errors: rows.reduce((a, x) => a + x.errors, 0) }];
    }),
  );
  const cleanHours = cln.reduce((a, r) => a + r.score.clean_hours, 0);
  const cleanEpisodes = cln.reduce((a, r) => a + r.score.episodes, 0);
  const summary = {
    seeds: { from: FROM_SEED, count: SEEDS },
    hours: HOURS,
    history_hours: HISTORY,
    scale: SCALE,
    incidents: all.length,
    recall: ratio(detected.length, all.length),
    top1: ratio(detected.filter((i) => i.top1).length, detected.length),
    median_delay_intervals: median(detected.map((i) => i.delay_intervals!)),
    p90_delay_intervals: (() => {
      const s = detected.map((i) => i.delay_intervals!).sort((a, b) => a - b);
      return s.length ? s[Math.min(s.length - 1, Math.floor(0.9 * (s.length - 1)))]! : null;
    })(),
    precision: ratio(inc.reduce((a, r) => a + r.score.true_episodes, 0), inc.reduce((a, r) => a + r.score.episodes, 0)),
    false_episodes_incident_runs: inc.reduce((a, r) => a + r.score.false_episodes, 0),
    clean_episodes: cleanEpisodes,
    clean_hours: cleanHours,
    clean_false_per_hour: ratio(cleanEpisodes, cleanHours),
    backtest_s: { median: median(runs.map((r) => r.backtest_s)), max: Math.max(...runs.map((r) => r.backtest_s)) },
    events_per_run: { median: median(runs.map((r) => r.events)) },
    peak_rss_mb: Math.max(...runs.map((r) => r.peak_rss_mb)),
    per_kind: perKind,
    per_rule: perRule,
    targets: { recall: 0.95, top1: 0.9, median_delay_intervals: 2, clean_episodes: 0, backtest_s: 30, peak_rss_mb: 1024 },
  };
  log('');
  log(`${SEEDS} seeds from ${FROM_SEED}, ${HOURS} h each + clean twins: recall ${pct(summary.recall)} (${detected.length}/${all.length}), top-1 ${pct(summary.top1)}, median delay ${summary.median_delay_intervals?.toFixed(2)} intervals, precision ${pct(summary.precision)}, clean episodes ${cleanEpisodes} in ${cleanHours.toFixed(1)} h, backtest median ${summary.backtest_s.median?.toFixed(1)} s (max ${summary.backtest_s.max.toFixed(1)} s), peak RSS ${summary.peak_rss_mb.toFixed(0)} MB`);
  for (const [k, v] of Object.entries(perKind)) log(`  ${k.padEnd(22)} ${String(v.incidents).padStart(3)} incidents  recall ${pct(v.recall).padStart(8)}  top-1 ${pct(v.top1).padStart(8)}  delay ${v.median_delay_intervals?.toFixed(1) ?? '-'}  ${v.first_alerts.join(', ')}`);
  if (JSON_OUT) console.log(JSON.stringify(summary));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
