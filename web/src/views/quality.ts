/**
 * Model quality (algorithm engineers). One `POST /v1/quality/summary` (grouped by version) feeds the
 * model type, result rates, label distribution, confidence histogram and quantiles and the key-class
 * shift; `POST /v1/quality/drift` the drift table against a chosen reference (previous window or a
 * version); `POST /v1/quality/feedback` the feedback hit rate; `GET /v1/golden/results` the golden
 * pass rate and failing samples; `POST /v1/samples/search` the sample explorer (captured text shown
 * as text). Confidence and output length over time come from `/v1/query`.
 */
import { call, field, isRecord, num, query, records, searchSamples, str } from '../api.ts';
import { SAMPLE_REASONS } from '../../../src/schema/vocabulary.ts';
import type { Filters } from '../api.ts';
import { form, h, replace } from '../dom.ts';
import type { Child } from '../dom.ts';
import { colorFor, fmtNum, fmtPct, fmtTime } from '../format.ts';
import { Panel } from '../panel.ts';
import { sampleCard } from '../samples.ts';
import { onGrid, timeSeries } from '../charts/timeseries.ts';
import type { ViewContext, ViewHandle } from '../view.ts';
import { byFrequency, fmtP, guard, shareBar, table, tag } from './common.ts';

type Rec = Record<string, unknown>;

/** Drift tests judged by a p-value (the others are distances judged against a threshold). */
const P_METHODS = new Set(['ks', 'chi_square', 'z', 'fisher']);

/** Friendly names of the summary's measures; rate columns are shown as percentages. */
const MEASURE_TITLES: Record<string, string> = {
  n: 'rows',
  empty_rate: 'empty',
  refused_rate: 'refusal',
  format_error_rate: 'format error',
  error_rate: 'errors',
};
/** The event field that fills each rate (staged adoption). */
const RATE_FIELDS: Record<string, string> = { empty_rate: 'empty', refused_rate: 'refused', format_error_rate: 'format_ok', error_rate: 'status' };

const isRate = (m: string) => m.endsWith('_rate') || m.startsWith('below_rate(');
const title = (m: string) => MEASURE_TITLES[m] ?? (m.startsWith('below_rate(confidence') ? `low confidence (< ${m.replace(/^.*,\s*|\)$/g, '')})` : m);

function versionOf(r: Rec): string {
  return str(r['model_version']) ?? '(none)';
}

export function qualityView(root: HTMLElement): ViewHandle {
  const model = new Panel('quality-model', 'Model type and result rates', 'per version: rows, low-confidence / empty / refusal / format-error rates and quantiles (what fits the model type)', true);
  const labels = new Panel('quality-labels', 'Label distribution', 'share of each predicted label, by version');
  const hist = new Panel('quality-histogram', 'Confidence histogram', 'share of predictions per confidence bin, by version, with the quantiles');
  const conf = new Panel('quality-confidence', 'Confidence over time', 'min / P50 / P90 of confidence');
  const length = new Panel('quality-length', 'Output length over time', 'P50 / P90 of output_length');
  const shift = new Panel('quality-shift', 'Key-class shift', 'share of the top classes now vs the previous window of the same length (two-proportion test, BH q-values)', true);
  const drift = new Panel('quality-drift', 'Drift against a reference', 'per field: test, statistic, p-value, threshold, verdict, PSI and both sample sizes', true);
  const feedback = new Panel('quality-feedback', 'Feedback hit rate', 'feedback joined to requests by request_id, by version');
  const golden = new Panel('quality-golden', 'Golden samples', 'pass rate per version (probe requests) and the samples that fail');
  const samples = new Panel('quality-samples', 'Sample explorer', 'captured samples (redacted, bounded), newest first · input / output shown as text', true);
  const all = [model, labels, hist, conf, length, shift, drift, feedback, golden, samples];
  replace(root, h('div', { class: 'grid' }, ...all.map((p) => p.el)));

  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      for (const p of all) p.loading();
      const summary = call('POST', '/v1/quality/summary', { from: win.from, to: win.to, filters, group_by: ['model_version'] }, signal);
      const models = summary.then((d) => records(field(d, 'models')));
      // Keep unhandled rejections away: every consumer below guards its own use.
      models.catch(() => undefined);
      const versions = query({ from: win.from, to: win.to, filters: withoutVersion(filters), group_by: ['model_version'], measures: ['n'] }, signal).then((rows) => byFrequency(rows, 'model_version'));
      versions.catch(() => undefined);

      await Promise.all([
        guard(model, signal, 'POST /v1/quality/summary', 'Model type, result rates and quantiles come from the quality summary.', async () => renderModels(model, await models)),
        guard(labels, signal, 'POST /v1/quality/summary', 'The label distribution comes from the quality summary.', async () => renderLabels(labels, await models)),
        guard(hist, signal, 'POST /v1/quality/summary', 'The confidence histogram comes from the quality summary.', async () => renderHistogram(hist, await models)),
        guard(shift, signal, 'POST /v1/quality/summary', 'The key-class shift comes from the quality summary.', async () => renderShift(shift, await models)),
        guard(conf, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, step: win.step, measures: ['p50(confidence)', 'p90(confidence)', 'min(confidence)', 'n'] }, signal);
          const g = onGrid(win.buckets, rows);
          const s = ['p50', 'p90', 'min'].map((k, i) => ({ label: k, color: colorFor(k === 'min' ? 'p999' : k, i), values: g.map((r) => num(r?.[`${k}(confidence)`])) }));
          if (!s.some((x) => x.values.some((v) => v != null))) return conf.needs(['confidence'], 'Send the confidence (0–1) of each prediction.');
          if (!conf.body.querySelector(':scope > .chart')) conf.ready(h('div', { class: 'chart' }));
          else conf.ready();
          timeSeries(conf.body.querySelector<HTMLElement>('.chart')!, { id: 'quality-confidence', xs: win.buckets, xRange: [win.fromMs, win.toMs], series: s, fmt: (v) => v.toFixed(2), syncKey: 'quality' });
        }),
        guard(length, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, step: win.step, measures: ['p50(output_length)', 'p90(output_length)'] }, signal);
          const g = onGrid(win.buckets, rows);
          const s = ['p50', 'p90'].map((k, i) => ({ label: k, color: colorFor(k, i), values: g.map((r) => num(r?.[`${k}(output_length)`])) }));
          if (!s.some((x) => x.values.some((v) => v != null))) return length.needs(['output_length'], 'Send the length of each output (characters, tokens or items).');
          if (!length.body.querySelector(':scope > .chart')) length.ready(h('div', { class: 'chart' }));
          else length.ready();
          timeSeries(length.body.querySelector<HTMLElement>('.chart')!, { id: 'quality-length', xs: win.buckets, xRange: [win.fromMs, win.toMs], series: s, fmt: (v) => fmtNum(v), syncKey: 'quality' });
        }),
        guard(drift, signal, 'POST /v1/quality/drift', 'Drift (KS, chi-square, Wasserstein, Jensen–Shannon, PSI) against a reference window or version comes from the quality API.', () => loadDrift(ctx, drift, versions)),
        guard(feedback, signal, 'POST /v1/quality/feedback', 'Feedback hit rates are joined to requests by the quality API.', async () => {
          const data = await call('POST', '/v1/quality/feedback', { from: win.from, to: win.to, filters, group_by: ['model_version'] }, signal);
          renderFeedback(feedback, records(field(data, 'rows')), num(field(data, 'orphans')));
        }),
        guard(golden, signal, 'GET /v1/golden/results', 'Golden pass rates come from the probe runner’s results.', async () => {
          const q = new URLSearchParams({ from: win.from, to: win.to });
          const m = typeof filters.model === 'string' ? filters.model : null;
          if (m) q.set('model', m);
          const [data, sets] = await Promise.all([call('GET', `/v1/golden/results?${q}`, undefined, signal), call('GET', '/v1/golden/sets', undefined, signal).catch(() => null)]);
          renderGolden(golden, data, records(field(sets, 'sets')).length, typeof filters.model_version === 'string' ? filters.model_version : null);
        }),
        guard(samples, signal, 'POST /v1/samples/search', 'The sample explorer lists captured samples (the capture policy keeps errors, low confidence, risky inputs and a random share).', () => loadSamples(ctx, samples)),
      ]);
    },
    destroy() {
      replace(root);
    },
  };
}

function withoutVersion(f: Filters): Filters {
  const out = { ...f };
  delete out.model_version;
  return out;
}

function modelHeader(m: Rec): HTMLElement {
  const type = str(m['type']) ?? 'unknown';
  const fields = Array.isArray(m['fields']) ? (m['fields'] as unknown[]).map(String) : [];
  return h(
    'p',
    { class: 'model-head', data: { model: str(m['model']) ?? '', modelType: type } },
    h('strong', null, str(m['model']) ?? '–'),
    ' ',
    tag(type),
    ` ${str(m['source']) ?? ''} · ${fmtNum(num(m['n']), 0)} rows`,
    fields.length ? ` · from ${fields.join(', ')}` : '',
  );
}

function renderModels(panel: Panel, models: Rec[]): void {
  if (models.length === 0) return panel.empty('No requests in this window.');
  const blocks: Child[] = [];
  for (const m of models) {
    blocks.push(modelHeader(m));
    if (m['type'] === 'unknown') {
      blocks.push(h('div', { class: 'needs small' }, 'Needs a result field: ', h('code', null, 'label'), ' / ', h('code', null, 'confidence'), ' (classifier), ', h('code', null, 'output_tokens'), ' / ', h('code', null, 'finish_reason'), ' (generative) or ', h('code', null, 'score'), ' (ranker).'));
    }
    const rows = records(m['measures']);
    if (rows.length === 0) continue;
    const cols = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => k !== 'model_version' && k !== 'count' && k !== 'bucket');
    const missing = cols.filter((c) => RATE_FIELDS[c] && rows.every((r) => r[c] == null));
    blocks.push(
      table(
        ['version', ...cols.map(title)],
        rows.map((r) => [versionOf(r), ...cols.map((c) => (isRate(c) ? fmtPct(num(r[c]), 1) : c === 'n' ? fmtNum(num(r[c]), 0) : fmtNum(num(r[c]))))]),
        (i) => ({ version: versionOf(rows[i]!) }),
      ),
    );
    if (missing.length) {
      blocks.push(h('div', { class: 'needs small', data: { needs: missing.map((c) => RATE_FIELDS[c]!).join(',') } }, 'Rates shown as – need ', ...missing.flatMap((c, i) => [i ? ', ' : '', h('code', null, RATE_FIELDS[c]!), ` (${title(c)})`]), ' sent with the events.'));
    }
  }
  panel.ready(...blocks);
}

function classifiers(models: Rec[]): Rec[] {
  return models.filter((m) => m['type'] === 'classifier');
}

function renderLabels(panel: Panel, models: Rec[]): void {
  const cls = classifiers(models).filter((m) => records(m['labels']).length > 0);
  if (cls.length === 0) return panel.needs(['label'], 'Send the predicted label of each request to see its distribution by version.');
  const blocks: Child[] = [];
  for (const m of cls) {
    const rows = records(m['labels']);
    const versions = [...new Set(rows.map(versionOf))].sort();
    const labelNames = [...new Set(rows.map((r) => str(r['label']) ?? ''))].sort();
    const share = (l: string, v: string) => num(rows.find((r) => r['label'] === l && versionOf(r) === v)?.['share']);
    if (cls.length > 1) blocks.push(modelHeader(m));
    blocks.push(table(['label', ...versions], labelNames.map((l) => [l, ...versions.map((v, i) => shareBar(share(l, v), colorFor(v, i)))]), (i) => ({ label: labelNames[i]! })));
  }
  panel.ready(...blocks);
}

function renderHistogram(panel: Panel, models: Rec[]): void {
  const cls = classifiers(models).filter((m) => records(field(m['confidenceHistogram'], 'rows')).length > 0);
  if (cls.length === 0) return panel.needs(['confidence'], 'Send the confidence (0–1) of each prediction to see its histogram.');
  const blocks: Child[] = [];
  for (const m of cls) {
    const hg = m['confidenceHistogram'];
    const edges = (Array.isArray(field(hg, 'edges')) ? (field(hg, 'edges') as unknown[]) : []).map((e) => num(e) ?? 0);
    const rows = records(field(hg, 'rows'));
    const versions = rows.map(versionOf);
    const bins = edges.map((e, i) => `${(i ? edges[i - 1]! : 0).toFixed(1)}–${e.toFixed(1)}`);
    if (cls.length > 1) blocks.push(modelHeader(m));
    blocks.push(
      table(
        ['confidence', ...versions],
        bins.map((b, bi) => [b, ...rows.map((r, vi) => shareBar(Array.isArray(r['shares']) ? num((r['shares'] as unknown[])[bi]) : null, colorFor(versions[vi]!, vi)))]),
      ),
    );
    const q = records(m['measures']);
    const qs = ['p50(confidence)', 'p75(confidence)', 'p90(confidence)', 'p99(confidence)', 'min(confidence)', 'mean(confidence)'];
    blocks.push(h('h4', { class: 'sub' }, 'Quantiles'), table(['version', ...qs], q.map((r) => [versionOf(r), ...qs.map((k) => fmtNum(num(r[k])))])));
  }
  panel.ready(...blocks);
}

function renderShift(panel: Panel, models: Rec[]): void {
  const cls = classifiers(models).filter((m) => isRecord(m['keyClassShift']));
  if (cls.length === 0) return panel.needs(['label'], 'The key-class shift compares label shares with the previous window: send the predicted label.');
  const blocks: Child[] = [];
  for (const m of cls) {
    const ks = m['keyClassShift'];
    const prev = field(ks, 'previous');
    const classes = records(field(ks, 'classes'));
    const pf = Date.parse(str(field(prev, 'from')) ?? '');
    const pt = Date.parse(str(field(prev, 'to')) ?? '');
    if (cls.length > 1) blocks.push(modelHeader(m));
    const anyPrev = classes.some((c) => num(c['previousN']) != null && (num(c['previousN']) ?? 0) > 0);
    blocks.push(h('p', { class: 'panel-sub' }, `previous window ${Number.isFinite(pf) ? fmtTime(pf) : '?'} – ${Number.isFinite(pt) ? fmtTime(pt) : '?'}`, anyPrev ? '' : ' · no requests there: nothing to compare against yet'));
    blocks.push(
      table(
        ['version', 'label', 'share now', 'before', 'Δ', 'n now / before', 'p', 'q'],
        classes.map((c) => {
          const d = num(c['delta']);
          return [
            str(field(c['group'], 'model_version')) ?? '–',
            str(c['label']) ?? '',
            fmtPct(num(c['share']), 1),
            fmtPct(num(c['previousShare']), 1),
            d == null ? '–' : `${d >= 0 ? '+' : ''}${(d * 100).toFixed(1)} pp`,
            `${fmtNum(num(c['n']), 0)} / ${fmtNum(num(c['previousN']), 0)}`,
            fmtP(num(c['pValue'])),
            fmtP(num(c['qValue'])),
          ];
        }),
        undefined,
        (i) => ((num(classes[i]!['qValue']) ?? 1) < 0.05 ? 'significant' : ''),
      ),
    );
  }
  panel.ready(...blocks);
}

/** The drift reference from the URL: `drift_ref=previous` (default) or `drift_ref=version:<v>`; `drift_cur=<v>`. */
async function loadDrift(ctx: ViewContext, panel: Panel, versionsP: Promise<string[]>): Promise<void> {
  const { win, filters, signal } = ctx;
  const versions = await versionsP;
  const refParam = ctx.state.extra['drift_ref'] ?? 'previous';
  const refVersion = refParam.startsWith('version:') ? refParam.slice('version:'.length) : null;
  const globalVersion = typeof filters.model_version === 'string' ? filters.model_version : null;
  const current = refVersion ? (globalVersion ?? ctx.state.extra['drift_cur'] ?? versions.find((v) => v !== refVersion) ?? null) : null;

  const refSelect = h(
    'select',
    { id: 'drift-reference', label: 'drift reference', value: refParam, on: { change: (e) => ctx.setExtra({ drift_ref: (e.target as HTMLSelectElement).value, drift_cur: null }) } },
    h('option', { value: 'previous' }, 'the previous window'),
    ...[...new Set([...versions, ...(refVersion ? [refVersion] : [])])].map((v) => h('option', { value: `version:${v}` }, `version ${v} (same window)`)),
  );
  const curSelect = refVersion
    ? globalVersion
      ? h('span', { class: 'chip' }, `model_version=${globalVersion} (filter)`)
      : h(
          'select',
          { id: 'drift-current', label: 'current version', value: current ?? '', on: { change: (e) => ctx.setExtra({ drift_cur: (e.target as HTMLSelectElement).value }) } },
          ...versions.filter((v) => v !== refVersion).map((v) => h('option', { value: v }, v)),
        )
    : h('span', { class: 'chip' }, 'this window, same filters');
  const controls = h('div', { class: 'controls' }, h('label', null, 'Current ', curSelect), h('label', null, 'against ', refSelect));

  if (refVersion && !current) {
    panel.ready(controls, h('div', { class: 'needs small' }, 'Comparing against a version needs another version in the window: send ', h('code', null, 'model_version'), '.'));
    return;
  }
  const body = {
    from: win.from,
    to: win.to,
    filters: refVersion ? { ...filters, model_version: current! } : filters,
    reference: refVersion ? { kind: 'version', model_version: refVersion } : { kind: 'previous' },
  };
  const data = await call('POST', '/v1/quality/drift', body, signal);
  if (signal.aborted) return;
  const fields = records(field(data, 'fields'));
  const side = (k: string) => {
    const s = field(data, k);
    const f = Date.parse(str(field(s, 'from')) ?? '');
    const t = Date.parse(str(field(s, 'to')) ?? '');
    const fl = field(s, 'filters');
    const chips = isRecord(fl) ? Object.entries(fl).map(([a, b]) => `${a}=${Array.isArray(b) ? b.join('|') : String(b)}`) : [];
    return `${Number.isFinite(f) ? fmtTime(f) : '?'} – ${Number.isFinite(t) ? fmtTime(t) : '?'}${chips.length ? ` (${chips.join(', ')})` : ''}`;
  };
  const shown = fields.filter((f) => (num(field(f['test'], 'nRef')) ?? 0) + (num(field(f['test'], 'nCur')) ?? 0) > 0);
  const absent = fields.filter((f) => !shown.includes(f)).map((f) => str(f['field']) ?? '');
  const drifted = shown.filter((f) => field(f['test'], 'verdict') === 'drift').map((f) => str(f['field']) ?? '');
  panel.setMeta(drifted.length ? `drift in ${drifted.join(', ')}` : '');
  panel.ready(
    controls,
    h('p', { class: 'panel-sub' }, `current ${side('current')} · reference ${side('reference')}`),
    shown.length
      ? table(
          ['field', 'test', 'statistic', 'p-value', 'q-value', 'threshold', 'verdict', 'PSI', 'n reference', 'n current'],
          shown.map((f) => {
            const t = f['test'];
            const p = f['psi'];
            const verdict = str(field(t, 'verdict')) ?? 'unknown';
            const psiV = num(field(p, 'statistic'));
            return [
              h('strong', null, str(f['field']) ?? ''),
              str(field(t, 'method')) ?? '',
              fmtNum(num(field(t, 'statistic'))),
              fmtP(num(field(t, 'pValue'))),
              fmtP(num(f['qValue'])),
              `${num(field(t, 'pValue')) != null || P_METHODS.has(str(field(t, 'method')) ?? '') ? 'p < ' : '≥ '}${fmtNum(num(field(t, 'threshold')))}`,
              tag(verdict, { verdict }),
              psiV == null ? '–' : `${psiV.toFixed(3)}${str(field(p, 'level')) ? ` (${str(field(p, 'level'))})` : ''}`,
              fmtNum(num(field(t, 'nRef')), 0),
              fmtNum(num(field(t, 'nCur')), 0),
            ];
          }),
          (i) => ({ field: str(shown[i]!['field']) ?? '', verdict: str(field(shown[i]!['test'], 'verdict')) ?? '' }),
          (i) => (field(shown[i]!['test'], 'verdict') === 'drift' ? 'significant' : ''),
        )
      : h('div', { class: 'needs small' }, 'Needs ', h('code', null, 'confidence'), ', ', h('code', null, 'label'), ', ', h('code', null, 'output_length'), ' or ', h('code', null, 'score'), ' to test for drift.'),
    absent.length ? h('p', { class: 'panel-sub' }, `Not sent on either side: ${absent.join(', ')}.`) : null,
  );
}

function renderFeedback(panel: Panel, rows: Rec[], orphans: number | null): void {
  const kept = rows.filter((r) => (num(r['requests']) ?? 0) > 0);
  if (!kept.some((r) => (num(r['withFeedback']) ?? 0) > 0)) return panel.needs(['feedback'], 'Send feedback (POST /v1/feedback with request_id: correct, label, thumbs, rating, conversion, click) to see hit rates.');
  const hit = (r: Rec) => num(r['correctRate']) ?? num(r['labelAccuracy']);
  const hasHit = kept.some((r) => hit(r) != null);
  panel.setMeta(orphans ? `${orphans} feedback rows not joined yet` : '');
  panel.ready(
    table(
      ['version', 'requests', 'with feedback', 'hit rate', 'thumbs up', 'rating'],
      kept.map((r) => [
        versionOf(r),
        fmtNum(num(r['requests']), 0),
        fmtPct((num(r['withFeedback']) ?? 0) / (num(r['requests']) || 1), 1),
        hit(r) == null ? '–' : shareBar(hit(r)),
        fmtPct(num(r['thumbsUpRate']), 1),
        fmtNum(num(r['ratingMean']), 2),
      ]),
      (i) => ({ version: versionOf(kept[i]!) }),
    ),
    hasHit ? null : h('div', { class: 'needs small' }, 'Hit rate needs ', h('code', null, 'correct'), ' or ', h('code', null, 'label'), ' feedback.'),
  );
}

function renderGolden(panel: Panel, data: unknown, sets: number, version: string | null): void {
  const versions = records(field(data, 'versions')).filter((v) => !version || v['model_version'] === version);
  const failing = records(field(data, 'failing')).filter((v) => !version || v['model_version'] === version);
  panel.setMeta(`${sets} golden set${sets === 1 ? '' : 's'} registered${field(data, 'truncated') === true ? ' · newest probes only' : ''}`);
  if (versions.length === 0) {
    return panel.needs(['probe', 'attributes.golden_set', 'attributes.golden_pass'], 'Register golden sets (POST /v1/golden/sets) and configure quality.probes targets: the probe runner sends the golden inputs and records pass/fail.');
  }
  panel.ready(
    table(
      ['model', 'version', 'pass rate', 'passed / runs', 'errors'],
      versions.map((v) => [str(v['model']) ?? '–', versionOf(v), shareBar(num(v['passRate']), (num(v['passRate']) ?? 1) < 0.9 ? '#d64545' : '#3b9c5a'), `${fmtNum(num(v['passed']), 0)} / ${fmtNum(num(v['runs']), 0)}`, fmtNum(num(v['errors']), 0)]),
      (i) => ({ version: versionOf(versions[i]!) }),
    ),
    h('h4', { class: 'sub' }, failing.length ? 'Failing golden samples' : 'No golden sample fails.'),
    failing.length
      ? table(
          ['set', 'id', 'version', 'fails / runs', 'last failure', 'reason'],
          failing.map((f) => {
            const t = Date.parse(str(f['lastFailure']) ?? '');
            return [str(f['golden_set']) ?? '', str(f['golden_id']) ?? '', versionOf(f), `${fmtNum(num(f['fails']), 0)} / ${fmtNum(num(f['runs']), 0)}`, Number.isFinite(t) ? fmtTime(t) : '–', str(f['reason']) ?? '–'];
          }),
          (i) => ({ goldenId: str(failing[i]!['golden_id']) ?? '' }),
        )
      : null,
  );
}

/** Search by reason and risk tag (`sreason`, `stag` in the URL), within the window and filters. */
async function loadSamples(ctx: ViewContext, panel: Panel): Promise<void> {
  const { win, filters, signal } = ctx;
  const reason = ctx.state.extra['sreason'] ?? '';
  const tagText = ctx.state.extra['stag'] ?? '';
  const reasonSelect = h('select', { id: 'sample-reason', label: 'reason', value: reason }, h('option', { value: '' }, 'any reason'), ...SAMPLE_REASONS.map((r) => h('option', { value: r }, r.replace(/_/g, ' '))));
  const tagInput = h('input', { id: 'sample-tag', type: 'search', placeholder: 'risk tag', label: 'risk tag', value: tagText });
  const searchForm = form(
    'controls',
    () => ctx.setExtra({ sreason: reasonSelect.value || null, stag: tagInput.value.trim() || null }),
    h('label', null, 'Kept because ', reasonSelect),
    h('label', null, 'Tag ', tagInput),
    h('button', { type: 'submit', id: 'sample-search' }, 'search'),
  );
  const found = await searchSamples({ from: win.from, to: win.to, filters, limit: 50, ...(reason ? { reasons: [reason] } : {}), ...(tagText ? { tags: [tagText] } : {}) }, signal);
  if (signal.aborted) return;
  panel.setMeta(`${found.length}${found.length === 50 ? '+' : ''} sample${found.length === 1 ? '' : 's'}`);
  panel.ready(
    searchForm,
    found.length
      ? h('div', { class: 'sample-list' }, ...found.map((x) => sampleCard(x, ctx.openRequest)))
      : h('div', { class: 'placeholder' }, reason || tagText ? 'No captured samples match.' : 'No captured samples in this window: send input / output with the events (the capture policy keeps errors, low confidence, risky inputs and a random share).'),
  );
}
