/**
 * SQL text for the ClickHouse backend. User values only ever travel as bound query parameters
 * (`{p0:String}`, sent as `param_p0` over HTTP); identifiers come from closed sets validated by the
 * schema (dimension and field names), numbers that shape the SQL (bounds, quantile levels) are
 * checked finite before they are written.
 *
 * Written for ClickHouse ≥ 24.3: `-If` combinators (not `FILTER`), no `QUALIFY`, no `GROUP BY ALL`.
 */
import { InferlensError } from '../../schema/index.ts';
import { ident } from '../sql-ident.ts';
import type { Filters, Measure, QuerySpec } from '../../schema/index.ts';

type ParamType = 'String' | 'Int64' | 'Float64' | 'Bool' | 'Array(String)';

/** Collects bound parameter values and hands out their typed placeholders. */
export class Params {
  readonly values: Record<string, unknown> = {};
  private n = 0;
  add(
    v: unknown,
    type: ParamType = typeof v === 'number' ? 'Float64' : typeof v === 'boolean' ? 'Bool' : Array.isArray(v) ? 'Array(String)' : 'String',
  ): string {
    const name = `p${this.n++}`;
    this.values[name] = v;
    return `{${name}:${type}}`;
  }
  /** An integer parameter (epoch ms, limits, steps). */
  int(v: number): string {
    return this.add(Math.round(v), 'Int64');
  }
}

export { ident } from '../sql-ident.ts';

/** A finite number written into the SQL text (bounds, quantile levels). */
export function literal(x: number): string {
  if (!Number.isFinite(x)) throw new InferlensError('invalid_argument', `expected a finite number, got ${x}`);
  return String(x);
}

/** A DateTime64(6, 'UTC') from epoch ms (bound as integer microseconds). */
export const tsParam = (p: Params, ms: number): string => `fromUnixTimestamp64Micro(${p.int(ms * 1000)}, 'UTC')`;

/** The start (epoch ms) of the step bucket a timestamp falls in, buckets aligned to `fromMs`. */
export function bucketSql(p: Params, fromMs: number, stepMs: number, column = 'ts'): string {
  const from = p.int(fromMs);
  const step = p.int(stepMs);
  const ms = column === 'minute' ? `toInt64(toUnixTimestamp(minute)) * 1000` : `toUnixTimestamp64Milli(${column})`;
  return `(${from} + intDiv(${ms} - ${from}, ${step}) * ${step})`;
}

/** The probe filter's values: the strings 'true' / 'false' (a missing flag counts as false). */
export function probeValues(p: Params, list: readonly string[]): string {
  return list
    .map((v) => {
      if (v !== 'true' && v !== 'false') throw new InferlensError('invalid_argument', `filters.probe: expected 'true' or 'false', got "${v}"`);
      return p.add(v === 'true', 'Bool');
    })
    .join(', ');
}

/** The WHERE clause shared by every events query: time range, filters, probes. */
export function whereClause(p: Params, fromMs: number, toMs: number, filters: Filters, includeProbes = false): string {
  const parts = [`ts >= ${tsParam(p, fromMs)}`, `ts < ${tsParam(p, toMs)}`];
  for (const [key, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const col = ident(key);
    const list = Array.isArray(value) ? value : [value];
    if (col === 'probe') {
      parts.push(`ifNull(probe, false) IN (${probeValues(p, list)})`);
      continue;
    }
    parts.push(`${col} IN ${p.add(list, 'Array(String)')}`);
  }
  if (!includeProbes) parts.push('NOT ifNull(probe, false)');
  return parts.join(' AND ');
}

export const W = 'ifNull(sample_weight, 1)';
/** Rates are over rows that carry a status (phase-1 data may have none). */
const RATE_DEN = `nullIf(sumIf(${W}, status IS NOT NULL), 0)`;

/**
 * Exact quantile, linear interpolation between closest ranks (Hyndman–Fan type 7, as DuckDB's
 * quantile_cont): ClickHouse's `quantileExactInclusive` (`quantileExact` is the lower median, and
 * `quantile` is a sampled estimate). Worked: 10, 20, …, 100 at q = 0.5 → h = 4.5 → 55.
 *
 * Every quantile of one field in a query reads the same `quantilesExactInclusive(q1, q2, …)`
 * array (`levels`: the field's levels in the query), so the values are sorted once, not once per
 * level (the analyzer computes identical aggregates once): P50/P95/P99 of a field cost one sort.
 */
export function quantileSql(field: string, q: number, levels: readonly number[] = [q]): string {
  const sorted = [...new Set(levels)].sort((a, b) => a - b);
  const at = sorted.indexOf(q);
  if (at < 0) throw new Error(`level ${q} is not among ${sorted.join(', ')}`);
  return `quantilesExactInclusive(${sorted.map(literal).join(', ')})(toFloat64(${ident(field)}))[${at + 1}]`;
}

/** The quantile levels each field is asked for in a list of measures. */
export function quantileLevels(measures: readonly { measure: Measure }[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const { measure: m } of measures) if (m.kind === 'quantile') out.set(m.field, [...(out.get(m.field) ?? []), Number(m.q)]);
  return out;
}

/**
 * The SQL expression of one measure; `seconds` is the bucket (or range) length for qps, `levels`
 * the quantile levels of every field in the same query (`quantileLevels`).
 */
export function measureSql(m: Measure, p: Params, seconds: () => string, levels: ReadonlyMap<string, readonly number[]> = new Map()): string {
  switch (m.kind) {
    case 'count':
      return `sum(${W})`;
    case 'n':
      return 'count()';
    case 'qps':
      return `sum(${W}) / ${seconds()}`;
    case 'status_rate':
      return `sumIf(${W}, status = ${p.add(m.status)}) / ${RATE_DEN}`;
    case 'error_type_rate':
      return `sumIf(${W}, status = 'error' AND error_type = ${p.add(m.errorType)}) / ${RATE_DEN}`;
    case 'flag_rate': {
      // format_error counts rows where format_ok is false; the others count rows where the flag is true.
      const col = m.flag === 'format_error' ? 'format_ok' : m.flag;
      const hit = m.flag === 'format_error' ? 'NOT format_ok' : col;
      return `sumIf(${W}, ifNull(${hit}, false)) / nullIf(sumIf(${W}, ${col} IS NOT NULL), 0)`;
    }
    case 'flag_n':
      return `count(${ident(m.flag)})`;
    case 'below_rate': {
      const col = ident(m.field);
      return `sumIf(${W}, ifNull(${col} < ${p.add(m.threshold)}, false)) / nullIf(sumIf(${W}, ${col} IS NOT NULL), 0)`;
    }
    case 'quantile':
      return quantileSql(m.field, Number(m.q), levels.get(m.field));
    case 'agg': {
      const col = ident(m.field);
      if (m.fn === 'count') return `count(${col})`;
      // As Float64: latencies are stored as Decimal(18, 3), whose mean would keep 3 decimals.
      return `${m.fn === 'mean' ? 'avg' : m.fn}(toFloat64(${col}))`;
    }
    case 'total':
      return `sum(toFloat64(${ident(m.field)}) * ${W})`;
  }
}

/** The aggregate query of `POST /v1/query`: columns bucket, the group-by dimensions, m0…. */
/** `db` is the back-quoted database the tables live in. */
export function aggregateSql(spec: QuerySpec, db: string): { sql: string; params: Record<string, unknown> } {
  const p = new Params();
  const where = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
  const select: string[] = [];
  const groupCols: string[] = [];
  let seconds: () => string;
  if (spec.stepMs !== undefined) {
    select.push(`${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket`);
    groupCols.push('bucket');
    seconds = () => `${p.add(spec.stepMs! / 1000)}`;
  } else {
    let placeholder: string | undefined;
    seconds = () => (placeholder ??= p.add((spec.toMs - spec.fromMs) / 1000));
  }
  for (const d of spec.groupBy) {
    select.push(ident(d));
    groupCols.push(ident(d));
  }
  const levels = quantileLevels(spec.measures);
  spec.measures.forEach(({ measure }, i) => select.push(`${measureSql(measure, p, seconds, levels)} AS m${i}`));
  const group = groupCols.length ? `GROUP BY ${groupCols.join(', ')} ORDER BY ${groupCols.map((c) => `${c} ASC NULLS LAST`).join(', ')}` : '';
  const sql = `SELECT ${select.join(', ')} FROM ${db}.events WHERE ${where} ${group} LIMIT ${p.int(spec.limit)}`;
  return { sql, params: p.values };
}
