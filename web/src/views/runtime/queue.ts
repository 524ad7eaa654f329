/** Queue time, queue length (Little's law) and batch size. */
import { colorFor, fmtMs, fmtNum, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import type { SeriesSpec } from '../../charts/timeseries.ts';
import { SYNC, chartBox, col, hasAny, sliceAt } from './shared.ts';
import type { Buckets } from './shared.ts';

export function drawQueue(panel: Panel, b: Buckets): void {
  const { ctx, grid, xs, xRange } = b;
  const qps = col(grid, 'qps');
  const queueP99 = col(grid, 'p99(queue_ms)');
  const queueMean = col(grid, 'mean(queue_ms)');
  const batchMean = col(grid, 'mean(batch_size)');
  const batchMax = col(grid, 'max(batch_size)');
  const qs: SeriesSpec[] = [];
  if (hasAny(queueP99))
    qs.push({ label: 'queue P99', color: colorFor('queue_ms', 0), values: queueP99 }, { label: 'queue mean', color: '#f6b26b', values: queueMean, dash: true });
  // Little's law: mean requests waiting = arrival rate × mean time in the queue.
  const queueLength = queueMean.map((v, i) => (v == null || qps[i] == null ? null : (qps[i]! * v) / 1000));
  if (hasAny(queueMean)) qs.push({ label: 'queue length', color: '#8e7cc3', values: queueLength, y2: true, width: 2 });
  if (hasAny(batchMean))
    qs.push(
      { label: 'batch mean', color: '#3d85c6', values: batchMean, y2: true },
      { label: 'batch max', color: '#9fc5e8', values: batchMax, y2: true, dash: true },
    );
  if (qs.length === 0) {
    panel.needs(['queue_ms', 'batch_size'], 'Send the time each request waited in the queue and the size of the batch it ran in.');
    return;
  }
  panel.setMeta(!hasAny(queueP99) ? 'queue_ms not sent' : !hasAny(batchMean) ? 'batch_size not sent' : '');
  timeSeries(chartBox(panel), {
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
        filters: ctx.filters,
        ...(s.label === 'queue P99' && v != null ? { min: { column: 'queue_ms', value: v } } : {}),
      });
    },
  });
  panel.ready();
}
