/**
 * What the quality folder reads, as plain functions: the query service's aggregate and bounded
 * raw-event list, and the store's feedback join (its types are the shared contract in src/schema;
 * main.ts wires the store method in).
 */
import { parseMeasure } from '../schema/index.ts';
import type { FeedbackStatsRow, FeedbackStatsSpec as FeedbackStatsQuery, Filters, Measure, QueryRow, QuerySpec, StoredEvent } from '../schema/index.ts';
import type { Queries } from '../query/index.ts';

/** The bounded raw-event selection of `Queries.events`. */
export type EventListSpec = Parameters<Queries['events']>[0];

/** The feedback join's request and rows: the shared contract in src/schema. */
export type { FeedbackStatsSpec as FeedbackStatsQuery, FeedbackStatsRow } from '../schema/index.ts';

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
