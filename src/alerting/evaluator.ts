/**
 * Runs rule groups on their intervals with an injectable clock. Each group evaluates its rules in
 * order at one timestamp; a tick that comes while the group's previous evaluation still runs is
 * skipped and counted (never queued). Rule errors leave the rule's alerts as they were and set
 * its health; only a change of health is logged.
 */
import type { Logger } from 'pino';
import type { TypedReads } from '../query/index.ts';
import { alertLabels, applyEvaluation } from './alert-state.ts';
import type { Alert } from './alert-state.ts';
import type { Clock } from './clock.ts';
import { evaluateCondition } from './conditions/index.ts';
import type { Coverage } from './conditions/index.ts';
import type { Labels } from './labels.ts';
import { fingerprint } from './labels.ts';
import type { Rule, RuleGroup } from './rule-schema.ts';
import { createSeriesCache } from './series.ts';
import type { SeriesCache } from './series.ts';

export type RuleHealth = 'unknown' | 'ok' | 'err';

export interface RuleStatus {
  rule: Rule;
  health: RuleHealth;
  lastError: string | null;
  lastEvalMs: number | null;
  lastDurationMs: number | null;
  alerts: Map<string, Alert>;
  /** What the last evaluation could judge (sequential detectors and drift rules say so). */
  coverage: Coverage | null;
}

export interface GroupStatus {
  group: RuleGroup;
  rules: RuleStatus[];
  lastEvalMs: number | null;
  lastDurationMs: number | null;
}

export interface EvaluatorStats {
  evaluationsTotal: number;
  ruleErrorsTotal: number;
  /** Ticks skipped because the group's previous evaluation was still running. */
  skippedTotal: number;
}

export interface EvaluatorOptions {
  groups: readonly RuleGroup[];
  reads: TypedReads;
  /** Most cells the detectors' per-minute series may hold (default `DEFAULT_MAX_CELLS`). */
  maxSeriesCells?: number;
  /** Backtests over stored data: how far the series read past the evaluation time (see series.ts). */
  readAheadMs?: number;
  clock: Clock;
  logger?: Logger;
  /** Called after every group evaluation, with the evaluation time. */
  onEvaluated?(group: GroupStatus, atMs: number): void;
  maxSlices?: number;
}

export interface Evaluator {
  start(): void;
  stop(): void;
  /** Evaluates one group at a time (tests, `rules test`); resolves when done. */
  evaluateGroup(name: string, atMs: number): Promise<void>;
  /** Resolves when no evaluation is running. */
  settled(): Promise<void>;
  groups(): readonly GroupStatus[];
  /** Every pending, firing and recently resolved alert. */
  alerts(): Alert[];
  stats(): EvaluatorStats;
  /** The per-minute series the detectors read through (cells held, queries made). */
  series: SeriesCache;
}

export function createEvaluator(o: EvaluatorOptions): Evaluator {
  const groups: GroupStatus[] = o.groups.map((group) => ({
    group,
    rules: group.rules.map((rule) => ({ rule, health: 'unknown', lastError: null, lastEvalMs: null, lastDurationMs: null, alerts: new Map(), coverage: null })),
    lastEvalMs: null,
    lastDurationMs: null,
  }));
  const byName = new Map(groups.map((g) => [g.group.name, g]));
  const running = new Map<string, Promise<void>>();
  const timers = new Map<string, unknown>();
  const stats: EvaluatorStats = { evaluationsTotal: 0, ruleErrorsTotal: 0, skippedTotal: 0 };
  const series = createSeriesCache({
    reads: o.reads,
    ...(o.maxSeriesCells !== undefined && { maxCells: o.maxSeriesCells }),
    ...(o.readAheadMs !== undefined && { readAheadMs: o.readAheadMs }),
  });
  let started = false;

  async function run(g: GroupStatus, atMs: number): Promise<void> {
    const t0 = performance.now();
    for (const r of g.rules) {
      const r0 = performance.now();
      try {
        let coverage: Coverage | null = null;
        const state = (labels: Labels) => r.alerts.get(fingerprint(alertLabels(r.rule, labels)))?.state;
        const firing = (labels: Labels) => state(labels) === 'firing';
        const active = (labels: Labels) => (state(labels) ?? 'resolved') !== 'resolved';
        const obs = await evaluateCondition(r.rule.condition, r.rule.severity, {
          reads: o.reads,
          series,
          nowMs: atMs,
          maxSlices: Math.max(g.group.limit + 1, o.maxSlices ?? 10_000),
          note: (c) => (coverage = c),
          firing,
          active,
        });
        r.coverage = coverage;
        if (obs.length > g.group.limit)
          throw new Error(`${obs.length} alerts exceed the group limit of ${g.group.limit}: narrow the rule's by/filters or raise limit`);
        applyEvaluation(r.rule, r.alerts, obs, atMs);
        if (r.health === 'err') o.logger?.info({ rule: r.rule.alert, group: g.group.name }, 'rule evaluates again');
        r.health = 'ok';
        r.lastError = null;
      } catch (e) {
        stats.ruleErrorsTotal++;
        const message = (e as Error).message;
        if (r.health !== 'err' || r.lastError !== message)
          o.logger?.warn({ rule: r.rule.alert, group: g.group.name, err: message }, 'rule evaluation failed; its alerts keep their state');
        r.health = 'err';
        r.lastError = message;
      }
      r.lastEvalMs = atMs;
      r.lastDurationMs = performance.now() - r0;
    }
    stats.evaluationsTotal++;
    g.lastEvalMs = atMs;
    g.lastDurationMs = performance.now() - t0;
    o.onEvaluated?.(g, atMs);
  }

  function evaluate(g: GroupStatus, atMs: number): Promise<void> {
    const prev = running.get(g.group.name);
    if (prev) {
      stats.skippedTotal++;
      return prev;
    }
    const p = run(g, atMs).finally(() => running.delete(g.group.name));
    running.set(g.group.name, p);
    return p;
  }

  /** Ticks at whole multiples of the interval (drift-free); missed slots are skipped, not replayed. */
  function schedule(g: GroupStatus) {
    const now = o.clock.now();
    const intervalMs = g.group.intervalMs;
    const next = (Math.floor(now / intervalMs) + 1) * intervalMs;
    timers.set(
      g.group.name,
      o.clock.setTimeout(() => {
        if (!started) return;
        void evaluate(g, o.clock.now());
        schedule(g);
      }, next - now),
    );
  }

  return {
    start() {
      if (started) return;
      started = true;
      for (const g of groups) schedule(g);
    },
    stop() {
      started = false;
      for (const t of timers.values()) o.clock.clearTimeout(t);
      timers.clear();
    },
    evaluateGroup(name, atMs) {
      const g = byName.get(name);
      if (!g) return Promise.reject(new Error(`no rule group ${name}`));
      return evaluate(g, atMs);
    },
    async settled() {
      while (running.size > 0) await Promise.all(running.values());
    },
    groups: () => groups,
    alerts: () => groups.flatMap((g) => g.rules.flatMap((r) => [...r.alerts.values()])),
    stats: () => ({ ...stats }),
    series,
  };
}
