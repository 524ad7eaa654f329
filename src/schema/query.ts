/**
 * The query spec every aggregate read takes (decoded from `POST /v1/query` by `QueryRequestSchema`
 * in requests.ts, or built by alerting, release and quality): a time range, filters on any
 * dimension, group-by, an optional step (time buckets) and measures written as strings such as
 * `p99(queue_ms)`, parsed here.
 */
import { z } from 'zod';
import { DIMENSIONS, ERROR_TYPES, NUMERIC_FIELDS, STATUSES } from './event.ts';
import type { ErrorType, NumericField, Status } from './event.ts';

/** Longest range one query may cover, and most time buckets / groups it may return. */
export const MAX_BUCKETS = 10_000;
export const MAX_GROUPS = 10_000;

/** Quantile names and their q: p50 … p999 (= P99.9). */
export const QUANTILES: Record<string, number> = { p50: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99, p999: 0.999 };

export type Measure =
  | { kind: 'count' } // requests, weighted by sample_weight
  | { kind: 'n' } // stored rows (the sample count behind each percentile)
  | { kind: 'qps' } // count / seconds in the bucket (or the whole range without step)
  | { kind: 'status_rate'; status: Status } // share of requests with that status
  | { kind: 'error_type_rate'; errorType: ErrorType } // share of requests that errored with that type
  | { kind: 'flag_rate'; flag: 'empty' | 'refused' | 'format_error' | 'probe' } // share of rows with the flag (over rows that carry it)
  | { kind: 'flag_n'; flag: 'empty' | 'refused' | 'format_ok' } // rows that carry the flag: n(empty), the denominator of empty_rate
  | { kind: 'below_rate'; field: NumericField; threshold: number } // share of rows with field < threshold, e.g. low confidence
  | { kind: 'quantile'; q: number; field: NumericField }
  | { kind: 'agg'; fn: 'mean' | 'max' | 'min' | 'sum' | 'count'; field: NumericField } // count: rows where the field is present
  | { kind: 'total'; field: NumericField }; // Σ field × sample_weight: the field over the requests the rows stand for (tokens, execution time)

const NUMERIC_SET: ReadonlySet<string> = new Set(NUMERIC_FIELDS);

/** Parses a measure string; returns an error message saying what is accepted when it does not parse. */
export function parseMeasure(s: string): Measure | string {
  if (s === 'count' || s === 'n' || s === 'qps') return { kind: s };
  if (s === 'error_rate') return { kind: 'status_rate', status: 'error' };
  if (s === 'empty_rate' || s === 'refused_rate' || s === 'format_error_rate') return { kind: 'flag_rate', flag: s.slice(0, -5) as 'empty' | 'refused' | 'format_error' };
  const below = /^below_rate\((\w+),\s*(-?[\d.]+(?:e-?\d+)?)\)$/.exec(s);
  if (below) {
    if (!NUMERIC_SET.has(below[1]!)) return `unknown numeric field "${below[1]}": expected one of ${NUMERIC_FIELDS.join(', ')}`;
    const threshold = Number(below[2]);
    if (!Number.isFinite(threshold)) return `below_rate threshold must be a number`;
    return { kind: 'below_rate', field: below[1] as NumericField, threshold };
  }
  const rate = /^(\w+)_rate$/.exec(s);
  if (rate && (STATUSES as readonly string[]).includes(rate[1]!)) return { kind: 'status_rate', status: rate[1] as Status };
  const typed = /^error_rate\((\w+)\)$/.exec(s);
  if (typed) {
    if ((ERROR_TYPES as readonly string[]).includes(typed[1]!)) return { kind: 'error_type_rate', errorType: typed[1] as ErrorType };
    return `unknown error type "${typed[1]}": expected one of ${ERROR_TYPES.join(', ')}`;
  }
  const flagN = /^n\((empty|refused|format_ok)\)$/.exec(s);
  if (flagN) return { kind: 'flag_n', flag: flagN[1] as 'empty' | 'refused' | 'format_ok' };
  const fn = /^(\w+)\((\w+)\)$/.exec(s);
  if (fn) {
    const [, name, field] = fn as unknown as [string, string, string];
    if (!NUMERIC_SET.has(field)) return `unknown numeric field "${field}": expected one of ${NUMERIC_FIELDS.join(', ')}`;
    if (name in QUANTILES) return { kind: 'quantile', q: QUANTILES[name]!, field: field as NumericField };
    if (name === 'mean' || name === 'max' || name === 'min' || name === 'sum') return { kind: 'agg', fn: name, field: field as NumericField };
    if (name === 'n') return { kind: 'agg', fn: 'count', field: field as NumericField };
    if (name === 'total') return { kind: 'total', field: field as NumericField };
    return `unknown function "${name}": expected ${Object.keys(QUANTILES).join(', ')}, mean, max, min, sum, total or n`;
  }
  return `unknown measure "${s}": expected count, n, qps, error_rate, <status>_rate, error_rate(<error_type>), empty_rate, refused_rate, format_error_rate, below_rate(<field>, <x>), p50…p999(<field>), mean|max|min|sum|total|n(<field>), n(empty|refused|format_ok)`;
}

const filterValue = z.union([z.string().max(1024), z.array(z.string().max(1024)).min(1).max(1000)]);

/** Filter keys: every dimension, plus status, error_type and probe ('true' | 'false': golden-sample probes or user traffic). */
export const FILTER_KEYS = [...DIMENSIONS, 'status', 'error_type', 'probe'] as const;
/** What a query may group by: the dimensions plus the categorical outcome and result fields. */
export const GROUP_KEYS = [...DIMENSIONS, 'status', 'error_type', 'label', 'finish_reason'] as const;
export type GroupKey = (typeof GROUP_KEYS)[number];
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string | string[]>>;

export const FiltersSchema = z.partialRecord(z.enum(FILTER_KEYS), filterValue);

/** A validated query, with times in epoch ms and measures parsed. */
export interface QuerySpec {
  fromMs: number;
  toMs: number;
  filters: Filters;
  groupBy: GroupKey[];
  stepMs?: number;
  /** Measures as given (the result keys) with their parsed form. */
  measures: { name: string; measure: Measure }[];
  includeProbes: boolean;
  limit: number;
  /** The caller accepts quantiles from the rollup (see `approx` in the schema). */
  approx?: boolean;
}

/** One result row: `bucket` (when step is set), the group-by dimensions, then the measures. */
export type QueryRow = Record<string, string | number | null>;
