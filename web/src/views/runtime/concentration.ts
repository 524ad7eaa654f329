/**
 * Where it concentrates (`POST /v1/analysis/errors`): slices whose rate of failed, slow or
 * turned-away requests is significantly above the rest (BH q < 0.05), with 95 % intervals; a toggle
 * picks the kind and reloads.
 */
import { FAILED_STATUSES, SHED_STATUSES } from '../../../../src/schema/vocabulary.ts';
import { call, field, num, records } from '../../api.ts';
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
    const data = await call('POST', '/v1/analysis/errors', { from: win.from, to: win.to, filters, kind, approx: true }, signal);
    if (signal.aborted) return;
    const total = field(data, 'total');
    // Only slices significantly above the rest (BH q < 0.05 and rate > rest): a slice at lift < 1,
    // or one whose interval includes the rest's rate, is not "above the rest".
    const slices = records(field(data, 'slices')).filter((s) => field(s, 'significant') === true && (num(field(s, 'rate')) ?? 0) > (num(field(s, 'restRate')) ?? 0));
    const threshold = num(field(data, 'thresholdMs'));
    const sampled = num(field(field(data, 'sample'), 'fraction'));
    panel.setMeta(sampled != null ? `counted on a ${fmtPct(sampled, 0)} sample of ${fmtNum(num(field(field(data, 'sample'), 'window_rows')), 0)} rows` : '');
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
      `overall: ${fmtNum(num(field(total, 'k')), 0)} of ${fmtNum(num(field(total, 'n')), 0)} ${what} (${fmtPct(num(field(total, 'rate')))})`,
      kind === 'slow' && threshold != null ? `, slower than ${fmtMs(threshold)} (the window's P95)` : '',
    );
    if (slices.length === 0) {
      const n = num(field(total, 'n'));
      const k = num(field(total, 'k'));
      const message = !n ? 'No requests in this window.' : !k ? `Nothing stands out: no request ${what} in this window.` : 'Nothing stands out: no slice is significantly above the rest (BH q < 0.05).';
      panel.ready(toggle, totalLine, h('div', { class: 'placeholder', data: { nothing: 'true' } }, message));
      return;
    }
    const statusFilter = kind === 'errors' ? { status: [...FAILED_STATUSES] } : kind === 'shed' ? { status: [...SHED_STATUSES] } : {};
    const sliceOf = (s: Record<string, unknown>) => {
      const slice = field(s, 'slice');
      return Object.entries(slice && typeof slice === 'object' ? (slice as Record<string, unknown>) : {}).map(([k, v]) => [k, String(v)] as const);
    };
    const rows = slices.slice(0, 15).map((s) => {
      const parts = sliceOf(s);
      const rate = num(field(s, 'rate'));
      const rest = num(field(s, 'restRate'));
      const sliceFilters: Filters = Object.fromEntries(parts);
      const filterable = parts.every(([k]) => (FILTER_DIMS as readonly string[]).includes(k));
      return [
        h('span', null, ...parts.map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`))),
        `${fmtNum(num(field(s, 'k')), 0)} / ${fmtNum(num(field(s, 'n')), 0)}`,
        h('span', null, fmtPct(rate, 1), h('span', { class: 'ci' }, ` [${fmtPct(num(field(s, 'lo')), 1)} – ${fmtPct(num(field(s, 'hi')), 1)}]`)),
        fmtPct(rest, 1),
        rate != null && rest ? `${(rate / rest).toFixed(1)}×` : rest === 0 ? 'only here' : '–',
        fmtNum(num(field(s, 'qValue'))),
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
        (i) => ({ slice: sliceOf(slices[i]!).map(([k, v]) => `${k}=${v}`).join(',') }),
        () => 'significant',
      ),
    );
  }

  return { load };
}
