/** Throughput by status: requests per second, stacked by every status of the vocabulary that occurred. */
import { STATUSES } from '../../../../src/schema/vocabulary.ts';
import { colorFor, fmtNum, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import { SYNC, chartBox, col, sliceAt, times } from './shared.ts';
import type { Buckets } from './shared.ts';

export function drawThroughput(panel: Panel, b: Buckets): void {
  const { ctx, grid, xs, xRange } = b;
  const qps = col(grid, 'qps');
  const statusSeries = STATUSES.map((s) => ({ label: s, color: colorFor(s, 0), values: times(qps, col(grid, `${s}_rate`)) })).filter((s) =>
    s.values.some((v) => (v ?? 0) > 0),
  );
  timeSeries(chartBox(panel), {
    id: 'qps',
    xs,
    xRange,
    stacked: true,
    series: statusSeries,
    fmt: (v) => `${fmtNum(v)}/s`,
    syncKey: SYNC,
    onPoint: ({ idx, series: si }) => {
      const status = statusSeries[si]!.label;
      ctx.openSamples({ title: `${status} requests in ${fmtTime(xs[idx]!)}`, ...sliceAt(ctx, idx), filters: { ...ctx.filters, status } });
    },
  });
  panel.ready();
}
