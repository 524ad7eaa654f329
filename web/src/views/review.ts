/**
 * Review: the periodic review (`GET /v1/reports`) of the period ending now — 24 h by default,
 * `?period=7d` for a week — against the period before it: worst tail latency by model and by
 * model × version, versions whose error rate moved most, versions by release verdict, tenants and
 * entries with the largest error and latency excess, quality drift and golden pass rates, hot GPU
 * pools and nodes, alerting health, which signal was missing before each incident, cost. Every
 * figure with its sample count and its change; the Markdown and HTML forms are a link away.
 */
import { call, field, num, records, str } from '../api.ts';
import { h, replace } from '../dom.ts';
import type { Child } from '../dom.ts';
import { fmtMs, fmtNum, fmtPct } from '../format.ts';
import { Panel } from '../panel.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { fmtP, guard, shareBar, table, tag } from './common.ts';

type Rec = Record<string, unknown>;
const PERIODS = ['1h', '24h', '7d', '30d'] as const;

/** +12 % / −40 %, or – when there is nothing to compare with. */
function change(v: number | null): Child {
  if (v == null) return '–';
  return h('span', { class: v > 0 ? 'worse' : v < 0 ? 'better' : '' }, `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(0)} %`);
}

const hhmm = (t: unknown) => (typeof t === 'string' ? `${t.slice(11, 16)} UTC` : '–');
const mins = (s: number | null) => (s == null ? '' : ` (${(s / 60).toFixed(1)} min)`);

/** One incident: its timeline (what moved, what fired, what would have fired), the suggested rule, the signals that moved. */
function incidentCard(r: Rec): HTMLElement {
  const slice = Object.entries((field(r, 'slice') ?? {}) as Record<string, string>)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const steps: { at: string; text: string; kind: string }[] = [];
  for (const s of records(field(r, 'signals')))
    if (typeof s['moved_at'] === 'string')
      steps.push({ at: s['moved_at'], text: `${str(s['signal']) ?? ''} moved (${str(s['family']) ?? ''})`, kind: 'signal' });
  const first = field(r, 'first_rule');
  const after = num(field(first, 'after_first_signal_s'));
  if (first)
    steps.push({
      at: str(field(first, 'fired_at')) ?? '',
      text: `${str(field(first, 'alertname')) ?? ''} fired — the first rule${after == null ? '' : `, ${(after / 60).toFixed(1)} min after the first signal`}`,
      kind: 'rule',
    });
  if (field(r, 'first_signal') == null) steps.push({ at: '', text: 'No signal of the slice moved in the half hour before.', kind: 'none' });
  const bt = field(r, 'backtest');
  const pack = field(bt, 'earlier_in_pack');
  if (pack)
    steps.push({
      at: str(field(pack, 'fired_at')) ?? '',
      text: `${str(field(pack, 'alertname')) ?? ''} would have fired (pack, backtest)${mins(num(field(pack, 'lead_s')))} earlier`,
      kind: 'backtest',
    });
  const sug = field(bt, 'suggested');
  if (sug && typeof field(sug, 'fired_at') === 'string')
    steps.push({
      at: str(field(sug, 'fired_at'))!,
      text: `${str(field(sug, 'alertname')) ?? ''} would have fired (catalogue, backtest)${mins(num(field(sug, 'lead_s')))} earlier`,
      kind: 'backtest',
    });
  steps.sort((a, b) => a.at.localeCompare(b.at));
  const note =
    field(bt, 'ran') === true ? (pack ? null : 'No rule of the pack would have fired earlier.') : `Backtest not run: ${str(field(bt, 'note')) ?? ''}`;
  return h(
    'div',
    { class: 'review-incident', data: { incident: str(r['incident_id']) ?? '' } },
    h('h4', null, `${slice || str(r['incident_id'])} — ${str(r['status']) ?? ''}, opened ${hhmm(r['opened_at'])}`),
    h(
      'ol',
      { class: 'review-timeline' },
      ...steps.map((s) => h('li', { data: { kind: s.kind } }, s.at ? h('strong', null, hhmm(s.at)) : null, s.at ? ' ' : null, s.text)),
    ),
    note ? h('p', { class: 'panel-sub' }, note) : null,
    sug
      ? h(
          'details',
          null,
          h('summary', null, `Suggested rule from the detector catalogue: ${str(field(sug, 'alertname')) ?? ''}`),
          h('pre', { class: 'review-rule' }, str(field(sug, 'rule_yaml')) ?? ''),
        )
      : null,
  );
}

export function reviewView(root: HTMLElement): ViewHandle {
  const latency = new Panel(
    'review-latency',
    'Worst tail latency',
    'P99 and P99.9 of total_ms by model and by model × version, against the previous period',
    true,
  );
  const errors = new Panel('review-errors', 'Versions whose error rate moved most', 'error rate now and before, with the requests behind each', true);
  const gpu = new Panel(
    'review-gpu',
    'GPU pools and nodes running hot',
    'mean and peak utilisation, share of GPU-minutes at or above 85 %, least memory headroom',
    true,
  );
  const alerting = new Panel(
    'review-alerting',
    'Alerting health',
    'from the incident log: episodes per rule, the share that led to an action, time to acknowledge, rules that never fired',
    true,
  );
  const cost = new Panel('review-cost', 'Cost', 'per model and per tenant, against the previous period', true);
  const versions = new Panel(
    'review-versions',
    'Versions that behaved abnormally',
    "release verdicts: each version against itself in the previous period and against its model's main version",
    true,
  );
  const slices = new Panel(
    'review-slices',
    'Tenants and entries with the largest excess',
    "the slice finder over tenant and entry: errors, and requests above the period's P95",
    true,
  );
  const quality = new Panel(
    'review-quality',
    'Quality drift and golden pass rates',
    'confidence and label against the previous period; golden probes per version',
    true,
  );
  const missing = new Panel(
    'review-missing',
    'Which signal was missing',
    'per incident: what moved first on its slice, the rule that fired first, and what a backtest of the half hour before would have fired',
    true,
  );
  const all = [latency, errors, versions, slices, quality, gpu, alerting, missing, cost];
  const head = h('div', { class: 'controls review-controls' });
  replace(root, head, h('div', { class: 'grid' }, ...all.map((p) => p.el)));
  return {
    async update(ctx: ViewContext) {
      const { signal } = ctx;
      const raw = ctx.state.extra['period'] ?? '24h';
      const period = (PERIODS as readonly string[]).includes(raw) ? raw : '24h';
      // The filter bar narrows the review (one value per dimension; GPUs by node and replica only).
      const narrowed = Object.entries(ctx.filters).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
      const query = new URLSearchParams([['period', period], ...narrowed]).toString();
      replace(
        head,
        h(
          'label',
          null,
          'Period ',
          h(
            'select',
            { id: 'review-period', label: 'period', value: period, on: { change: (e) => ctx.setExtra({ period: (e.target as HTMLSelectElement).value }) } },
            ...PERIODS.map((p) => h('option', { value: p, selected: p === period }, `last ${p}`)),
          ),
        ),
        ' ',
        h('a', { href: `/v1/reports?${query}&format=md`, id: 'review-markdown' }, 'Markdown for a chat tool'),
        ' · ',
        h('a', { href: `/v1/reports?${query}&format=html`, id: 'review-html' }, 'HTML to send or print'),
      );
      for (const p of all) p.loading();
      let data: unknown;
      await guard(latency, signal, 'GET /v1/reports', 'The review needs GET /v1/reports.', async () => {
        data = await call('GET', `/v1/reports?${query}`, undefined, signal);
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
            return [
              versions ? `${str(r['model']) ?? '–'} ${str(r['model_version']) ?? '–'}` : (str(r['model']) ?? '–'),
              fmtMs(num(r['p99_ms'])),
              fmtMs(num(r['p999_ms'])),
              fmtNum(num(r['n']), 0),
              fmtMs(num(field(b, 'p99_ms'))),
              b ? fmtNum(num(field(b, 'n')), 0) : '–',
              change(num(r['p99_change'])),
              change(num(r['p999_change'])),
            ];
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
            errs.map((e) => [
              `${str(e['model']) ?? '–'} ${str(e['model_version']) ?? '–'}`,
              fmtNum(num(e['requests']), 0),
              fmtPct(num(e['error_rate'])),
              fmtPct(num(e['previous_error_rate'])),
              fmtNum(num(e['previous_requests']), 0),
              num(e['change_points']) == null ? '–' : `${num(e['change_points'])! >= 0 ? '+' : '−'}${Math.abs(num(e['change_points'])!).toFixed(2)}`,
            ]),
          ),
        );

      const verdictCell = (v: unknown): Child =>
        v == null ? '–' : h('span', null, tag(str(field(v, 'verdict')) ?? ''), num(field(v, 'score')) == null ? '' : ` ${num(field(v, 'score'))!.toFixed(0)}`);
      const vs = field(data, 'versions');
      const vrows = records(field(vs, 'rows'));
      if (field(vs, 'available') !== true) versions.empty('Release comparison is not available here.');
      else if (vrows.length === 0) versions.empty('No requests in this period.');
      else
        versions.ready(
          table(
            ['model × version', 'requests', 'before', 'vs previous period', 'vs main version', 'why'],
            vrows.map((v) => {
              const main = field(v, 'vs_main');
              const reasons = [
                ...((field(main, 'reasons') as unknown[] | undefined) ?? []),
                ...((field(field(v, 'vs_previous'), 'reasons') as unknown[] | undefined) ?? []),
              ]
                .map(String)
                .slice(0, 2);
              return [
                `${str(v['model']) ?? '–'} ${str(v['model_version']) ?? '–'}${v['main'] === true ? ' (main)' : ''}`,
                fmtNum(num(v['requests']), 0),
                fmtNum(num(v['previous_requests']), 0),
                verdictCell(field(v, 'vs_previous')),
                main == null ? '–' : h('span', null, verdictCell(main), ` vs ${str(field(main, 'main_version')) ?? '–'}`),
                h('span', { class: 'panel-sub' }, reasons.join('; ') || '–'),
              ];
            }),
            (i) => ({ version: str(vrows[i]!['model_version']) ?? '' }),
          ),
        );

      const sl = field(data, 'slices');
      const sliceTable = (sec: unknown, what: string) => {
        const rows = records(field(sec, 'slices'));
        const total = field(sec, 'total');
        const th = num(field(sec, 'threshold_ms'));
        return [
          h('h4', null, what === 'errors' ? 'Errors' : `Slow (above ${fmtMs(th)}, the period's P95 of total_ms)`),
          h(
            'p',
            { class: 'panel-sub' },
            `All traffic: ${fmtNum(num(field(total, 'k')), 0)} of ${fmtNum(num(field(total, 'n')), 0)} (${fmtPct(num(field(total, 'rate')))}).`,
          ),
          rows.length
            ? table(
                ['slice', 'requests', what, 'rate', 'rest', 'excess', 'q', 'before'],
                rows.map((x) => {
                  const b = field(x, 'previous');
                  return [
                    Object.entries((field(x, 'slice') ?? {}) as Record<string, string>)
                      .map(([k, v]) => `${k}=${v}`)
                      .join(' × '),
                    fmtNum(num(x['n']), 0),
                    fmtNum(num(x['k']), 0),
                    fmtPct(num(x['rate'])),
                    fmtPct(num(x['rest_rate'])),
                    fmtNum(num(x['excess']), 1),
                    fmtP(num(x['q_value'])),
                    b ? `${fmtPct(num(field(b, 'rate')))} (${fmtNum(num(field(b, 'k')), 0)} of ${fmtNum(num(field(b, 'n')), 0)})` : '–',
                  ];
                }),
                (i) => ({ slice: JSON.stringify(field(rows[i], 'slice')), kind: what }),
              )
            : h('p', { class: 'panel-sub' }, 'No slice stands out.'),
        ];
      };
      if (field(sl, 'available') !== true) slices.empty('The slice finder is not available here.');
      else slices.ready(...sliceTable(field(sl, 'errors'), 'errors'), ...sliceTable(field(sl, 'slow'), 'slow'));

      const q = field(data, 'quality');
      if (field(q, 'available') !== true) quality.empty('Quality reads are not available here.');
      else {
        const drift = records(field(q, 'drift'));
        const golden = records(field(q, 'golden'));
        quality.ready(
          h('h4', null, 'Drift against the previous period'),
          drift.length
            ? table(
                ['model × version', 'field', 'test', 'statistic', 'p', 'drift', 'PSI', 'n (before)'],
                drift.map((d) => [
                  `${str(d['model']) ?? '–'} ${str(d['model_version']) ?? '–'}`,
                  str(d['field']) ?? '',
                  str(d['method']) ?? 'not enough data',
                  fmtP(num(d['statistic'])),
                  fmtP(num(d['p_value'])),
                  d['drift'] == null ? '–' : tag(d['drift'] === true ? 'drift' : 'no_drift'),
                  fmtP(num(d['psi'])),
                  `${fmtNum(num(d['n']), 0)} (${fmtNum(num(d['reference_n']), 0)})`,
                ]),
                (i) => ({ version: str(drift[i]!['model_version']) ?? '', field: str(drift[i]!['field']) ?? '' }),
              )
            : h('p', { class: 'panel-sub' }, 'No confidence or label values in this period.'),
          h('h4', null, 'Golden pass rate'),
          golden.length
            ? table(
                ['model × version', 'runs', 'pass rate', 'before', 'runs before', 'change (points)'],
                golden.map((g) => [
                  `${str(g['model']) ?? '–'} ${str(g['model_version']) ?? '–'}`,
                  fmtNum(num(g['runs']), 0),
                  shareBar(num(g['pass_rate'])),
                  fmtPct(num(g['previous_pass_rate']), 1),
                  fmtNum(num(g['previous_runs']), 0),
                  num(g['change_points']) == null ? '–' : `${num(g['change_points'])! >= 0 ? '+' : '−'}${Math.abs(num(g['change_points'])!).toFixed(1)}`,
                ]),
                (i) => ({ version: str(golden[i]!['model_version']) ?? '' }),
              )
            : h('p', { class: 'panel-sub' }, 'No golden probes ran in this period.'),
        );
      }

      const inc = field(data, 'incidents');
      const reviewed = records(field(inc, 'reviewed'));
      if (field(inc, 'available') !== true) missing.empty('Alerting does not run in this process: no incidents to review.');
      else if (reviewed.length === 0) missing.empty('No incident fired in this period.');
      else missing.ready(...reviewed.map(incidentCard));

      const hot = (rows: Rec[], by: 'pool' | 'node') =>
        table(
          [by, 'GPUs', 'mean', 'peak', 'time ≥ 85 %', 'GPU-minutes', 'least memory headroom', 'mean before'],
          rows.map((r) => [
            str(r[by]) ?? '–',
            fmtNum(num(r['gpus']), 0),
            fmtPct(num(r['mean_utilization']), 1),
            fmtPct(num(r['peak_utilization']), 1),
            fmtPct(num(r['hot_share']), 1),
            fmtNum(num(r['gpu_minutes']), 0),
            fmtPct(num(r['min_memory_headroom']), 1),
            fmtPct(num(r['previous_mean_utilization']), 1),
          ]),
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
          h(
            'p',
            { class: 'review-summary' },
            `${fmtNum(num(field(al, 'incidents')), 0)} incidents, ${fmtNum(num(field(al, 'episodes')), 0)} alert episodes; ${fmtPct(num(field(al, 'action_share')), 0)} proposed an action; ${fmtNum(num(field(al, 'acknowledged_incidents')), 0)} acknowledged${num(field(al, 'median_minutes_to_acknowledge')) == null ? '' : `, median ${num(field(al, 'median_minutes_to_acknowledge'))!.toFixed(1)} min after the first firing`}.`,
          ),
          noisy.length
            ? table(
                ['rule', 'episodes', 'with action', 'acknowledged', 'median time to acknowledge'],
                noisy.map((n) => [
                  str(n['alertname']) ?? '',
                  fmtNum(num(n['episodes']), 0),
                  fmtNum(num(n['with_action']), 0),
                  fmtNum(num(n['acknowledged']), 0),
                  num(n['median_minutes_to_acknowledge']) == null ? '–' : `${num(n['median_minutes_to_acknowledge'])!.toFixed(1)} min`,
                ]),
                (i) => ({ rule: str(noisy[i]!['alertname']) ?? '' }),
              )
            : null,
          never.length ? h('p', { class: 'panel-sub', data: { neverFired: never.join(',') } }, `Never fired: ${never.join(', ')}`) : null,
        );
      }

      const c = field(data, 'cost');
      if (field(c, 'priced') !== true) {
        cost.ready(
          h(
            'div',
            { class: 'needs small', data: { unlock: 'cost' } },
            `Money figures need prices: ${str(field(c, 'unlock')) ?? ''}. ${fmtNum(num(field(c, 'gpu_seconds')), 0)} GPU-seconds attributed.`,
          ),
        );
      } else {
        const cur = str(field(c, 'currency')) ?? '';
        const money = (v: number | null) => (v == null ? '–' : `${v.toFixed(v >= 100 ? 0 : v >= 1 ? 2 : 4)} ${cur}`);
        const rows = (key: 'model' | 'tenant') =>
          table(
            [key, 'cost', 'before', 'change', 'requests', 'per 1,000 requests'],
            records(field(c, `by_${key}`)).map((m) => [
              str(m[key]) ?? '–',
              money(num(m['cost'])),
              money(num(m['previous'])),
              change(num(m['change'])),
              fmtNum(num(m['requests']), 0),
              money(num(m['cost_per_1k_requests'])),
            ]),
          );
        cost.ready(
          h(
            'p',
            { class: 'review-summary' },
            `Total ${money(num(field(c, 'total')))} (before ${money(num(field(c, 'previous_total')))}) `,
            change(num(field(c, 'change'))),
          ),
          h('h4', null, 'By model'),
          rows('model'),
          h('h4', null, 'By tenant'),
          rows('tenant'),
        );
      }
    },
    destroy() {
      replace(root);
    },
  };
}
