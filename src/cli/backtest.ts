/**
 * `inferlens rules backtest`: would these rules have caught it, and when? Against a data directory
 * (the store opened in this process) or a running server (`POST /v1/rules/backtest`), with the same
 * request either way. Prints a table of the rules and episodes, and the score when a truth file is
 * given; with `--json` the last line printed is the report as JSON.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DEFAULT_RULE_PACK, backtestRequest, loadRuleFiles, parseBacktestRequest } from '../alerting/index.ts';
import type { BacktestReport, BacktestRequest } from '../alerting/index.ts';
import { typedReads } from '../query/index.ts';
import { InferlensError } from '../schema/index.ts';
import { createDuckDBStore } from '../store/index.ts';
import { formatTable } from './table.ts';
import { parseTime } from './time.ts';

export interface BacktestCommandOptions {
  from: string;
  to: string;
  rules: string[];
  truth?: string;
  grace?: string;
  data?: string;
  url?: string;
  apiKey?: string;
  json?: boolean;
  out?: string;
}

/** The request from the command's options: times resolved, rule files and the truth file read. */
export function buildRequest(o: BacktestCommandOptions, nowMs: number): BacktestRequest {
  const body: Record<string, unknown> = { from: new Date(parseTime(o.from, nowMs)).toISOString(), to: new Date(parseTime(o.to, nowMs)).toISOString() };
  if (o.rules.length > 0) body.rules = o.rules.map((f) => ({ file: f, text: readText(f, 'rule file') }));
  if (o.truth) {
    try {
      body.truth = JSON.parse(readText(o.truth, 'truth file')) as unknown;
    } catch (e) {
      if (e instanceof InferlensError) throw e;
      throw new InferlensError('invalid_argument', `${o.truth}: not JSON: ${(e as Error).message}`);
    }
  }
  if (o.grace) body.grace = o.grace;
  return parseBacktestRequest(body);
}

function readText(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new InferlensError('invalid_argument', `${what} ${file}: ${(e as Error).message}`);
  }
}

export async function runBacktestCommand(o: BacktestCommandOptions, out: (line: string) => void, nowMs: number): Promise<BacktestReport> {
  const req = buildRequest(o, nowMs);
  const report = o.url ? await viaServer(o.url, req, o.apiKey) : await viaDataDir(o.data ?? './data', req);
  if (o.out) writeFileSync(o.out, JSON.stringify(report, null, 2));
  for (const line of formatReport(report)) out(line);
  if (o.json) out(JSON.stringify(report));
  return report;
}

async function viaDataDir(dir: string, req: BacktestRequest): Promise<BacktestReport> {
  const file = join(resolve(dir), 'inferlens.duckdb');
  if (!existsSync(file)) throw new InferlensError('not_found', `no inferlens data in ${dir} (expected ${file}); give --data DIR or --url URL`);
  let store;
  try {
    store = await createDuckDBStore({ path: file });
  } catch (e) {
    throw new InferlensError('unavailable', `cannot open ${file}: ${(e as Error).message} — if a server is running on it, backtest through it with --url`, {
      cause: e,
    });
  }
  try {
    return await backtestRequest(req, { reads: typedReads(store), defaultGroups: () => loadRuleFiles([DEFAULT_RULE_PACK]).groups });
  } finally {
    await store.close();
  }
}

async function viaServer(url: string, req: BacktestRequest, apiKey?: string): Promise<BacktestReport> {
  let res: Response;
  try {
    res = await fetch(`${url.replace(/\/+$/, '')}/v1/rules/backtest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
      body: JSON.stringify(req),
    });
  } catch (e) {
    throw new InferlensError(
      'unavailable',
      `no inferlens server answers at ${url} (${(e as Error).message}); start one with \`inferlens serve\` or give --data DIR`,
    );
  }
  const answer = (await res.json().catch(() => ({}))) as { status?: string; data?: BacktestReport; error?: string };
  if (answer.status !== 'success' || !answer.data)
    throw new InferlensError(res.status === 404 ? 'not_found' : 'invalid_argument', `backtest failed (${res.status}): ${answer.error ?? 'no answer'}`);
  return answer.data;
}

const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(1)} %`);
const num = (x: number | null, d = 2) => (x === null ? '-' : x.toFixed(d));
const hhmm = (s: string | null) => (s === null ? '-' : s.slice(11, 19));

/** The report as lines a person reads. */
export function formatReport(r: BacktestReport): string[] {
  const lines: string[] = [];
  lines.push(
    `backtest ${r.from} … ${r.to}: ${r.evaluations} group evaluations in ${r.stats.seconds.toFixed(1)} s (${r.stats.queries} queries, at most ${r.stats.peak_series_cells} series cells)`,
  );
  lines.push('');
  lines.push(
    formatTable(
      r.rules.map((x) => ({
        rule: x.alert,
        group: x.group,
        every: `${x.interval_ms / 1000}s`,
        episodes: x.episodes,
        errors: x.errors,
        judged: x.coverage?.judged ?? '',
        'no history': x.coverage?.without_reference ?? '',
        'last error': x.last_error ?? '',
      })),
    ),
  );
  lines.push('');
  if (r.episodes.length === 0) lines.push('no alert episodes in the range');
  else
    lines.push(
      formatTable(
        r.episodes.map((e) => ({
          pending: hhmm(e.pending_at),
          firing: hhmm(e.firing_at),
          resolved: hhmm(e.resolved_at),
          alert: e.alertname,
          severity: e.severity,
          labels: Object.entries(e.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(' '),
          peak: Number(e.peak_value.toPrecision(3)),
        })),
      ),
    );
  const s = r.score;
  if (s) {
    lines.push('');
    lines.push(
      `score: ${s.detected}/${s.incidents} incidents raised (recall ${pct(s.recall)}), top-1 slice ${pct(s.top1)}, delay median ${num(s.median_delay_intervals, 1)} / p90 ${num(s.p90_delay_intervals, 1)} intervals, precision ${pct(s.precision)}, ${s.false_episodes} false episodes (${num(s.false_per_clean_hour)} per clean hour over ${num(s.clean_hours, 1)} h)`,
    );
    const missed = s.per_incident.filter((i) => !i.detected);
    if (missed.length > 0) lines.push(`missed: ${missed.map((i) => `${i.id}${i.kind ? ` (${i.kind})` : ''}`).join(', ')}`);
    if (Object.keys(s.per_kind).length > 1)
      lines.push(
        formatTable(
          Object.entries(s.per_kind).map(([kind, k]) => ({
            kind,
            incidents: k.incidents,
            raised: k.detected,
            'top-1': pct(k.top1),
            'median delay': num(k.median_delay_intervals, 1),
          })),
        ),
      );
  }
  return lines;
}
