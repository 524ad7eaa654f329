/**
 * The view state lives in the URL, so a link reproduces the view:
 * `/runtime?model=m&model_version=v2&from=now-1h&to=now&refresh=30` (relative window) or
 * `from=2026-01-01T10:00:00Z&to=…` (absolute); `request=<id>` opens a request.
 */
import type { Dimension, Filters } from './api.ts';

export const VIEWS = ['runtime', 'quality', 'release', 'cost', 'business', 'alerts', 'review'] as const;
export type View = (typeof VIEWS)[number];
export const VIEW_TITLES: Record<View, string> = {
  runtime: 'Runtime',
  quality: 'Model quality',
  release: 'Release comparison',
  cost: 'Cost',
  business: 'Business',
  alerts: 'Alerts',
  review: 'Review',
};

/** The global filters, in the order of the filter bar. */
export const FILTER_DIMS = ['model', 'model_version', 'tenant', 'entry', 'route_rule', 'node', 'replica'] as const satisfies readonly Dimension[];
export type FilterDim = (typeof FILTER_DIMS)[number];
export const FILTER_TITLES: Record<FilterDim, string> = {
  model: 'Model',
  model_version: 'Version',
  tenant: 'Tenant',
  entry: 'Entry',
  route_rule: 'Route rule',
  node: 'Node',
  replica: 'Replica',
};

export const RELATIVE_WINDOWS = ['now-15m', 'now-1h', 'now-3h', 'now-6h', 'now-24h', 'now-7d'] as const;
export const REFRESH_CHOICES_S = [0, 10, 30, 60, 300] as const;

export interface State {
  view: View;
  filters: Partial<Record<FilterDim, string>>;
  /** `now-<duration>` or RFC 3339. */
  from: string;
  /** `now` or RFC 3339. */
  to: string;
  /** Auto-refresh period in seconds; 0 = off. */
  refreshS: number;
  request: string | null;
  /** View-specific parameters (release: baseline, candidate). */
  extra: Record<string, string>;
}

const RESERVED = new Set<string>([...FILTER_DIMS, 'from', 'to', 'refresh', 'request']);

export function parseState(loc: { pathname: string; search: string }): State {
  const seg = loc.pathname.replace(/^\/+/, '').split('/')[0] ?? '';
  const view = (VIEWS as readonly string[]).includes(seg) ? (seg as View) : 'runtime';
  const q = new URLSearchParams(loc.search);
  const filters: State['filters'] = {};
  for (const d of FILTER_DIMS) {
    const v = q.get(d);
    if (v) filters[d] = v;
  }
  const extra: Record<string, string> = {};
  for (const [k, v] of q) if (!RESERVED.has(k)) extra[k] = v;
  const refresh = Number(q.get('refresh') ?? 0);
  return {
    view,
    filters,
    from: q.get('from') ?? 'now-1h',
    to: q.get('to') ?? 'now',
    refreshS: Number.isFinite(refresh) && refresh >= 0 ? refresh : 0,
    request: q.get('request'),
    extra,
  };
}

export function stateUrl(s: State): string {
  const q = new URLSearchParams();
  for (const d of FILTER_DIMS) {
    const v = s.filters[d];
    if (v) q.set(d, v);
  }
  q.set('from', s.from);
  q.set('to', s.to);
  if (s.refreshS > 0) q.set('refresh', String(s.refreshS));
  for (const [k, v] of Object.entries(s.extra)) q.set(k, v);
  if (s.request) q.set('request', s.request);
  return `/${s.view}?${q}`;
}

export function apiFilters(s: State): Filters {
  const f: Filters = {};
  for (const [k, v] of Object.entries(s.filters)) if (v) f[k as FilterDim] = v;
  return f;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `15m` → 900000; undefined when malformed. */
export function durationMs(s: string): number | undefined {
  const m = /^(\d+)(s|m|h|d)$/.exec(s);
  return m ? Number(m[1]) * UNIT_MS[m[2]!]! : undefined;
}

/** Steps the charts use; the smallest that gives at most ~90 buckets wins (1 h → 1 m). */
const STEPS: [string, number][] = [
  ['10s', 10_000],
  ['30s', 30_000],
  ['1m', 60_000],
  ['2m', 120_000],
  ['5m', 300_000],
  ['10m', 600_000],
  ['15m', 900_000],
  ['30m', 1_800_000],
  ['1h', 3_600_000],
  ['3h', 10_800_000],
  ['6h', 21_600_000],
  ['12h', 43_200_000],
  ['1d', 86_400_000],
];
const TARGET_BUCKETS = 90;

export interface TimeWindow {
  fromMs: number;
  toMs: number;
  from: string;
  to: string;
  step: string;
  stepMs: number;
  /** Bucket starts (epoch ms) covering [fromMs, toMs): the shared x axis of every chart. */
  buckets: number[];
}

function timeOf(s: string, nowMs: number): number {
  if (s === 'now') return nowMs;
  const rel = /^now-(\d+[smhd])$/.exec(s);
  if (rel) return nowMs - (durationMs(rel[1]!) ?? 3_600_000);
  const t = Date.parse(s);
  return Number.isFinite(t) ? t : nowMs;
}

/**
 * Resolves the window at `nowMs`, aligned to whole steps so refreshes keep the same bucket edges:
 * now-1h at 10:17:20 with a 1 m step → [09:17, 10:18), 61 buckets.
 */
export function resolveWindow(s: State, nowMs: number): TimeWindow {
  let fromMs = timeOf(s.from, nowMs);
  let toMs = timeOf(s.to, nowMs);
  if (!(toMs > fromMs)) toMs = fromMs + 3_600_000;
  const span = toMs - fromMs;
  const [step, stepMs] = STEPS.find(([, ms]) => span / ms <= TARGET_BUCKETS) ?? STEPS[STEPS.length - 1]!;
  fromMs = Math.floor(fromMs / stepMs) * stepMs;
  toMs = Math.ceil(toMs / stepMs) * stepMs;
  if (toMs === fromMs) toMs += stepMs;
  const buckets: number[] = [];
  for (let t = fromMs; t < toMs; t += stepMs) buckets.push(t);
  return { fromMs, toMs, from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), step, stepMs, buckets };
}
