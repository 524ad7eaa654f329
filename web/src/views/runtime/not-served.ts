/** Requests not served, by status: every status of the vocabulary but ok and error (which has its own panel). */
import { colorFor, fmtPct, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import { NOT_SERVED_STATUSES } from './measures.ts';
import { SYNC, chartBox, col, sliceAt } from './shared.ts';
import type { Buckets } from './shared.ts';

export function drawNotServed(panel: Panel, b: Buckets): void {
  const { ctx, grid, xs, xRange } = b;
  const rej = NOT_SERVED_STATUSES.map((s) => ({ label: s, color: colorFor(s, 0), values: col(grid, `${s}_rate`) }));
  timeSeries(chartBox(panel), {
    id: 'rejects',
    xs,
    xRange,
    series: rej,
    fmt: (v) => fmtPct(v, 1),
    syncKey: SYNC,
    onPoint: ({ idx, series: si }) =>
      ctx.openSamples({
        title: `${rej[si]!.label} requests in ${fmtTime(xs[idx]!)}`,
        ...sliceAt(ctx, idx),
        filters: { ...ctx.filters, status: rej[si]!.label },
      }),
  });
  panel.ready();
}
