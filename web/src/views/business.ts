/**
 * Business: conversion and feedback by version and tenant (`POST /v1/quality/feedback`, feedback and
 * business events joined to requests by request_id at query time), the conversion rate by version
 * over time, and the feedback that has no stored request yet (orphans).
 */
import { post } from '../api.ts';
import type { FeedbackReply, FeedbackRowReply } from '../../../src/schema/replies.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtNum, fmtPct } from '../format.ts';
import { Panel } from '../panel.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { SeriesSpec } from '../charts/timeseries.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard, shareBar, table } from './common.ts';

type Rec = FeedbackRowReply;

const NEEDS_WHY =
  'Send feedback or business events (POST /v1/feedback with request_id and kind conversion, click, thumbs, rating, correct or label) to see them here.';

/** The columns of a feedback row: rate, the count it rests on, and the feedback kind that fills it. */
const RATES = [
  ['conversion', 'conversion_rate', 'conversions', 'conversion'],
  ['click', 'click_rate', 'clicks', 'click'],
  ['thumbs up', 'thumbs_up_rate', 'thumbs_n', 'thumbs'],
  ['correct', 'correct_rate', 'correct_n', 'correct'],
  ['label accuracy', 'label_accuracy', 'label_n', 'label'],
] as const satisfies readonly (readonly [string, keyof Rec, keyof Rec, string])[];

/** A group's dimension value as text ('(none)' when the group has none). */
const dimOf = (r: Rec, d: string): string | null => (typeof r[d] === 'string' ? r[d] : null);

function feedbackTable(rows: Rec[], dims: string[]): { el: HTMLElement; missing: string[] } {
  // A rate shows only where its kind of feedback arrived; a column with none anywhere is left out.
  const present = RATES.filter(([, , n]) => rows.some((r) => r[n] > 0));
  const missing: string[] = RATES.filter((x) => !present.includes(x)).map(([, , , kind]) => kind);
  const hasRating = rows.some((r) => r.rating_n > 0);
  if (!hasRating) missing.push('rating');
  const el = table(
    [...dims, 'requests', 'with feedback', ...present.map(([t]) => t), ...(hasRating ? ['rating'] : [])],
    rows.map((r) => [
      ...dims.map((d) => dimOf(r, d) ?? '(none)'),
      fmtNum(r.requests, 0),
      fmtPct(r.with_feedback / (r.requests || 1), 1),
      ...present.map(([, rate]) => shareBar(r[rate], colorFor(rate, 0))),
      ...(hasRating ? [fmtNum(r.rating_mean, 2)] : []),
    ]),
    (i) => Object.fromEntries(dims.map((d) => [d === 'model_version' ? 'version' : d, dimOf(rows[i]!, d) ?? ''])),
  );
  return { el, missing };
}

/** Fewest requests in a bucket for its conversion rate to be drawn. */
const MIN_BUCKET_REQUESTS = 10;

/**
 * Conversion rate per version and bucket, with the evidence: buckets under MIN_BUCKET_REQUESTS
 * requests are gaps, the requests per bucket are a line on the right axis, and the trailing
 * buckets whose feedback coverage (requests with any feedback / requests) is under half the
 * median coverage of the older buckets are drawn dashed as incomplete: their conversions have not
 * arrived yet, so they read low. Worked: coverage 0.62, 0.60, 0.61, 0.20, 0.05 → median of the
 * complete ones 0.61; the last two are under 0.305 → 2 incomplete buckets.
 */
function conversionSeries(versions: string[], gridOf: (v: string) => (Rec | undefined)[]): { series: SeriesSpec[]; incomplete: number } {
  const series: SeriesSpec[] = [];
  let incomplete = 0;
  versions.forEach((v, i) => {
    const grid = gridOf(v);
    const n = grid.map((r) => r?.requests ?? 0);
    const coverage = grid.map((r, k) => ((n[k] ?? 0) > 0 ? (r?.with_feedback ?? 0) / (n[k] ?? 1) : null));
    // Trailing run of low coverage against the median of the rest.
    const known = coverage.map((c, k) => ({ c, k })).filter((x): x is { c: number; k: number } => x.c != null);
    let tail = 0;
    for (let t = known.length - 1; t > 0; t--) {
      const older = known
        .slice(0, t)
        .map((x) => x.c)
        .sort((a, b) => a - b);
      const median = older[Math.floor(older.length / 2)] ?? 0;
      if (known[t]!.c < median / 2) tail = known.length - t;
      else break;
    }
    const firstIncomplete = tail > 0 ? known[known.length - tail]!.k : grid.length;
    incomplete = Math.max(incomplete, tail);
    const rate = grid.map((r, k) => ((n[k] ?? 0) >= MIN_BUCKET_REQUESTS ? (r?.conversion_rate ?? null) : null));
    const color = colorFor(v, i);
    series.push({ label: v, color, values: rate.map((x, k) => (k < firstIncomplete ? x : null)), width: 2 });
    if (tail > 0) series.push({ label: `${v} (feedback arriving)`, color, values: rate.map((x, k) => (k >= firstIncomplete - 1 ? x : null)), dash: true });
    series.push({ label: `${v} requests`, color: '#c8c8c8', values: n.map((x) => (x > 0 ? x : null)), y2: true, width: 1, dash: true });
  });
  return { series, incomplete };
}

export function businessView(root: HTMLElement): ViewHandle {
  const byVersion = new Panel('business-versions', 'Conversion and feedback by version', 'window totals, feedback joined to requests by request_id', true);
  const conv = new Panel('business-feedback', 'By version and tenant', 'the same rates per version × tenant', true);
  const trend = new Panel(
    'business-trend',
    'Conversion rate over time',
    `by version, per request-time bucket · a bucket with fewer than ${MIN_BUCKET_REQUESTS} requests is not drawn (one request would read 0 or 100 %); requests per bucket on the right; dashed: recent buckets whose feedback is still arriving`,
    true,
  );
  const all = [byVersion, conv, trend];
  replace(root, h('div', { class: 'grid' }, ...all.map((p) => p.el)));
  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      for (const p of all) p.loading();
      const fetch = (groupBy: string[], step?: string) =>
        post<FeedbackReply>('/v1/quality/feedback', { from: win.from, to: win.to, filters, group_by: groupBy, ...(step ? { step } : {}) }, signal);
      const what = 'Conversion and feedback rates are joined to requests by the quality API (POST /v1/feedback stores them).';
      await Promise.all([
        guard(byVersion, signal, 'POST /v1/quality/feedback', what, async () => {
          const data = await fetch(['model_version']);
          const rows = data.rows.filter((r) => r.requests > 0);
          if (!rows.some((r) => r.with_feedback > 0)) return byVersion.needs(['feedback'], NEEDS_WHY);
          const orphans = data.orphans;
          byVersion.setMeta(orphans ? `${orphans} feedback rows wait for their request` : 'every feedback row joined');
          const t = feedbackTable(rows, ['model_version']);
          byVersion.ready(t.el, t.missing.length ? h('p', { class: 'panel-sub' }, `No ${t.missing.join(', ')} feedback in this window.`) : null);
        }),
        guard(conv, signal, 'POST /v1/quality/feedback', what, async () => {
          const rows = (await fetch(['model_version', 'tenant'])).rows.filter((r) => r.requests > 0);
          if (!rows.some((r) => r.with_feedback > 0)) return conv.needs(['feedback'], NEEDS_WHY);
          if (!rows.some((r) => r['tenant'] != null)) conv.setMeta('tenant not sent');
          conv.ready(feedbackTable(rows, ['model_version', 'tenant']).el);
        }),
        guard(trend, signal, 'POST /v1/quality/feedback', what, async () => {
          const rows = (await fetch(['model_version'], win.step)).rows;
          if (!rows.some((r) => r.conversions > 0))
            return trend.needs(['conversion feedback'], 'Send conversion events (kind conversion) keyed by request_id.');
          const versions = [...new Set(rows.map((r) => dimOf(r, 'model_version')).filter((v): v is string => v != null))].sort();
          const { series, incomplete } = conversionSeries(versions, (v) =>
            onGrid(
              win.buckets,
              rows.filter((r) => r['model_version'] === v),
            ),
          );
          trend.setMeta(incomplete > 0 ? `last ${incomplete} bucket${incomplete === 1 ? '' : 's'}: feedback still arriving` : '');
          trend.el.dataset['incomplete'] = String(incomplete);
          if (!trend.body.querySelector(':scope > .chart')) trend.ready(h('div', { class: 'chart' }));
          else trend.ready();
          timeSeries(trend.body.querySelector<HTMLElement>('.chart')!, {
            id: 'business-trend',
            xs: win.buckets,
            xRange: [win.fromMs, win.toMs],
            series,
            fmt: (v) => fmtPct(v, 0),
            fmt2: (v) => fmtNum(v, 0),
            syncKey: 'business',
            height: 220,
          });
        }),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}
