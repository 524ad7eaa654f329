/**
 * The review as Markdown that reads well in a chat tool: a heading per section, short tables
 * (GitHub / Slack-compatible pipes), every figure with its sample count and its change against the
 * previous period.
 */
import type { HotRow, LatencyRow, Report } from './report.ts';

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
  out.push('## GPU pools running hot\n', hotTable(r.gpu.by_pool, 'pool'));
  out.push('## GPU nodes running hot\n', hotTable(r.gpu.by_node, 'node'));
  out.push('## Alerting health\n');
  if (!r.alerting.available) out.push('_alerting does not run in this process: no incident log to read_\n');
  else {
    out.push(`${r.alerting.incidents} incidents, ${r.alerting.episodes} alert episodes; ${pct(r.alerting.action_share, 0)} of episodes proposed an action.\n`);
    out.push(table(['rule', 'episodes', 'with action', 'acknowledged', 'median time to acknowledge'], r.alerting.noisiest.map((n) => [cell(n.alertname), String(n.episodes), String(n.with_action), String(n.acknowledged), n.median_minutes_to_acknowledge == null ? '–' : `${n.median_minutes_to_acknowledge.toFixed(1)} min`])));
    if (r.alerting.never_fired.length) out.push(`Rules that never fired: ${r.alerting.never_fired.map((n) => `\`${n}\``).join(', ')}.\n`);
  }
  out.push('## Cost\n');
  if (!r.cost.priced) out.push(`_no prices configured: ${r.cost.unlock ?? ''}; ${int(r.cost.gpu_seconds)} GPU-seconds attributed_\n`);
  else {
    out.push(`Total ${money(r.cost.total)} (before: ${money(r.cost.previous_total)}, ${change(r.cost.change)}).\n`);
    out.push(table(['model', 'cost', 'before', 'change', 'requests', 'per 1,000 requests'], r.cost.by_model.map((m) => [cell(m.model), money(m.cost), money(m.previous), change(m.change), int(m.requests), money(m.cost_per_1k_requests)])));
    out.push(table(['tenant', 'cost', 'before', 'change', 'requests', 'per 1,000 requests'], r.cost.by_tenant.map((m) => [cell(m.tenant), money(m.cost), money(m.previous), change(m.change), int(m.requests), money(m.cost_per_1k_requests)])));
  }
  return out.join('\n');
}
