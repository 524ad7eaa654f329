/**
 * Release comparison (release owners): baseline and candidate versions side by side on the same
 * window (from `/v1/query` grouped by model_version), P99 of each over time, and the verdict with
 * its evidence from `POST /v1/compare` once that endpoint exists.
 */
import { call, field, labels, num, query, records, str } from '../api.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtMs, fmtNum, fmtPct } from '../format.ts';
import { Panel } from '../panel.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard, recordTable } from './common.ts';

const SIDE_MEASURES = ['count', 'n', 'qps', 'error_rate', 'p50(total_ms)', 'p90(total_ms)', 'p99(total_ms)', 'mean(confidence)', 'mean(output_length)'];

export function releaseView(root: HTMLElement): ViewHandle {
  const picker = h('div', { class: 'picker', data: { panel: 'release-picker' } });
  const verdict = new Panel('verdict', 'Verdict', 'promote / hold / roll back, with the evidence behind it', true);
  const side = new Panel('side-by-side', 'Side by side', 'same window, same filters', true);
  const p99 = new Panel('release-p99', 'P99 over time', 'total_ms by version', true);
  replace(root, h('div', null, picker, h('div', { class: 'grid' }, verdict.el, side.el, p99.el)));

  return {
    async update(ctx: ViewContext) {
      const { win, signal } = ctx;
      const filters = { ...ctx.filters };
      delete filters.model_version;
      const versions = await labels('model_version', win, signal).catch(() => [] as string[]);
      if (signal.aborted) return;
      const baseline = ctx.state.extra['baseline'] ?? versions[0] ?? '';
      const candidate = ctx.state.extra['candidate'] ?? versions[1] ?? versions[0] ?? '';
      const select = (id: string, value: string) =>
        h(
          'select',
          { id, value, on: { change: (e) => ctx.setExtra({ [id]: (e.target as HTMLSelectElement).value }) } },
          ...versions.map((v) => h('option', { value: v }, v)),
        );
      replace(picker, h('label', null, 'Baseline ', select('baseline', baseline)), h('label', null, 'Candidate ', select('candidate', candidate)));
      if (versions.length < 2 || !baseline || !candidate) {
        const why = 'Send model_version with the events: comparing needs at least two versions in the window.';
        verdict.needs(['model_version'], why);
        side.needs(['model_version'], why);
        p99.needs(['model_version'], why);
        return;
      }
      for (const x of [verdict, side, p99]) x.loading();
      const both = { ...filters, model_version: [baseline, candidate] };
      await Promise.all([
        guard(side, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters: both, group_by: ['model_version'], measures: SIDE_MEASURES }, signal);
          const by = new Map(rows.map((r) => [r['model_version'], r]));
          const fmt: Record<string, (v: number | null) => string> = { error_rate: (v) => fmtPct(v), qps: (v) => fmtNum(v, 2) };
          const trs = SIDE_MEASURES.map((m) =>
            h(
              'tr',
              null,
              h('th', null, m),
              ...[baseline, candidate].map((v) => {
                const x = num(by.get(v)?.[m]);
                return h('td', null, m.includes('_ms') ? fmtMs(x) : (fmt[m] ?? ((y: number | null) => fmtNum(y)))(x));
              }),
            ),
          );
          side.ready(h('table', { class: 'compact side' }, h('thead', null, h('tr', null, h('th', null, ''), h('th', null, `baseline ${baseline}`), h('th', null, `candidate ${candidate}`))), h('tbody', null, ...trs)));
        }),
        guard(p99, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters: both, step: win.step, group_by: ['model_version'], measures: ['p99(total_ms)', 'n'] }, signal);
          const series = [baseline, candidate].map((v, i) => ({ label: `${i ? 'candidate' : 'baseline'} ${v}`, color: colorFor(i ? 'p99' : 'p90', i), values: onGrid(win.buckets, rows.filter((r) => r['model_version'] === v)).map((r) => num(r?.['p99(total_ms)'])) }));
          p99.ready(h('div', { class: 'chart' }));
          timeSeries(p99.body.querySelector<HTMLElement>('.chart')!, { id: 'release-p99', xs: win.buckets, xRange: [win.fromMs, win.toMs], series, fmt: fmtMs, syncKey: 'release' });
        }),
        guard(verdict, signal, 'POST /v1/compare', 'The verdict compares baseline and candidate on aligned windows (the release issue).', async () => {
          const data = await call('POST', '/v1/compare', { from: win.from, to: win.to, filters, baseline: { model_version: baseline }, candidate: { model_version: candidate } }, signal);
          const v = str(field(data, 'verdict')) ?? 'unknown';
          const evidence = records(field(data, 'evidence'));
          verdict.ready(
            h('div', { class: `verdict verdict-${v.replace(/\W+/g, '_')}`, data: { verdict: v } }, v.replace(/_/g, ' ')),
            str(field(data, 'summary')) ? h('p', null, str(field(data, 'summary'))!) : null,
            evidence.length ? recordTable(evidence) : h('p', { class: 'panel-sub' }, 'No evidence rows.'),
          );
        }),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}
