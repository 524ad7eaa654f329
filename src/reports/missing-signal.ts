/**
 * "Which signal was missing", per incident of the period: the signals that moved first on the
 * incident's slice and when (first-signals.ts), the rule that first fired and how long after the
 * first signal moved, and — with the backtest, the live evaluator replayed on a manual clock over
 * the half hour before that firing — whether a rule of the loaded pack, or a rule made from the
 * detector catalogue for the signal that moved first, would have fired earlier.
 *
 * The incident's slice is the first-firing alert's labels that name a place (model, version,
 * tenant, entry, replica, node, GPU, …). A backtest episode answers for the incident when it is
 * consistent with that slice (backtest-score's rule: shares a label, contradicts none).
 *
 * Bounded: the newest MAX_REVIEWED incidents of the period; one backtest of at most WATCH_MS each.
 */
import { stringify } from 'yaml';
import { consistent, groupsFromText, runBacktest } from '../alerting/index.ts';
import type { Episode, IncidentHistory, RuleGroup } from '../alerting/index.ts';
import type { TypedReads } from '../query/index.ts';
import { DIMENSIONS } from '../schema/index.ts';
import { WATCH_MS, firstSignals } from './first-signals.ts';
import type { SignalMove } from './first-signals.ts';

/** Incidents reviewed per report (newest first). */
export const MAX_REVIEWED = 5;
/** The labels that name a place. */
const PLACE_LABELS: readonly string[] = [...DIMENSIONS, 'gpu'];

export interface RaisedBy {
  alertname: string;
  labels: Record<string, string>;
  /** When it fired (RFC 3339). */
  fired_at: string;
  /** Seconds after the first signal moved (negative: before it), null when no signal moved. */
  after_first_signal_s: number | null;
}

export interface IncidentReview {
  incident_id: string;
  opened_at: string | null;
  status: IncidentHistory['status'];
  slice: Record<string, string>;
  /** Every judged signal, the moved ones first (earliest first). */
  signals: SignalMove[];
  first_signal: { signal: string; family: SignalMove['family']; moved_at: string } | null;
  first_rule: RaisedBy | null;
  /** The backtest of the half hour before the first firing: what would have fired earlier. */
  backtest: {
    ran: boolean;
    from: string | null;
    to: string | null;
    /** Why it did not run, or failed. */
    note: string | null;
    /** The earliest consistent episode of a loaded rule that fired before the first rule did. */
    earlier_in_pack: (RaisedBy & { lead_s: number }) | null;
    /** The catalogue's detector for the first signal, aimed at the slice, and what it did. */
    suggested: { rule_yaml: string; alertname: string; fired_at: string | null; lead_s: number | null; after_first_signal_s: number | null } | null;
  };
}

const iso = (ms: number) => new Date(ms).toISOString();
const secondsBetween = (a: string | null, b: string | null) => (a && b ? (Date.parse(b) - Date.parse(a)) / 1000 : null);

/** The place labels of an alert. */
export function sliceOf(labels: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(labels).filter(([k]) => PLACE_LABELS.includes(k)));
}

/**
 * A rule from the detector catalogue for a signal, aimed at the slice and without a `for` (the
 * detectors' own evidence is their persistence test): a latency_shift for a stage or confidence,
 * a rate_shift for a rate, a resource trend for GPU memory, a resource level for utilisation.
 */
export function suggestedRule(s: Pick<SignalMove, 'signal' | 'family'>, slice: Record<string, string>): { alert: string; yaml: string } | null {
  const eventBy = Object.keys(slice).filter((k) => (DIMENSIONS as readonly string[]).includes(k)).slice(0, 4);
  const resBy = Object.keys(slice).filter((k) => ['node', 'replica', 'gpu', 'pool'].includes(k));
  const field = /^p95\((\w+)\)$/.exec(s.signal)?.[1];
  let alert: string;
  let condition: Record<string, unknown>;
  if (field) {
    alert = `Suggested${camel(field)}Shift`;
    condition = { kind: 'latency_shift', field, quantile: 0.95, by: eventBy };
  } else if (s.signal === 'mean(confidence)') {
    alert = 'SuggestedConfidenceShift';
    condition = { kind: 'latency_shift', field: 'confidence', direction: 'down', quantile: 0.9, bins: { width: 0.02 }, by: eventBy, min_slowdown: 1.05 };
  } else if (s.signal.endsWith('_rate')) {
    const base = s.signal.slice(0, -'_rate'.length);
    const signal = base === 'error' ? 'errors' : base;
    alert = `Suggested${camel(signal)}Shift`;
    condition = { kind: 'rate_shift', signal, by: eventBy };
  } else if (s.signal === 'gpu_memory_used_bytes') {
    if (resBy.length === 0) return null;
    alert = 'SuggestedGpuMemoryRising';
    condition = { kind: 'resource', metric: 'gpu_memory_used_bytes', divide_by: 'gpu_memory_total_bytes', window: '10m', agg: 'trend', step: '15s', alpha: 0.001, by: resBy, op: '>', value: 0.05 };
  } else if (s.signal === 'gpu_utilization_ratio') {
    if (resBy.length === 0) return null;
    alert = 'SuggestedGpuBusy';
    condition = { kind: 'resource', metric: 'gpu_utilization_ratio', window: '5m', agg: 'avg', by: resBy, op: '>', value: 0.9 };
  } else return null;
  if (condition['kind'] !== 'resource' && eventBy.length === 0) return null;
  const yaml = stringify({ groups: [{ name: 'suggested', interval: '1m', rules: [{ alert, condition, for: '0s', severity: 'warning', labels: { suggested: 'true' } }] }] });
  return { alert, yaml };
}

const camel = (s: string) => s.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase()).replace(/Ms$/, '');

export interface ReviewOptions {
  reads: TypedReads;
  /** The loaded rule groups (the pack the incidents were raised by). */
  groups: () => readonly RuleGroup[];
  timer?: () => number;
}

/** Reviews the newest MAX_REVIEWED incidents that fired in the window. */
export async function reviewIncidents(incidents: readonly IncidentHistory[], o: ReviewOptions): Promise<IncidentReview[]> {
  const fired = incidents.filter((i) => i.alerts.some((a) => a.firstFiringAt)).slice(0, MAX_REVIEWED);
  const out: IncidentReview[] = [];
  // One at a time: each backtest holds its own evaluator's series.
  for (const inc of fired) out.push(await reviewIncident(inc, o));
  return out;
}

export async function reviewIncident(inc: IncidentHistory, o: ReviewOptions): Promise<IncidentReview> {
  const first = [...inc.alerts].filter((a) => a.firstFiringAt).sort((a, b) => Date.parse(a.firstFiringAt!) - Date.parse(b.firstFiringAt!))[0]!;
  const slice = sliceOf(first.labels);
  const firedMs = Date.parse(first.firstFiringAt!);
  const signals = Object.keys(slice).length ? await firstSignals(o.reads, slice, firedMs) : [];
  const moved = signals.find((s) => s.moved_at);
  const firstSignal = moved ? { signal: moved.signal, family: moved.family, moved_at: moved.moved_at! } : null;
  const labelsOf = (l: Record<string, string>) => Object.fromEntries(Object.entries(l).filter(([k]) => k !== 'alertname' && k !== 'severity'));
  const review: IncidentReview = {
    incident_id: inc.id,
    opened_at: inc.openedAt,
    status: inc.status,
    slice,
    signals,
    first_signal: firstSignal,
    first_rule: { alertname: first.alertname, labels: labelsOf(first.labels), fired_at: first.firstFiringAt!, after_first_signal_s: secondsBetween(firstSignal?.moved_at ?? null, first.firstFiringAt) },
    backtest: { ran: false, from: null, to: null, note: null, earlier_in_pack: null, suggested: null },
  };
  if (Object.keys(slice).length === 0) {
    review.backtest.note = 'the first alert names no place (model, tenant, replica, node, …): nothing to replay';
    return review;
  }
  const fromMs = Math.floor((firedMs - WATCH_MS) / 60_000) * 60_000;
  const toMs = firedMs;
  const suggestion = moved ? suggestedRule(moved, slice) : null;
  const pack = o.groups();
  const groups = [...pack.filter((g) => g.name !== 'suggested'), ...(suggestion ? groupsFromText([{ file: 'suggested.yaml', text: suggestion.yaml }]) : [])];
  review.backtest.from = iso(fromMs);
  review.backtest.to = iso(toMs);
  if (groups.length === 0) {
    review.backtest.note = 'no rules loaded';
    return review;
  }
  let episodes: Episode[];
  try {
    episodes = (await runBacktest({ groups, reads: o.reads, fromMs, toMs, ...(o.timer && { timer: o.timer }) })).episodes;
  } catch (e) {
    review.backtest.note = `the backtest failed: ${(e as Error).message}`;
    return review;
  }
  review.backtest.ran = true;
  const firing = (e: Episode) => e.firing_at !== null && Date.parse(e.firing_at) <= toMs && consistent(e.labels, slice);
  const earliest = (list: Episode[]) => list.sort((a, b) => Date.parse(a.firing_at!) - Date.parse(b.firing_at!))[0];
  const inPack = earliest(episodes.filter((e) => e.group !== 'suggested' && firing(e) && Date.parse(e.firing_at!) < firedMs));
  if (inPack) review.backtest.earlier_in_pack = { alertname: inPack.alertname, labels: inPack.labels, fired_at: inPack.firing_at!, after_first_signal_s: secondsBetween(firstSignal?.moved_at ?? null, inPack.firing_at), lead_s: (firedMs - Date.parse(inPack.firing_at!)) / 1000 };
  if (suggestion) {
    const s = earliest(episodes.filter((e) => e.group === 'suggested' && firing(e)));
    review.backtest.suggested = { rule_yaml: suggestion.yaml, alertname: suggestion.alert, fired_at: s?.firing_at ?? null, lead_s: s ? (firedMs - Date.parse(s.firing_at!)) / 1000 : null, after_first_signal_s: s ? secondsBetween(firstSignal!.moved_at, s.firing_at) : null };
  }
  return review;
}
