/**
 * The Alerts view's Backtest panel: replays the server's rules on the live evaluator over a past
 * range (`POST /v1/rules/backtest`, the view's time range by default, at most 7 days) and draws the
 * episodes on a timeline, one row per rule: the pending part light, the firing part solid, coloured
 * by severity. Clicking an episode shows its labels and times. Nothing is notified or acted on.
 */
import { ApiError, post } from '../api.ts';
import type { BacktestReply } from '../../../src/schema/replies.ts';
import { form, h, replace } from '../dom.ts';
import { fmtNum, fmtTime } from '../format.ts';
import { Panel } from '../panel.ts';
import type { ViewContext } from '../view.ts';
import { table } from './common.ts';

/** `datetime-local` value (local time, minutes) of an epoch ms, and back. */
const toLocal = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};
const fromLocal = (v: string) => new Date(v).getTime();

export interface BacktestPanel {
  panel: Panel;
  /** Shows the form for the view's range (the last result stays until a new run). */
  load(ctx: ViewContext): void;
}

export function backtestPanel(): BacktestPanel {
  const panel = new Panel(
    'alerts-backtest',
    'Backtest',
    'would these rules have caught it, and when? The rules replayed over a past range on the live evaluator; nothing is notified',
    true,
  );
  const result = h('div', { class: 'backtest-result' });
  let ran = false;

  function load(ctx: ViewContext): void {
    const from = h('input', { id: 'backtest-from', type: 'datetime-local', value: toLocal(ctx.win.fromMs), label: 'from' });
    const to = h('input', { id: 'backtest-to', type: 'datetime-local', value: toLocal(Math.min(ctx.win.toMs, Date.now())), label: 'to' });
    const msg = h('span', { class: 'form-msg', id: 'backtest-msg' });
    const run = h('button', { type: 'submit', id: 'backtest-run' }, 'run backtest');
    const f = form(
      'controls',
      () => {
        const a = fromLocal(from.value);
        const b = fromLocal(to.value);
        if (!(Number.isFinite(a) && Number.isFinite(b) && b > a)) {
          msg.textContent = 'pick a range: from before to';
          return;
        }
        msg.textContent = 'running…';
        run.disabled = true;
        post<BacktestReply>('/v1/rules/backtest', { from: new Date(a).toISOString(), to: new Date(b).toISOString() })
          .then((data) => {
            msg.textContent = '';
            ran = true;
            show(data, a, b);
          })
          .catch((err: unknown) => (msg.textContent = err instanceof ApiError ? err.message : String(err)))
          .finally(() => (run.disabled = false));
      },
      h('label', null, 'From ', from),
      h('label', null, 'to ', to),
      run,
      msg,
    );
    if (!ran) replace(result, h('div', { class: 'placeholder' }, 'Pick a range and run: every alert episode the rules would have raised, per rule.'));
    panel.ready(f, result);
  }

  function show(data: BacktestReply, fromMs: number, toMs: number): void {
    const { episodes, rules, stats } = data;
    panel.setMeta(
      `${episodes.length} episode${episodes.length === 1 ? '' : 's'} · ${fmtNum(data.evaluations, 0)} evaluations in ${fmtNum(stats.seconds, 1)} s`,
    );
    const span = Math.max(1, toMs - fromMs);
    const x = (iso: string | null, fallback: number) => {
      const t = Date.parse(iso ?? '');
      return ((Number.isFinite(t) ? t : fallback) - fromMs) / span;
    };
    const detail = h('div', { class: 'backtest-detail', id: 'backtest-detail' }, 'Click an episode for its labels.');
    const pct = (v: number) => `${(Math.max(0, Math.min(1, v)) * 100).toFixed(3)}%`;
    const lanes = rules
      .filter((r) => r.episodes > 0)
      .map((r) => {
        const mine = episodes.filter((e) => e.alertname === r.alert && e.group === r.group);
        const bars = mine.map((e) => {
          const a = x(e.pending_at, fromMs);
          const f = e.firing_at ? x(e.firing_at, toMs) : null;
          const b = x(e.resolved_at, toMs);
          const sev = e.severity;
          const labels = Object.entries(e.labels).map(([k, v]) => `${k}=${v}`);
          const bar = h(
            'span',
            {
              class: `episode sev-${sev}`,
              title: `${e.alertname} ${labels.join(' ')}`,
              data: { alert: e.alertname },
              on: {
                click: () =>
                  replace(
                    detail,
                    h('strong', null, e.alertname),
                    ' ',
                    ...labels.map((l) => h('span', { class: 'chip' }, l)),
                    ` pending ${fmtTime(Date.parse(e.pending_at))}`,
                    e.firing_at ? ` · firing ${fmtTime(Date.parse(e.firing_at))}` : ' · never fired',
                    e.resolved_at ? ` · ended ${fmtTime(Date.parse(e.resolved_at))}` : ' · still active at the end',
                    ` · peak ${fmtNum(e.peak_value)}`,
                  ),
              },
            },
            f !== null ? h('span', { class: 'episode-firing' }) : null,
          );
          bar.style.left = pct(a);
          bar.style.width = pct(Math.max(0.002, b - a));
          const firing = bar.firstElementChild as HTMLElement | null;
          if (firing && f !== null) {
            firing.style.left = pct((f - a) / Math.max(1e-9, b - a));
            firing.style.width = pct((b - f) / Math.max(1e-9, b - a));
          }
          return bar;
        });
        return h('div', { class: 'lane', data: { rule: r.alert } }, h('span', { class: 'lane-name' }, r.alert), h('span', { class: 'lane-track' }, ...bars));
      });
    const axis = h(
      'div',
      { class: 'lane lane-axis' },
      h('span', { class: 'lane-name' }),
      h('span', { class: 'lane-track' }, h('span', { class: 'axis-from' }, fmtTime(fromMs)), h('span', { class: 'axis-to' }, fmtTime(toMs))),
    );
    const timeline =
      lanes.length > 0
        ? h('div', { class: 'timeline', id: 'backtest-timeline' }, ...lanes, axis, detail)
        : h('div', { class: 'placeholder', id: 'backtest-timeline' }, 'No rule raised anything in this range.');
    const summary = table(
      ['rule', 'group', 'every', 'episodes', 'errors', 'judged', 'no history yet', 'last error'],
      rules.map((r) => [
        h('strong', null, r.alert),
        r.group,
        `${fmtNum(r.interval_ms / 1000, 0)} s`,
        fmtNum(r.episodes, 0),
        fmtNum(r.errors, 0),
        fmtNum(r.coverage?.judged ?? null, 0),
        fmtNum(r.coverage?.without_reference ?? null, 0),
        h('span', { class: 'wrap' }, r.last_error ?? ''),
      ]),
      (i) => ({ rule: rules[i]!.alert }),
    );
    replace(result, timeline, summary);
  }

  return { panel, load };
}
