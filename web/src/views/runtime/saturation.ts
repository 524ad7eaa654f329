/** The saturation banner (`POST /v1/analysis/saturation`): flat throughput with growing queues or tail, or shedding. */
import { post } from '../../api.ts';
import type { SaturationReply } from '../../../../src/schema/replies.ts';
import { h, replace } from '../../dom.ts';
import { fmtTime } from '../../format.ts';
import type { ViewContext } from '../../view.ts';

export async function loadSaturation(el: HTMLElement, ctx: ViewContext): Promise<void> {
  const { win, filters, signal } = ctx;
  try {
    const data = await post<SaturationReply>('/v1/analysis/saturation', { from: win.from, to: win.to, filters, step: win.step, approx: true }, signal);
    if (signal.aborted) return;
    const { saturated, signals, reasons } = data;
    el.dataset['state'] = saturated ? 'saturated' : 'ok';
    el.dataset['signals'] = signals.join(',');
    const head =
      signals.includes('shedding') && signals.includes('queueing')
        ? 'queues grow and requests are turned away. '
        : signals.includes('shedding')
          ? 'requests are turned away at the limit. '
          : 'throughput is flat while queue time and tail latency grow. ';
    const since = data.baseline_window.from;
    replace(
      el,
      saturated
        ? h(
            'span',
            null,
            h('strong', null, 'Saturating: '),
            head,
            reasons.join('; '),
            h('span', { class: 'ci' }, ` (judged against the window before, from ${fmtTime(Date.parse(since))})`),
          )
        : null,
    );
  } catch {
    if (signal.aborted) return;
    el.dataset['state'] = 'error';
    replace(el);
  }
}
