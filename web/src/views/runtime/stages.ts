/** Where the time goes: the mean of each stage of the vocabulary, stacked; stages not sent are named. */
import { STAGES } from '../../../../src/schema/vocabulary.ts';
import { colorFor, fmtMs, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import { SYNC, chartBox, col, hasAny, sliceAt } from './shared.ts';
import type { Buckets } from './shared.ts';

export function drawStages(panel: Panel, b: Buckets): void {
  const { ctx, grid, xs, xRange } = b;
  const stageCols = STAGES.map((s) => ({ s, values: col(grid, `mean(${s})`) }));
  const present = stageCols.filter((c) => hasAny(c.values));
  if (present.length === 0) {
    panel.needs([...STAGES], 'Send per-stage timings (the SDK stage timers do it) to see where the time goes.');
    return;
  }
  const missing = stageCols.filter((c) => !hasAny(c.values)).map((c) => c.s);
  panel.setMeta(missing.length ? `not sent: ${missing.join(', ')}` : '');
  timeSeries(chartBox(panel), {
    id: 'stages',
    xs,
    xRange,
    stacked: true,
    series: present.map((c) => ({ label: c.s.replace('_ms', ''), color: colorFor(c.s, 0), values: c.values })),
    fmt: fmtMs,
    syncKey: SYNC,
    onPoint: ({ idx }) => ctx.openSamples({ title: `Requests in ${fmtTime(xs[idx]!)}`, ...sliceAt(ctx, idx), filters: ctx.filters }),
  });
  panel.ready();
}
