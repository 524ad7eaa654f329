/**
 * The periodic review: over a period (24 h, 7 d, …) ending now, against the period before it, each
 * section ranked and carrying the numbers and sample counts behind it:
 *
 * - tail latency by model and by model × version: P99, P99.9 of `total_ms` (exact, type 7) with
 *   `n`, and their change against the previous period;
 * - versions with the largest error-rate change (weighted requests, errors, rate, previous rate);
 * - GPU pools and nodes running hot: mean and peak utilisation, the share of GPU-minutes at or
 *   above 85 % (time near the limit), the least memory headroom;
 * - alerting health from the incident log: incidents, episodes per rule, the share that led to an
 *   action, the median time from firing to a person's approval or rejection, the noisiest rules,
 *   loaded rules that never fired;
 * - cost per model and per tenant (src/query/cost.ts) against the previous period.
 *
 * - "which signal was missing" for the period's newest incidents (missing-signal.ts).
 * - versions that behaved abnormally, tenants and entries with the largest error or latency
 *   excess, quality drift and golden pass rates per version (sections.ts).
 */
import { parseMeasure } from '../schema/index.ts';
import type { Filters, Measure, QueryRow, QuerySpec } from '../schema/index.ts';
import type { CostPrices, CostResult, ResourceQuerySpec, ResourceRow } from '../query/index.ts';
import { consistent } from '../alerting/index.ts';
import type { IncidentHistoryReply, RuleGroup, RuleGroupView } from '../alerting/index.ts';
import type { TypedReads } from '../query/index.ts';
import { reviewIncidents } from './missing-signal.ts';
import { buildSections } from './sections.ts';
import type { SectionReads, Sections } from './sections.ts';
import type { IncidentReview } from './missing-signal.ts';

/** What a report reads: the caller's scoped reads, its cost, the incident log and the loaded rules. */
export interface ReportReads extends Omit<SectionReads, 'aggregate'> {
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  resources(spec: ResourceQuerySpec): Promise<ResourceRow[]>;
  cost(req: { fromMs: number; toMs: number; stepMs: number; filters: Filters }, prices: CostPrices): Promise<CostResult>;
  /** The incident log over a window; absent where alerting does not run in this process. */
  history?: (fromMs: number, toMs: number) => Promise<IncidentHistoryReply>;
  rules?: () => readonly RuleGroupView[];
  /** The typed reads the backtest replays the rules on, and the loaded rule groups ("which signal was missing"). */
  typed?: TypedReads;
  groups?: () => readonly RuleGroup[];
}

/** Utilisation at or above this is "near the limit" (the capacity analysis' GPU level). */
export const HOT_UTILIZATION = 0.85;
/** Rows each ranked section keeps. */
export const TOP = 10;

const ratio = (now: number | null, before: number | null) => (now != null && before != null && before > 0 ? now / before - 1 : null);
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' ? v : null);
const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export interface LatencyRow {
  model: string | null;
  model_version?: string | null;
  p99_ms: number | null;
  p999_ms: number | null;
  n: number;
  previous: { p99_ms: number | null; p999_ms: number | null; n: number } | null;
  p99_change: number | null;
  p999_change: number | null;
}

export interface ErrorRow {
  model: string | null;
  model_version: string | null;
  requests: number;
  error_rate: number | null;
  previous_requests: number;
  previous_error_rate: number | null;
  /** Error-rate points gained since the previous period. */
  change_points: number | null;
}

export interface HotRow {
  pool?: string | null;
  node?: string | null;
  gpus: number;
  mean_utilization: number | null;
  peak_utilization: number | null;
  /** GPU-minutes at or above HOT_UTILIZATION over all GPU-minutes with a reading. */
  hot_share: number | null;
  gpu_minutes: number;
  /** 1 − peak used / total memory, the tightest GPU's. */
  min_memory_headroom: number | null;
  previous_mean_utilization: number | null;
}

export interface RuleHealthRow {
  alertname: string;
  episodes: number;
  with_action: number;
  /** Median minutes from the alert firing to a person acknowledging its incident or approving or rejecting its action. */
  median_minutes_to_acknowledge: number | null;
  acknowledged: number;
}

export interface Report {
  period: { from: string; to: string; ms: number };
  /** What the report was narrowed to (the filter bar); {} for everything. */
  filters: Filters;
  previous: { from: string; to: string };
  latency: { by_model: LatencyRow[]; by_version: LatencyRow[] };
  errors: ErrorRow[];
  gpu: { by_pool: HotRow[]; by_node: HotRow[] };
  alerting: {
    available: boolean;
    incidents: number;
    episodes: number;
    action_share: number | null;
    /** Incidents a person acknowledged, and the median minutes from their first firing to it. */
    acknowledged_incidents: number;
    median_minutes_to_acknowledge: number | null;
    noisiest: RuleHealthRow[];
    never_fired: string[];
  };
  /** Per incident of the period (newest first, at most MAX_REVIEWED): the first signal, the first rule, what would have fired earlier. */
  incidents: { available: boolean; reviewed: IncidentReview[] };
  /** Versions that behaved abnormally (release verdicts against the previous period and the main version). */
  versions: Sections['versions'];
  /** Tenants and entries with the largest error and latency excess (the slice finder). */
  slices: Sections['slices'];
  /** Quality drift and golden pass rates per version. */
  quality: Sections['quality'];
  cost: {
    currency: string | null;
    priced: boolean;
    unlock: string | null;
    total: number | null;
    previous_total: number | null;
    change: number | null;
    gpu_seconds: number;
    by_model: {
      model: string | null;
      cost: number | null;
      previous: number | null;
      change: number | null;
      requests: number;
      cost_per_1k_requests: number | null;
    }[];
    by_tenant: {
      tenant: string | null;
      cost: number | null;
      previous: number | null;
      change: number | null;
      requests: number;
      cost_per_1k_requests: number | null;
    }[];
  };
}

const measures = (names: string[]) => names.map((name) => ({ name, measure: parseMeasure(name) as Measure }));
const spec = (fromMs: number, toMs: number, groupBy: QuerySpec['groupBy'], names: string[], filters: Filters): QuerySpec => ({
  fromMs,
  toMs,
  filters,
  groupBy,
  includeProbes: false,
  limit: 10_000,
  measures: measures(names),
});
const keyOf = (r: QueryRow, dims: readonly string[]) => JSON.stringify(dims.map((d) => r[d] ?? null));

async function latency(reads: ReportReads, cur: [number, number], prev: [number, number], dims: QuerySpec['groupBy'], filters: Filters): Promise<LatencyRow[]> {
  const names = ['p99(total_ms)', 'p999(total_ms)', 'n(total_ms)'];
  const [now, before] = await Promise.all([
    reads.aggregate(spec(cur[0], cur[1], dims, names, filters)),
    reads.aggregate(spec(prev[0], prev[1], dims, names, filters)),
  ]);
  const old = new Map(before.map((r) => [keyOf(r, dims), r]));
  return now
    .filter((r) => (num(r['n(total_ms)']) ?? 0) > 0)
    .map((r) => {
      const b = old.get(keyOf(r, dims));
      const previous =
        b && (num(b['n(total_ms)']) ?? 0) > 0 ? { p99_ms: num(b['p99(total_ms)']), p999_ms: num(b['p999(total_ms)']), n: num(b['n(total_ms)']) ?? 0 } : null;
      const row: LatencyRow = {
        model: str(r['model']),
        p99_ms: num(r['p99(total_ms)']),
        p999_ms: num(r['p999(total_ms)']),
        n: num(r['n(total_ms)']) ?? 0,
        previous,
        p99_change: ratio(num(r['p99(total_ms)']), previous?.p99_ms ?? null),
        p999_change: ratio(num(r['p999(total_ms)']), previous?.p999_ms ?? null),
      };
      if (dims.includes('model_version')) row.model_version = str(r['model_version']);
      return row;
    })
    .sort((a, b) => (b.p99_ms ?? -1) - (a.p99_ms ?? -1))
    .slice(0, TOP);
}

async function errors(reads: ReportReads, cur: [number, number], prev: [number, number], filters: Filters): Promise<ErrorRow[]> {
  const dims: QuerySpec['groupBy'] = ['model', 'model_version'];
  const names = ['count', 'error_rate'];
  const [now, before] = await Promise.all([
    reads.aggregate(spec(cur[0], cur[1], dims, names, filters)),
    reads.aggregate(spec(prev[0], prev[1], dims, names, filters)),
  ]);
  const old = new Map(before.map((r) => [keyOf(r, dims), r]));
  return now
    .map((r) => {
      const b = old.get(keyOf(r, dims));
      const rate = num(r['error_rate']);
      const prevRate = b ? num(b['error_rate']) : null;
      return {
        model: str(r['model']),
        model_version: str(r['model_version']),
        requests: num(r['count']) ?? 0,
        error_rate: rate,
        previous_requests: b ? (num(b['count']) ?? 0) : 0,
        previous_error_rate: prevRate,
        change_points: rate != null && prevRate != null ? (rate - prevRate) * 100 : null,
      };
    })
    .sort((a, b) => (b.change_points ?? b.error_rate ?? 0) - (a.change_points ?? a.error_rate ?? 0))
    .slice(0, TOP);
}

/** Per GPU and minute: utilisation, memory used and total; folded by pool or by node. */
function hot(rows: readonly ResourceRow[], prevRows: readonly ResourceRow[], by: 'pool' | 'node'): HotRow[] {
  const fold = (list: readonly ResourceRow[]) => {
    const out = new Map<
      string,
      {
        key: string | null;
        gpus: Set<string>;
        sum: number;
        minutes: number;
        hot: number;
        peak: number;
        memUsed: Map<string, number>;
        memTotal: Map<string, number>;
      }
    >();
    for (const r of list) {
      const key = (r[by] ?? null) as string | null;
      const id = JSON.stringify(key);
      const g = JSON.stringify([r.node ?? null, r.gpu ?? null]);
      const cur = out.get(id) ?? {
        key,
        gpus: new Set<string>(),
        sum: 0,
        minutes: 0,
        hot: 0,
        peak: 0,
        memUsed: new Map<string, number>(),
        memTotal: new Map<string, number>(),
      };
      if (r.metric === 'gpu_utilization_ratio') {
        cur.gpus.add(g);
        cur.sum += r.avg;
        cur.minutes++;
        if (r.avg >= HOT_UTILIZATION) cur.hot++;
        cur.peak = Math.max(cur.peak, r.max);
      } else if (r.metric === 'gpu_memory_used_bytes') cur.memUsed.set(g, Math.max(cur.memUsed.get(g) ?? 0, r.max));
      else if (r.metric === 'gpu_memory_total_bytes') cur.memTotal.set(g, Math.max(cur.memTotal.get(g) ?? 0, r.max));
      out.set(id, cur);
    }
    return out;
  };
  const now = fold(rows);
  const before = fold(prevRows);
  return [...now.entries()]
    .filter(([, v]) => v.minutes > 0)
    .map(([id, v]) => {
      const headrooms = [...v.memUsed.entries()].flatMap(([g, used]) => {
        const total = v.memTotal.get(g);
        return total ? [1 - used / total] : [];
      });
      const b = before.get(id);
      return {
        [by]: v.key,
        gpus: v.gpus.size,
        mean_utilization: v.sum / v.minutes,
        peak_utilization: v.peak,
        hot_share: v.hot / v.minutes,
        gpu_minutes: v.minutes,
        min_memory_headroom: headrooms.length ? Math.min(...headrooms) : null,
        previous_mean_utilization: b && b.minutes > 0 ? b.sum / b.minutes : null,
      } as HotRow;
    })
    .sort((a, b) => (b.hot_share ?? 0) - (a.hot_share ?? 0) || (b.mean_utilization ?? 0) - (a.mean_utilization ?? 0))
    .slice(0, TOP);
}

function alertingHealth(h: IncidentHistoryReply | null, rules: readonly RuleGroupView[]): Report['alerting'] {
  if (!h)
    return {
      available: false,
      incidents: 0,
      episodes: 0,
      action_share: null,
      acknowledged_incidents: 0,
      median_minutes_to_acknowledge: null,
      noisiest: [],
      never_fired: [],
    };
  const per = new Map<string, { episodes: number; withAction: number; acks: number[] }>();
  /** Minutes from each acknowledged incident's first firing to its acknowledgement. */
  const incidentAcks: number[] = [];
  for (const inc of h.incidents) {
    for (const t of inc.timeline) {
      if (!t.alertname) continue;
      const r = per.get(t.alertname) ?? { episodes: 0, withAction: 0, acks: [] };
      if (t.kind === 'alert_firing') r.episodes++;
      if (t.kind === 'action_proposed') r.withAction++;
      per.set(t.alertname, r);
    }
    // Time to acknowledge: from an alert's first firing to the first a person did about it — the
    // incident's acknowledgement, or an approval or rejection of the alert's action (not `auto`).
    const ackMs = inc.acknowledged_at ? Date.parse(inc.acknowledged_at) : null;
    if (ackMs !== null && inc.alerts.some((x) => x.firstFiringAt)) {
      const first = Math.min(...inc.alerts.filter((x) => x.firstFiringAt).map((x) => Date.parse(x.firstFiringAt!)));
      if (ackMs >= first) incidentAcks.push((ackMs - first) / 60_000);
    }
    for (const alert of inc.alerts) {
      if (!alert.firstFiringAt) continue;
      const firedMs = Date.parse(alert.firstFiringAt);
      const decided = inc.actions
        .filter((a) => a.alertname === alert.alertname)
        .flatMap((a) =>
          inc.timeline
            .filter((t) => (t.kind === 'action_approved' || t.kind === 'action_rejected') && t.detail['action_id'] === a.id && t.detail['by'] !== 'auto')
            .map((t) => Date.parse(t.ts)),
        );
      const at = [...decided, ...(ackMs !== null ? [ackMs] : [])].filter((t) => t >= firedMs);
      if (at.length) per.get(alert.alertname)?.acks.push((Math.min(...at) - firedMs) / 60_000);
    }
  }
  const noisiest = [...per.entries()]
    .map(([alertname, r]) => ({
      alertname,
      episodes: r.episodes,
      with_action: r.withAction,
      acknowledged: r.acks.length,
      median_minutes_to_acknowledge: median(r.acks),
    }))
    .filter((r) => r.episodes > 0)
    .sort((a, b) => b.episodes - a.episodes || a.alertname.localeCompare(b.alertname));
  const episodes = noisiest.reduce((a, r) => a + r.episodes, 0);
  const fired = new Set(noisiest.map((r) => r.alertname));
  const loaded = [...new Set(rules.flatMap((g) => g.rules.map((r) => r.alert)))];
  return {
    available: true,
    incidents: h.incidents.length,
    episodes,
    action_share: episodes > 0 ? noisiest.reduce((a, r) => a + Math.min(r.with_action, r.episodes), 0) / episodes : null,
    acknowledged_incidents: incidentAcks.length,
    median_minutes_to_acknowledge: median(incidentAcks),
    noisiest: noisiest.slice(0, TOP),
    never_fired: loaded.filter((n) => !fired.has(n)).sort(),
  };
}

function costSection(now: CostResult, before: CostResult): Report['cost'] {
  const prevModel = new Map(before.by_model.map((m) => [m.model, m.cost]));
  const prevTenant = new Map(before.by_tenant.map((m) => [m.tenant, m.cost]));
  return {
    currency: now.currency,
    priced: now.priced,
    unlock: now.unlock,
    total: now.total.cost,
    previous_total: before.total.cost,
    change: ratio(now.total.cost, before.total.cost),
    gpu_seconds: now.total.gpu_seconds,
    by_model: now.by_model.slice(0, TOP).map((m) => ({
      model: m.model,
      cost: m.cost,
      previous: prevModel.get(m.model) ?? null,
      change: ratio(m.cost, prevModel.get(m.model) ?? null),
      requests: m.requests,
      cost_per_1k_requests: m.cost_per_1k_requests,
    })),
    by_tenant: now.by_tenant.slice(0, TOP).map((t) => ({
      tenant: t.tenant,
      cost: t.cost,
      previous: prevTenant.get(t.tenant) ?? null,
      change: ratio(t.cost, prevTenant.get(t.tenant) ?? null),
      requests: t.requests,
      cost_per_1k_requests: t.cost_per_1k_requests,
    })),
  };
}

/** The incidents with an alert on a place consistent with the filters (shares a label, contradicts none). */
function narrowHistory(h: IncidentHistoryReply, filters: Filters): IncidentHistoryReply {
  const want = Object.fromEntries(Object.entries(filters).filter((e): e is [string, string] => typeof e[1] === 'string'));
  if (Object.keys(want).length === 0) return h;
  return { ...h, incidents: h.incidents.filter((i) => i.alerts.some((a) => consistent(a.labels, want))) };
}

/** The review of [nowMs − periodMs, nowMs) against the period before it. */
export async function buildReport(reads: ReportReads, prices: CostPrices, o: { periodMs: number; nowMs: number; filters?: Filters }): Promise<Report> {
  const filters: Filters = o.filters ?? {};
  // GPUs are shared: a report narrowed to a model or tenant keeps every GPU, one narrowed to a node or replica keeps those.
  const gpuFilters = Object.fromEntries(
    (['node', 'replica'] as const).flatMap((k) => (typeof filters[k] === 'string' ? [[k, filters[k]]] : [])),
  ) as ResourceQuerySpec['filters'];
  const cur: [number, number] = [o.nowMs - o.periodMs, o.nowMs];
  const prev: [number, number] = [o.nowMs - 2 * o.periodMs, o.nowMs - o.periodMs];
  // Cost and GPU minutes on steps of a minute up to a day, coarser beyond (at most 10,000 steps).
  const stepMs = Math.max(60_000, Math.ceil(o.periodMs / 10_000 / 60_000) * 60_000);
  const gpuSpec = (w: [number, number]): ResourceQuerySpec => ({
    fromMs: w[0],
    toMs: w[1],
    stepMs,
    metrics: ['gpu_utilization_ratio', 'gpu_memory_used_bytes', 'gpu_memory_total_bytes'],
    filters: gpuFilters,
    groupBy: ['node', 'gpu', 'pool'],
  });
  const [byModel, byVersion, errs, gpuNow, gpuBefore, costNow, costBefore, history, sections] = await Promise.all([
    latency(reads, cur, prev, ['model'], filters),
    latency(reads, cur, prev, ['model', 'model_version'], filters),
    errors(reads, cur, prev, filters),
    reads.resources(gpuSpec(cur)),
    reads.resources(gpuSpec(prev)),
    reads.cost({ fromMs: cur[0], toMs: cur[1], stepMs, filters }, prices),
    reads.cost({ fromMs: prev[0], toMs: prev[1], stepMs, filters }, prices),
    // Through now inclusive: a step logged at this very millisecond belongs to the period.
    reads.history ? reads.history(cur[0], cur[1] + 1).then((h) => narrowHistory(h, filters)) : Promise.resolve(null),
    buildSections(reads, cur, prev, filters),
  ]);
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    period: { from: iso(cur[0]), to: iso(cur[1]), ms: o.periodMs },
    filters,
    previous: { from: iso(prev[0]), to: iso(prev[1]) },
    latency: { by_model: byModel, by_version: byVersion },
    errors: errs,
    gpu: { by_pool: hot(gpuNow, gpuBefore, 'pool'), by_node: hot(gpuNow, gpuBefore, 'node') },
    versions: sections.versions,
    slices: sections.slices,
    quality: sections.quality,
    alerting: alertingHealth(history, reads.rules?.() ?? []),
    incidents:
      history && reads.typed && reads.groups
        ? { available: true, reviewed: await reviewIncidents(history.incidents, { reads: reads.typed, groups: reads.groups }) }
        : { available: false, reviewed: [] },
    cost: costSection(costNow, costBefore),
  };
}
