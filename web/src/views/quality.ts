/**
 * Model quality (algorithm engineers). One `POST /v1/quality/summary` (grouped by version) feeds the
 * model type, result rates, label distribution, confidence histogram and quantiles and the key-class
 * shift; `POST /v1/quality/drift` the drift table against a chosen reference (previous window or a
 * version); `POST /v1/quality/feedback` the feedback hit rate; `GET /v1/golden/results` the golden
 * pass rate and failing samples; `POST /v1/samples/search` the sample explorer (captured text shown
 * as text). Confidence and output length over time come from `/v1/query`.
 */
import { get, num, post, query, searchSamples } from '../api.ts';
import type { DriftReply, FeedbackReply, FeedbackRowReply, GoldenResultsReply, ModelQualityReply, QualitySummaryReply } from '../../../src/schema/replies.ts';
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

type Model = ModelQualityReply;

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

/** A row's model_version (rows grouped by version carry it as a dimension). */
function versionOf(r: object): string {
  const v = (r as { model_version?: unknown }).model_version;
  return typeof v === 'string' ? v : '(none)';
}

export function qualityView(root: HTMLElement): ViewHandle {
  const model = new Panel(
    'quality-model',
    'Model type and result rates',
    'per version: rows, low-confidence / empty / refusal / format-error rates and quantiles (what fits the model type)',
    true,
  );
  const labels = new Panel('quality-labels', 'Label distribution', 'share of each predicted label, by version');
  const hist = new Panel('quality-histogram', 'Confidence histogram', 'share of predictions per confidence bin, by version, with the quantiles');
  const conf = new Panel('quality-confidence', 'Confidence over time', 'min / P50 / P90 of confidence');
  const length = new Panel('quality-length', 'Output length over time', 'P50 / P90 of output_length');
  const shift = new Panel(
    'quality-shift',
    'Key-class shift',
    'share of the top classes now vs the previous window of the same length (two-proportion test, BH q-values)',
    true,
  );
  const drift = new Panel(
    'quality-drift',
    'Drift against a reference',
    'per field: test, statistic, p-value, threshold, verdict, PSI and both sample sizes',
    true,
  );
  const feedback = new Panel('quality-feedback', 'Feedback hit rate', 'feedback joined to requests by request_id, by version');
  const golden = new Panel('quality-golden', 'Golden samples', 'pass rate per version (probe requests) and the samples that fail');
  const samples = new Panel('quality-samples', 'Sample explorer', 'captured samples (redacted, bounded), newest first · input / output shown as text', true);
  const all = [model, labels, hist, conf, length, shift, drift, feedback, golden, samples];
  replace(root, h('div', { class: 'grid' }, ...all.map((p) => p.el)));

  return {
    async update(ctx: ViewContext) {
      const { win, filters, signal } = ctx;
      for (const p of all) p.loading();
      const summary = post<QualitySummaryReply>('/v1/quality/summary', { from: win.from, to: win.to, filters, group_by: ['model_version'] }, signal);
      const models = summary.then((d) => d.models);
      // Keep unhandled rejections away: every consumer below guards its own use.
      models.catch(() => undefined);
      const versions = query({ from: win.from, to: win.to, filters: withoutVersion(filters), group_by: ['model_version'], measures: ['n'] }, signal).then(
        (rows) => byFrequency(rows, 'model_version'),
      );
      versions.catch(() => undefined);

      await Promise.all([
        guard(model, signal, 'POST /v1/quality/summary', 'Model type, result rates and quantiles come from the quality summary.', async () =>
          renderModels(model, await models),
        ),
        guard(labels, signal, 'POST /v1/quality/summary', 'The label distribution comes from the quality summary.', async () =>
          renderLabels(labels, await models),
        ),
        guard(hist, signal, 'POST /v1/quality/summary', 'The confidence histogram comes from the quality summary.', async () =>
          renderHistogram(hist, await models),
        ),
        guard(shift, signal, 'POST /v1/quality/summary', 'The key-class shift comes from the quality summary.', async () => renderShift(shift, await models)),
        guard(conf, signal, 'POST /v1/query', '', async () => {
          const rows = await query(
            { from: win.from, to: win.to, filters, step: win.step, measures: ['p50(confidence)', 'p90(confidence)', 'min(confidence)', 'n'] },
            signal,
          );
          const g = onGrid(win.buckets, rows);
          const s = ['p50', 'p90', 'min'].map((k, i) => ({
            label: k,
            color: colorFor(k === 'min' ? 'p999' : k, i),
            values: g.map((r) => num(r?.[`${k}(confidence)`])),
          }));
          if (!s.some((x) => x.values.some((v) => v != null))) return conf.needs(['confidence'], 'Send the confidence (0–1) of each prediction.');
          if (!conf.body.querySelector(':scope > .chart')) conf.ready(h('div', { class: 'chart' }));
          else conf.ready();
          timeSeries(conf.body.querySelector<HTMLElement>('.chart')!, {
            id: 'quality-confidence',
            xs: win.buckets,
            xRange: [win.fromMs, win.toMs],
            series: s,
            fmt: (v) => v.toFixed(2),
            syncKey: 'quality',
          });
        }),
        guard(length, signal, 'POST /v1/query', '', async () => {
          const rows = await query({ from: win.from, to: win.to, filters, step: win.step, measures: ['p50(output_length)', 'p90(output_length)'] }, signal);
          const g = onGrid(win.buckets, rows);
          const s = ['p50', 'p90'].map((k, i) => ({ label: k, color: colorFor(k, i), values: g.map((r) => num(r?.[`${k}(output_length)`])) }));
          if (!s.some((x) => x.values.some((v) => v != null)))
            return length.needs(['output_length'], 'Send the length of each output (characters, tokens or items).');
          if (!length.body.querySelector(':scope > .chart')) length.ready(h('div', { class: 'chart' }));
          else length.ready();
          timeSeries(length.body.querySelector<HTMLElement>('.chart')!, {
            id: 'quality-length',
            xs: win.buckets,
            xRange: [win.fromMs, win.toMs],
            series: s,
            fmt: (v) => fmtNum(v),
            syncKey: 'quality',
          });
        }),
        guard(
          drift,
          signal,
          'POST /v1/quality/drift',
          'Drift (KS, chi-square, Wasserstein, Jensen–Shannon, PSI) against a reference window or version comes from the quality API.',
          () => loadDrift(ctx, drift, versions),
        ),
        guard(feedback, signal, 'POST /v1/quality/feedback', 'Feedback hit rates are joined to requests by the quality API.', async () => {
          const data = await post<FeedbackReply>('/v1/quality/feedback', { from: win.from, to: win.to, filters, group_by: ['model_version'] }, signal);
          renderFeedback(feedback, data.rows, data.orphans);
        }),
        guard(golden, signal, 'GET /v1/golden/results', 'Golden pass rates come from the probe runner’s results.', async () => {
          const q = new URLSearchParams({ from: win.from, to: win.to });
          const m = typeof filters.model === 'string' ? filters.model : null;
          if (m) q.set('model', m);
          const [data, sets] = await Promise.all([
            get<GoldenResultsReply>(`/v1/golden/results?${q}`, signal),
            get<{ sets: unknown[] }>('/v1/golden/sets', signal),
          ]);
          renderGolden(golden, data, sets.sets.length, typeof filters.model_version === 'string' ? filters.model_version : null);
        }),
        guard(
          samples,
          signal,
          'POST /v1/samples/search',
          'The sample explorer lists captured samples (the capture policy keeps errors, low confidence, risky inputs and a random share).',
          () => loadSamples(ctx, samples),
        ),
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

function modelHeader(m: Model): HTMLElement {
  return h(
    'p',
    { class: 'model-head', data: { model: m.model, modelType: m.type } },
    h('strong', null, m.model),
    ' ',
    tag(m.type),
    ` ${m.source} · ${fmtNum(m.n, 0)} rows`,
    m.fields.length ? ` · from ${m.fields.join(', ')}` : '',
  );
}

function renderModels(panel: Panel, models: Model[]): void {
  if (models.length === 0) return panel.empty('No requests in this window.');
  const blocks: Child[] = [];
  for (const m of models) {
    blocks.push(modelHeader(m));
    if (m.type === 'unknown') {
      blocks.push(
        h(
          'div',
          { class: 'needs small' },
          'Needs a result field: ',
          h('code', null, 'label'),
          ' / ',
          h('code', null, 'confidence'),
          ' (classifier), ',
          h('code', null, 'output_tokens'),
          ' / ',
          h('code', null, 'finish_reason'),
          ' (generative) or ',
          h('code', null, 'score'),
          ' (ranker).',
        ),
      );
    }
    const rows = m.measures;
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
      blocks.push(
        h(
          'div',
          { class: 'needs small', data: { needs: missing.map((c) => RATE_FIELDS[c]!).join(',') } },
          'Rates shown as – need ',
          ...missing.flatMap((c, i) => [i ? ', ' : '', h('code', null, RATE_FIELDS[c]!), ` (${title(c)})`]),
          ' sent with the events.',
        ),
      );
    }
  }
  panel.ready(...blocks);
}

function classifiers(models: Model[]): Model[] {
  return models.filter((m) => m.type === 'classifier');
}

function renderLabels(panel: Panel, models: Model[]): void {
  const cls = classifiers(models).filter((m) => (m.labels ?? []).length > 0);
  if (cls.length === 0) return panel.needs(['label'], 'Send the predicted label of each request to see its distribution by version.');
  const blocks: Child[] = [];
  for (const m of cls) {
    const rows = m.labels ?? [];
    const versions = [...new Set(rows.map(versionOf))].sort();
    const labelNames = [...new Set(rows.map((r) => String(r['label'] ?? '')))].sort();
    const share = (l: string, v: string) => rows.find((r) => r['label'] === l && versionOf(r) === v)?.share ?? null;
    if (cls.length > 1) blocks.push(modelHeader(m));
    blocks.push(
      table(
        ['label', ...versions],
        labelNames.map((l) => [l, ...versions.map((v, i) => shareBar(share(l, v), colorFor(v, i)))]),
        (i) => ({ label: labelNames[i]! }),
      ),
    );
  }
  panel.ready(...blocks);
}

function renderHistogram(panel: Panel, models: Model[]): void {
  const cls = classifiers(models).filter((m) => (m.confidence_histogram?.rows ?? []).length > 0);
  if (cls.length === 0) return panel.needs(['confidence'], 'Send the confidence (0–1) of each prediction to see its histogram.');
  const blocks: Child[] = [];
  for (const m of cls) {
    const { edges, rows } = m.confidence_histogram!;
    const versions = rows.map(versionOf);
    const bins = edges.map((e, i) => `${(i ? edges[i - 1]! : 0).toFixed(1)}–${e.toFixed(1)}`);
    if (cls.length > 1) blocks.push(modelHeader(m));
    blocks.push(
      table(
        ['confidence', ...versions],
        bins.map((b, bi) => [b, ...rows.map((r, vi) => shareBar(r.shares[bi] ?? null, colorFor(versions[vi]!, vi)))]),
      ),
    );
    const q = m.measures;
    const qs = ['p50(confidence)', 'p75(confidence)', 'p90(confidence)', 'p99(confidence)', 'min(confidence)', 'mean(confidence)'];
    blocks.push(
      h('h4', { class: 'sub' }, 'Quantiles'),
      table(
        ['version', ...qs],
        q.map((r) => [versionOf(r), ...qs.map((k) => fmtNum(num(r[k])))]),
      ),
    );
  }
  panel.ready(...blocks);
}

function renderShift(panel: Panel, models: Model[]): void {
  const cls = classifiers(models).filter((m) => m.key_class_shift !== undefined);
  if (cls.length === 0) return panel.needs(['label'], 'The key-class shift compares label shares with the previous window: send the predicted label.');
  const blocks: Child[] = [];
  for (const m of cls) {
    const { previous: prev, classes } = m.key_class_shift!;
    const pf = Date.parse(prev.from);
    const pt = Date.parse(prev.to);
    if (cls.length > 1) blocks.push(modelHeader(m));
    const anyPrev = classes.some((c) => c.previous_n > 0);
    blocks.push(
      h(
        'p',
        { class: 'panel-sub' },
        `previous window ${Number.isFinite(pf) ? fmtTime(pf) : '?'} – ${Number.isFinite(pt) ? fmtTime(pt) : '?'}`,
        anyPrev ? '' : ' · no requests there: nothing to compare against yet',
      ),
    );
    blocks.push(
      table(
        ['version', 'label', 'share now', 'before', 'Δ', 'n now / before', 'p', 'q'],
        classes.map((c) => {
          const d = c.delta;
          return [
            c.group['model_version'] ?? '–',
            c.label,
            fmtPct(c.share, 1),
            fmtPct(c.previous_share, 1),
            d == null ? '–' : `${d >= 0 ? '+' : ''}${(d * 100).toFixed(1)} pp`,
            `${fmtNum(c.n, 0)} / ${fmtNum(c.previous_n, 0)}`,
            fmtP(c.p_value),
            fmtP(c.q_value),
          ];
        }),
        undefined,
        (i) => ((classes[i]!.q_value ?? 1) < 0.05 ? 'significant' : ''),
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
    {
      id: 'drift-reference',
      label: 'drift reference',
      value: refParam,
      on: { change: (e) => ctx.setExtra({ drift_ref: (e.target as HTMLSelectElement).value, drift_cur: null }) },
    },
    h('option', { value: 'previous' }, 'the previous window'),
    ...[...new Set([...versions, ...(refVersion ? [refVersion] : [])])].map((v) => h('option', { value: `version:${v}` }, `version ${v} (same window)`)),
  );
  const curSelect = refVersion
    ? globalVersion
      ? h('span', { class: 'chip' }, `model_version=${globalVersion} (filter)`)
      : h(
          'select',
          {
            id: 'drift-current',
            label: 'current version',
            value: current ?? '',
            on: { change: (e) => ctx.setExtra({ drift_cur: (e.target as HTMLSelectElement).value }) },
          },
          ...versions.filter((v) => v !== refVersion).map((v) => h('option', { value: v }, v)),
        )
    : h('span', { class: 'chip' }, 'this window, same filters');
  const controls = h('div', { class: 'controls' }, h('label', null, 'Current ', curSelect), h('label', null, 'against ', refSelect));

  if (refVersion && !current) {
    panel.ready(
      controls,
      h('div', { class: 'needs small' }, 'Comparing against a version needs another version in the window: send ', h('code', null, 'model_version'), '.'),
    );
    return;
  }
  const body = {
    from: win.from,
    to: win.to,
    filters: refVersion ? { ...filters, model_version: current! } : filters,
    reference: refVersion ? { kind: 'version', model_version: refVersion } : { kind: 'previous' },
  };
  const data = await post<DriftReply>('/v1/quality/drift', body, signal);
  if (signal.aborted) return;
  const fields = data.fields;
  const side = (k: 'current' | 'reference') => {
    const s = data[k];
    const f = Date.parse(s.from);
    const t = Date.parse(s.to);
    const chips = Object.entries(s.filters).map(([a, b]) => `${a}=${Array.isArray(b) ? b.join('|') : String(b)}`);
    return `${Number.isFinite(f) ? fmtTime(f) : '?'} – ${Number.isFinite(t) ? fmtTime(t) : '?'}${chips.length ? ` (${chips.join(', ')})` : ''}`;
  };
  const shown = fields.filter((f) => f.test.n_ref + f.test.n_cur > 0);
  const absent = fields.filter((f) => !shown.includes(f)).map((f) => f.field);
  const drifted = shown.filter((f) => f.test.verdict === 'drift').map((f) => f.field);
  panel.setMeta(drifted.length ? `drift in ${drifted.join(', ')}` : '');
  panel.ready(
    controls,
    h('p', { class: 'panel-sub' }, `current ${side('current')} · reference ${side('reference')}`),
    shown.length
      ? table(
          ['field', 'test', 'statistic', 'p-value', 'q-value', 'threshold', 'verdict', 'PSI', 'n reference', 'n current'],
          shown.map((f) => {
            const { test: t, psi: p } = f;
            const psiV = num(p.statistic);
            return [
              h('strong', null, f.field),
              t.method,
              fmtNum(num(t.statistic)),
              fmtP(t.p_value),
              fmtP(f.q_value),
              `${t.p_value != null || P_METHODS.has(t.method) ? 'p < ' : '≥ '}${fmtNum(t.threshold)}`,
              tag(t.verdict, { verdict: t.verdict }),
              psiV == null ? '–' : `${psiV.toFixed(3)}${p.level ? ` (${p.level})` : ''}`,
              fmtNum(t.n_ref, 0),
              fmtNum(t.n_cur, 0),
            ];
          }),
          (i) => ({ field: shown[i]!.field, verdict: shown[i]!.test.verdict }),
          (i) => (shown[i]!.test.verdict === 'drift' ? 'significant' : ''),
        )
      : h(
          'div',
          { class: 'needs small' },
          'Needs ',
          h('code', null, 'confidence'),
          ', ',
          h('code', null, 'label'),
          ', ',
          h('code', null, 'output_length'),
          ' or ',
          h('code', null, 'score'),
          ' to test for drift.',
        ),
    absent.length ? h('p', { class: 'panel-sub' }, `Not sent on either side: ${absent.join(', ')}.`) : null,
  );
}

function renderFeedback(panel: Panel, rows: FeedbackRowReply[], orphans: number): void {
  const kept = rows.filter((r) => r.requests > 0);
  if (!kept.some((r) => r.with_feedback > 0))
    return panel.needs(['feedback'], 'Send feedback (POST /v1/feedback with request_id: correct, label, thumbs, rating, conversion, click) to see hit rates.');
  const hit = (r: FeedbackRowReply) => r.correct_rate ?? r.label_accuracy;
  const hasHit = kept.some((r) => hit(r) != null);
  panel.setMeta(orphans ? `${orphans} feedback rows not joined yet` : '');
  panel.ready(
    table(
      ['version', 'requests', 'with feedback', 'hit rate', 'thumbs up', 'rating'],
      kept.map((r) => [
        versionOf(r),
        fmtNum(r.requests, 0),
        fmtPct(r.with_feedback / (r.requests || 1), 1),
        hit(r) == null ? '–' : shareBar(hit(r)),
        fmtPct(r.thumbs_up_rate, 1),
        fmtNum(r.rating_mean, 2),
      ]),
      (i) => ({ version: versionOf(kept[i]!) }),
    ),
    hasHit ? null : h('div', { class: 'needs small' }, 'Hit rate needs ', h('code', null, 'correct'), ' or ', h('code', null, 'label'), ' feedback.'),
  );
}

function renderGolden(panel: Panel, data: GoldenResultsReply, sets: number, version: string | null): void {
  const versions = data.versions.filter((v) => !version || v.model_version === version);
  const failing = data.failing.filter((v) => !version || v.model_version === version);
  panel.setMeta(`${sets} golden set${sets === 1 ? '' : 's'} registered${data.truncated ? ' · newest probes only' : ''}`);
  if (versions.length === 0) {
    return panel.needs(
      ['probe', 'attributes.golden_set', 'attributes.golden_pass'],
      'Register golden sets (POST /v1/golden/sets) and configure quality.probes targets: the probe runner sends the golden inputs and records pass/fail.',
    );
  }
  panel.ready(
    table(
      ['model', 'version', 'pass rate', 'passed / runs', 'errors'],
      versions.map((v) => [
        v.model ?? '–',
        versionOf(v),
        shareBar(v.pass_rate, (v.pass_rate ?? 1) < 0.9 ? '#d64545' : '#3b9c5a'),
        `${fmtNum(v.passed, 0)} / ${fmtNum(v.runs, 0)}`,
        fmtNum(v.errors, 0),
      ]),
      (i) => ({ version: versionOf(versions[i]!) }),
    ),
    h('h4', { class: 'sub' }, failing.length ? 'Failing golden samples' : 'No golden sample fails.'),
    failing.length
      ? table(
          ['set', 'id', 'version', 'fails / runs', 'last failure', 'reason'],
          failing.map((f) => {
            const t = Date.parse(f.last_failure);
            return [
              f.golden_set,
              f.golden_id,
              versionOf(f),
              `${fmtNum(f.fails, 0)} / ${fmtNum(f.runs, 0)}`,
              Number.isFinite(t) ? fmtTime(t) : '–',
              f.reason ?? '–',
            ];
          }),
          (i) => ({ goldenId: failing[i]!.golden_id }),
        )
      : null,
  );
}

/** Search by reason and risk tag (`sreason`, `stag` in the URL), within the window and filters. */
async function loadSamples(ctx: ViewContext, panel: Panel): Promise<void> {
  const { win, filters, signal } = ctx;
  const reason = ctx.state.extra['sreason'] ?? '';
  const tagText = ctx.state.extra['stag'] ?? '';
  const reasonSelect = h(
    'select',
    { id: 'sample-reason', label: 'reason', value: reason },
    h('option', { value: '' }, 'any reason'),
    ...SAMPLE_REASONS.map((r) => h('option', { value: r }, r.replace(/_/g, ' '))),
  );
  const tagInput = h('input', { id: 'sample-tag', type: 'search', placeholder: 'risk tag', label: 'risk tag', value: tagText });
  const searchForm = form(
    'controls',
    () => ctx.setExtra({ sreason: reasonSelect.value || null, stag: tagInput.value.trim() || null }),
    h('label', null, 'Kept because ', reasonSelect),
    h('label', null, 'Tag ', tagInput),
    h('button', { type: 'submit', id: 'sample-search' }, 'search'),
  );
  const found = await searchSamples(
    { from: win.from, to: win.to, filters, limit: 50, ...(reason ? { reasons: [reason] } : {}), ...(tagText ? { tags: [tagText] } : {}) },
    signal,
  );
  if (signal.aborted) return;
  panel.setMeta(`${found.length}${found.length === 50 ? '+' : ''} sample${found.length === 1 ? '' : 's'}`);
  panel.ready(
    searchForm,
    found.length
      ? h('div', { class: 'sample-list' }, ...found.map((x) => sampleCard(x, ctx.openRequest)))
      : h(
          'div',
          { class: 'placeholder' },
          reason || tagText
            ? 'No captured samples match.'
            : 'No captured samples in this window: send input / output with the events (the capture policy keeps errors, low confidence, risky inputs and a random share).',
        ),
  );
}
