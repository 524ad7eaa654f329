/** exec_ms P50 and P99 per replica over time (one query grouped by replica). */
import { num, queryApprox, str } from '../../api.ts';
import type { Row } from '../../api.ts';
import { colorFor, fmtMs, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { onGrid, timeSeries } from '../../charts/timeseries.ts';
import type { SeriesSpec } from '../../charts/timeseries.ts';
import type { ViewContext } from '../../view.ts';
import { SYNC, chartBox, col } from './shared.ts';
import type { Col } from './shared.ts';

export async function loadReplicas(panel: Panel, ctx: ViewContext): Promise<void> {
  const { win, filters, signal } = ctx;
  const { rows } = await queryApprox(
    { from: win.from, to: win.to, filters, step: win.step, group_by: ['replica'], measures: ['n', 'p50(exec_ms)', 'p99(exec_ms)'] },
    signal,
  );
  if (signal.aborted) return;
  const byReplica = new Map<string, Row[]>();
  for (const r of rows) {
    const name = str(r['replica']);
    if (name == null || num(r['n']) == null) continue;
    byReplica.set(name, [...(byReplica.get(name) ?? []), r]);
  }
  const names = [...byReplica.keys()].sort();
  if (names.length === 0 || !rows.some((r) => num(r['p50(exec_ms)']) != null)) {
    panel.needs(['replica', 'exec_ms'], 'Send the replica that served each request and its execution time to compare replicas.');
    return;
  }
  const pos = (c: Col): Col => c.map((v) => (v != null && v > 0 ? v : null));
  const series: SeriesSpec[] = names.flatMap((name, i) => {
    const grid = onGrid(win.buckets, byReplica.get(name)!);
    const color = colorFor(name, i);
    return [
      { label: `${name} P50`, color, values: pos(col(grid, 'p50(exec_ms)')), width: 2 },
      { label: `${name} P99`, color, values: pos(col(grid, 'p99(exec_ms)')), dash: true, width: 1 },
    ];
  });
  timeSeries(chartBox(panel), {
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
  panel.ready();
}
