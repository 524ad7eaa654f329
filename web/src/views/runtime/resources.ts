/**
 * Resources on the same time axis (`POST /v1/resources/query`): GPU utilisation, memory, power and
 * temperature per GPU; CPU, host memory, network and disk per node — what the built-in collectors
 * write (src/ingest/collect).
 */
import { post, queryApprox, str } from '../../api.ts';
import type { ResourceSeriesReply } from '../../../../src/schema/replies.ts';
import { h, replace } from '../../dom.ts';
import { colorFor, fmtBytes, fmtPct } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { onGrid, timeSeries } from '../../charts/timeseries.ts';
import type { SeriesSpec } from '../../charts/timeseries.ts';
import type { ViewContext } from '../../view.ts';
import { SYNC } from './shared.ts';
import { RESOURCE_PANEL_METRICS } from '../../../../src/schema/vocabulary.ts';

export async function loadResources(panel: Panel, ctx: ViewContext): Promise<void> {
  const { win, state, signal } = ctx;
  const rf: Record<string, string | string[]> = {};
  if (state.filters.node) rf['node'] = state.filters.node;
  else if (Object.keys(ctx.filters).length > 0) {
    // Host and GPU readings carry a node, rarely a replica or model: the nodes the filtered
    // requests ran on stand for the slice.
    const { rows: nodes } = await queryApprox({ from: win.from, to: win.to, filters: ctx.filters, group_by: ['node'], measures: ['n'] }, signal);
    const names = nodes.map((r) => str(r['node'])).filter((v): v is string => v != null);
    if (names.length > 0) rf['node'] = names;
    panel.setMeta(names.length ? `nodes of the filtered requests: ${names.join(', ')}` : 'the filtered requests name no node');
  } else panel.setMeta('');
  // Per GPU: a node's GPUs are separate lines, never averaged (one at 96 % of its memory is not 54 %).
  const data = await post<ResourceSeriesReply>(
    '/v1/resources/query',
    { from: win.from, to: win.to, step: win.step, metrics: RESOURCE_PANEL_METRICS, filters: rf, group_by: ['node', 'gpu'] },
    signal,
  );
  if (signal.aborted) return;
  const rows = data.rows;
  if (rows.length === 0) {
    panel.needs(
      ['resource samples'],
      'Send host and GPU readings (POST /v1/resources, a DCGM / node exporter scrape, or the built-in collector) to see them beside the requests.',
    );
    return;
  }
  const simulated = rows.some((r) => r.simulated);
  panel.setBadges(...(simulated ? ['simulated'] : []));
  type ResourceRow = ResourceSeriesReply['rows'][number];
  const unit = (r: ResourceRow) => (r.gpu != null ? `${r.node ?? '?'}/gpu${r.gpu}` : (r.node ?? 'all'));
  // One line per node or GPU; `suffix` names the direction when two metrics share a chart (network in / out).
  const series = (metric: string, value: (r: ResourceRow) => number | null, suffix = '') => {
    const byUnit = new Map<string, ResourceRow[]>();
    for (const r of rows) {
      if (r.metric !== metric) continue;
      byUnit.set(unit(r), [...(byUnit.get(unit(r)) ?? []), r]);
    }
    return [...byUnit.entries()].map(([name, rs], i) => {
      const sim = rs.some((r) => r.simulated);
      const grid = onGrid(win.buckets, rs);
      const label = `${name}${suffix}`;
      return { label: `${label}${sim ? ' (simulated)' : ''}`, color: colorFor(label, i), values: grid.map((r) => (r ? value(r) : null)) };
    });
  };
  const perSecond = (v: number) => `${fmtBytes(v)}/s`;
  const avg = (r: ResourceRow): number | null => r.avg;
  // Each GPU's used / its own total.
  const memTotal = new Map<string, number>();
  for (const r of rows) if (r.metric === 'gpu_memory_total_bytes') memTotal.set(`${unit(r)}|${r.bucket}`, r.avg);
  const charts: { id: string; title: string; s: SeriesSpec[]; fmt: (v: number) => string; needs: string }[] = [
    { id: 'res-gpu', title: 'GPU utilisation', s: series('gpu_utilization_ratio', avg), fmt: (v) => fmtPct(v, 0), needs: 'gpu_utilization_ratio' },
    {
      id: 'res-gpumem',
      title: 'GPU memory used',
      s: series('gpu_memory_used_bytes', (r) => {
        const t = memTotal.get(`${unit(r)}|${r.bucket}`);
        const v = avg(r);
        return v == null ? null : t ? v / t : v;
      }),
      fmt: memTotal.size ? (v) => fmtPct(v, 0) : fmtBytes,
      needs: 'gpu_memory_used_bytes',
    },
    { id: 'res-cpu', title: 'CPU utilisation', s: series('cpu_utilization_ratio', avg), fmt: (v) => fmtPct(v, 0), needs: 'cpu_utilization_ratio' },
    { id: 'res-mem', title: 'Host memory used', s: series('memory_used_bytes', avg), fmt: fmtBytes, needs: 'memory_used_bytes' },
    {
      id: 'res-net',
      title: 'Network',
      s: [...series('network_receive_bytes_per_second', avg, ' in'), ...series('network_transmit_bytes_per_second', avg, ' out')],
      fmt: perSecond,
      needs: 'network_receive_bytes_per_second',
    },
    {
      id: 'res-disk',
      title: 'Disk',
      s: [...series('disk_read_bytes_per_second', avg, ' read'), ...series('disk_write_bytes_per_second', avg, ' write')],
      fmt: perSecond,
      needs: 'disk_read_bytes_per_second',
    },
    { id: 'res-gpupower', title: 'GPU power', s: series('gpu_power_watts', avg), fmt: (v) => `${v.toFixed(0)} W`, needs: 'gpu_power_watts' },
    {
      id: 'res-gputemp',
      title: 'GPU temperature',
      s: series('gpu_temperature_celsius', avg),
      fmt: (v) => `${v.toFixed(0)} °C`,
      needs: 'gpu_temperature_celsius',
    },
  ];
  const grid = h('div', { class: 'subgrid' });
  panel.ready(grid);
  for (const c of charts) {
    const box = h('div', { class: 'chart' });
    const cell = h(
      'div',
      { class: 'subpanel', data: { resource: c.id } },
      h('h4', null, c.title, c.s.some((s) => s.label.endsWith('(simulated)')) ? h('span', { class: 'badge badge-simulated' }, 'simulated') : null),
      box,
    );
    grid.appendChild(cell);
    if (c.s.length === 0) {
      replace(box, h('div', { class: 'needs small' }, 'Needs ', h('code', null, c.needs)));
      continue;
    }
    timeSeries(box, { id: c.id, xs: win.buckets, xRange: [win.fromMs, win.toMs], series: c.s, fmt: c.fmt, syncKey: SYNC, height: 160 });
  }
}
