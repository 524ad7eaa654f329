/** Latency percentiles over time: total_ms P50 … P99.9 and max on a log scale, stored rows per bucket on the right. */
import { colorFor, fmtMs, fmtNum, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import type { SeriesSpec } from '../../charts/timeseries.ts';
import { PCTS } from './measures.ts';
import { SYNC, approxNote, chartBox, col, hasAny, sliceAt } from './shared.ts';
import type { Buckets, Col } from './shared.ts';

export function drawLatency(panel: Panel, b: Buckets, storedRows: number | null): void {
  const { ctx, grid, xs, xRange } = b;
  panel.setMeta(`n = ${fmtNum(storedRows, 0)} stored rows${approxNote(b.relativeError)}`);
  // Log scale: P50 and the max differ by orders of magnitude; a zero cannot be drawn on it.
  const positive = (c: Col): Col => c.map((v) => (v != null && v > 0 ? v : null));
  const pcts = PCTS.map(([k, label]) => ({ label, color: colorFor(k, 0), values: positive(col(grid, `${k}(total_ms)`)) }));
  if (!pcts.some((s) => hasAny(s.values))) {
    panel.needs(['total_ms'], 'Send the end-to-end latency of each request to see percentiles over time.');
    return;
  }
  // n per bucket shows in the legend next to the percentiles.
  const series: SeriesSpec[] = [
    ...pcts,
    { label: 'max', color: colorFor('max', 0), values: positive(col(grid, 'max(total_ms)')), dash: true, width: 1 },
    { label: 'n', color: '#cccccc', values: col(grid, 'n'), y2: true, width: 1, dash: true },
  ];
  timeSeries(chartBox(panel), {
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
        filters: ctx.filters,
        ...((pct || s.label === 'max') && v != null ? { min: { column: 'total_ms', value: v } } : {}),
      });
    },
  });
  panel.ready();
}
