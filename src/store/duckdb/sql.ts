/**
 * SQL text for the DuckDB backend. User values only ever travel as bound parameters ($1, $2, …);
 * identifiers come from closed sets validated by the schema (dimension and field names).
 */
import { InferlensError } from '../../schema/index.ts';
import { ident } from '../sql-ident.ts';
import type { Filters, Measure, QuerySpec } from '../../schema/index.ts';
import type { Row } from '../result-rows.ts';

/** Runs a read-only statement with bound parameters (on one of the store's read connections). */
export type ReadFn = (sql: string, params: unknown[]) => Promise<Row[]>;

/** What an append needs from the store: the single writer and its staging files. */
export interface StagedWriter {
  run(sql: string, params: unknown[]): Promise<void>;
  /** Writes lines to a staging file and returns its path; the caller removes it. */
  stageFile(lines: readonly string[]): string;
}

/** Collects bound parameter values and hands out their placeholders. */
export class Params {
  readonly values: unknown[] = [];
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}

export { ident } from '../sql-ident.ts';

/** `make_timestamp` takes microseconds. */
export const tsParam = (p: Params, ms: number): string => `make_timestamp(CAST(${p.add(Math.round(ms * 1000))} AS BIGINT))`;

/**
 * The start (epoch ms) of the step bucket a row falls in, buckets aligned to `fromMs`. DuckDB's
 * time_bucket with an origin: measured ~25 % faster than the same arithmetic on epoch_ms(ts).
 */
export function bucketSql(p: Params, fromMs: number, stepMs: number, column = 'ts'): string {
  return `epoch_ms(time_bucket(to_milliseconds(CAST(${p.add(stepMs)} AS BIGINT)), ${column}, make_timestamp(CAST(${p.add(Math.round(fromMs * 1000))} AS BIGINT))))`;
}

/** The WHERE clause shared by every events query: time range, filters, probes. */
export function whereClause(p: Params, fromMs: number, toMs: number, filters: Filters, includeProbes = false): string {
  const parts = [`ts >= ${tsParam(p, fromMs)}`, `ts < ${tsParam(p, toMs)}`];
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const col = ident(key);
    const list = Array.isArray(value) ? value : [value];
    if (col === 'probe') {
      // BOOLEAN column, filtered with the strings 'true' / 'false'; a missing flag counts as false.
      const bools = list.map((v) => {
        if (v !== 'true' && v !== 'false') throw new InferlensError('invalid_argument', `filters.probe: expected 'true' or 'false', got "${v}"`);
        return p.add(v === 'true');
      });
      parts.push(`coalesce(probe, false) IN (${bools.join(', ')})`);
      continue;
    }
    parts.push(`${col} IN (${list.map((v) => p.add(v)).join(', ')})`);
  }
  if (!includeProbes) parts.push('(probe IS NULL OR NOT probe)');
  return parts.join(' AND ');
}

const W = 'coalesce(sample_weight, 1)';
/** Rates are over rows that carry a status (phase-1 data may have none). */
const RATE_DEN = `nullif(sum(${W}) FILTER (WHERE status IS NOT NULL), 0)`;

/** The SQL expression of one measure; `seconds` is the bucket (or range) length for qps. */
export function measureSql(m: Measure, p: Params, seconds: () => string): string {
  switch (m.kind) {
    case 'count':
      return `sum(${W})`;
    case 'n':
      return 'count(*)';
    case 'qps':
      return `sum(${W}) / ${seconds()}`;
    case 'status_rate':
      return `coalesce(sum(${W}) FILTER (WHERE status = ${p.add(m.status)}), 0) / ${RATE_DEN}`;
    case 'error_type_rate':
      return `coalesce(sum(${W}) FILTER (WHERE status = 'error' AND error_type = ${p.add(m.errorType)}), 0) / ${RATE_DEN}`;
    case 'flag_rate': {
      // format_error counts rows where format_ok is false; the others count rows where the flag is true.
      const col = m.flag === 'format_error' ? 'format_ok' : m.flag;
      const hit = m.flag === 'format_error' ? 'NOT format_ok' : col;
      return `coalesce(sum(${W}) FILTER (WHERE ${hit}), 0) / nullif(sum(${W}) FILTER (WHERE ${col} IS NOT NULL), 0)`;
    }
    case 'flag_n':
      return `count(${ident(m.flag)})`;
    case 'below_rate': {
      const col = ident(m.field);
      return `coalesce(sum(${W}) FILTER (WHERE ${col} < ${p.add(m.threshold)}), 0) / nullif(sum(${W}) FILTER (WHERE ${col} IS NOT NULL), 0)`;
    }
    case 'quantile':
      // quantile_cont: linear interpolation between closest ranks (Hyndman–Fan type 7).
      return `quantile_cont(${ident(m.field)}, ${Number(m.q)})`;
    case 'agg': {
      const col = ident(m.field);
      return m.fn === 'mean' ? `avg(${col})` : `${m.fn}(${col})`;
    }
    case 'total':
      return `sum(${ident(m.field)} * ${W})`;
  }
}

/** The aggregate query of `POST /v1/query`. */
export function aggregateSql(spec: QuerySpec): { sql: string; params: unknown[] } {
  const p = new Params();
  const where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
  const select: string[] = [];
  const groupCols: string[] = [];
  let seconds: () => string;
  if (spec.stepMs !== undefined) {
    select.push(`${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket`);
    groupCols.push('bucket');
    const stepS = spec.stepMs / 1000;
    seconds = () => `(${p.add(stepS)})`;
  } else {
    let placeholder: string | undefined;
    seconds = () => `(${(placeholder ??= p.add(spec.toMs - spec.fromMs))} / 1000.0)`;
  }
  for (const d of spec.groupBy) {
    select.push(ident(d));
    groupCols.push(ident(d));
  }
  spec.measures.forEach(({ measure }, i) => select.push(`${measureSql(measure, p, seconds)} AS m${i}`));
  const group = groupCols.length ? `GROUP BY ${groupCols.join(', ')} ORDER BY ${groupCols.join(', ')}` : '';
  const sql = `SELECT ${select.join(', ')} FROM events WHERE ${where} ${group} LIMIT ${p.add(spec.limit)}`;
  return { sql, params: p.values };
}
