/** The saturation banner (`POST /v1/analysis/saturation`): flat throughput with growing queues or tail, or shedding. */
import { call, field, str } from '../../api.ts';
import { h, replace } from '../../dom.ts';
import { fmtTime } from '../../format.ts';
import type { ViewContext } from '../../view.ts';

export async function loadSaturation(el: HTMLElement, ctx: ViewContext): Promise<void> {
  const { win, filters, signal } = ctx;
  try {
    const data = await call('POST', '/v1/analysis/saturation', { from: win.from, to: win.to, filters, step: win.step, approx: true }, signal);
    if (signal.aborted) return;
    const saturated = field(data, 'saturated') === true;
    el.dataset['state'] = saturated ? 'saturated' : 'ok';
    const signals = (field(data, 'signals') as unknown[] | undefined)?.filter((x): x is string => typeof x === 'string') ?? [];
    el.dataset['signals'] = signals.join(',');
    const reasons = (field(data, 'reasons') as unknown[] | undefined)?.filter((x): x is string => typeof x === 'string') ?? [];
    const head = signals.includes('shedding') && signals.includes('queueing') ? 'queues grow and requests are turned away. ' : signals.includes('shedding') ? 'requests are turned away at the limit. ' : 'throughput is flat while queue time and tail latency grow. ';
    const since = str(field(field(data, 'baselineWindow'), 'from'));
    replace(
      el,
      saturated
        ? h('span', null, h('strong', null, 'Saturating: '), head, reasons.join('; '), since ? h('span', { class: 'ci' }, ` (judged against the window before, from ${fmtTime(Date.parse(since))})`) : null)
        : null,
    );
  } catch {
    if (signal.aborted) return;
    el.dataset['state'] = 'error';
    replace(el);
  }
}
