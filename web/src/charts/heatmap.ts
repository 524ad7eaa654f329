/**
 * The latency heatmap on uPlot: x = the window's buckets (same axis and cursor as the other
 * charts), y = log-spaced latency buckets, colour = request count in the cell. Cells are painted in
 * a draw hook; a P99 line can be laid over as a normal series. Bucket i holds values in
 * (bounds[i-1], bounds[i]]; the last count is the overflow above the last bound.
 */
import uPlot from 'uplot';
import { charts } from './registry.ts';

export interface HeatmapOptions {
  id: string;
  xs: number[];
  stepMs: number;
  xRange: [number, number];
  boundsMs: number[];
  /** counts[x][bin], bins = boundsMs.length + 1 (overflow last); undefined = no data. */
  counts: (number[] | undefined)[];
  overlay?: { label: string; color: string; values: (number | null)[] };
  syncKey: string;
  fmt: (v: number) => string;
  height?: number;
  /** Click on a cell: the bucket index and the cell's lower latency bound. */
  onCell?: (idx: number, lowerMs: number) => void;
}

/** Lower and upper edge of bin j. */
export function binEdges(bounds: number[], j: number): [number, number] {
  const ratio = bounds.length > 1 ? bounds[1]! / bounds[0]! : 10;
  if (j === 0) return [bounds[0]! / ratio, bounds[0]!];
  if (j >= bounds.length) return [bounds[bounds.length - 1]!, bounds[bounds.length - 1]! * ratio];
  return [bounds[j - 1]!, bounds[j]!];
}

// Light blue → blue → dark red as the share of the busiest cell grows (square root, so a cell
// with 1 of the busiest cell's 25 requests still shows at 20 %).
function cellColor(share: number): string {
  const t = Math.max(0, Math.min(1, share));
  const stops: [number, number, number][] = [
    [222, 235, 247],
    [66, 146, 198],
    [8, 48, 107],
    [165, 15, 21],
  ];
  const pos = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(pos));
  const f = pos - i;
  const a = stops[i]!;
  const b = stops[i + 1]!;
  const c = a.map((v, k) => Math.round(v + (b[k]! - v) * f));
  return `rgb(${c[0]},${c[1]},${c[2]})`;
}

export function heatmap(el: HTMLElement, o: HeatmapOptions): uPlot {
  charts.get(o.id)?.destroy();
  let lo = Infinity;
  let hi = 0;
  let maxCount = 0;
  for (const col of o.counts) {
    col?.forEach((c, j) => {
      if (c <= 0) return;
      const [a, b] = binEdges(o.boundsMs, j);
      lo = Math.min(lo, a);
      hi = Math.max(hi, b);
      maxCount = Math.max(maxCount, c);
    });
  }
  if (!Number.isFinite(lo)) {
    lo = 1;
    hi = 1000;
  }
  // Whole decades, so the log axis ticks at 1, 10, 100 ms, 1 s.
  lo = 10 ** Math.floor(Math.log10(lo));
  hi = 10 ** Math.ceil(Math.log10(hi));
  const xs = o.xs.map((t) => t / 1000);
  const overlay = o.overlay?.values ?? xs.map(() => null);
  const draw = (u: uPlot) => {
    const ctx = u.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
    ctx.clip();
    o.counts.forEach((col, i) => {
      if (!col) return;
      const x0 = u.valToPos(xs[i]!, 'x', true);
      const x1 = u.valToPos(xs[i]! + o.stepMs / 1000, 'x', true);
      col.forEach((c, j) => {
        if (c <= 0) return;
        const [a, b] = binEdges(o.boundsMs, j);
        const y0 = u.valToPos(a, 'y', true);
        const y1 = u.valToPos(b, 'y', true);
        ctx.fillStyle = cellColor(Math.sqrt(c / maxCount));
        ctx.fillRect(x0, y1, Math.max(1, x1 - x0 - 1), Math.max(1, y0 - y1));
      });
    });
    ctx.restore();
  };
  const opts: uPlot.Options = {
    width: Math.max(300, el.clientWidth || 560),
    height: o.height ?? 220,
    cursor: { sync: { key: o.syncKey }, drag: { x: false, y: false }, points: { show: false } },
    legend: { live: true },
    scales: {
      x: { time: true, range: () => [o.xRange[0] / 1000, o.xRange[1] / 1000] },
      y: { distr: 3, log: 10, range: () => [lo, hi] },
    },
    axes: [
      { stroke: '#555', grid: { stroke: '#eee' } },
      { stroke: '#555', grid: { stroke: '#eee' }, size: 64, values: (_u, vals) => vals.map((v) => (v == null ? '' : o.fmt(v))) },
    ],
    series: [
      { value: '{YYYY}-{MM}-{DD} {HH}:{mm}' },
      {
        label: o.overlay?.label ?? '',
        stroke: o.overlay?.color ?? 'transparent',
        width: 1.5,
        points: { show: false },
        value: (_u, v) => (v == null ? '–' : o.fmt(v)),
      },
    ],
    hooks: { drawAxes: [draw] },
  };
  const u = new uPlot(opts, [xs, overlay], el);
  u.root.dataset['chart'] = o.id;
  if (o.onCell) {
    const onCell = o.onCell;
    u.over.style.cursor = 'pointer';
    u.over.addEventListener('click', () => {
      const idx = u.cursor.idx;
      const top = u.cursor.top;
      if (idx == null || top == null || top < 0) return;
      const ms = u.posToVal(top, 'y');
      const j = o.boundsMs.findIndex((b) => ms <= b);
      const [a] = binEdges(o.boundsMs, j < 0 ? o.boundsMs.length : j);
      onCell(idx, a);
    });
  }
  charts.set(o.id, u);
  return u;
}
