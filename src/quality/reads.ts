/**
 * What the quality folder reads, as plain functions: the query service's aggregate and bounded
 * raw-event list, and the store's feedback join. quality/ may not import store/, so the feedback
 * types mirror `Store.feedbackStats` (src/store/store.ts); main.ts wires the store method in and
 * the compiler checks that the two shapes agree.
 */
import { z } from 'zod';
import { parseMeasure } from '../schema/index.ts';
import type { Dimension, Filters, Measure, QueryRow, QuerySpec, StoredEvent } from '../schema/index.ts';
import type { Queries } from '../query/index.ts';

/** The bounded raw-event selection of `Queries.events`. */
export type EventListSpec = Parameters<Queries['events']>[0];

/** Mirrors the store's FeedbackStatsSpec: range and filters on the request time. */
export interface FeedbackStatsQuery {
  fromMs: number;
  toMs: number;
  filters: Filters;
  groupBy: readonly (Dimension | 'label')[];
  stepMs?: number;
  limit: number;
}

/** Mirrors the store's FeedbackStatsRow. */
export interface FeedbackStatsRow {
  bucketMs?: number;
  group: Partial<Record<Dimension | 'label', string | null>>;
  requests: number;
  withFeedback: number;
  correctN: number;
  correctRate: number | null;
  labelN: number;
  labelAccuracy: number | null;
  thumbsN: number;
  thumbsUpRate: number | null;
  ratingN: number;
  ratingMean: number | null;
  conversions: number;
  conversionRate: number | null;
  clicks: number;
  clickRate: number | null;
}

export interface QualityReads {
  aggregate(spec: QuerySpec): Promise<QueryRow[]>;
  events(spec: EventListSpec): Promise<StoredEvent[]>;
  feedbackStats(spec: FeedbackStatsQuery): Promise<{ rows: FeedbackStatsRow[]; orphans: number }>;
}

/** A QuerySpec from measure names that are known to parse. */
export function specOf(fromMs: number, toMs: number, filters: Filters, measures: readonly string[], extra: Partial<QuerySpec> = {}): QuerySpec {
  return {
    fromMs,
    toMs,
    filters,
    groupBy: [],
    includeProbes: false,
    limit: 10_000,
    measures: measures.map((name) => ({ name, measure: parseMeasureOrThrow(name) })),
    ...extra,
  };
}

function parseMeasureOrThrow(name: string): Measure {
  const m = parseMeasure(name);
  if (typeof m === 'string') throw new Error(`quality: measure "${name}" does not parse: ${m}`);
  return m;
}

/** Epoch-ms bucket → RFC 3339 (the API form); other values unchanged. */
export function isoBucket(ms: number | undefined): { bucket?: string } {
  return ms === undefined ? {} : { bucket: new Date(ms).toISOString() };
}

/** An RFC 3339 timestamp in a request body or query string. */
export const rfc3339 = z.string().refine((s) => Number.isFinite(Date.parse(s)), { error: 'expected an RFC 3339 timestamp' });
/** A time-bucket step such as 10s, 1m, 1h. */
export const STEP = z.string().regex(/^\d+(ms|s|m|h|d)$/, { error: 'expected a duration such as 10s, 1m, 1h' });
