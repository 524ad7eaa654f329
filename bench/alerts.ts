// The default rule pack on fleets it was not tuned on: for each seed, the fleet simulator
// (bench/fleet) writes history and a scored range with its incidents into a DuckDB data directory,
// and a clean twin (the same traffic without the incidents) into another; the backtest replays the
// pack over each scored range on the live evaluator and scores the episodes against the truth.
//
// Usage: npm run bench:alerts -- [--seeds 10] [--from-seed 101] [--hours 3] [--history 2]
//        [--scale 1] [--rules FILE …] [--kinds a,b] [--json] [--keep DIR]
//        npm run bench:alerts -- --summarize DIR [--json]   (the runs kept in DIR, made by one or more processes)
// Seeds 1–4 are the ones the pack was tuned on; the default report starts at 101, seeds never
// looked at while tuning. With --json the last line printed is the summary as JSON.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_RULE_PACK, loadRuleFiles } from '../src/alerting/index.ts';
import type { IncidentKind } from './fleet/index.ts';
import { fleetRun, summarize } from './alerts-lib.ts';
import type { RunFigures } from './alerts-lib.ts';

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
const SUMMARIZE = opt('summarize', '');

const log = (line: string) => {
  if (!JSON_OUT || process.stderr.isTTY) process.stderr.write(`${line}\n`);
};
const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);

async function main(): Promise<void> {
  const groups = loadRuleFiles(RULES.length > 0 ? RULES : [DEFAULT_RULE_PACK]);
  if (groups.problems.length > 0) throw new Error(groups.problems.map((p) => `${p.file}:${p.line}: ${p.path}: ${p.message}`).join('\n'));
  const runs: RunFigures[] = [];
  if (SUMMARIZE) {
    for (const d of readdirSync(SUMMARIZE).sort())
      if (existsSync(join(SUMMARIZE, d, 'figures.json'))) runs.push(JSON.parse(readFileSync(join(SUMMARIZE, d, 'figures.json'), 'utf8')) as RunFigures);
    if (runs.length === 0) throw new Error(`no figures.json under ${SUMMARIZE}/*: keep the runs with --keep ${SUMMARIZE}`);
  }
  const seeds = [...new Set(runs.map((r) => r.seed))].sort((a, b) => a - b);
  for (let seed = FROM_SEED; !SUMMARIZE && seed < FROM_SEED + SEEDS; seed++) {
    for (const clean of [false, true]) {
      const r = await fleetRun(
        { seed, clean, hours: HOURS, history: HISTORY, scale: SCALE, ...(KINDS && { kinds: KINDS }), ...(KEEP && { keep: KEEP }) },
        groups.groups,
      );
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
  if (SUMMARIZE)
    for (const r of runs)
      log(
        `seed ${r.seed}${r.clean ? ' clean' : ''}: ${r.clean ? '' : `${r.score.detected}/${r.score.incidents} raised, `}${r.score.episodes} episodes${r.clean && r.score.episodes ? ` (${r.run.episodes.map((e) => `${e.alertname} ${JSON.stringify(e.labels)} @${e.pending_at.slice(11, 16)}`).join('; ')})` : ''}${
          r.clean
            ? ''
            : r.score.per_incident
                .filter((i) => !i.detected)
                .map((m) => `; missed ${m.id}`)
                .join('')
        } · backtest ${r.backtest_s.toFixed(1)} s`,
      );
  const summary = summarize(
    runs,
    groups.groups,
    SUMMARIZE
      ? { fromSeed: seeds[0]!, seeds: seeds.length, hours: HOURS, history: HISTORY, scale: SCALE }
      : { fromSeed: FROM_SEED, seeds: SEEDS, hours: HOURS, history: HISTORY, scale: SCALE },
  );
  const detected = Math.round((summary.recall ?? 0) * summary.incidents);
  log('');
  log(
    `${summary.seeds.count} seeds from ${summary.seeds.from}, ${HOURS} h each + clean twins: recall ${pct(summary.recall)} (${detected}/${summary.incidents}), top-1 ${pct(summary.top1)}, median delay ${summary.median_delay_intervals?.toFixed(2)} intervals (${summary.delay_within_target.within} raised within ${summary.targets.median_delay_intervals}, ${summary.delay_within_target.needed} needed), precision ${pct(summary.precision)}, clean episodes ${summary.clean_episodes} (${summary.clean_fired_episodes} fired) in ${summary.clean_hours.toFixed(1)} h, backtest median ${summary.backtest_s.median?.toFixed(1)} s (max ${summary.backtest_s.max.toFixed(1)} s), peak RSS ${summary.peak_rss_mb.toFixed(0)} MB`,
  );
  for (const [k, v] of Object.entries(summary.per_kind))
    log(
      `  ${k.padEnd(22)} ${String(v.incidents).padStart(3)} incidents  recall ${pct(v.recall).padStart(8)}  top-1 ${pct(v.top1).padStart(8)}  delay ${v.median_delay_intervals?.toFixed(1) ?? '-'}  ${v.first_alerts.join(', ')}`,
    );
  if (JSON_OUT) console.log(JSON.stringify(summary));
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
