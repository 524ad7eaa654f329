/**
 * Time-series charts on uPlot. Every chart of a view shares the x range (the window's buckets) and
 * the cursor (`sync` key), so a spike in P99 lines up with the queue, the errors and the GPU.
 * Stacked series are drawn as cumulative areas, top of the stack first; legends show the raw value.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { charts } from './registry.ts';

export interface SeriesSpec {
  label: string;
  color: string;
  values: (number | null)[];
  /** Right-hand axis. */
  y2?: boolean;
  dash?: boolean;
  width?: number;
}

export interface PointClick {
  /** Index into the x values (the bucket). */
  idx: number;
  /** Index into the series passed in (not uPlot's, which counts x as 0). */
  series: number;
}

export interface TimeSeriesOptions {
  id: string;
  /** Bucket starts, epoch ms. */
  xs: number[];
  /** [from, to) of the window, epoch ms: the same x range on every chart. */
  xRange: [number, number];
  series: SeriesSpec[];
  stacked?: boolean;
  bars?: boolean;
  /** Log-scaled y (latency). */
  logY?: boolean;
  fmt: (v: number) => string;
  fmt2?: (v: number) => string;
  syncKey: string;
  height?: number;
  onPoint?: (p: PointClick) => void;
}

function stackValues(series: SeriesSpec[]): (number | null)[][] {
  const acc: (number | null)[][] = [];
  let running: number[] = [];
  series.forEach((s, si) => {
    if (si === 0) running = s.values.map(() => 0);
    const col = s.values.map((v, i) => {
      if (v == null) return null;
      running[i] = (running[i] ?? 0) + v;
      return running[i]!;
    });
    acc.push(col);
  });
  return acc;
}

/**
 * Which stacked series' band holds the value `y`: the first series (bottom of the stack first)
 * whose cumulative top is at or above y; a click above the stack hits the top series; −1 when no
 * series has a value there. `tops` are the cumulative values at one bucket (null: no value).
 * Worked: tops [80, 82, 100] (ok 80, error 2, rejected 18) and a click at y = 40 → 0 (ok).
 */
export function stackedHit(tops: readonly (number | null)[], y: number): number {
  let lastWithValue = -1;
  for (let i = 0; i < tops.length; i++) {
    const t = tops[i];
    if (t == null) continue;
    lastWithValue = i;
    if (y <= t) return i;
  }
  return lastWithValue;
}

/** Creates or updates the chart in `el` (reused when the series labels are unchanged). */
/** Indices of values whose neighbours are both missing (no line reaches them). */
export function isolated(values: readonly (number | null | undefined)[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i++) if (values[i] != null && values[i - 1] == null && values[i + 1] == null) out.push(i);
  return out;
}

export function timeSeries(el: HTMLElement, o: TimeSeriesOptions): uPlot {
  const xs = o.xs.map((t) => t / 1000);
  // Stacked: draw the top of the stack first so lower areas paint over it.
  const order = o.stacked ? o.series.map((_, i) => o.series.length - 1 - i) : o.series.map((_, i) => i);
  const stacked = o.stacked ? stackValues(o.series) : o.series.map((s) => s.values);
  const data: uPlot.AlignedData = [xs, ...order.map((i) => stacked[i]!)];
  const raw = order.map((i) => o.series[i]!.values);
  const key = `${o.series.map((s) => s.label).join('|')}|${o.stacked ? 's' : ''}|${el.clientWidth}`;

  const existing = charts.get(o.id);
  if (existing && existing.root.isConnected && el.contains(existing.root) && existing.root.dataset['key'] === key) {
    existing.setScale('x', { min: o.xRange[0] / 1000, max: o.xRange[1] / 1000 });
    existing.setData(data, false);
    existing.redraw();
    return existing;
  }
  existing?.destroy();

  const width = Math.max(300, el.clientWidth || 560);
  const bars = o.bars ? uPlot.paths.bars?.({ size: [0.8, 40] }) : undefined;
  const opts: uPlot.Options = {
    width,
    height: o.height ?? 220,
    cursor: {
      sync: { key: o.syncKey },
      focus: { prox: 24 },
      drag: { x: false, y: false },
    },
    focus: { alpha: 0.35 },
    legend: { live: true },
    scales: {
      x: { time: true, range: () => [o.xRange[0] / 1000, o.xRange[1] / 1000] },
      // Log: whole decades (ticks at 1, 10, 100 ms …), with room below the smallest value so the
      // lowest line is off the floor.
      y: o.logY
        ? {
            distr: 3,
            log: 10,
            range: (_u, min, max) => (min > 0 && max > 0 ? [10 ** Math.floor(Math.log10(min / 2)), 10 ** Math.ceil(Math.log10(max * 1.2))] : [0.1, 1]),
          }
        : { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
      ...(o.series.some((s) => s.y2) ? { y2: { range: (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax => [0, max > 0 ? max * 1.1 : 1] } } : {}),
    },
    axes: [
      { stroke: '#555', grid: { stroke: '#eee' } },
      { stroke: '#555', grid: { stroke: '#eee' }, size: 64, values: (_u, vals) => vals.map((v) => (v == null ? '' : o.fmt(v))) },
      ...(o.series.some((s) => s.y2)
        ? [
            {
              scale: 'y2',
              side: 1 as const,
              stroke: '#555',
              grid: { show: false },
              size: 56,
              values: (_u: uPlot, vals: number[]) => vals.map((v) => (v == null ? '' : (o.fmt2 ?? o.fmt)(v))),
            },
          ]
        : []),
    ],
    series: [
      { value: '{YYYY}-{MM}-{DD} {HH}:{mm}' },
      ...order.map((i, k) => {
        const s = o.series[i]!;
        const fmt = s.y2 ? (o.fmt2 ?? o.fmt) : o.fmt;
        const series: uPlot.Series = {
          label: s.label,
          stroke: s.color,
          width: s.width ?? 1.5,
          scale: s.y2 ? 'y2' : 'y',
          spanGaps: false,
          // A value with a gap on both sides draws no line: a dot keeps it visible (a series seen
          // in one bucket only, a scrape target added a minute ago).
          points: { show: true, size: 5, filter: (u, si) => isolated(u.data[si] as (number | null | undefined)[]) },
          value: (_u, _v, _si, idx) => {
            const rv = idx == null ? null : raw[k]?.[idx];
            return rv == null ? '–' : fmt(rv);
          },
        };
        if (s.dash) series.dash = [4, 4];
        if (o.stacked) series.fill = s.color + 'cc';
        if (bars) {
          series.paths = bars;
          series.fill = s.color + 'cc';
        }
        return series;
      }),
    ],
  };
  const u = new uPlot(opts, data, el);
  u.root.dataset['key'] = key;
  u.root.dataset['chart'] = o.id;
  if (o.onPoint) {
    const onPoint = o.onPoint;
    u.over.style.cursor = 'pointer';
    u.over.addEventListener('click', () => {
      const idx = u.cursor.idx;
      const top = u.cursor.top;
      if (idx == null || top == null || top < 0) return;
      if (o.stacked) {
        // A stacked area is hit where the click falls inside its band (between the cumulative
        // value below it and its own): the nearest line would be the top edge of the band above.
        const k = stackedHit(
          stacked.map((c) => c[idx] ?? null),
          u.posToVal(top, 'y'),
        );
        if (k >= 0) onPoint({ idx, series: k });
        return;
      }
      // The series whose value at this bucket is drawn nearest the click.
      let best = -1;
      let bestDist = Infinity;
      for (let si = 1; si < u.series.length; si++) {
        const v = u.data[si]?.[idx];
        if (v == null || !u.series[si]!.show) continue;
        const y = u.valToPos(v, u.series[si]!.scale ?? 'y');
        const d = Math.abs(y - top);
        if (d < bestDist) {
          bestDist = d;
          best = si;
        }
      }
      if (best < 0) return;
      onPoint({ idx, series: order[best - 1]! });
    });
  }
  charts.set(o.id, u);
  return u;
}

/** Places rows from `/v1/query` (RFC 3339 buckets) on the window's bucket grid: gaps become null. */
export function onGrid<R extends { bucket?: unknown }>(buckets: number[], rows: readonly R[]): (R | undefined)[] {
  const byT = new Map<number, R>();
  for (const r of rows) {
    const b = r.bucket;
    const t = typeof b === 'string' ? Date.parse(b) : typeof b === 'number' ? b : NaN;
    if (Number.isFinite(t)) byT.set(t, r);
  }
  return buckets.map((t) => byT.get(t));
}
