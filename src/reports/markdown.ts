/**
 * The review as Markdown that reads well in a chat tool: a heading per section, short tables
 * (GitHub / Slack-compatible pipes), every figure with its sample count and its change against the
 * previous period.
 */
import type { HotRow, LatencyRow, Report } from './report.ts';
import type { IncidentReview } from './missing-signal.ts';
import type { SliceSection, VerdictSummary } from './sections.ts';

const ms = (v: number | null) => (v == null ? '–' : v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(v >= 100 ? 0 : 1)} ms`);
const pct = (v: number | null, digits = 1) => (v == null ? '–' : `${(v * 100).toFixed(digits)} %`);
const change = (v: number | null) => (v == null ? '–' : `${v >= 0 ? '+' : '−'}${Math.abs(v * 100).toFixed(0)} %`);
const int = (v: number) => Math.round(v).toLocaleString('en');
const cell = (v: string | null | undefined) => (v ?? '–').replace(/\|/g, '\\|');

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return '_nothing in this period_\n';
  return [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n') + '\n';
}

function latencyTable(rows: LatencyRow[], withVersion: boolean): string {
  return table(
    [withVersion ? 'model × version' : 'model', 'P99', 'P99.9', 'n', 'P99 before', 'P99 change', 'P99.9 change'],
    rows.map((r) => [cell(withVersion ? `${r.model ?? '–'} ${r.model_version ?? '–'}` : r.model), ms(r.p99_ms), ms(r.p999_ms), int(r.n), r.previous ? `${ms(r.previous.p99_ms)} (n ${int(r.previous.n)})` : '–', change(r.p99_change), change(r.p999_change)]),
  );
}

function hotTable(rows: HotRow[], by: 'pool' | 'node'): string {
  return table(
    [by, 'GPUs', 'mean util', 'peak', `time ≥ 85 %`, 'GPU-minutes', 'least memory headroom', 'mean util before'],
    rows.map((r) => [cell(r[by] ?? null), String(r.gpus), pct(r.mean_utilization), pct(r.peak_utilization), pct(r.hot_share), int(r.gpu_minutes), pct(r.min_memory_headroom), pct(r.previous_mean_utilization)]),
  );
}

export function reportMarkdown(r: Report): string {
  const money = (v: number | null) => (v == null ? '–' : `${v.toFixed(v >= 100 ? 0 : v >= 1 ? 2 : 4)} ${r.cost.currency ?? ''}`.trim());
  const out: string[] = [];
  out.push(`# inferlens review: ${r.period.from} → ${r.period.to}`);
  out.push(`Compared with ${r.previous.from} → ${r.previous.to}.\n`);
  out.push('## Worst tail latency by model\n', latencyTable(r.latency.by_model, false));
  out.push('## Worst tail latency by model × version\n', latencyTable(r.latency.by_version, true));
  out.push('## Versions whose error rate moved most\n');
  out.push(table(['model × version', 'requests', 'error rate', 'before', 'change (points)'], r.errors.map((e) => [cell(`${e.model ?? '–'} ${e.model_version ?? '–'}`), int(e.requests), pct(e.error_rate, 2), `${pct(e.previous_error_rate, 2)} (of ${int(e.previous_requests)})`, e.change_points == null ? '–' : `${e.change_points >= 0 ? '+' : '−'}${Math.abs(e.change_points).toFixed(2)}`])));
  out.push(...sectionsMarkdown(r));
  out.push('## GPU pools running hot\n', hotTable(r.gpu.by_pool, 'pool'));
  out.push('## GPU nodes running hot\n', hotTable(r.gpu.by_node, 'node'));
  out.push('## Alerting health\n');
  if (!r.alerting.available) out.push('_alerting does not run in this process: no incident log to read_\n');
  else {
    out.push(`${r.alerting.incidents} incidents, ${r.alerting.episodes} alert episodes; ${pct(r.alerting.action_share, 0)} of episodes proposed an action.\n`);
    out.push(table(['rule', 'episodes', 'with action', 'acknowledged', 'median time to acknowledge'], r.alerting.noisiest.map((n) => [cell(n.alertname), String(n.episodes), String(n.with_action), String(n.acknowledged), n.median_minutes_to_acknowledge == null ? '–' : `${n.median_minutes_to_acknowledge.toFixed(1)} min`])));
    if (r.alerting.never_fired.length) out.push(`Rules that never fired: ${r.alerting.never_fired.map((n) => `\`${n}\``).join(', ')}.\n`);
  }
  out.push('## Which signal was missing\n');
  if (!r.incidents.available) out.push('_alerting does not run in this process: no incidents to review_\n');
  else if (r.incidents.reviewed.length === 0) out.push('_no incident fired in this period_\n');
  else for (const inc of r.incidents.reviewed) out.push(incidentMarkdown(inc));
  out.push('## Cost\n');
  if (!r.cost.priced) out.push(`_no prices configured: ${r.cost.unlock ?? ''}; ${int(r.cost.gpu_seconds)} GPU-seconds attributed_\n`);
  else {
    out.push(`Total ${money(r.cost.total)} (before: ${money(r.cost.previous_total)}, ${change(r.cost.change)}).\n`);
    out.push(table(['model', 'cost', 'before', 'change', 'requests', 'per 1,000 requests'], r.cost.by_model.map((m) => [cell(m.model), money(m.cost), money(m.previous), change(m.change), int(m.requests), money(m.cost_per_1k_requests)])));
    out.push(table(['tenant', 'cost', 'before', 'change', 'requests', 'per 1,000 requests'], r.cost.by_tenant.map((m) => [cell(m.tenant), money(m.cost), money(m.previous), change(m.change), int(m.requests), money(m.cost_per_1k_requests)])));
  }
  return out.join('\n');
}

const hhmm = (t: string | null) => (t ? `${t.slice(11, 16)} UTC` : '–');
const minutes = (s: number | null) => (s == null ? '–' : `${(s / 60).toFixed(1)} min`);
const level = (signal: string, v: number | null) => (v == null ? '–' : signal.endsWith('_rate') || signal === 'gpu_utilization_ratio' ? pct(v, 2) : signal.endsWith('_bytes') ? `${(v / 1024 ** 3).toFixed(1)} GiB` : signal.includes('_ms') ? ms(v) : v.toFixed(3));
const labelText = (l: Record<string, string>) => Object.entries(l).map(([k, v]) => `${k}=${v}`).join(' ');

/** One incident: the first signal, the first rule, what the backtest would have fired earlier, the signals that moved. */
export function incidentMarkdown(inc: IncidentReview): string {
  const lines: string[] = [`### ${cell(labelText(inc.slice)) || inc.incident_id} (${inc.status}, opened ${hhmm(inc.opened_at)})\n`];
  const f = inc.first_signal;
  lines.push(f ? `- first signal \`${f.signal}\` moved at ${f.moved_at.slice(11, 16)} UTC (${f.family})` : '- no signal of the slice moved in the half hour before the first firing');
  const r = inc.first_rule;
  if (r) lines.push(`- first rule \`${r.alertname}\` fired at ${r.fired_at.slice(11, 16)} UTC${r.after_first_signal_s == null ? '' : `, ${minutes(r.after_first_signal_s)} after the first signal`}`);
  const b = inc.backtest;
  if (!b.ran) lines.push(`- backtest not run: ${b.note ?? '–'}`);
  else {
    lines.push(b.earlier_in_pack ? `- in the pack, \`${b.earlier_in_pack.alertname}\` (${labelText(b.earlier_in_pack.labels)}) would have fired at ${hhmm(b.earlier_in_pack.fired_at)}, ${minutes(b.earlier_in_pack.lead_s)} earlier` : '- no rule of the pack would have fired earlier (backtest of the half hour before)');
    const s = b.suggested;
    if (s) lines.push(s.fired_at ? `- from the detector catalogue, \`${s.alertname}\` on this slice would have fired at ${hhmm(s.fired_at)}, ${minutes(s.lead_s)} earlier${s.lead_s != null && s.lead_s <= 0 ? ' (not earlier)' : ''}:` : `- from the detector catalogue, \`${s.alertname}\` on this slice would not have fired before it:`);
    if (s) lines.push('', '```yaml', s.rule_yaml.trimEnd(), '```');
  }
  const moved = inc.signals.filter((x) => x.moved_at);
  lines.push('');
  lines.push(table(['signal', 'family', 'moved at', 'value', 'before', 'n (before)'], moved.map((x) => [`\`${x.signal}\``, x.family, hhmm(x.moved_at), level(x.signal, x.value), level(x.signal, x.baseline), `${int(x.n)} (${int(x.baseline_n)})`])));
  return lines.join('\n');
}

const verdict = (v: VerdictSummary | null) => (v == null ? '–' : `**${v.verdict}**${v.score == null ? '' : ` (score ${v.score.toFixed(0)})`}`);
const sliceText = (s: Record<string, string>) => Object.entries(s).map(([k, v]) => `${k}=${v}`).join(' × ');
const sig = (v: number | null) => (v == null ? '–' : v < 0.001 ? v.toExponential(1) : v.toFixed(3));

function sliceTable(sec: SliceSection | null): string {
  if (!sec) return '_the slice finder is not available here_\n';
  const what = sec.kind === 'errors' ? 'errors' : 'slow';
  const head = sec.kind === 'slow' ? `Slow: above the period's P95 of total_ms, ${ms(sec.threshold_ms)} (before: ${ms(sec.previous_threshold_ms)}). ` : '';
  return `${head}All traffic: ${int(sec.total.k)} ${what} in ${int(sec.total.n)} (${pct(sec.total.rate, 2)}); before ${int(sec.previous_total.k)} in ${int(sec.previous_total.n)} (${pct(sec.previous_total.rate, 2)}).\n\n` +
    table(['slice', 'requests', what, 'rate', 'rest', 'excess', 'q', 'before'], sec.slices.map((x) => [cell(sliceText(x.slice)), int(x.n), int(x.k), pct(x.rate, 2), pct(x.rest_rate, 2), x.excess.toFixed(1), sig(x.q_value), x.previous ? `${pct(x.previous.rate, 2)} (${int(x.previous.k)} of ${int(x.previous.n)})` : '–']));
}

/** Versions, slices, quality drift and golden pass rates. */
function sectionsMarkdown(r: Report): string[] {
  const out: string[] = [];
  const mv = (m: string | null, v: string | null) => cell(`${m ?? '–'} ${v ?? '–'}`);
  out.push('## Versions that behaved abnormally\n');
  if (!r.versions.available) out.push('_release comparison is not available here_\n');
  else
    out.push(
      'Each version against itself in the previous period, and against its model\'s main version over this one (release verdicts).\n',
      table(['model × version', 'requests', 'before', 'vs previous period', 'vs main version', 'why'], r.versions.rows.map((v) => [mv(v.model, v.model_version) + (v.main ? ' (main)' : ''), int(v.requests), int(v.previous_requests), verdict(v.vs_previous), v.vs_main ? `${verdict(v.vs_main)} vs ${cell(v.vs_main.main_version)}` : '–', cell([...(v.vs_main?.reasons ?? []), ...(v.vs_previous?.reasons ?? [])].slice(0, 2).join('; ') || '–')])),
    );
  out.push('## Tenants and entries with the largest error excess\n', r.slices.available ? sliceTable(r.slices.errors) : '_the slice finder is not available here_\n');
  out.push('## Tenants and entries with the largest latency excess\n', r.slices.available ? sliceTable(r.slices.slow) : '_the slice finder is not available here_\n');
  out.push('## Quality drift per version\n');
  if (!r.quality.available) out.push('_quality reads are not available here_\n');
  else {
    out.push(table(['model × version', 'field', 'test', 'statistic', 'p', 'drift', 'PSI', 'n (before)'], r.quality.drift.map((d) => [mv(d.model, d.model_version), d.field, d.method ?? 'not enough data', sig(d.statistic), sig(d.p_value), d.drift == null ? '–' : d.drift ? '**yes**' : 'no', sig(d.psi), `${int(d.n)} (${int(d.reference_n)})`])));
    out.push('## Golden pass rate per version\n');
    out.push(table(['model × version', 'runs', 'pass rate', 'before (runs)', 'change (points)'], r.quality.golden.map((g) => [mv(g.model, g.model_version), int(g.runs), pct(g.pass_rate), `${pct(g.previous_pass_rate)} (${int(g.previous_runs)})`, g.change_points == null ? '–' : `${g.change_points >= 0 ? '+' : '−'}${Math.abs(g.change_points).toFixed(1)}`])));
  }
  return out;
}
