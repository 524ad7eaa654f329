/**
 * The backtest: "would these rules have caught it, and when?" It runs the live evaluator — the same
 * `createEvaluator`, condition code, series cache and alert state machine — on a manual clock over a
 * past range, each group on its own interval, and records every alert episode. Every read ends at
 * the evaluation time, so nothing after it is seen (no look-ahead). No notifier, action or silence is
 * involved: a backtest changes nothing.
 */
import { InferlensError } from '../schema/index.ts';
import type { TypedReads } from '../query/index.ts';
import { createManualClock } from './clock.ts';
import type { Coverage } from './conditions/index.ts';
import { createEvaluator } from './evaluator.ts';
import { holdSteppedReads } from './stepped-reads.ts';
import type { GroupStatus } from './evaluator.ts';
import type { Labels } from './labels.ts';
import type { RuleGroup, Severity } from './rule-schema.ts';

/** One alert episode: from becoming active (pending) to resolving, or to the end of the range. */
export interface Episode {
  alertname: string;
  group: string;
  severity: Severity;
  /** Slice labels and the rule's labels (alertname and severity left out). */
  labels: Labels;
  pending_at: string;
  firing_at: string | null;
  /** When it stopped holding (a pending alert that stopped holding too); null if still active at the end. */
  resolved_at: string | null;
  peak_value: number;
  /** The numbers behind the verdict when it became active (rate, reference, window, p-value). */
  details: Record<string, number | string>;
  /** Evaluation interval of its group, ms. */
  interval_ms: number;
}

export interface BacktestRuleSummary {
  alert: string;
  group: string;
  interval_ms: number;
  episodes: number;
  /** Evaluations that failed, and the last error. */
  errors: number;
  last_error: string | null;
  /** What the last evaluation could judge (sequential and drift rules). */
  coverage: Coverage | null;
  /** Mean wall time of one evaluation of this rule, ms (its series reads included; groups due at the same tick overlap, so the rules of one group also wait on the others'). */
  mean_eval_ms: number;
}

export interface BacktestRun {
  from: string;
  to: string;
  evaluations: number;
  episodes: Episode[];
  rules: BacktestRuleSummary[];
  stats: { seconds: number; queries: number; peak_series_cells: number };
}

export interface BacktestOptions {
  groups: readonly RuleGroup[];
  reads: TypedReads;
  fromMs: number;
  toMs: number;
  /** Most cells the detectors' series may hold; more stops the backtest (default `DEFAULT_MAX_CELLS`, 40 M). */
  maxSeriesCells?: number;
  /** Called after each tick with the fraction done. */
  onProgress?(fraction: number): void;
  /** The wall clock for the `seconds` figure (injected; tests pass a fixed one). */
  timer?: () => number;
  /**
   * How far the detectors' series read ahead of the evaluation time, in one query (default 30 min;
   * 0: minute by minute, as live). What they sum is clamped at the evaluation time either way.
   */
  readAheadMs?: number;
}

/** How far a backtest's series read ahead by default: one query per 30 minutes instead of 30. */
export const DEFAULT_READ_AHEAD_MS = 30 * 60_000;

/** The longest range one backtest covers. */
export const MAX_BACKTEST_RANGE_MS = 7 * 86_400_000;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
const iso = (ms: number) => new Date(ms).toISOString();

export async function runBacktest(o: BacktestOptions): Promise<BacktestRun> {
  if (!(o.toMs > o.fromMs)) throw new InferlensError('invalid_argument', 'to: must be after from');
  if (o.toMs - o.fromMs > MAX_BACKTEST_RANGE_MS) throw new InferlensError('invalid_argument', `to: a backtest covers at most 7 days; split the range`);
  if (o.groups.length === 0) throw new InferlensError('invalid_argument', 'rules: no rule groups to backtest');
  const timer = o.timer ?? (() => performance.now());
  const t0 = timer();
  await requireData(o);

  const clock = createManualClock(o.fromMs);
  const stepMs = o.groups.map((g) => g.intervalMs).reduce(gcd);
  // Read-ahead needs evaluation times on whole minutes (a minute read ahead is never split).
  const readAheadMs = stepMs % 60_000 === 0 ? (o.readAheadMs ?? DEFAULT_READ_AHEAD_MS) : 0;
  // Every read the rules make of the store (series, spread checks, events, resources) is counted;
  // the spread checks' stepped reads are held across ticks (stepped-reads.ts).
  let queries = 0;
  const counted =
    <S, R>(f: (spec: S) => Promise<R>) =>
    (spec: S) => {
      queries++;
      return f(spec);
    };
  const reads: TypedReads = {
    aggregate: holdSteppedReads(counted(o.reads.aggregate), readAheadMs),
    bucketCounts: counted(o.reads.bucketCounts),
    events: counted(o.reads.events),
    resources: counted(o.reads.resources),
  };
  const evaluator = createEvaluator({
    groups: o.groups,
    reads,
    clock,
    readAheadMs,
    ...(o.maxSeriesCells !== undefined && { maxSeriesCells: o.maxSeriesCells }),
  });
  const first = Math.ceil(o.fromMs / stepMs) * stepMs;
  const open = new Map<string, Episode>();
  const episodes: Episode[] = [];
  const errors = new Map<string, number>();
  const spent = new Map<string, { ms: number; n: number }>();
  let evaluations = 0;
  let peakCells = 0;

  const collect = (g: GroupStatus, atMs: number) => {
    for (const r of g.rules) {
      const key = `${g.group.name}\u0000${r.rule.alert}`;
      const t = spent.get(key) ?? { ms: 0, n: 0 };
      t.ms += r.lastDurationMs ?? 0;
      t.n++;
      spent.set(key, t);
      if (r.health === 'err' && r.lastEvalMs === atMs) {
        errors.set(key, (errors.get(key) ?? 0) + 1);
        if (/more than the bound/.test(r.lastError ?? '')) throw new InferlensError('resource_exhausted', `backtest stopped at ${iso(atMs)}: ${r.lastError}`);
      }
      const seen = new Set<string>();
      for (const a of r.alerts.values()) {
        if (a.state === 'resolved' && a.resolvedAtMs !== atMs) continue;
        const id = `${a.fingerprint}@${a.activeAtMs}`;
        seen.add(id);
        let e = open.get(id);
        if (!e) {
          const { alertname: _n, severity: _s, ...labels } = a.labels;
          e = {
            alertname: a.alertname,
            group: g.group.name,
            severity: a.severity,
            labels,
            pending_at: iso(a.activeAtMs),
            firing_at: null,
            resolved_at: null,
            peak_value: a.value,
            details: a.details,
            interval_ms: g.group.intervalMs,
          };
          open.set(id, e);
          episodes.push(e);
        }
        e.peak_value = Math.max(e.peak_value, a.value);
        if (a.firedAtMs !== null && e.firing_at === null) e.firing_at = iso(a.firedAtMs);
        if (a.state === 'resolved') {
          e.resolved_at = iso(atMs);
          open.delete(id);
        }
      }
      // A pending alert that stopped holding is dropped by the state machine: its episode ends here.
      for (const [id, e] of open)
        if (e.group === g.group.name && e.alertname === r.rule.alert && !seen.has(id)) {
          e.resolved_at = iso(atMs);
          open.delete(id);
        }
    }
  };

  const total = Math.max(1, o.toMs - first);
  try {
    for (let t = first; t <= o.toMs; t += stepMs) {
      clock.advance(t - clock.now());
      // The groups due at a tick run together, as the live scheduler's timers let them: one group's
      // detectors compute while another's read waits on the store (same episodes as one at a time).
      const due = evaluator.groups().filter((g) => t % g.group.intervalMs === 0);
      await Promise.all(due.map((g) => evaluator.evaluateGroup(g.group.name, t)));
      for (const g of due) {
        evaluations++;
        collect(g, t);
      }
      peakCells = Math.max(peakCells, evaluator.series.cells());
      o.onProgress?.((t - first) / total);
    }
  } finally {
    // The store may close once this returns: no read ahead of the last tick is left running.
    await evaluator.series.settled();
  }

  return {
    from: iso(o.fromMs),
    to: iso(o.toMs),
    evaluations,
    episodes,
    rules: evaluator.groups().flatMap((g) =>
      g.rules.map((r) => {
        const key = `${g.group.name}\u0000${r.rule.alert}`;
        const t = spent.get(key);
        return {
          alert: r.rule.alert,
          group: g.group.name,
          interval_ms: g.group.intervalMs,
          episodes: episodes.filter((e) => e.group === g.group.name && e.alertname === r.rule.alert).length,
          errors: errors.get(key) ?? 0,
          last_error: r.lastError,
          coverage: r.coverage,
          mean_eval_ms: t && t.n > 0 ? t.ms / t.n : 0,
        };
      }),
    ),
    stats: { seconds: (timer() - t0) / 1000, queries, peak_series_cells: peakCells },
  };
}

/** A range with neither events nor resource samples is an error that says so, not an empty result. */
async function requireData(o: BacktestOptions): Promise<void> {
  const [row] = await o.reads.aggregate({
    fromMs: o.fromMs,
    toMs: o.toMs,
    filters: {},
    groupBy: [],
    measures: [{ name: 'n', measure: { kind: 'n' } }],
    includeProbes: true,
    limit: 1,
  });
  if (Number(row?.n ?? 0) > 0) return;
  const metrics = [
    ...new Set(
      o.groups.flatMap((g) =>
        g.rules.flatMap((r) => (r.condition.kind === 'resource' ? [r.condition.metric, ...(r.condition.divide_by ? [r.condition.divide_by] : [])] : [])),
      ),
    ),
  ];
  if (
    metrics.length > 0 &&
    (await o.reads.resources({ fromMs: o.fromMs, toMs: o.toMs, stepMs: o.toMs - o.fromMs, metrics, filters: {}, groupBy: [] })).length > 0
  )
    return;
  throw new InferlensError(
    'not_found',
    `no events and no resource samples between ${iso(o.fromMs)} and ${iso(o.toMs)}: nothing to backtest (check the range and the data directory or server)`,
  );
}
