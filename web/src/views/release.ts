/**
 * Release comparison (release owners): pick a baseline and a candidate version (defaults: the two
 * most frequent versions in the window, the lower one as baseline), `POST /v1/compare` for the
 * verdict (promote / hold / rollback / not_enough_data) with its score, reasons and evidence table,
 * the two side by side (`/v1/query` grouped by model_version) and the P99 of each over time.
 */
import { num, post, query } from '../api.ts';
import type { CompareReply, EvidenceRowReply } from '../../../src/schema/replies.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtMs, fmtNum, fmtPct } from '../format.ts';
import { Panel } from '../panel.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { byFrequency, fmtP, guard, table, tag } from './common.ts';

/** A value of an evidence row in its unit: ms, a fraction (percent / pp for a difference), or a number. */
function fmtUnit(v: number | null, unit: string, diff = false): string {
  if (v == null || !Number.isFinite(v)) return '–';
  const sign = diff && v > 0 ? '+' : '';
  if (unit === 'ms') return `${v < 0 ? '−' : sign}${fmtMs(Math.abs(v))}`;
  if (unit === 'fraction') return diff ? `${sign}${(v * 100).toFixed(2)} pp` : fmtPct(v, 2);
  return sign + fmtNum(v);
}

const SIDE_MEASURES = ['count', 'n', 'qps', 'error_rate', 'p50(total_ms)', 'p90(total_ms)', 'p99(total_ms)', 'mean(confidence)', 'mean(output_length)'];

export function releaseView(root: HTMLElement): ViewHandle {
  const picker = h('div', { class: 'picker', data: { panel: 'release-picker' } });
  const verdict = new Panel(
    'verdict',
    'Verdict',
    'promote / hold / rollback / not enough data: the weighted share of metrics that did not get worse, critical metrics veto',
    true,
  );
  const evidence = new Panel(
    'evidence',
    'Evidence',
    'every metric: baseline, candidate, difference with its 95 % interval, p and BH q, and how it was classified against its tolerance band',
    true,
  );
  const side = new Panel('side-by-side', 'Side by side', 'same window, same filters', true);
  const p99 = new Panel('release-p99', 'P99 over time', 'total_ms by version', true);
  replace(root, h('div', null, picker, h('div', { class: 'grid' }, verdict.el, evidence.el, side.el, p99.el)));

  return {
    async update(ctx: ViewContext) {
      const { win, signal } = ctx;
      const filters = { ...ctx.filters };
      delete filters.model_version;
      const versions = await query({ from: win.from, to: win.to, filters, group_by: ['model_version'], measures: ['n'] }, signal)
        .then((rows) => byFrequency(rows, 'model_version'))
        .catch(() => [] as string[]);
      if (signal.aborted) return;
      // Defaults: the two most frequent versions, the lower (older) one as the baseline.
      const [d0, d1] = versions.slice(0, 2).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      const baseline = ctx.state.extra['baseline'] ?? d0 ?? '';
      const candidate = ctx.state.extra['candidate'] ?? (d1 !== undefined && d1 !== baseline ? d1 : (versions.find((v) => v !== baseline) ?? ''));
      const select = (id: string, value: string) =>
        h(
          'select',
          { id, value, label: id, on: { change: (e) => ctx.setExtra({ baseline, candidate, [id]: (e.target as HTMLSelectElement).value }) } },
          ...[...new Set([...versions, ...(value ? [value] : [])])].map((v) => h('option', { value: v }, v)),
        );
      replace(picker, h('label', null, 'Baseline ', select('baseline', baseline)), h('label', null, 'Candidate ', select('candidate', candidate)));
      if (versions.length < 2 || !baseline || !candidate || baseline === candidate) {
        const why = 'Send model_version with the events: comparing needs at least two versions in the window.';
        verdict.needs(['model_version'], why);
        evidence.needs(['model_version'], why);
        side.needs(['model_version'], why);
        p99.needs(['model_version'], why);
        return;
      }
      for (const x of [verdict, evidence, side, p99]) x.loading();
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
          side.ready(
            h(
              'table',
              { class: 'compact side' },
              h('thead', null, h('tr', null, h('th', null, ''), h('th', null, `baseline ${baseline}`), h('th', null, `candidate ${candidate}`))),
              h('tbody', null, ...trs),
            ),
          );
        }),
        guard(p99, signal, 'POST /v1/query', '', async () => {
          const rows = await query(
            { from: win.from, to: win.to, filters: both, step: win.step, group_by: ['model_version'], measures: ['p99(total_ms)', 'n'] },
            signal,
          );
          const series = [baseline, candidate].map((v, i) => ({
            label: `${i ? 'candidate' : 'baseline'} ${v}`,
            color: colorFor(i ? 'p99' : 'p90', i),
            values: onGrid(
              win.buckets,
              rows.filter((r) => r['model_version'] === v),
            ).map((r) => num(r?.['p99(total_ms)'])),
          }));
          p99.ready(h('div', { class: 'chart' }));
          timeSeries(p99.body.querySelector<HTMLElement>('.chart')!, {
            id: 'release-p99',
            xs: win.buckets,
            xRange: [win.fromMs, win.toMs],
            series,
            fmt: fmtMs,
            syncKey: 'release',
          });
        }),
        guard(verdict, signal, 'POST /v1/compare', 'The verdict compares baseline and candidate on the same window (the release API).', async () => {
          const data = await post<CompareReply>(
            '/v1/compare',
            {
              from: win.from,
              to: win.to,
              baseline: { filters: { ...filters, model_version: baseline } },
              candidate: { filters: { ...filters, model_version: candidate } },
            },
            signal,
          );
          if (signal.aborted) return;
          renderVerdict(verdict, evidence, data, baseline, candidate);
        }),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}

function renderVerdict(panel: Panel, evidencePanel: Panel, data: CompareReply, baseline: string, candidate: string): void {
  const { verdict: v, score, reasons } = data;
  // What may make the comparison unfair (the sides serve different tenant mixes).
  const warnings = data.warnings;
  const side = (k: 'baseline' | 'candidate') => {
    const { n, sample } = data[k];
    return `${k} ${k === 'baseline' ? baseline : candidate}: ${fmtNum(n, 0)} requests${sample.stratified ? ` (raw sample ${fmtNum(sample.rows, 0)} of ${fmtNum(sample.of, 0)})` : ''}`;
  };
  panel.ready(
    h(
      'div',
      { class: 'verdict-row' },
      h('div', { class: `verdict verdict-${v.replace(/\W+/g, '_')}`, data: { verdict: v } }, v.replace(/_/g, ' ')),
      h(
        'div',
        { class: 'verdict-score' },
        h('div', { class: 'kpi-label' }, 'score'),
        h('div', { class: 'kpi-value', data: { score: score == null ? '' : String(score) } }, score == null ? '–' : `${score.toFixed(1)} / 100`),
      ),
      h('div', { class: 'verdict-sides' }, h('div', null, side('baseline')), h('div', null, side('candidate'))),
    ),
    warnings.length
      ? h(
          'div',
          { class: 'needs small warnings', data: { warnings: String(warnings.length) } },
          ...warnings.map((w) => h('p', null, h('strong', null, 'Careful: '), w)),
        )
      : null,
    reasons.length ? h('ul', { class: 'reasons' }, ...reasons.map((r) => h('li', null, r))) : null,
  );
  const rows = data.evidence;
  if (rows.length === 0) return evidencePanel.empty('No evidence rows.');
  // Worse first, then the rest in the server's order.
  const order = (r: EvidenceRowReply) => (r.direction === 'worse' ? 0 : r.classification === 'no_data' ? 2 : 1);
  const sorted = rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => order(a.r) - order(b.r) || a.i - b.i)
    .map((x) => x.r);
  const worse = rows.filter((r) => r.direction === 'worse').length;
  evidencePanel.setMeta(`${rows.length} metrics · ${worse} worse`);
  evidencePanel.ready(
    table(
      ['metric', 'baseline', 'candidate', 'diff', '95 % CI', 'p', 'q', 'test', 'classification', 'weight'],
      sorted.map((r) => {
        const { unit, ci, classification: cls, direction: dir } = r;
        return [
          h(
            'span',
            null,
            r.metric,
            r.critical ? h('span', { class: 'badge badge-significant', title: 'critical: worse vetoes the release' }, 'critical') : null,
          ),
          fmtUnit(r.baseline, unit),
          fmtUnit(r.candidate, unit),
          fmtUnit(r.diff, unit, true),
          ci ? `[${fmtUnit(ci[0], unit, true)}, ${fmtUnit(ci[1], unit, true)}]` : '–',
          fmtP(r.p_value),
          fmtP(r.q_value),
          r.test,
          h('span', { title: r.note ?? '' }, tag(cls), dir !== 'same' ? ` ${dir}` : '', r.note ? ' ⓘ' : ''),
          fmtNum(r.weight),
        ];
      }),
      (i) => ({ metric: sorted[i]!.metric, classification: sorted[i]!.classification, direction: sorted[i]!.direction }),
      (i) => (sorted[i]!.direction === 'worse' ? 'significant' : ''),
    ),
  );
}
