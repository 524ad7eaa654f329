/**
 * Where it concentrates (`POST /v1/analysis/errors`): slices whose rate of failed, slow or
 * turned-away requests is significantly above the rest (BH q < 0.05), with 95 % intervals; a toggle
 * picks the kind and reloads.
 */
import { FAILED_STATUSES, SHED_STATUSES } from '../../../../src/schema/vocabulary.ts';
import { post } from '../../api.ts';
import type { ErrorSlicesReply, RankedSliceReply } from '../../../../src/schema/replies.ts';
import type { Filters } from '../../api.ts';
import { h } from '../../dom.ts';
import { fmtMs, fmtNum, fmtPct } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import { FILTER_DIMS } from '../../state.ts';
import type { FilterDim } from '../../state.ts';
import type { ViewContext } from '../../view.ts';
import { table } from '../common.ts';

type Kind = 'errors' | 'slow' | 'shed';
const KINDS: Record<Kind, string> = { errors: 'failures (error + timeout)', slow: 'slow requests', shed: 'turned away (rejected + rate-limited)' };

export interface Concentration {
  load(ctx: ViewContext): Promise<void>;
}

/** `reload` runs a load of this panel again (guarded like the first), when the kind changes. */
export function createConcentration(panel: Panel, reload: () => void): Concentration {
  let kind: Kind = 'errors';

  async function load(ctx: ViewContext): Promise<void> {
    const { win, filters, signal } = ctx;
    const data = await post<ErrorSlicesReply>('/v1/analysis/errors', { from: win.from, to: win.to, filters, kind, approx: true }, signal);
    if (signal.aborted) return;
    const total = data.total;
    // Only slices significantly above the rest (BH q < 0.05 and rate > rest): a slice at lift < 1,
    // or one whose interval includes the rest's rate, is not "above the rest".
    const slices = data.slices.filter((s) => s.significant && s.rate > s.rest_rate);
    const threshold = data.threshold_ms ?? null;
    panel.setMeta(data.sample ? `counted on a ${fmtPct(data.sample.fraction, 0)} sample of ${fmtNum(data.sample.window_rows, 0)} rows` : '');
    const toggle = h(
      'div',
      { class: 'toggle' },
      ...(Object.keys(KINDS) as Kind[]).map((k) =>
        h(
          'button',
          {
            class: k === kind ? 'on' : '',
            data: { kind: k },
            on: {
              click: () => {
                kind = k;
                panel.loading();
                reload();
              },
            },
          },
          KINDS[k],
        ),
      ),
    );
    const what = kind === 'slow' ? 'slow' : kind === 'shed' ? 'turned away' : 'failed';
    const totalLine = h(
      'p',
      { class: 'panel-sub' },
      `overall: ${fmtNum(total.k, 0)} of ${fmtNum(total.n, 0)} ${what} (${fmtPct(total.rate)})`,
      kind === 'slow' && threshold != null ? `, slower than ${fmtMs(threshold)} (the window's P95)` : '',
    );
    if (slices.length === 0) {
      const { n, k } = total;
      const message = !n
        ? 'No requests in this window.'
        : !k
          ? `Nothing stands out: no request ${what} in this window.`
          : 'Nothing stands out: no slice is significantly above the rest (BH q < 0.05).';
      panel.ready(toggle, totalLine, h('div', { class: 'placeholder', data: { nothing: 'true' } }, message));
      return;
    }
    const statusFilter = kind === 'errors' ? { status: [...FAILED_STATUSES] } : kind === 'shed' ? { status: [...SHED_STATUSES] } : {};
    const sliceOf = (s: RankedSliceReply) => Object.entries(s.slice);
    const rows = slices.slice(0, 15).map((s) => {
      const parts = sliceOf(s);
      const rate = s.rate;
      const rest = s.rest_rate;
      const sliceFilters: Filters = Object.fromEntries(parts);
      const filterable = parts.every(([k]) => (FILTER_DIMS as readonly string[]).includes(k));
      return [
        h('span', null, ...parts.map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`))),
        `${fmtNum(s.k, 0)} / ${fmtNum(s.n, 0)}`,
        h('span', null, fmtPct(rate, 1), h('span', { class: 'ci' }, ` [${fmtPct(s.lo, 1)} – ${fmtPct(s.hi, 1)}]`)),
        fmtPct(rest, 1),
        rest ? `${(rate / rest).toFixed(1)}×` : rest === 0 ? 'only here' : '–',
        fmtNum(s.q_value),
        h(
          'span',
          null,
          h(
            'button',
            {
              on: {
                click: () =>
                  ctx.openSamples({
                    title: `${kind === 'slow' ? 'Slow' : kind === 'shed' ? 'Turned-away' : 'Failed'} requests in ${parts.map(([k, v]) => `${k}=${v}`).join(', ')}`,
                    fromMs: win.fromMs,
                    toMs: win.toMs,
                    filters: { ...filters, ...sliceFilters, ...statusFilter },
                    ...(kind === 'slow' && threshold != null ? { min: { column: 'total_ms', value: threshold } } : {}),
                  }),
              },
            },
            'samples',
          ),
          filterable ? h('button', { on: { click: () => ctx.setFilters(Object.fromEntries(parts) as Partial<Record<FilterDim, string>>) } }, 'filter') : null,
        ),
      ];
    });
    panel.ready(
      toggle,
      totalLine,
      table(
        ['slice', `${what} / n`, 'rate [95 % CI]', 'rest', 'lift', 'q-value', ''],
        rows,
        (i) => ({
          slice: sliceOf(slices[i]!)
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        }),
        () => 'significant',
      ),
    );
  }

  return { load };
}
