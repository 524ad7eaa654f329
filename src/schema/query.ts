/**
 * The query spec every aggregate read takes (decoded from `POST /v1/query` by `QueryRequestSchema`
 * in requests.ts, or built by alerting, release and quality): a time range, filters on any
 * dimension, group-by, an optional step (time buckets) and measures written as strings such as
 * `p99(queue_ms)`, parsed here.
 */
import { z } from 'zod';
import { FILTER_KEYS } from './vocabulary.ts';
import type { Filters, GroupKey, Measure } from './vocabulary.ts';

/** Longest range one query may cover, and most time buckets / groups it may return. */
export const MAX_BUCKETS = 10_000;
export const MAX_GROUPS = 10_000;

const filterValue = z.union([z.string().max(1024), z.array(z.string().max(1024)).min(1).max(1000)]);

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
