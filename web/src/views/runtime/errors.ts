/** Errors by cause: the error share per bucket for every error type of the vocabulary, and the window's totals. */
import { ERROR_TYPES, FAILED_STATUSES } from '../../../../src/schema/vocabulary.ts';
import { h } from '../../dom.ts';
import { colorFor, fmtNum, fmtPct, fmtTime } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { timeSeries } from '../../charts/timeseries.ts';
import { SYNC, col, times } from './shared.ts';
import type { Buckets } from './shared.ts';

export function drawErrors(panel: Panel, b: Buckets): void {
  const { ctx, grid, count } = b;
  const { win, filters } = ctx;
  const types = ERROR_TYPES.map((t) => ({ label: t, color: colorFor(t, 0), values: col(grid, `error_rate(${t})`) }));
  // Requests per cause in the window: Σ rate × count over buckets.
  const weightedTotals = types.map((t) => t.values.reduce<number>((a, v, i) => a + (v ?? 0) * (count[i] ?? 0), 0));
  const failed = FAILED_STATUSES.map((s) => times(col(grid, `${s}_rate`), count)).reduce((a, c) => a + c.reduce<number>((x, v) => x + (v ?? 0), 0), 0);
  const typed = weightedTotals.reduce((a, v) => a + v, 0);
  const shown = types.filter((_, i) => weightedTotals[i]! > 0);
  if (failed === 0 && typed === 0) {
    panel.empty('No errors in this window.');
    return;
  }
  if (typed === 0) {
    panel.needs(['error_type'], `${fmtNum(failed, 0)} requests failed but none says why: send error_type (${ERROR_TYPES.join(', ')}).`);
    return;
  }
  const box = h('div', { class: 'chart' });
  const table = h(
    'table',
    { class: 'compact' },
    h('thead', null, h('tr', null, h('th', null, 'cause'), h('th', null, 'requests'), h('th', null, 'share of errors'))),
    h(
      'tbody',
      null,
      ...types
        .map((t, i) => ({ t, v: weightedTotals[i]! }))
        .filter((x) => x.v > 0)
        .sort((a, b) => b.v - a.v)
        .map(({ t, v }) =>
          h(
            'tr',
            { data: { errorType: t.label } },
            h('td', null, h('span', { class: 'swatch', data: { color: t.color } }), t.label),
            h('td', null, fmtNum(Math.round(v), 0)),
            h('td', null, fmtPct(v / typed, 1)),
          ),
        ),
    ),
  );
  panel.ready(box, table);
  for (const sw of table.querySelectorAll<HTMLElement>('.swatch')) sw.style.background = sw.dataset['color'] ?? '';
  timeSeries(box, {
    id: 'errors',
    xs: win.buckets,
    xRange: [win.fromMs, win.toMs],
    stacked: true,
    bars: false,
    series: shown,
    fmt: (v) => fmtPct(v, 1),
    syncKey: SYNC,
    height: 170,
    onPoint: ({ idx, series: si }) => {
      const t = win.buckets[idx]!;
      ctx.openSamples({
        title: `${shown[si]!.label} errors in ${fmtTime(t)}`,
        fromMs: t,
        toMs: t + win.stepMs,
        filters: { ...filters, error_type: shown[si]!.label },
      });
    },
  });
}
