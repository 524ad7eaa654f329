/** The latency heatmap (`POST /v1/histogram`), drawn at once; the P99 overlay is added when the bucket query lands. */
import { post } from '../../api.ts';
import type { HistogramReply } from '../../../../src/schema/replies.ts';
import { fmtMs, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { heatmap } from '../../charts/heatmap.ts';
import { onGrid } from '../../charts/timeseries.ts';
import type { ViewContext } from '../../view.ts';
import { SYNC, chartBox, col } from './shared.ts';
import type { Buckets, Col } from './shared.ts';

export async function loadHeatmap(panel: Panel, ctx: ViewContext, buckets: Promise<Buckets>): Promise<void> {
  const { win, filters, signal } = ctx;
  const p99Of = async (): Promise<Col | null> => col((await buckets).grid, 'p99(total_ms)');
  const data = await post<HistogramReply>('/v1/histogram', { from: win.from, to: win.to, filters, step: win.step, field: 'total_ms', approx: true }, signal);
  if (signal.aborted) return;
  const bounds = data.bounds_ms;
  const hrows = data.rows;
  if (bounds.length === 0 || hrows.every((r) => r.counts.every((c) => c === 0))) {
    const p99 = await p99Of().catch(() => null);
    if (signal.aborted) return;
    if (p99?.some((v) => v != null)) panel.needs(['total_ms'], 'The heatmap bins each request by its end-to-end latency.');
    else panel.empty('No requests with a latency in this window.');
    return;
  }
  const grid = onGrid(win.buckets, hrows);
  const draw = (p99: Col) =>
    heatmap(chartBox(panel), {
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
        ctx.openSamples({
          title: `Requests ≥ ${fmtMs(lowerMs)} in ${fmtTime(t)}`,
          fromMs: t,
          toMs: t + win.stepMs,
          filters,
          min: { column: 'total_ms', value: lowerMs },
        });
      },
    });
  draw(win.buckets.map(() => null));
  panel.ready();
  const p99 = await p99Of().catch(() => null);
  if (p99 && !signal.aborted) draw(p99);
}
