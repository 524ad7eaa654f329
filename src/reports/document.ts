/**
 * The review as a document of blocks — headings, sentences, tables, rule files, charts — that the
 * Markdown (markdown.ts) and HTML (html.ts) renderers both walk, so the two say the same thing
 * with the same figures. Text may carry two inline marks: `code` and **strong**.
 */
import type { HotRow, LatencyRow, Report } from './report.ts';
import type { IncidentReview } from './missing-signal.ts';
import type { SliceSection, VerdictSummary } from './sections.ts';

/** A bar chart: one row per label, the period's value beside the previous one's. */
export interface BarChart {
  kind: 'bars';
  title: string;
  unit: 'ms' | 'ratio' | 'money' | 'count';
  rows: { label: string; now: number | null; before: number | null }[];
}

/** An incident's timeline: when each signal moved and when each rule fired, on one time axis. */
export interface TimelineChart {
  kind: 'timeline';
  title: string;
  from: string;
  to: string;
  marks: { at: string; label: string; what: 'signal' | 'rule' | 'backtest' }[];
}

export type Chart = BarChart | TimelineChart;

export type Block =
  | { kind: 'h1' | 'h2' | 'h3'; text: string }
  | { kind: 'p'; text: string }
  /** Something missing or empty, said as such (italic in Markdown, muted in HTML). */
  | { kind: 'note'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: string[][] }
  | { kind: 'code'; lang: string; text: string }
  | { kind: 'chart'; chart: Chart };

export const ms = (v: number | null) => (v == null ? '–' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v >= 100 ? 0 : 1)} ms`);
export const pct = (v: number | null, digits = 1) => (v == null ? '–' : `${(v * 100).toFixed(digits)} %`);
const change = (v: number | null) => (v == null ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(0)} %`);
const int = (v: number) => Math.round(v).toLocaleString('en');
const dash = (v: string | null | undefined) => v ?? '–';
const mv = (m: string | null | undefined, v: string | null | undefined) => `${m ?? '–'} ${v ?? '–'}`;
const hhmm = (t: string | null) => (t ? `${t.slice(11, 16)} UTC` : '–');
const minutes = (s: number | null) => (s == null ? '–' : `${(s / 60).toFixed(1)} min`);
const labelText = (l: Record<string, string>) =>
  Object.entries(l)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
const sliceText = (s: Record<string, string>) =>
  Object.entries(s)
    .map(([k, v]) => `${k}=${v}`)
    .join(' × ');
const sig = (v: number | null) => (v == null ? '–' : v === 0 ? '0' : Math.abs(v) < 0.001 ? v.toExponential(1) : v.toFixed(3));
const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
const verdict = (v: VerdictSummary | null) => (v == null ? '–' : `**${v.verdict}**${v.score == null ? '' : ` (score ${v.score.toFixed(0)})`}`);
const level = (signal: string, v: number | null) =>
  v == null
    ? '–'
    : signal.endsWith('_rate') || signal === 'gpu_utilization_ratio'
      ? pct(v, 2)
      : signal.endsWith('_bytes')
        ? `${(v / 1024 ** 3).toFixed(1)} GiB`
        : signal.includes('_ms')
          ? ms(v)
          : v.toFixed(3);

const NOTHING = 'nothing in this period';
function table(head: string[], rows: string[][]): Block {
  return rows.length === 0 ? { kind: 'note', text: NOTHING } : { kind: 'table', head, rows };
}

function latencyTable(rows: LatencyRow[], withVersion: boolean): Block {
  return table(
    [withVersion ? 'model × version' : 'model', 'P99', 'P99.9', 'n', 'P99 before', 'P99 change', 'P99.9 change'],
    rows.map((r) => [
      withVersion ? mv(r.model, r.model_version) : dash(r.model),
      ms(r.p99_ms),
      ms(r.p999_ms),
      int(r.n),
      r.previous ? `${ms(r.previous.p99_ms)} (n ${int(r.previous.n)})` : '–',
      change(r.p99_change),
      change(r.p999_change),
    ]),
  );
}

function hotTable(rows: HotRow[], by: 'pool' | 'node'): Block {
  return table(
    [by, 'GPUs', 'mean util', 'peak', `time ≥ 85 %`, 'GPU-minutes', 'least memory headroom', 'mean util before'],
    rows.map((r) => [
      dash(r[by]),
      String(r.gpus),
      pct(r.mean_utilization),
      pct(r.peak_utilization),
      pct(r.hot_share),
      int(r.gpu_minutes),
      pct(r.min_memory_headroom),
      pct(r.previous_mean_utilization),
    ]),
  );
}

function sliceBlocks(sec: SliceSection | null): Block[] {
  if (!sec) return [{ kind: 'note', text: 'the slice finder is not available here' }];
  const what = sec.kind === 'errors' ? 'errors' : 'slow';
  const head = sec.kind === 'slow' ? `Slow: above the period's P95 of total_ms, ${ms(sec.threshold_ms)} (before: ${ms(sec.previous_threshold_ms)}). ` : '';
  return [
    {
      kind: 'p',
      text: `${head}All traffic: ${int(sec.total.k)} ${what} in ${int(sec.total.n)} (${pct(sec.total.rate, 2)}); before ${int(sec.previous_total.k)} in ${int(sec.previous_total.n)} (${pct(sec.previous_total.rate, 2)}).`,
    },
    table(
      ['slice', 'requests', what, 'rate', 'rest', 'excess', 'q', 'before'],
      sec.slices.map((x) => [
        sliceText(x.slice),
        int(x.n),
        int(x.k),
        pct(x.rate, 2),
        pct(x.rest_rate, 2),
        x.excess.toFixed(1),
        sig(x.q_value),
        x.previous ? `${pct(x.previous.rate, 2)} (${int(x.previous.k)} of ${int(x.previous.n)})` : '–',
      ]),
    ),
  ];
}

/** One incident: the first signal, the first rule, what the backtest would have fired earlier, the signals that moved. */
export function incidentBlocks(inc: IncidentReview): Block[] {
  const out: Block[] = [{ kind: 'h3', text: `${labelText(inc.slice) || inc.incident_id} (${inc.status}, opened ${hhmm(inc.opened_at)})` }];
  const items: string[] = [];
  const f = inc.first_signal;
  items.push(
    f
      ? `first signal \`${f.signal}\` moved at ${f.moved_at.slice(11, 16)} UTC (${f.family})`
      : 'no signal of the slice moved in the half hour before the first firing',
  );
  const r = inc.first_rule;
  if (r)
    items.push(
      `first rule \`${r.alertname}\` fired at ${r.fired_at.slice(11, 16)} UTC${r.after_first_signal_s == null ? '' : `, ${minutes(r.after_first_signal_s)} after the first signal`}`,
    );
  const b = inc.backtest;
  const marks: TimelineChart['marks'] = [];
  for (const s of inc.signals) if (s.moved_at) marks.push({ at: s.moved_at, label: s.signal, what: 'signal' });
  if (r) marks.push({ at: r.fired_at, label: `${r.alertname} fired`, what: 'rule' });
  let rule: Block | null = null;
  if (!b.ran) items.push(`backtest not run: ${b.note ?? '–'}`);
  else {
    const e = b.earlier_in_pack;
    items.push(
      e
        ? `in the pack, \`${e.alertname}\` (${labelText(e.labels)}) would have fired at ${hhmm(e.fired_at)}, ${minutes(e.lead_s)} earlier`
        : `no rule of the pack would have fired earlier (backtest ${hhmm(b.from)} → ${hhmm(b.to)})`,
    );
    if (e) marks.push({ at: e.fired_at, label: `${e.alertname} (backtest)`, what: 'backtest' });
    const s = b.suggested;
    if (s) {
      items.push(
        s.fired_at
          ? `from the detector catalogue, \`${s.alertname}\` on this slice would have fired at ${hhmm(s.fired_at)}, ${minutes(s.lead_s)} earlier${s.lead_s != null && s.lead_s <= 0 ? ' (not earlier)' : ''}:`
          : `from the detector catalogue, \`${s.alertname}\` on this slice would not have fired before it:`,
      );
      if (s.fired_at) marks.push({ at: s.fired_at, label: `${s.alertname} (backtest)`, what: 'backtest' });
      rule = { kind: 'code', lang: 'yaml', text: s.rule_yaml.trimEnd() };
    }
  }
  out.push({ kind: 'list', items });
  if (rule) out.push(rule);
  if (b.from && b.to && marks.length)
    out.push({
      kind: 'chart',
      chart: { kind: 'timeline', title: `What moved and what fired, ${hhmm(b.from)} → ${hhmm(b.to)}`, from: b.from, to: b.to, marks },
    });
  const moved = inc.signals.filter((x) => x.moved_at);
  if (moved.length)
    out.push(
      table(
        ['signal', 'family', 'moved at', 'value', 'before', 'n (before)'],
        moved.map((x) => [
          `\`${x.signal}\``,
          x.family,
          hhmm(x.moved_at),
          level(x.signal, x.value),
          level(x.signal, x.baseline),
          `${int(x.n)} (${int(x.baseline_n)})`,
        ]),
      ),
    );
  return out;
}

/** The few lines a reader of a chat message sees first: the worst of each section. */
function summary(r: Report, money: (v: number | null) => string): string[] {
  const out: string[] = [];
  const worst = r.latency.by_model[0];
  if (worst)
    out.push(`Worst P99: **${dash(worst.model)}** at ${ms(worst.p99_ms)} (n ${int(worst.n)}, ${change(worst.p99_change)} against the previous period).`);
  const bad = r.versions.rows.filter((v) => v.vs_previous?.verdict === 'rollback' || v.vs_main?.verdict === 'rollback');
  if (r.versions.available)
    out.push(bad.length ? `Versions judged **rollback**: ${bad.map((v) => `\`${mv(v.model, v.model_version)}\``).join(', ')}.` : 'No version judged rollback.');
  const e = r.slices.errors?.slices[0];
  if (e) out.push(`Most error excess: ${sliceText(e.slice)}, ${pct(e.rate, 1)} of ${int(e.n)} against ${pct(e.rest_rate, 1)} elsewhere.`);
  const g = r.quality.golden.find((x) => x.change_points != null && x.change_points < 0);
  if (g) out.push(`Golden pass rate fell for ${mv(g.model, g.model_version)}: ${pct(g.pass_rate, 0)} (was ${pct(g.previous_pass_rate, 0)}).`);
  if (r.alerting.available)
    out.push(
      `${r.alerting.incidents} incident${r.alerting.incidents === 1 ? '' : 's'}, ${r.alerting.episodes} alert episode${r.alerting.episodes === 1 ? '' : 's'}.`,
    );
  if (r.cost.priced) out.push(`Cost ${money(r.cost.total)} (${change(r.cost.change)}).`);
  return out;
}

/** The whole review, section by section. */
export function reportDocument(r: Report): Block[] {
  const money = (v: number | null) => (v == null ? '–' : `${v.toFixed(v >= 100 ? 0 : v >= 1 ? 2 : 4)} ${r.cost.currency ?? ''}`.trim());
  const out: Block[] = [];
  out.push({ kind: 'h1', text: `inferlens review: ${when(r.period.from)} → ${when(r.period.to)} UTC` });
  const narrowed = Object.entries(r.filters).map(([k, v]) => `${k}=${String(v)}`);
  out.push({
    kind: 'p',
    text: `Compared with ${when(r.previous.from)} → ${when(r.previous.to)} UTC.${narrowed.length ? ` Narrowed to ${narrowed.join(', ')} (GPUs: by node and replica only).` : ''}`,
  });
  out.push({ kind: 'list', items: summary(r, money) });

  out.push({ kind: 'h2', text: 'Worst tail latency by model' });
  out.push({
    kind: 'chart',
    chart: {
      kind: 'bars',
      title: 'P99 of total_ms by model, now and before',
      unit: 'ms',
      rows: r.latency.by_model.map((m) => ({ label: dash(m.model), now: m.p99_ms, before: m.previous?.p99_ms ?? null })),
    },
  });
  out.push(latencyTable(r.latency.by_model, false));
  out.push({ kind: 'h2', text: 'Worst tail latency by model × version' }, latencyTable(r.latency.by_version, true));

  out.push({ kind: 'h2', text: 'Versions whose error rate moved most' });
  out.push({
    kind: 'chart',
    chart: {
      kind: 'bars',
      title: 'Error rate by model × version, now and before',
      unit: 'ratio',
      rows: r.errors.map((e) => ({ label: mv(e.model, e.model_version), now: e.error_rate, before: e.previous_error_rate })),
    },
  });
  out.push(
    table(
      ['model × version', 'requests', 'error rate', 'before', 'change (points)'],
      r.errors.map((e) => [
        mv(e.model, e.model_version),
        int(e.requests),
        pct(e.error_rate, 2),
        `${pct(e.previous_error_rate, 2)} (of ${int(e.previous_requests)})`,
        e.change_points == null ? '–' : `${e.change_points >= 0 ? '+' : '−'}${Math.abs(e.change_points).toFixed(2)}`,
      ]),
    ),
  );

  out.push({ kind: 'h2', text: 'Versions that behaved abnormally' });
  if (!r.versions.available) out.push({ kind: 'note', text: 'release comparison is not available here' });
  else
    out.push(
      { kind: 'p', text: "Each version against itself in the previous period, and against its model's main version over this one (release verdicts)." },
      table(
        ['model × version', 'requests', 'before', 'vs previous period', 'vs main version', 'why'],
        r.versions.rows.map((v) => [
          mv(v.model, v.model_version) + (v.main ? ' (main)' : ''),
          int(v.requests),
          int(v.previous_requests),
          verdict(v.vs_previous),
          v.vs_main ? `${verdict(v.vs_main)} vs ${dash(v.vs_main.main_version)}` : '–',
          [...(v.vs_main?.reasons ?? []), ...(v.vs_previous?.reasons ?? [])].slice(0, 2).join('; ') || '–',
        ]),
      ),
    );

  out.push(
    { kind: 'h2', text: 'Tenants and entries with the largest error excess' },
    ...(r.slices.available ? sliceBlocks(r.slices.errors) : sliceBlocks(null)),
  );
  out.push(
    { kind: 'h2', text: 'Tenants and entries with the largest latency excess' },
    ...(r.slices.available ? sliceBlocks(r.slices.slow) : sliceBlocks(null)),
  );

  out.push({ kind: 'h2', text: 'Quality drift per version' });
  if (!r.quality.available) out.push({ kind: 'note', text: 'quality reads are not available here' });
  else {
    out.push(
      table(
        ['model × version', 'field', 'test', 'statistic', 'p', 'drift', 'PSI', 'n (before)'],
        r.quality.drift.map((d) => [
          mv(d.model, d.model_version),
          d.field,
          d.method ?? 'not enough data',
          sig(d.statistic),
          sig(d.p_value),
          d.drift == null ? '–' : d.drift ? '**yes**' : 'no',
          sig(d.psi),
          `${int(d.n)} (${int(d.reference_n)})`,
        ]),
      ),
    );
    out.push({ kind: 'h2', text: 'Golden pass rate per version' });
    if (r.quality.golden.length)
      out.push({
        kind: 'chart',
        chart: {
          kind: 'bars',
          title: 'Golden pass rate by model × version, now and before',
          unit: 'ratio',
          rows: r.quality.golden.map((g) => ({ label: mv(g.model, g.model_version), now: g.pass_rate, before: g.previous_pass_rate })),
        },
      });
    out.push(
      table(
        ['model × version', 'runs', 'pass rate', 'before (runs)', 'change (points)'],
        r.quality.golden.map((g) => [
          mv(g.model, g.model_version),
          int(g.runs),
          pct(g.pass_rate),
          `${pct(g.previous_pass_rate)} (${int(g.previous_runs)})`,
          g.change_points == null ? '–' : `${g.change_points >= 0 ? '+' : '−'}${Math.abs(g.change_points).toFixed(1)}`,
        ]),
      ),
    );
  }

  out.push({ kind: 'h2', text: 'GPU pools running hot' });
  if (r.gpu.by_pool.length)
    out.push({
      kind: 'chart',
      chart: {
        kind: 'bars',
        title: 'Mean GPU utilisation by pool, now and before',
        unit: 'ratio',
        rows: r.gpu.by_pool.map((p) => ({ label: dash(p.pool), now: p.mean_utilization, before: p.previous_mean_utilization })),
      },
    });
  out.push(hotTable(r.gpu.by_pool, 'pool'));
  out.push({ kind: 'h2', text: 'GPU nodes running hot' }, hotTable(r.gpu.by_node, 'node'));

  out.push({ kind: 'h2', text: 'Alerting health' });
  if (!r.alerting.available) out.push({ kind: 'note', text: 'alerting does not run in this process: no incident log to read' });
  else {
    out.push({
      kind: 'p',
      text: `${r.alerting.incidents} incidents, ${r.alerting.episodes} alert episodes; ${pct(r.alerting.action_share, 0)} of episodes proposed an action; ${r.alerting.acknowledged_incidents} of ${r.alerting.incidents} incidents acknowledged${r.alerting.median_minutes_to_acknowledge == null ? '' : `, a median ${r.alerting.median_minutes_to_acknowledge.toFixed(1)} min after their first firing`}.`,
    });
    out.push(
      table(
        ['rule', 'episodes', 'with action', 'acknowledged', 'median time to acknowledge'],
        r.alerting.noisiest.map((n) => [
          n.alertname,
          String(n.episodes),
          String(n.with_action),
          String(n.acknowledged),
          n.median_minutes_to_acknowledge == null ? '–' : `${n.median_minutes_to_acknowledge.toFixed(1)} min`,
        ]),
      ),
    );
    if (r.alerting.never_fired.length) out.push({ kind: 'p', text: `Rules that never fired: ${r.alerting.never_fired.map((n) => `\`${n}\``).join(', ')}.` });
  }

  out.push({ kind: 'h2', text: 'Which signal was missing' });
  if (!r.incidents.available) out.push({ kind: 'note', text: 'alerting does not run in this process: no incidents to review' });
  else if (r.incidents.reviewed.length === 0) out.push({ kind: 'note', text: 'no incident fired in this period' });
  else for (const inc of r.incidents.reviewed) out.push(...incidentBlocks(inc));

  out.push({ kind: 'h2', text: 'Cost' });
  if (!r.cost.priced) out.push({ kind: 'note', text: `no prices configured: ${r.cost.unlock ?? ''}; ${int(r.cost.gpu_seconds)} GPU-seconds attributed` });
  else {
    out.push({ kind: 'p', text: `Total ${money(r.cost.total)} (before: ${money(r.cost.previous_total)}, ${change(r.cost.change)}).` });
    out.push({
      kind: 'chart',
      chart: {
        kind: 'bars',
        title: `Cost by model, now and before (${r.cost.currency ?? ''})`,
        unit: 'money',
        rows: r.cost.by_model.map((m) => ({ label: dash(m.model), now: m.cost, before: m.previous })),
      },
    });
    out.push(
      table(
        ['model', 'cost', 'before', 'change', 'requests', 'per 1,000 requests'],
        r.cost.by_model.map((m) => [dash(m.model), money(m.cost), money(m.previous), change(m.change), int(m.requests), money(m.cost_per_1k_requests)]),
      ),
    );
    out.push(
      table(
        ['tenant', 'cost', 'before', 'change', 'requests', 'per 1,000 requests'],
        r.cost.by_tenant.map((m) => [dash(m.tenant), money(m.cost), money(m.previous), change(m.change), int(m.requests), money(m.cost_per_1k_requests)]),
      ),
    );
  }
  return out;
}
