/**
 * Cost: requests and tokens per model and tenant (`/v1/query`), and busy GPU-seconds per node
 * (`/v1/resources/query` per node and GPU: Σ over the node's GPUs of Σ mean utilisation × step;
 * 0.5 busy for one 60 s bucket = 30 GPU-s). Summed over GPUs, never averaged: a node with three
 * GPUs at 50 % for a minute is 90 GPU-s, not 30.
 */
import { call, field, num, query, records, str } from '../api.ts';
import { h, replace } from '../dom.ts';
import { fmtNum } from '../format.ts';
import { Panel } from '../panel.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard } from './common.ts';

export function costView(root: HTMLElement): ViewHandle {
  const usage = new Panel('cost-usage', 'Requests and tokens by model and tenant', 'window totals', true);
  const gpu = new Panel('cost-gpu', 'GPU-seconds by node', 'busy GPU-seconds = Σ over the node\'s GPUs of mean utilisation × step', true);
  replace(root, h('div', { class: 'grid' }, usage.el, gpu.el));
  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      usage.loading();
      gpu.loading();
      await Promise.all([
        guard(usage, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, group_by: ['model', 'tenant'], measures: ['count', 'sum(input_tokens)', 'sum(output_tokens)', 'mean(total_ms)'] }, signal);
          if (rows.length === 0) return usage.empty('No requests in this window.');
          // Token columns show when the events carry them; a missing one says which field unlocks it.
          const kinds = (['input_tokens', 'output_tokens'] as const).filter((k) => rows.some((r) => r[`sum(${k})`] != null));
          const missing = (['input_tokens', 'output_tokens'] as const).filter((k) => !kinds.includes(k));
          const head = ['model', 'tenant', 'requests', ...kinds.map((k) => k.replace('_', ' ')), ...(kinds.length ? ['tokens / request'] : [])];
          usage.ready(
            missing.length ? h('div', { class: 'needs small', data: { needs: missing.join(',') } }, 'Token columns need ', ...missing.flatMap((k, i) => [i ? ', ' : '', h('code', null, k)]), ' sent with the events.') : null,
            h(
              'table',
              { class: 'compact' },
              h('thead', null, h('tr', null, ...head.map((x) => h('th', null, x)))),
              h(
                'tbody',
                null,
                ...rows
                  .sort((a, b) => (num(b['count']) ?? 0) - (num(a['count']) ?? 0))
                  .map((r) => {
                    const c = num(r['count']) ?? 0;
                    const t = kinds.reduce((a, k) => a + (num(r[`sum(${k})`]) ?? 0), 0);
                    const anyT = kinds.some((k) => num(r[`sum(${k})`]) != null);
                    return h(
                      'tr',
                      { data: { model: str(r['model']) ?? '', tenant: str(r['tenant']) ?? '' } },
                      h('td', null, str(r['model']) ?? '–'),
                      h('td', null, str(r['tenant']) ?? '–'),
                      h('td', null, fmtNum(c, 0)),
                      ...kinds.map((k) => h('td', null, fmtNum(num(r[`sum(${k})`]), 0))),
                      ...(kinds.length ? [h('td', null, anyT && c ? fmtNum(t / c) : '–')] : []),
                    );
                  }),
              ),
            ),
          );
        }),
        guard(gpu, signal, 'POST /v1/resources/query', 'GPU-seconds come from the resource series.', async () => {
          const data = await call('POST', '/v1/resources/query', { from: win.from, to: win.to, step: win.step, metrics: ['gpu_utilization_ratio'], group_by: ['node', 'gpu'] }, signal);
          const rows = records(field(data, 'rows'));
          if (rows.length === 0) return gpu.needs(['gpu_utilization_ratio'], 'Send GPU utilisation readings (DCGM scrape or the collector).');
          const byNode = new Map<string, { s: number; sim: boolean; gpus: Set<string> }>();
          for (const r of rows) {
            const node = str(r['node']) ?? 'all';
            const cur = byNode.get(node) ?? { s: 0, sim: false, gpus: new Set<string>() };
            cur.s += (num(r['avg']) ?? 0) * (win.stepMs / 1000);
            cur.sim ||= r['simulated'] === true;
            cur.gpus.add(str(r['gpu']) ?? '');
            byNode.set(node, cur);
          }
          gpu.setBadges(...([...byNode.values()].some((v) => v.sim) ? ['simulated'] : []));
          gpu.ready(
            h(
              'table',
              { class: 'compact' },
              h('thead', null, h('tr', null, h('th', null, 'node'), h('th', null, 'GPUs'), h('th', null, 'busy GPU-seconds'), h('th', null, ''))),
              h('tbody', null, ...[...byNode.entries()].map(([n, v]) => h('tr', { data: { node: n, gpuSeconds: String(Math.round(v.s)) } }, h('td', null, n), h('td', null, fmtNum(v.gpus.size, 0)), h('td', null, fmtNum(v.s, 0)), h('td', null, v.sim ? 'simulated' : '')))),
            ),
          );
        }),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}
