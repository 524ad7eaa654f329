/** The KPI row: requests, QPS, P50 / P99 / max, error rate and turned-away share of the whole window (one query). */
import { num, queryApprox } from '../../api.ts';
import type { Row } from '../../api.ts';
import { h, replace } from '../../dom.ts';
import { fmtMs, fmtNum, fmtPct } from '../../format.ts';
import type { ViewContext } from '../../view.ts';
import { TOTAL_MEASURES } from './measures.ts';
import { approxNote } from './shared.ts';

/** Queries the window's totals and draws the KPIs as soon as they land; resolves to the totals row. */
export async function loadSummary(el: HTMLElement, ctx: ViewContext): Promise<Row> {
  const { win, filters, signal } = ctx;
  const t = await queryApprox({ from: win.from, to: win.to, filters, measures: TOTAL_MEASURES }, signal);
  const total = t.rows[0] ?? {};
  if (!signal.aborted) renderSummary(el, total, t.relativeError);
  return total;
}

function renderSummary(el: HTMLElement, total: Row, relativeError: number | null): void {
  const kpi = (label: string, value: string, sub = '') =>
    h(
      'div',
      { class: 'kpi' },
      h('div', { class: 'kpi-label' }, label),
      h('div', { class: 'kpi-value' }, value),
      sub ? h('div', { class: 'kpi-sub' }, sub) : null,
    );
  const n = num(total['n']);
  replace(
    el,
    kpi('Requests', fmtNum(num(total['count']), 0), `${fmtNum(n, 0)} stored rows`),
    kpi('QPS', fmtNum(num(total['qps']), 2)),
    kpi('P50', fmtMs(num(total['p50(total_ms)'])), `n = ${fmtNum(n, 0)}${approxNote(relativeError)}`),
    kpi('P99', fmtMs(num(total['p99(total_ms)'])), `n = ${fmtNum(n, 0)}${approxNote(relativeError)}`),
    kpi('Max', fmtMs(num(total['max(total_ms)']))),
    kpi('Error rate', fmtPct(num(total['error_rate']))),
    kpi('Rejected + rate-limited', fmtPct((num(total['rejected_rate']) ?? 0) + (num(total['rate_limited_rate']) ?? 0))),
  );
}
