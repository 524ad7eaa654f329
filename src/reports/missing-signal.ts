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
 * An incident may reach several places in turn (alerting groups by model, so one incident can hold
 * a slow replica and, later, a tenant's errors): each place is reviewed by its first alert
 * (`leadsOf`). A place whose slice names a GPU is judged on resource signals only (requests carry no
 * GPU).
 *
 * Bounded: the newest MAX_REVIEWED places of the period; backtests of overlapping half hours run as
 * one over their union.
 */
import { Document, isMap } from 'yaml';
import { consistent, groupsFromText, runBacktest } from '../alerting/index.ts';
import type { Episode, IncidentHistory, RuleGroup } from '../alerting/index.ts';
import type { TypedReads } from '../query/index.ts';
import { DIMENSIONS } from '../schema/index.ts';
import { WATCH_MS, firstSignals } from './first-signals.ts';
import type { SignalMove } from './first-signals.ts';

/** Places reviewed per report (the newest first firings). */
export const MAX_REVIEWED = 8;
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
  /** The backtest of the half hour before the first firing (from an earlier problem's firing on a consistent place, when later): what would have fired earlier. */
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
export function suggestedRule(
  s: Pick<SignalMove, 'signal' | 'family'>,
  slice: Record<string, string>,
  group = 'suggested',
): { alert: string; yaml: string } | null {
  const eventBy = Object.keys(slice)
    .filter((k) => (DIMENSIONS as readonly string[]).includes(k))
    .slice(0, 4);
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
    condition = {
      kind: 'resource',
      metric: 'gpu_memory_used_bytes',
      divide_by: 'gpu_memory_total_bytes',
      window: '10m',
      agg: 'trend',
      step: '15s',
      alpha: 0.001,
      by: resBy,
      op: '>',
      value: 0.05,
    };
  } else if (s.signal === 'gpu_utilization_ratio') {
    if (resBy.length === 0) return null;
    alert = 'SuggestedGpuBusy';
    condition = { kind: 'resource', metric: 'gpu_utilization_ratio', window: '5m', agg: 'avg', by: resBy, op: '>', value: 0.9 };
  } else return null;
  if (condition['kind'] !== 'resource' && eventBy.length === 0) return null;
  const doc = new Document({
    groups: [{ name: group, interval: '1m', rules: [{ alert, condition, for: '0s', severity: 'warning', labels: { suggested: 'true' } }] }],
  });
  // The condition and labels on one line each, as the pack writes short ones.
  for (const key of ['condition', 'labels']) {
    const node = doc.getIn(['groups', 0, 'rules', 0, key], true);
    if (isMap(node)) node.flow = true;
  }
  const yaml = doc.toString({ lineWidth: 0 });
  return { alert, yaml };
}

const camel = (s: string) => s.replace(/(^|_)(\w)/g, (_m, _u, c: string) => c.toUpperCase()).replace(/Ms$/, '');

export interface ReviewOptions {
  reads: TypedReads;
  /** The loaded rule groups (the pack the incidents were raised by). */
  groups: () => readonly RuleGroup[];
  timer?: () => number;
}

/** One place an incident reached: its first-firing alert there. */
interface Lead {
  inc: IncidentHistory;
  alert: IncidentHistory['alerts'][number];
  slice: Record<string, string>;
  firedMs: number;
}

/**
 * The places an incident reached, each by its first alert: an alert starts a new one unless an
 * earlier one of the incident fired within LEAD_GAP_MS before it by the same rule, or on a place
 * that contains or is contained in it (the same problem seen by a second rule). An incident grouped by model can span several problems in turn
 * (the demo's cycle is one incident of spam-filter); each is reviewed.
 */
export function leadsOf(inc: IncidentHistory): Lead[] {
  const leads: Lead[] = [];
  const fired = inc.alerts.filter((a) => a.firstFiringAt).sort((a, b) => Date.parse(a.firstFiringAt!) - Date.parse(b.firstFiringAt!));
  for (const alert of fired) {
    const slice = sliceOf(alert.labels);
    const firedMs = Date.parse(alert.firstFiringAt!);
    // The same problem: within the gap, the same rule on another place (a rule fanning out over
    // tenants), or a place containing or contained in it ({model, v1} and {model, v1, replica-1}).
    const seen = leads.some((l) => firedMs - l.firedMs <= LEAD_GAP_MS && (l.alert.alertname === alert.alertname || nested(l.slice, slice)));
    if (!seen) leads.push({ inc, alert, slice, firedMs });
  }
  return leads;
}

/** Every label of `inner` has the same value in `outer`. */
const within = (inner: Record<string, string>, outer: Record<string, string>) => Object.entries(inner).every(([k, v]) => outer[k] === v);
/** One place contains the other. */
const nested = (a: Record<string, string>, b: Record<string, string>) => within(a, b) || within(b, a);

/** An alert within this long after an earlier one on the same place, or one containing or contained in it, belongs to the same problem. */
export const LEAD_GAP_MS = 5 * 60_000;

/**
 * Reviews the places the period's incidents reached (the newest MAX_REVIEWED), oldest first. The
 * backtests of overlapping half hours run as one: the pack and each place's suggested rule (a group
 * of its own) replayed once over their union.
 */
export async function reviewIncidents(incidents: readonly IncidentHistory[], o: ReviewOptions): Promise<IncidentReview[]> {
  const leads = incidents
    .flatMap(leadsOf)
    .sort((a, b) => b.firedMs - a.firedMs)
    .slice(0, MAX_REVIEWED)
    .reverse();
  const reviews: {
    lead: Lead;
    review: IncidentReview;
    suggestion: { alert: string; yaml: string; group: string } | null;
    fromMs: number;
    replayFromMs: number;
  }[] = [];
  // One at a time: each reads a few hundred minute buckets.
  for (const [i, lead] of leads.entries()) {
    // Moves before an earlier problem of the incident on a place containing or contained in this one fired are that problem's.
    const replayFromMs = Math.floor((lead.firedMs - WATCH_MS) / 60_000) * 60_000;
    const earlier = leadsOf(lead.inc)
      .filter((l) => l.firedMs < lead.firedMs && nested(l.slice, lead.slice))
      .map((l) => l.firedMs);
    const fromMs = Math.max(replayFromMs, ...earlier);
    const signals = Object.keys(lead.slice).length
      ? await firstSignals(o.reads, lead.slice, lead.firedMs, { events: !('gpu' in lead.slice), watchFromMs: fromMs })
      : [];
    const moved = signals.find((x) => x.moved_at);
    const firstSignal = moved ? { signal: moved.signal, family: moved.family, moved_at: moved.moved_at! } : null;
    const group = `suggested-${i + 1}`;
    const suggestion = moved && Object.keys(lead.slice).length ? suggestedRule(moved, lead.slice, group) : null;
    const review: IncidentReview = {
      incident_id: lead.inc.id,
      opened_at: lead.inc.openedAt,
      status: lead.inc.status,
      slice: lead.slice,
      signals,
      first_signal: firstSignal,
      first_rule: {
        alertname: lead.alert.alertname,
        labels: labelsOf(lead.alert.labels),
        fired_at: lead.alert.firstFiringAt!,
        after_first_signal_s: secondsBetween(firstSignal?.moved_at ?? null, lead.alert.firstFiringAt),
      },
      backtest: { ran: false, from: iso(fromMs), to: iso(lead.firedMs), note: null, earlier_in_pack: null, suggested: null },
    };
    if (Object.keys(lead.slice).length === 0) {
      review.backtest = {
        ...review.backtest,
        from: null,
        to: null,
        note: 'the first alert names no place (model, tenant, replica, node, …): nothing to replay',
      };
    }
    reviews.push({ lead, review, suggestion: suggestion ? { ...suggestion, group } : null, fromMs, replayFromMs });
  }
  // Overlapping half hours: one backtest over their union.
  const todo = reviews.filter((r) => r.review.backtest.from !== null).sort((a, b) => a.replayFromMs - b.replayFromMs);
  const clusters: (typeof todo)[] = [];
  for (const r of todo) {
    const last = clusters.at(-1);
    if (last && r.replayFromMs <= Math.max(...last.map((x) => x.lead.firedMs))) last.push(r);
    else clusters.push([r]);
  }
  const pack = o.groups().filter((g) => !g.name.startsWith('suggested'));
  for (const cluster of clusters) {
    const fromMs = Math.min(...cluster.map((r) => r.replayFromMs));
    const toMs = Math.max(...cluster.map((r) => r.lead.firedMs));
    let episodes: Episode[] | null = null;
    let note: string | null = null;
    try {
      const groups = [
        ...pack,
        ...cluster.flatMap((r) => (r.suggestion ? groupsFromText([{ file: `${r.suggestion.group}.yaml`, text: r.suggestion.yaml }]) : [])),
      ];
      if (groups.length === 0) note = 'no rules loaded';
      else episodes = (await runBacktest({ groups, reads: o.reads, fromMs, toMs, ...(o.timer && { timer: o.timer }) })).episodes;
    } catch (e) {
      note = `the backtest failed: ${(e as Error).message}`;
    }
    for (const r of cluster) judgeBacktest(r.review, r.lead, r.fromMs, r.suggestion, episodes, note);
  }
  return reviews.map((r) => r.review);
}

const labelsOf = (l: Record<string, string>) => Object.fromEntries(Object.entries(l).filter(([k]) => k !== 'alertname' && k !== 'severity'));

/** What the backtest says for one place: the earliest consistent firing of the pack before the first rule's, and the suggested rule's. */
function judgeBacktest(
  review: IncidentReview,
  lead: Lead,
  fromMs: number,
  suggestion: { alert: string; yaml: string; group: string } | null,
  episodes: Episode[] | null,
  note: string | null,
): void {
  const b = review.backtest;
  if (!episodes) {
    b.note = note;
    return;
  }
  b.ran = true;
  const firedMs = lead.firedMs;
  const firstSignal = review.first_signal;
  const firing = (e: Episode) =>
    e.firing_at !== null && Date.parse(e.firing_at) >= fromMs && Date.parse(e.firing_at) <= firedMs && consistent(e.labels, lead.slice);
  const earliest = (list: Episode[]) => list.sort((x, y) => Date.parse(x.firing_at!) - Date.parse(y.firing_at!))[0];
  // An alert of the incident that fired live before this place's first is no missing signal: it was raised.
  const key = (alertname: string, labels: Record<string, string>) => JSON.stringify([alertname, Object.entries(sliceOf(labels)).sort()]);
  const raised = lead.inc.alerts.filter((x) => x.firstFiringAt && Date.parse(x.firstFiringAt) < firedMs).map((x) => key(x.alertname, x.labels));
  const wasRaised = (e: Episode) => raised.includes(key(e.alertname, e.labels));
  const inPack = earliest(episodes.filter((e) => !e.group.startsWith('suggested') && firing(e) && Date.parse(e.firing_at!) < firedMs && !wasRaised(e)));
  if (inPack)
    b.earlier_in_pack = {
      alertname: inPack.alertname,
      labels: inPack.labels,
      fired_at: inPack.firing_at!,
      after_first_signal_s: secondsBetween(firstSignal?.moved_at ?? null, inPack.firing_at),
      lead_s: (firedMs - Date.parse(inPack.firing_at!)) / 1000,
    };
  if (suggestion) {
    // Built on the first signal: a firing before that signal moved is noise, not an earlier warning.
    const movedMs = firstSignal ? Date.parse(firstSignal.moved_at) : fromMs;
    const s = earliest(episodes.filter((e) => e.group === suggestion.group && firing(e) && Date.parse(e.firing_at!) >= movedMs));
    b.suggested = {
      rule_yaml: suggestion.yaml,
      alertname: suggestion.alert,
      fired_at: s?.firing_at ?? null,
      lead_s: s ? (firedMs - Date.parse(s.firing_at!)) / 1000 : null,
      after_first_signal_s: s && firstSignal ? secondsBetween(firstSignal.moved_at, s.firing_at) : null,
    };
  }
}
