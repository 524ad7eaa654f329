/**
 * Review: the periodic review (`GET /v1/reports`) of the period ending now — 24 h by default,
 * `?period=7d` for a week — against the period before it: worst tail latency by model and by
 * model × version, versions whose error rate moved most, hot GPU pools and nodes, alerting health,
 * cost. Every figure with its sample count and its change; the Markdown form is a link away.
 */
import { call, field, num, records, str } from '../api.ts';
import { h, replace } from '../dom.ts';
import type { Child } from '../dom.ts';
import { fmtMs, fmtNum, fmtPct } from '../format.ts';
import { Panel } from '../panel.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard, table } from './common.ts';

type Rec = Record<string, unknown>;
const PERIODS = ['1h', '24h', '7d', '30d'] as const;

/** +12 % / −40 %, or – when there is nothing to compare with. */
function change(v: number | null): Child {
  if (v == null) return '–';
  return h('span', { class: v > 0 ? 'worse' : v < 0 ? 'better' : '' }, `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(0)} %`);
}

export function reviewView(root: HTMLElement): ViewHandle {
  const latency = new Panel('review-latency', 'Worst tail latency', 'P99 and P99.9 of total_ms by model and by model × version, against the previous period', true);
  const errors = new Panel('review-errors', 'Versions whose error rate moved most', 'error rate now and before, with the requests behind each', true);
  const gpu = new Panel('review-gpu', 'GPU pools and nodes running hot', 'mean and peak utilisation, share of GPU-minutes at or above 85 %, least memory headroom', true);
  const alerting = new Panel('review-alerting', 'Alerting health', 'from the incident log: episodes per rule, the share that led to an action, time to acknowledge, rules that never fired', true);
  const cost = new Panel('review-cost', 'Cost', 'per model and per tenant, against the previous period', true);
  const all = [latency, errors, gpu, alerting, cost];
  const head = h('div', { class: 'controls review-controls' });
  replace(root, head, h('div', { class: 'grid' }, ...all.map((p) => p.el)));
  return {
    async update(ctx: ViewContext) {
      const { signal } = ctx;
      const raw = ctx.state.extra['period'] ?? '24h';
      const period = (PERIODS as readonly string[]).includes(raw) ? raw : '24h';
      replace(
        head,
        h('label', null, 'Period ', h('select', { id: 'review-period', label: 'period', value: period, on: { change: (e) => ctx.setExtra({ period: (e.target as HTMLSelectElement).value }) } }, ...PERIODS.map((p) => h('option', { value: p, selected: p === period }, `last ${p}`)))),
        ' ',
        h('a', { href: `/v1/reports?period=${period}&format=md`, id: 'review-markdown' }, 'Markdown for a chat tool'),
      );
      for (const p of all) p.loading();
      let data: unknown;
      await guard(latency, signal, 'GET /v1/reports', 'The review needs GET /v1/reports.', async () => {
        data = await call('GET', `/v1/reports?period=${period}`, undefined, signal);
      });
      if (data === undefined) {
        for (const p of all.slice(1)) if (p.state === 'loading') p.empty('See the first panel.');
        return;
      }
      const was = field(data, 'previous');
      const meta = `${str(field(field(data, 'period'), 'from'))?.slice(0, 16) ?? ''} → ${str(field(field(data, 'period'), 'to'))?.slice(0, 16) ?? ''} UTC, against ${str(field(was, 'from'))?.slice(0, 16) ?? ''} → ${str(field(was, 'to'))?.slice(0, 16) ?? ''}`;
      for (const p of all) p.setMeta(meta);

      const lat = (rows: Rec[], versions: boolean) =>
        table(
          [versions ? 'model × version' : 'model', 'P99', 'P99.9', 'n', 'P99 before', 'n before', 'P99 change', 'P99.9 change'],
          rows.map((r) => {
            const b = field(r, 'previous');
            return [versions ? `${str(r['model']) ?? '–'} ${str(r['model_version']) ?? '–'}` : (str(r['model']) ?? '–'), fmtMs(num(r['p99_ms'])), fmtMs(num(r['p999_ms'])), fmtNum(num(r['n']), 0), fmtMs(num(field(b, 'p99_ms'))), b ? fmtNum(num(field(b, 'n')), 0) : '–', change(num(r['p99_change'])), change(num(r['p999_change']))];
          }),
          (i) => ({ model: str(rows[i]!['model']) ?? '', version: str(rows[i]!['model_version']) ?? '' }),
        );
      const byModel = records(field(field(data, 'latency'), 'by_model'));
      const byVersion = records(field(field(data, 'latency'), 'by_version'));
      if (byModel.length === 0) latency.empty('No requests in this period.');
      else latency.ready(h('h4', null, 'By model'), lat(byModel, false), h('h4', null, 'By model × version'), lat(byVersion, true));

      const errs = records(field(data, 'errors'));
      if (errs.length === 0) errors.empty('No requests in this period.');
      else
        errors.ready(
          table(
            ['model × version', 'requests', 'error rate', 'before', 'requests before', 'change (points)'],
            errs.map((e) => [`${str(e['model']) ?? '–'} ${str(e['model_version']) ?? '–'}`, fmtNum(num(e['requests']), 0), fmtPct(num(e['error_rate'])), fmtPct(num(e['previous_error_rate'])), fmtNum(num(e['previous_requests']), 0), num(e['change_points']) == null ? '–' : `${num(e['change_points'])! >= 0 ? '+' : '−'}${Math.abs(num(e['change_points'])!).toFixed(2)}`]),
          ),
        );

      const hot = (rows: Rec[], by: 'pool' | 'node') =>
        table(
          [by, 'GPUs', 'mean', 'peak', 'time ≥ 85 %', 'GPU-minutes', 'least memory headroom', 'mean before'],
          rows.map((r) => [str(r[by]) ?? '–', fmtNum(num(r['gpus']), 0), fmtPct(num(r['mean_utilization']), 1), fmtPct(num(r['peak_utilization']), 1), fmtPct(num(r['hot_share']), 1), fmtNum(num(r['gpu_minutes']), 0), fmtPct(num(r['min_memory_headroom']), 1), fmtPct(num(r['previous_mean_utilization']), 1)]),
          (i) => ({ [by]: str(rows[i]![by]) ?? '' }),
        );
      const pools = records(field(field(data, 'gpu'), 'by_pool'));
      const nodes = records(field(field(data, 'gpu'), 'by_node'));
      if (nodes.length === 0) gpu.needs(['gpu_utilization_ratio'], 'Send GPU utilisation readings (DCGM scrape or the collector).');
      else gpu.ready(h('h4', null, 'By pool'), hot(pools, 'pool'), h('h4', null, 'By node'), hot(nodes, 'node'));

      const al = field(data, 'alerting');
      if (field(al, 'available') !== true) alerting.empty('Alerting does not run in this process: no incident log to read.');
      else {
        const noisy = records(field(al, 'noisiest'));
        const never = Array.isArray(field(al, 'never_fired')) ? (field(al, 'never_fired') as unknown[]).map(String) : [];
        alerting.ready(
          h('p', { class: 'review-summary' }, `${fmtNum(num(field(al, 'incidents')), 0)} incidents, ${fmtNum(num(field(al, 'episodes')), 0)} alert episodes; ${fmtPct(num(field(al, 'action_share')), 0)} proposed an action.`),
          noisy.length ? table(['rule', 'episodes', 'with action', 'acknowledged', 'median time to acknowledge'], noisy.map((n) => [str(n['alertname']) ?? '', fmtNum(num(n['episodes']), 0), fmtNum(num(n['with_action']), 0), fmtNum(num(n['acknowledged']), 0), num(n['median_minutes_to_acknowledge']) == null ? '–' : `${num(n['median_minutes_to_acknowledge'])!.toFixed(1)} min`]), (i) => ({ rule: str(noisy[i]!['alertname']) ?? '' })) : null,
          never.length ? h('p', { class: 'panel-sub', data: { neverFired: never.join(',') } }, `Never fired: ${never.join(', ')}`) : null,
        );
      }

      const c = field(data, 'cost');
      if (field(c, 'priced') !== true) {
        cost.ready(h('div', { class: 'needs small', data: { unlock: 'cost' } }, `Money figures need prices: ${str(field(c, 'unlock')) ?? ''}. ${fmtNum(num(field(c, 'gpu_seconds')), 0)} GPU-seconds attributed.`));
      } else {
        const cur = str(field(c, 'currency')) ?? '';
        const money = (v: number | null) => (v == null ? '–' : `${v.toFixed(v >= 100 ? 0 : v >= 1 ? 2 : 4)} ${cur}`);
        const rows = (key: 'model' | 'tenant') =>
          table(
            [key, 'cost', 'before', 'change', 'requests', 'per 1,000 requests'],
            records(field(c, `by_${key}`)).map((m) => [str(m[key]) ?? '–', money(num(m['cost'])), money(num(m['previous'])), change(num(m['change'])), fmtNum(num(m['requests']), 0), money(num(m['cost_per_1k_requests']))]),
          );
        cost.ready(h('p', { class: 'review-summary' }, `Total ${money(num(field(c, 'total')))} (before ${money(num(field(c, 'previous_total')))}) `, change(num(field(c, 'change')))), h('h4', null, 'By model'), rows('model'), h('h4', null, 'By tenant'), rows('tenant'));
      }
    },
    destroy() {
      replace(root);
    },
  };
}
