/**
 * The runtime view (platform engineers): is it slower, is throughput dropping or saturating, where
 * do errors concentrate, is it capacity. Every request allows the per-minute rollup (`approx`):
 * quantiles within ~1 %, said on the panel whenever the rollup answered; the slice finder counts a
 * sample on large windows, also said. Panels draw as their own reply arrives (the KPIs do not wait
 * for the charts; the heatmap draws first and adds the P99 overlay when the bucket query lands).
 * First render is one batch of 8 parallel requests: one
 * bucketed `/v1/query` with every measure the charts need (34 of the 40 allowed; the heatmap's P99
 * overlay reuses it), one totals query, the histogram, the slice finder, the saturation check, the
 * stage attribution, the per-replica exec latency, the resources and the engine panels (views/engine.ts). Filter dropdown values load beside it, never blocking. Field
 * presence (staged adoption) is read off the same rows: a stage whose mean is null in every bucket
 * that has requests was not sent.
 */
import { approxError, call, field, num, queryApprox, records, str } from '../api.ts';
import type { Filters, Row } from '../api.ts';
import { ERROR_TYPES, FAILED_STATUSES, SHED_STATUSES, STAGES, STATUSES } from '../../../src/schema/vocabulary.ts';
import { BUCKET_MEASURES, NOT_SERVED_STATUSES, PCTS } from './runtime-measures.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtBytes, fmtMs, fmtNum, fmtPct, fmtTime } from '../format.ts';
import { Panel } from '../panel.ts';
import { table } from './common.ts';
import { loadEngine } from './engine.ts';
import { heatmap } from '../charts/heatmap.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { SeriesSpec } from '../charts/timeseries.ts';
import { FILTER_DIMS } from '../state.ts';
import type { FilterDim } from '../state.ts';
import type { ViewContext, ViewHandle } from '../view.ts';

const TOTAL_MEASURES = ['count', 'n', 'qps', 'error_rate', 'rejected_rate', 'rate_limited_rate', 'p50(total_ms)', 'p99(total_ms)', 'max(total_ms)'];

const SYNC = 'runtime';
const RESOURCE_METRICS = ['gpu_utilization_ratio', 'gpu_memory_used_bytes', 'gpu_memory_total_bytes', 'cpu_utilization_ratio', 'memory_used_bytes'];

type Col = (number | null)[];

function col(grid: (Row | undefined)[], key: string): Col {
  return grid.map((r) => num(r?.[key]));
}

function hasAny(c: Col): boolean {
  return c.some((v) => v != null);
}

function times(a: Col, b: Col): Col {
  return a.map((v, i) => (v == null || b[i] == null ? null : v * b[i]!));
}

export function runtimeView(root: HTMLElement): ViewHandle {
  const p = {
    summary: h('div', { class: 'kpis', data: { panel: 'summary' } }),
    saturation: h('div', { class: 'banner', data: { panel: 'saturation', state: 'loading' } }),
    latency: new Panel('latency', 'Latency percentiles', 'total_ms per bucket, log scale (max dashed, request count on the right) · click a point for the requests at or above it'),
    stages: new Panel('stages', 'Where the time goes', 'mean ms per stage, stacked (ingress → queue → batch → exec → post)'),
    heatmap: new Panel('heatmap', 'Latency heatmap', 'requests per latency bucket (log scale) with P99 · click a cell for its requests'),
    qps: new Panel('qps', 'Throughput by status', 'requests per second, stacked by status · click for the requests'),
    queue: new Panel('queue', 'Queue time, queue length and batch size', 'queue_ms P99 and mean (left); queue length = arrivals/s × mean queue time (Little\'s law), mean and max batch size (right)'),
    rejects: new Panel('rejects', 'Not served: rejected, rate-limited, timed out, …', 'share of requests per bucket, by status'),
    errors: new Panel('errors', 'Errors by cause', 'error share per bucket by error_type, and the window totals'),
    concentration: new Panel('concentration', 'Where it concentrates', 'slices whose rate is significantly above the rest (BH q < 0.05), with 95 % intervals', true),
    stageShift: new Panel('stage-shift', 'Which stage grew', 'P99 per stage, this window vs the one before; a stage is named when its growth is significant (Holm) and ≥ ×1.1'),
    replicas: new Panel('replicas', 'Exec latency by replica', 'exec_ms P50 (solid) and P99 (dashed) per replica · a slow replica stands out from its peers'),
    generative: new Panel('generative', 'Time to first token / per output token', 'generative models: TTFT and TPOT P50 / P99'),
    resources: new Panel('resources', 'Resources on the same time axis', 'GPU utilisation and memory per GPU, CPU and host memory per node', true),
    engine: new Panel('engine', 'Engine', 'what the scraped inference engines report: KV cache, running and waiting requests, tokens, prefix-cache hits (per engine process)', true),
  };
  const concentrationKind = { value: 'errors' as 'errors' | 'slow' | 'shed' };
  let last: ViewContext | null = null;
  /** The slow replica the stage attribution named, shown on the per-replica panel too. */
  const replicaNote = { value: '' };

  replace(
    root,
    h('div', { class: 'view-runtime' }, p.saturation, p.summary, h('div', { class: 'grid' }, ...[p.latency, p.stages, p.heatmap, p.qps, p.queue, p.rejects, p.errors, p.stageShift, p.replicas, p.concentration, p.generative, p.resources, p.engine].map((x) => x.el))),
  );

  const sliceAt = (ctx: ViewContext, idx: number) => {
    const t = ctx.win.buckets[idx]!;
    return { fromMs: t, toMs: t + ctx.win.stepMs };
  };

  /** Returns the P99 column (on the window's grid) for the heatmap overlay: no second scan. */
  async function loadBuckets(ctx: ViewContext): Promise<Col> {
    const { win, filters, signal } = ctx;
    const totalsP = queryApprox({ from: win.from, to: win.to, filters, measures: TOTAL_MEASURES }, signal);
    // The KPIs draw as soon as their (smaller) query lands.
    const summaryDone = totalsP.then((t) => {
      if (!signal.aborted) renderSummary(t.rows[0] ?? {}, t.relativeError);
      return t.rows[0] ?? {};
    });
    summaryDone.catch(() => undefined); // awaited below; a bucket-query failure must not leave it unhandled
    const answer = await queryApprox({ from: win.from, to: win.to, filters, step: win.step, measures: BUCKET_MEASURES }, signal);
    const rows = answer.rows;
    const grid = onGrid(win.buckets, rows);
    const p99Col = col(grid, 'p99(total_ms)');
    if (signal.aborted) return p99Col;
    const xs = win.buckets;
    const xRange: [number, number] = [win.fromMs, win.toMs];
    const total = await summaryDone;
    if (signal.aborted) return p99Col;
    const count = col(grid, 'count');
    const nRows = col(grid, 'n');
    const anyRequests = count.some((v) => (v ?? 0) > 0);
    const all = [p.latency, p.stages, p.qps, p.queue, p.rejects, p.errors, p.generative];
    if (!anyRequests) {
      for (const x of all) x.empty('No requests in this window for these filters.');
      return p99Col;
    }
    const nTotal = num(total['n']);
    p.latency.setMeta(`n = ${fmtNum(nTotal, 0)} stored rows${approxNote(answer.relativeError)}`);

    // Latency percentiles: n per bucket shows in the legend next to the percentiles.
    // Log scale: P50 and the max differ by orders of magnitude; a zero cannot be drawn on it.
    const positive = (c: Col): Col => c.map((v) => (v != null && v > 0 ? v : null));
    const pcts = PCTS.map(([k, label]) => ({ label, color: colorFor(k, 0), values: positive(col(grid, `${k}(total_ms)`)) }));
    if (!pcts.some((s) => hasAny(s.values))) {
      p.latency.needs(['total_ms'], 'Send the end-to-end latency of each request to see percentiles over time.');
    } else {
      const series: SeriesSpec[] = [...pcts, { label: 'max', color: colorFor('max', 0), values: positive(col(grid, 'max(total_ms)')), dash: true, width: 1 }, { label: 'n', color: '#cccccc', values: nRows, y2: true, width: 1, dash: true }];
      ensureChartBox(p.latency);
      timeSeries(chartBox(p.latency), {
        id: 'latency',
        xs,
        xRange,
        series,
        logY: true,
        fmt: fmtMs,
        fmt2: (v) => fmtNum(v, 0),
        syncKey: SYNC,
        onPoint: ({ idx, series: si }) => {
          const s = series[si]!;
          const v = s.values[idx];
          const pct = PCTS.find(([, label]) => label === s.label);
          ctx.openSamples({
            title: pct && v != null ? `Requests at or above ${s.label} (${fmtMs(v)})` : `Requests in ${fmtTime(xs[idx]!)}`,
            ...sliceAt(ctx, idx),
            filters,
            ...((pct || s.label === 'max') && v != null ? { min: { column: 'total_ms', value: v } } : {}),
          });
        },
      });
      p.latency.ready();
    }

    // Stage split.
    const stageCols = STAGES.map((s) => ({ s, values: col(grid, `mean(${s})`) }));
    const present = stageCols.filter((c) => hasAny(c.values));
    if (present.length === 0) {
      p.stages.needs([...STAGES], 'Send per-stage timings (the SDK stage timers do it) to see where the time goes.');
    } else {
      const missing = stageCols.filter((c) => !hasAny(c.values)).map((c) => c.s);
      p.stages.setMeta(missing.length ? `not sent: ${missing.join(', ')}` : '');
      ensureChartBox(p.stages);
      timeSeries(chartBox(p.stages), {
        id: 'stages',
        xs,
        xRange,
        stacked: true,
        series: present.map((c) => ({ label: c.s.replace('_ms', ''), color: colorFor(c.s, 0), values: c.values })),
        fmt: fmtMs,
        syncKey: SYNC,
        onPoint: ({ idx }) => ctx.openSamples({ title: `Requests in ${fmtTime(xs[idx]!)}`, ...sliceAt(ctx, idx), filters }),
      });
      p.stages.ready();
    }

    // Throughput by status.
    const qps = col(grid, 'qps');
    const statusSeries = STATUSES.map((s) => ({ label: s, color: colorFor(s, 0), values: times(qps, col(grid, `${s}_rate`)) })).filter((s) => s.values.some((v) => (v ?? 0) > 0));
    ensureChartBox(p.qps);
    timeSeries(chartBox(p.qps), {
      id: 'qps',
      xs,
      xRange,
      stacked: true,
      series: statusSeries,
      fmt: (v) => `${fmtNum(v)}/s`,
      syncKey: SYNC,
      onPoint: ({ idx, series: si }) => {
        const status = statusSeries[si]!.label;
        ctx.openSamples({ title: `${status} requests in ${fmtTime(xs[idx]!)}`, ...sliceAt(ctx, idx), filters: { ...filters, status } });
      },
    });
    p.qps.ready();

    // Queue and batch.
    const queueP99 = col(grid, 'p99(queue_ms)');
    const queueMean = col(grid, 'mean(queue_ms)');
    const batchMean = col(grid, 'mean(batch_size)');
    const batchMax = col(grid, 'max(batch_size)');
    const qs: SeriesSpec[] = [];
    if (hasAny(queueP99)) qs.push({ label: 'queue P99', color: colorFor('queue_ms', 0), values: queueP99 }, { label: 'queue mean', color: '#f6b26b', values: queueMean, dash: true });
    // Little's law: mean requests waiting = arrival rate × mean time in the queue.
    const queueLength = queueMean.map((v, i) => (v == null || qps[i] == null ? null : (qps[i]! * v) / 1000));
    if (hasAny(queueMean)) qs.push({ label: 'queue length', color: '#8e7cc3', values: queueLength, y2: true, width: 2 });
    if (hasAny(batchMean)) qs.push({ label: 'batch mean', color: '#3d85c6', values: batchMean, y2: true }, { label: 'batch max', color: '#9fc5e8', values: batchMax, y2: true, dash: true });
    if (qs.length === 0) {
      p.queue.needs(['queue_ms', 'batch_size'], 'Send the time each request waited in the queue and the size of the batch it ran in.');
    } else {
      p.queue.setMeta(!hasAny(queueP99) ? 'queue_ms not sent' : !hasAny(batchMean) ? 'batch_size not sent' : '');
      ensureChartBox(p.queue);
      timeSeries(chartBox(p.queue), {
        id: 'queue',
        xs,
        xRange,
        series: qs,
        fmt: hasAny(queueP99) ? fmtMs : (v) => fmtNum(v),
        fmt2: (v) => fmtNum(v),
        syncKey: SYNC,
        onPoint: ({ idx, series: si }) => {
          const s = qs[si]!;
          const v = s.values[idx];
          ctx.openSamples({
            title: `Requests in ${fmtTime(xs[idx]!)}${s.label === 'queue P99' && v != null ? `, queued ≥ ${fmtMs(v)}` : ''}`,
            ...sliceAt(ctx, idx),
            filters,
            ...(s.label === 'queue P99' && v != null ? { min: { column: 'queue_ms', value: v } } : {}),
          });
        },
      });
      p.queue.ready();
    }

    // Rejects and rate limiting.
    const rej = NOT_SERVED_STATUSES.map((s) => ({ label: s, color: colorFor(s, 0), values: col(grid, `${s}_rate`) }));
    ensureChartBox(p.rejects);
    timeSeries(chartBox(p.rejects), {
      id: 'rejects',
      xs,
      xRange,
      series: rej,
      fmt: (v) => fmtPct(v, 1),
      syncKey: SYNC,
      onPoint: ({ idx, series: si }) => ctx.openSamples({ title: `${rej[si]!.label} requests in ${fmtTime(xs[idx]!)}`, ...sliceAt(ctx, idx), filters: { ...filters, status: rej[si]!.label } }),
    });
    p.rejects.ready();

    // Errors by cause.
    const types = ERROR_TYPES.map((t) => ({ label: t, color: colorFor(t, 0), values: col(grid, `error_rate(${t})`) }));
    // Requests per cause in the window: Σ rate × count over buckets.
    const weightedTotals = types.map((t) => t.values.reduce<number>((a, v, i) => a + (v ?? 0) * (count[i] ?? 0), 0));
    renderErrors(ctx, grid, types, weightedTotals, count);

    // Generative.
    const ttft = [
      { label: 'TTFT P50', color: '#6fa8dc', values: col(grid, 'p50(ttft_ms)') },
      { label: 'TTFT P99', color: '#d64545', values: col(grid, 'p99(ttft_ms)') },
      { label: 'TPOT P50', color: '#93c47d', values: col(grid, 'p50(tpot_ms)'), y2: true },
      { label: 'TPOT P99', color: '#38761d', values: col(grid, 'p99(tpot_ms)'), y2: true },
    ].filter((s) => hasAny(s.values));
    if (ttft.length === 0) {
      p.generative.needs(['ttft_ms', 'tpot_ms'], 'Generative models: send the time to first token and the time per output token.');
    } else {
      ensureChartBox(p.generative);
      timeSeries(chartBox(p.generative), { id: 'generative', xs, xRange, series: ttft, fmt: fmtMs, fmt2: fmtMs, syncKey: SYNC });
      p.generative.ready();
    }
    return p99Col;
  }

  function renderErrors(ctx: ViewContext, grid: (Row | undefined)[], types: SeriesSpec[], weightedTotals: number[], count: Col): void {
    const { win, filters } = ctx;
    const statusError = FAILED_STATUSES.map((s) => times(col(grid, `${s}_rate`), count));
    const failed = statusError.reduce((a, c) => a + c.reduce<number>((x, v) => x + (v ?? 0), 0), 0);
    const typed = weightedTotals.reduce((a, v) => a + v, 0);
    const shown = types.filter((_, i) => weightedTotals[i]! > 0);
    if (failed === 0 && typed === 0) {
      p.errors.empty('No errors in this window.');
      return;
    }
    if (typed === 0) {
      p.errors.needs(['error_type'], `${fmtNum(failed, 0)} requests failed but none says why: send error_type (${ERROR_TYPES.join(', ')}).`);
      return;
    }
    const box = h('div', { class: 'chart' });
    const table = h(
      'table',
      { class: 'compact' },
      h('thead', null, h('tr', null, h('th', null, 'cause'), h('th', null, 'requests'), h('th', null, 'share of errors'))),
      h(
        'tbody',
        null,
        ...types
          .map((t, i) => ({ t, v: weightedTotals[i]! }))
          .filter((x) => x.v > 0)
          .sort((a, b) => b.v - a.v)
          .map(({ t, v }) =>
            h(
              'tr',
              { data: { errorType: t.label } },
              h('td', null, h('span', { class: 'swatch', data: { color: t.color } }), t.label),
              h('td', null, fmtNum(Math.round(v), 0)),
              h('td', null, fmtPct(v / typed, 1)),
            ),
          ),
      ),
    );
    p.errors.ready(box, table);
    for (const sw of table.querySelectorAll<HTMLElement>('.swatch')) sw.style.background = sw.dataset['color'] ?? '';
    timeSeries(box, {
      id: 'errors',
      xs: win.buckets,
      xRange: [win.fromMs, win.toMs],
      stacked: true,
      bars: false,
      series: shown,
      fmt: (v) => fmtPct(v, 1),
      syncKey: SYNC,
      height: 170,
      onPoint: ({ idx, series: si }) => {
        const t = win.buckets[idx]!;
        ctx.openSamples({ title: `${shown[si]!.label} errors in ${fmtTime(t)}`, fromMs: t, toMs: t + win.stepMs, filters: { ...filters, error_type: shown[si]!.label } });
      },
    });
  }

  function renderSummary(total: Row, relativeError: number | null): void {
    const kpi = (label: string, value: string, sub = '') => h('div', { class: 'kpi' }, h('div', { class: 'kpi-label' }, label), h('div', { class: 'kpi-value' }, value), sub ? h('div', { class: 'kpi-sub' }, sub) : null);
    const n = num(total['n']);
    replace(
      p.summary,
      kpi('Requests', fmtNum(num(total['count']), 0), `${fmtNum(n, 0)} stored rows`),
      kpi('QPS', fmtNum(num(total['qps']), 2)),
      kpi('P50', fmtMs(num(total['p50(total_ms)'])), `n = ${fmtNum(n, 0)}${approxNote(relativeError)}`),
      kpi('P99', fmtMs(num(total['p99(total_ms)'])), `n = ${fmtNum(n, 0)}${approxNote(relativeError)}`),
      kpi('Max', fmtMs(num(total['max(total_ms)']))),
      kpi('Error rate', fmtPct(num(total['error_rate']))),
      kpi('Rejected + rate-limited', fmtPct((num(total['rejected_rate']) ?? 0) + (num(total['rate_limited_rate']) ?? 0))),
    );
  }

  async function loadHeatmap(ctx: ViewContext, p99Promise: Promise<Col>): Promise<void> {
    const { win, filters, signal } = ctx;
    const data = await call('POST', '/v1/histogram', { from: win.from, to: win.to, filters, step: win.step, field: 'total_ms', approx: true }, signal);
    if (signal.aborted) return;
    const bounds = (field(data, 'bounds_ms') as unknown[] | undefined)?.filter((x): x is number => typeof x === 'number') ?? [];
    const hrows = records(field(data, 'rows')).map((r) => ({ bucket: r['bucket'], counts: Array.isArray(r['counts']) ? r['counts'].map((c) => (typeof c === 'number' ? c : 0)) : [] }));
    if (bounds.length === 0 || hrows.every((r) => r.counts.every((c) => c === 0))) {
      const p99 = await p99Promise.catch((): Col => win.buckets.map(() => null));
      if (signal.aborted) return;
      const anyRows = p99.some((v) => v != null);
      if (anyRows) p.heatmap.needs(['total_ms'], 'The heatmap bins each request by its end-to-end latency.');
      else p.heatmap.empty('No requests with a latency in this window.');
      return;
    }
    const grid = onGrid(win.buckets, hrows);
    // Draw now; the P99 overlay comes from the bucket query and is added when it lands.
    const draw = (p99: Col) => {
      ensureChartBox(p.heatmap);
      heatmap(chartBox(p.heatmap), {
        id: 'heatmap',
        xs: win.buckets,
        stepMs: win.stepMs,
        xRange: [win.fromMs, win.toMs],
        boundsMs: bounds,
        counts: grid.map((r) => r?.counts),
        overlay: { label: 'P99', color: '#d64545', values: p99 },
        syncKey: SYNC,
        fmt: fmtMs,
        onCell: (idx, lowerMs) => {
          const t = win.buckets[idx]!;
          ctx.openSamples({ title: `Requests ≥ ${fmtMs(lowerMs)} in ${fmtTime(t)}`, fromMs: t, toMs: t + win.stepMs, filters, min: { column: 'total_ms', value: lowerMs } });
        },
      });
    };
    draw(win.buckets.map(() => null));
    p.heatmap.ready();
    const p99 = await p99Promise.catch(() => null);
    if (p99 && !signal.aborted) draw(p99);
  }

  async function loadConcentration(ctx: ViewContext): Promise<void> {
    const { win, filters, signal } = ctx;
    const kind = concentrationKind.value;
    const data = await call('POST', '/v1/analysis/errors', { from: win.from, to: win.to, filters, kind, approx: true }, signal);
    if (signal.aborted) return;
    const total = field(data, 'total');
    // Only slices significantly above the rest (BH q < 0.05 and rate > rest): a slice at lift < 1,
    // or one whose interval includes the rest's rate, is not "above the rest".
    const slices = records(field(data, 'slices')).filter((s) => field(s, 'significant') === true && (num(field(s, 'rate')) ?? 0) > (num(field(s, 'restRate')) ?? 0));
    const threshold = num(field(data, 'thresholdMs'));
    const sampled = num(field(field(data, 'sample'), 'fraction'));
    p.concentration.setMeta(sampled != null ? `counted on a ${fmtPct(sampled, 0)} sample of ${fmtNum(num(field(field(data, 'sample'), 'window_rows')), 0)} rows` : '');
    const KINDS = { errors: 'failures (error + timeout)', slow: 'slow requests', shed: 'turned away (rejected + rate-limited)' } as const;
    const toggle = h(
      'div',
      { class: 'toggle' },
      ...(Object.keys(KINDS) as (keyof typeof KINDS)[]).map((k) =>
        h(
          'button',
          {
            class: k === kind ? 'on' : '',
            data: { kind: k },
            on: {
              click: () => {
                concentrationKind.value = k;
                p.concentration.loading();
                if (last) void guard(p.concentration, () => loadConcentration(last!));
              },
            },
          },
          KINDS[k],
        ),
      ),
    );
    const what = kind === 'slow' ? 'slow' : kind === 'shed' ? 'turned away' : 'failed';
    const totalLine = h(
      'p',
      { class: 'panel-sub' },
      `overall: ${fmtNum(num(field(total, 'k')), 0)} of ${fmtNum(num(field(total, 'n')), 0)} ${what} (${fmtPct(num(field(total, 'rate')))})`,
      kind === 'slow' && threshold != null ? `, slower than ${fmtMs(threshold)} (the window's P95)` : '',
    );
    if (slices.length === 0) {
      const n = num(field(total, 'n'));
      const k = num(field(total, 'k'));
      const message = !n ? 'No requests in this window.' : !k ? `Nothing stands out: no request ${what} in this window.` : 'Nothing stands out: no slice is significantly above the rest (BH q < 0.05).';
      p.concentration.ready(toggle, totalLine, h('div', { class: 'placeholder', data: { nothing: 'true' } }, message));
      return;
    }
    const statusFilter = kind === 'errors' ? { status: [...FAILED_STATUSES] } : kind === 'shed' ? { status: [...SHED_STATUSES] } : {};
    const rows = slices.slice(0, 15).map((s) => {
      const slice = field(s, 'slice');
      const parts = Object.entries(slice && typeof slice === 'object' ? (slice as Record<string, unknown>) : {}).map(([k, v]) => [k, String(v)] as const);
      const rate = num(field(s, 'rate'));
      const rest = num(field(s, 'restRate'));
      const sliceFilters: Filters = Object.fromEntries(parts);
      const filterable = parts.every(([k]) => (FILTER_DIMS as readonly string[]).includes(k));
      return [
        h('span', null, ...parts.map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`))),
        `${fmtNum(num(field(s, 'k')), 0)} / ${fmtNum(num(field(s, 'n')), 0)}`,
        h('span', null, fmtPct(rate, 1), h('span', { class: 'ci' }, ` [${fmtPct(num(field(s, 'lo')), 1)} – ${fmtPct(num(field(s, 'hi')), 1)}]`)),
        fmtPct(rest, 1),
        rate != null && rest ? `${(rate / rest).toFixed(1)}×` : rest === 0 ? 'only here' : '–',
        fmtNum(num(field(s, 'qValue'))),
        h(
          'span',
          null,
          h(
            'button',
            {
              on: {
                click: () =>
                  ctx.openSamples({
                    title: `${kind === 'slow' ? 'Slow' : kind === 'shed' ? 'Turned-away' : 'Failed'} requests in ${parts.map(([k, v]) => `${k}=${v}`).join(', ')}`,
                    fromMs: win.fromMs,
                    toMs: win.toMs,
                    filters: { ...filters, ...sliceFilters, ...statusFilter },
                    ...(kind === 'slow' && threshold != null ? { min: { column: 'total_ms', value: threshold } } : {}),
                  }),
              },
            },
            'samples',
          ),
          filterable ? h('button', { on: { click: () => ctx.setFilters(Object.fromEntries(parts) as Partial<Record<FilterDim, string>>) } }, 'filter') : null,
        ),
      ];
    });
    p.concentration.ready(
      toggle,
      totalLine,
      table(
        ['slice', `${what} / n`, 'rate [95 % CI]', 'rest', 'lift', 'q-value', ''],
        rows,
        (i) => {
          const slice = field(slices[i]!, 'slice');
          return { slice: Object.entries(slice && typeof slice === 'object' ? (slice as Record<string, unknown>) : {}).map(([k, v]) => `${k}=${String(v)}`).join(',') };
        },
        () => 'significant',
      ),
    );
  }

  async function loadSaturation(ctx: ViewContext): Promise<void> {
    const { win, filters, signal } = ctx;
    const el = p.saturation;
    try {
      const data = await call('POST', '/v1/analysis/saturation', { from: win.from, to: win.to, filters, step: win.step, approx: true }, signal);
      if (signal.aborted) return;
      const saturated = field(data, 'saturated') === true;
      el.dataset['state'] = saturated ? 'saturated' : 'ok';
      const signals = (field(data, 'signals') as unknown[] | undefined)?.filter((x): x is string => typeof x === 'string') ?? [];
      el.dataset['signals'] = signals.join(',');
      const reasons = (field(data, 'reasons') as unknown[] | undefined)?.filter((x): x is string => typeof x === 'string') ?? [];
      const head = signals.includes('shedding') && signals.includes('queueing') ? 'queues grow and requests are turned away. ' : signals.includes('shedding') ? 'requests are turned away at the limit. ' : 'throughput is flat while queue time and tail latency grow. ';
      const base = field(data, 'baselineWindow');
      const since = str(field(base, 'from'));
      replace(
        el,
        saturated
          ? h('span', null, h('strong', null, 'Saturating: '), head, reasons.join('; '), since ? h('span', { class: 'ci' }, ` (judged against the window before, from ${fmtTime(Date.parse(since))})`) : null)
          : null,
      );
    } catch {
      if (signal.aborted) return;
      el.dataset['state'] = 'error';
      replace(el);
    }
  }

  async function loadStageShift(ctx: ViewContext): Promise<void> {
    const { win, filters, signal } = ctx;
    const data = await call('POST', '/v1/analysis/stages', { from: win.from, to: win.to, filters, approx: true }, signal);
    if (signal.aborted) return;
    p.stageShift.setMeta(approxNote(approxError(data)).replace(/^ · /, ''));
    const stages = records(field(data, 'stages'));
    const grew = str(field(data, 'grewMost'));
    const slow = field(data, 'slowReplica');
    const slowLine =
      slow && typeof slow === 'object'
        ? h(
            'p',
            { class: 'panel-sub bad', data: { slowReplica: str(field(slow, 'replica')) ?? '' } },
            h('strong', null, `Replica ${str(field(slow, 'replica')) ?? ''}`),
            `: ${str(field(slow, 'stage'))?.replace('_ms', '') ?? ''} median ${fmtMs(num(field(slow, 'ms')))}, ${fmtNum(num(field(slow, 'ratio')), 1)}× its peers' ${fmtMs(num(field(slow, 'peersMs')))}`,
          )
        : null;
    replicaNote.value = slow && typeof slow === 'object' ? `${str(field(slow, 'replica')) ?? ''}: ${str(field(slow, 'stage')) ?? ''} ${fmtNum(num(field(slow, 'ratio')), 1)}× its peers` : '';
    p.replicas.setMeta(replicaNote.value);
    if (stages.length === 0) {
      p.stageShift.needs([...STAGES], 'Per-stage timings show which stage made the tail grow.');
      return;
    }
    const cur = (s: Record<string, unknown>) => num(s['currentMs']);
    const base = (s: Record<string, unknown>) => num(s['baselineMs']);
    p.stageShift.ready(
      h('p', { class: 'panel-sub', data: { grew: grew ?? '' } }, grew ? `Grew most: ${grew.replace('_ms', '')} (significant, ≥ ×1.1)` : 'No stage grew significantly (Holm p < 0.05) and by ×1.1 or more against the previous window.'),
      slowLine,
      table(
        ['stage', 'P99 now', 'before', 'Δ', 'above old P99 now / before', 'p (Holm)'],
        stages.map((s) => [
          str(s['stage']) ?? '',
          fmtMs(cur(s)),
          fmtMs(base(s)),
          num(s['deltaMs']) == null ? '–' : `${num(s['deltaMs'])! >= 0 ? '+' : ''}${fmtMs(num(s['deltaMs']))}`,
          `${fmtNum(num(s['aboveCurrent']), 0)} of ${fmtNum(num(s['nCurrent']), 0)} / ${fmtNum(num(s['aboveBaseline']), 0)} of ${fmtNum(num(s['nBaseline']), 0)}`,
          num(s['pValue']) == null ? '–' : num(s['pValue'])! < 1e-4 ? '< 0.0001' : fmtNum(num(s['pValue'])),
        ]),
        (i) => ({ stage: str(stages[i]!['stage']) ?? '' }),
        (i) => (stages[i]!['grew'] === true ? 'significant' : ''),
      ),
    );
  }

  /** exec_ms P50 and P99 per replica over time (one query grouped by replica). */
  async function loadReplicas(ctx: ViewContext): Promise<void> {
    const { win, filters, signal } = ctx;
    const { rows } = await queryApprox({ from: win.from, to: win.to, filters, step: win.step, group_by: ['replica'], measures: ['n', 'p50(exec_ms)', 'p99(exec_ms)'] }, signal);
    if (signal.aborted) return;
    const byReplica = new Map<string, Row[]>();
    for (const r of rows) {
      const name = str(r['replica']);
      if (name == null || num(r['n']) == null) continue;
      byReplica.set(name, [...(byReplica.get(name) ?? []), r]);
    }
    const names = [...byReplica.keys()].sort();
    if (names.length === 0 || !rows.some((r) => num(r['p50(exec_ms)']) != null)) {
      p.replicas.needs(['replica', 'exec_ms'], 'Send the replica that served each request and its execution time to compare replicas.');
      return;
    }
    const series: SeriesSpec[] = names.flatMap((name, i) => {
      const grid = onGrid(win.buckets, byReplica.get(name)!);
      const color = colorFor(name, i);
      const pos = (c: Col): Col => c.map((v) => (v != null && v > 0 ? v : null));
      return [
        { label: `${name} P50`, color, values: pos(col(grid, 'p50(exec_ms)')), width: 2 },
        { label: `${name} P99`, color, values: pos(col(grid, 'p99(exec_ms)')), dash: true, width: 1 },
      ];
    });
    ensureChartBox(p.replicas);
    timeSeries(chartBox(p.replicas), {
      id: 'replicas',
      xs: win.buckets,
      xRange: [win.fromMs, win.toMs],
      series,
      logY: true,
      fmt: fmtMs,
      syncKey: SYNC,
      onPoint: ({ idx, series: si }) => {
        const replica = names[Math.floor(si / 2)]!;
        const t = win.buckets[idx]!;
        ctx.openSamples({ title: `Requests on ${replica} in ${fmtTime(t)}`, fromMs: t, toMs: t + win.stepMs, filters: { ...filters, replica } });
      },
    });
    p.replicas.ready();
    p.replicas.setMeta(replicaNote.value);
  }

  async function loadResources(ctx: ViewContext): Promise<void> {
    const { win, state, signal } = ctx;
    const rf: Record<string, string | string[]> = {};
    if (state.filters.node) rf['node'] = state.filters.node;
    else if (Object.keys(ctx.filters).length > 0) {
      // Host and GPU readings carry a node, rarely a replica or model: the nodes the filtered
      // requests ran on stand for the slice.
      const { rows: nodes } = await queryApprox({ from: win.from, to: win.to, filters: ctx.filters, group_by: ['node'], measures: ['n'] }, signal);
      const names = nodes.map((r) => str(r['node'])).filter((v): v is string => v != null);
      if (names.length > 0) rf['node'] = names;
      p.resources.setMeta(names.length ? `nodes of the filtered requests: ${names.join(', ')}` : 'the filtered requests name no node');
    } else p.resources.setMeta('');
    // Per GPU: a node's GPUs are separate lines, never averaged (one at 96 % of its memory is not 54 %).
    const data = await call('POST', '/v1/resources/query', { from: win.from, to: win.to, step: win.step, metrics: RESOURCE_METRICS, filters: rf, group_by: ['node', 'gpu'] }, signal);
    if (signal.aborted) return;
    const rows = records(field(data, 'rows'));
    if (rows.length === 0) {
      p.resources.needs(['resource samples'], 'Send host and GPU readings (POST /v1/resources, a DCGM / node exporter scrape, or the built-in collector) to see them beside the requests.');
      return;
    }
    const simulated = rows.some((r) => r['simulated'] === true);
    p.resources.setBadges(...(simulated ? ['simulated'] : []));
    const unit = (r: Record<string, unknown>) => (str(r['gpu']) != null ? `${str(r['node']) ?? '?'}/gpu${str(r['gpu'])}` : (str(r['node']) ?? 'all'));
    const series = (metric: string, value: (r: Record<string, unknown>) => number | null) => {
      const byUnit = new Map<string, Record<string, unknown>[]>();
      for (const r of rows) {
        if (r['metric'] !== metric) continue;
        byUnit.set(unit(r), [...(byUnit.get(unit(r)) ?? []), r]);
      }
      return [...byUnit.entries()].map(([name, rs], i) => {
        const sim = rs.some((r) => r['simulated'] === true);
        const grid = onGrid(win.buckets, rs);
        return { label: `${name}${sim ? ' (simulated)' : ''}`, color: colorFor(name, i), values: grid.map((r) => (r ? value(r) : null)) };
      });
    };
    const avg = (r: Record<string, unknown>) => num(r['avg']);
    // Each GPU's used / its own total.
    const memTotal = new Map<string, number>();
    for (const r of rows) if (r['metric'] === 'gpu_memory_total_bytes') memTotal.set(`${unit(r)}|${String(r['bucket'])}`, num(r['avg']) ?? 0);
    const charts: { id: string; title: string; s: SeriesSpec[]; fmt: (v: number) => string; needs: string }[] = [
      { id: 'res-gpu', title: 'GPU utilisation', s: series('gpu_utilization_ratio', avg), fmt: (v) => fmtPct(v, 0), needs: 'gpu_utilization_ratio' },
      {
        id: 'res-gpumem',
        title: 'GPU memory used',
        s: series('gpu_memory_used_bytes', (r) => {
          const t = memTotal.get(`${unit(r)}|${String(r['bucket'])}`);
          const v = avg(r);
          return v == null ? null : t ? v / t : v;
        }),
        fmt: memTotal.size ? (v) => fmtPct(v, 0) : fmtBytes,
        needs: 'gpu_memory_used_bytes',
      },
      { id: 'res-cpu', title: 'CPU utilisation', s: series('cpu_utilization_ratio', avg), fmt: (v) => fmtPct(v, 0), needs: 'cpu_utilization_ratio' },
      { id: 'res-mem', title: 'Host memory used', s: series('memory_used_bytes', avg), fmt: fmtBytes, needs: 'memory_used_bytes' },
    ];
    const grid = h('div', { class: 'subgrid' });
    p.resources.ready(grid);
    for (const c of charts) {
      const box = h('div', { class: 'chart' });
      const cell = h('div', { class: 'subpanel', data: { resource: c.id } }, h('h4', null, c.title, c.s.some((s) => s.label.endsWith('(simulated)')) ? h('span', { class: 'badge badge-simulated' }, 'simulated') : null), box);
      grid.appendChild(cell);
      if (c.s.length === 0) {
        replace(box, h('div', { class: 'needs small' }, 'Needs ', h('code', null, c.needs)));
        continue;
      }
      timeSeries(box, { id: c.id, xs: win.buckets, xRange: [win.fromMs, win.toMs], series: c.s, fmt: c.fmt, syncKey: SYNC, height: 160 });
    }
  }

  /** Runs a panel's load: an abort is ignored, a failure is said on the panel. */
  async function guard(panel: Panel, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      if (last?.signal.aborted || (e instanceof DOMException && e.name === 'AbortError')) return;
      panel.error((e as Error).message);
    }
  }

  return {
    async update(ctx) {
      last = ctx;
      for (const x of Object.values(p)) if (x instanceof Panel) x.loading();
      const buckets = loadBuckets(ctx);
      await Promise.all([
        buckets.catch((e: unknown) => {
          if (ctx.signal.aborted) return;
          const msg = (e as Error).message;
          for (const x of [p.latency, p.stages, p.qps, p.queue, p.rejects, p.errors, p.generative]) x.error(msg);
        }),
        guard(p.heatmap, () => loadHeatmap(ctx, buckets)),
        guard(p.concentration, () => loadConcentration(ctx)),
        guard(p.stageShift, () => loadStageShift(ctx)),
        guard(p.replicas, () => loadReplicas(ctx)),
        guard(p.resources, () => loadResources(ctx)),
        guard(p.engine, () => loadEngine(p.engine, ctx, SYNC)),
        loadSaturation(ctx),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}

/** ` · quantiles ±0.96 %` when the rollup answered (the numbers are never silently approximate). */
function approxNote(relativeError: number | null): string {
  return relativeError == null ? '' : ` · quantiles ±${fmtPct(relativeError, 2)}`;
}

/** Each chart panel keeps one `.chart` element so uPlot can update in place on refresh. */
function ensureChartBox(panel: Panel): void {
  if (!panel.body.querySelector(':scope > .chart')) replace(panel.body, h('div', { class: 'chart' }));
}

function chartBox(panel: Panel): HTMLElement {
  return panel.body.querySelector<HTMLElement>(':scope > .chart')!;
}
