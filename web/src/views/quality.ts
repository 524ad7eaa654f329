/**
 * Model quality (algorithm engineers): confidence and output length by version and over time from
 * `/v1/query`; drift and result-flag rates from the quality API when it lands; the sample explorer
 * (captured input/output, rendered as text).
 */
import { call, num, query, searchEvents, field, records } from '../api.ts';
import { h, replace } from '../dom.ts';
import { colorFor, fmtNum } from '../format.ts';
import { Panel } from '../panel.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { guard, recordTable } from './common.ts';

export function qualityView(root: HTMLElement): ViewHandle {
  const byVersion = new Panel('quality-versions', 'Confidence and output length by version', 'window totals', true);
  const conf = new Panel('quality-confidence', 'Confidence over time', 'min / P50 / P90 of confidence');
  const length = new Panel('quality-length', 'Output length over time', 'P50 / P90 of output_length');
  const drift = new Panel('quality-drift', 'Drift against the reference', 'statistic, value and verdict per field', true);
  const flags = new Panel('quality-flags', 'Empty, refusal and format rates; feedback and golden pass rate', '', true);
  const samples = new Panel('quality-samples', 'Sample explorer', 'most recent captured samples (input / output shown as text)', true);
  replace(root, h('div', { class: 'grid' }, ...[byVersion, conf, length, drift, flags, samples].map((p) => p.el)));

  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      for (const p of [byVersion, conf, length, drift, flags, samples]) p.loading();
      await Promise.all([
        guard(byVersion, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, group_by: ['model_version'], measures: ['n', 'mean(confidence)', 'p50(confidence)', 'p90(confidence)', 'mean(output_length)', 'p50(output_length)', 'mean(score)'] }, signal);
          if (rows.length === 0) return byVersion.empty('No requests in this window.');
          if (!rows.some((r) => r['mean(confidence)'] != null || r['mean(output_length)'] != null || r['mean(score)'] != null)) {
            return byVersion.needs(['confidence', 'output_length', 'score', 'label'], 'Send what the model returned to see its distribution by version.');
          }
          byVersion.ready(recordTable(rows));
        }),
        guard(conf, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, step: win.step, measures: ['p50(confidence)', 'p90(confidence)', 'min(confidence)', 'n'] }, signal);
          const g = onGrid(win.buckets, rows);
          const s = ['p50', 'p90', 'min'].map((k, i) => ({ label: k, color: colorFor(k === 'min' ? 'p999' : k, i), values: g.map((r) => num(r?.[`${k}(confidence)`])) }));
          if (!s.some((x) => x.values.some((v) => v != null))) return conf.needs(['confidence'], 'Send the confidence (0–1) of each prediction.');
          conf.ready(h('div', { class: 'chart' }));
          timeSeries(conf.body.querySelector<HTMLElement>('.chart')!, { id: 'quality-confidence', xs: win.buckets, xRange: [win.fromMs, win.toMs], series: s, fmt: (v) => v.toFixed(2), syncKey: 'quality' });
        }),
        guard(length, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, step: win.step, measures: ['p50(output_length)', 'p90(output_length)'] }, signal);
          const g = onGrid(win.buckets, rows);
          const s = ['p50', 'p90'].map((k, i) => ({ label: k, color: colorFor(k, i), values: g.map((r) => num(r?.[`${k}(output_length)`])) }));
          if (!s.some((x) => x.values.some((v) => v != null))) return length.needs(['output_length'], 'Send the length of each output (characters, tokens or items).');
          length.ready(h('div', { class: 'chart' }));
          timeSeries(length.body.querySelector<HTMLElement>('.chart')!, { id: 'quality-length', xs: win.buckets, xRange: [win.fromMs, win.toMs], series: s, fmt: (v) => fmtNum(v), syncKey: 'quality' });
        }),
        guard(drift, signal, 'POST /v1/quality/drift', 'Drift (PSI, KS, chi-square, Wasserstein) against a reference window or version comes from the quality API.', async () => {
          const data = await call('POST', '/v1/quality/drift', { from: win.from, to: win.to, filters }, signal);
          const rows = records(field(data, 'fields') ?? field(data, 'rows') ?? field(data, 'drift'));
          drift.ready(rows.length ? recordTable(rows) : h('div', { class: 'placeholder' }, 'No drift results.'));
        }),
        guard(flags, signal, 'POST /v1/quality/summary', 'Empty / refusal / format-ok rates, feedback hit rate and golden pass rate come from the quality API.', async () => {
          const data = await call('POST', '/v1/quality/summary', { from: win.from, to: win.to, filters, group_by: ['model_version'] }, signal);
          const rows = records(field(data, 'rows'));
          flags.ready(rows.length ? recordTable(rows) : h('div', { class: 'placeholder' }, 'No quality results.'));
        }),
        guard(samples, signal, 'POST /v1/events/search', 'The sample explorer lists stored events with their captured text.', async () => {
          const events = await searchEvents({ from: win.from, to: win.to, filters, limit: 50, columns: ['ts', 'request_id', 'model', 'model_version', 'label', 'confidence', 'score', 'output_length', 'input', 'output'] }, signal);
          const withText = events.filter((e) => e['input'] != null || e['output'] != null);
          if (events.length === 0) return samples.empty('No requests in this window.');
          if (withText.length === 0) return samples.needs(['input', 'output'], 'Capture inputs and outputs (the capture policy keeps risky and sampled ones) to explore them here.');
          samples.ready(
            h(
              'div',
              { class: 'sample-list' },
              ...withText.map((e) =>
                h(
                  'div',
                  { class: 'sample' },
                  h('a', { href: '#', class: 'reqlink', on: { click: (ev) => (ev.preventDefault(), ctx.openRequest(String(e['request_id']))) } }, String(e['request_id'] ?? '')),
                  ` ${String(e['model_version'] ?? '')} · label ${String(e['label'] ?? '–')} · confidence ${e['confidence'] == null ? '–' : String(e['confidence'])}`,
                  e['input'] != null ? h('pre', { data: { captured: 'input' } }, String(e['input'])) : null,
                  e['output'] != null ? h('pre', { data: { captured: 'output' } }, String(e['output'])) : null,
                ),
              ),
            ),
          );
        }),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}
