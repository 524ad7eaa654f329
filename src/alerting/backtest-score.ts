/**
 * Scoring a backtest against known incidents, as the Numenta Anomaly Benchmark judges detectors
 * (Lavin & Ahmad 2015): an alert counts for an incident only if it was raised inside the incident's
 * window (its start to its end plus a grace period, while its data is still in the rules' windows)
 * on a slice consistent with it; every other alert is a false one.
 *
 * The truth file: a JSON list of incidents
 *   [{ "id": "i1", "kind": "slow_replica", "slice": { "model": "ranker", "replica": "r3" },
 *      "start": "2026-06-01T10:12:00Z", "end": "2026-06-01T10:40:00Z", "detail": { "slowdown": 3 } }, …]
 * `slice` names the labels that define the incident (model, model_version, tenant, entry, replica,
 * node, gpu, …); `kind` is optional and groups the figures.
 *
 * - consistent: the alert shares at least one label with the slice, and every label both name has
 *   the same value (an alert on {model: ranker, model_version: v2} is consistent with a slice
 *   {model: ranker, replica: r3}; one on {model: other} or {node: n2, gpu: 1} alone is not);
 * - detected: some consistent episode became active (pending) in [start, end + grace];
 * - top-1 slice: the first such episode names the whole slice (every slice label, same value);
 * - delay: from start to that episode's pending time, in evaluation intervals of its group (and
 *   to firing, where it fired);
 * - false episodes: consistent with no incident; per clean hour = false episodes / the hours of the
 *   range outside every incident window.
 */
import { z } from 'zod';
import { InferlensError, zodIssues } from '../schema/index.ts';
import type { BacktestReply } from '../schema/index.ts';
import type { Episode } from './backtest.ts';

const rfc3339 = z.string().refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' });

export const TruthIncidentSchema = z
  .object({
    id: z.string().min(1).max(256),
    kind: z.string().min(1).max(128).optional(),
    slice: z
      .record(z.string().regex(/^[a-zA-Z_][a-zA-Z0-9_]*$/, { error: 'expected a label name' }), z.string().max(256))
      .refine((s) => Object.keys(s).length > 0, { error: 'name at least one label' }),
    start: rfc3339,
    end: rfc3339,
    /** What the incident was, in numbers or words (an error rate, a slowdown): carried along, not scored. */
    detail: z
      .record(z.string().max(128), z.union([z.string().max(1024), z.number(), z.boolean()]))
      .refine((d) => Object.keys(d).length <= 32, { error: 'at most 32 entries' })
      .optional(),
  })
  .strict()
  .refine((i) => !(Date.parse(i.end) <= Date.parse(i.start)), { error: 'end must be after start', path: ['end'] });
export const TruthSchema = z.array(TruthIncidentSchema).max(10_000);
export type TruthIncident = z.infer<typeof TruthIncidentSchema>;

/** Parses a truth file's JSON value; every problem with its path. */
export function parseTruth(value: unknown, where = 'truth'): TruthIncident[] {
  const r = TruthSchema.safeParse(value);
  if (r.success) {
    const ids = new Set<string>();
    for (const [i, t] of r.data.entries()) {
      if (ids.has(t.id)) throw new InferlensError('invalid_argument', `${where}.${i}.id: "${t.id}" appears twice`);
      ids.add(t.id);
    }
    return r.data;
  }
  throw new InferlensError(
    'invalid_argument',
    zodIssues(r.error)
      .map((p) => `${where}${p.path ? `.${p.path}` : ''}: ${p.message}`)
      .join('; '),
  );
}

/** The score's shapes are the reply's (src/schema/replies/alerting.ts): one declaration for the CLI, the route and the web. */
export type BacktestScore = NonNullable<BacktestReply['score']>;
export type KindScore = BacktestScore['per_kind'][string];
export type IncidentScore = BacktestScore['per_incident'][number];

/** An alert raised this long after an incident ended still belongs to it (its data is still in the windows). */
export const DEFAULT_GRACE_MS = 10 * 60_000;

export function consistent(labels: Record<string, string>, slice: Record<string, string>): boolean {
  let shared = 0;
  for (const [k, v] of Object.entries(slice)) {
    if (labels[k] === undefined) continue;
    if (labels[k] !== v) return false;
    shared++;
  }
  return shared > 0;
}

const namesSlice = (labels: Record<string, string>, slice: Record<string, string>) => Object.entries(slice).every(([k, v]) => labels[k] === v);

function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  return sorted[lo]! + (h - lo) * (sorted[Math.ceil(h)]! - sorted[lo]!);
}

export function scoreBacktest(
  episodes: readonly Episode[],
  truth: readonly TruthIncident[],
  range: { fromMs: number; toMs: number },
  graceMs = DEFAULT_GRACE_MS,
): BacktestScore {
  const windows = truth.map((t) => ({ t, a: Date.parse(t.start), b: Date.parse(t.end) + graceMs }));
  const matched = new Set<Episode>();
  const perIncident: IncidentScore[] = windows.map(({ t, a, b }) => {
    const hits = episodes
      .filter((e) => {
        const p = Date.parse(e.pending_at);
        return p >= a && p <= b && consistent(e.labels, t.slice);
      })
      .sort((x, y) => Date.parse(x.pending_at) - Date.parse(y.pending_at) || Number(namesSlice(y.labels, t.slice)) - Number(namesSlice(x.labels, t.slice)));
    for (const h of hits) matched.add(h);
    const first = hits[0];
    if (!first)
      return { id: t.id, kind: t.kind ?? null, detected: false, alert: null, top1: false, delay_intervals: null, delay_s: null, firing_delay_s: null };
    const delayMs = Math.max(0, Date.parse(first.pending_at) - a);
    return {
      id: t.id,
      kind: t.kind ?? null,
      detected: true,
      alert: { alertname: first.alertname, labels: first.labels, pending_at: first.pending_at, firing_at: first.firing_at },
      top1: namesSlice(first.labels, t.slice),
      delay_intervals: delayMs / first.interval_ms,
      delay_s: delayMs / 1000,
      firing_delay_s: first.firing_at === null ? null : Math.max(0, Date.parse(first.firing_at) - a) / 1000,
    };
  });

  // Hours of the range outside every incident window (windows merged).
  const spans = windows
    .map((w) => [Math.max(range.fromMs, w.a), Math.min(range.toMs, w.b)] as const)
    .filter(([a, b]) => b > a)
    .sort((x, y) => x[0] - y[0]);
  let covered = 0;
  let end = -Infinity;
  for (const [a, b] of spans) {
    if (a > end) covered += b - a;
    else if (b > end) covered += b - end;
    end = Math.max(end, b);
  }
  const cleanHours = Math.max(0, range.toMs - range.fromMs - covered) / 3_600_000;
  const detected = perIncident.filter((i) => i.detected);
  const delays = detected.map((i) => i.delay_intervals!).sort((a, b) => a - b);
  const falseEpisodes = episodes.length - matched.size;
  const kinds = new Map<string, IncidentScore[]>();
  for (const i of perIncident) {
    const k = i.kind ?? '(none)';
    kinds.set(k, [...(kinds.get(k) ?? []), i]);
  }
  return {
    incidents: truth.length,
    detected: detected.length,
    recall: truth.length > 0 ? detected.length / truth.length : null,
    episodes: episodes.length,
    true_episodes: matched.size,
    false_episodes: falseEpisodes,
    precision: episodes.length > 0 ? matched.size / episodes.length : null,
    top1: detected.length > 0 ? detected.filter((i) => i.top1).length / detected.length : null,
    median_delay_intervals: quantile(delays, 0.5),
    p90_delay_intervals: quantile(delays, 0.9),
    clean_hours: cleanHours,
    false_per_clean_hour: cleanHours > 0 ? falseEpisodes / cleanHours : null,
    grace_ms: graceMs,
    per_kind: Object.fromEntries(
      [...kinds].map(([k, list]) => {
        const d = list.filter((i) => i.detected);
        return [
          k,
          {
            incidents: list.length,
            detected: d.length,
            recall: d.length / list.length,
            top1: d.length > 0 ? d.filter((i) => i.top1).length / d.length : null,
            median_delay_intervals: quantile(
              d.map((i) => i.delay_intervals!).sort((a, b) => a - b),
              0.5,
            ),
          },
        ];
      }),
    ),
    per_incident: perIncident,
  };
}
