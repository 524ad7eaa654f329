/** Test helpers: the QualityReads over a store (tests open a real DuckDB and pass it in). */
import { createQueries } from '../query/index.ts';
import type { QualityReads } from './reads.ts';

export const T0 = Date.parse('2026-11-30T10:00:00Z');
export const MIN = 60_000;
export const iso = (ms: number) => new Date(ms).toISOString();

/** What main.ts wires: the query service's reads plus the store's feedback join. */
export function readsOver(store: Parameters<typeof createQueries>[0]): QualityReads {
  const queries = createQueries(store);
  return { aggregate: queries.aggregate, events: queries.events, feedbackStats: (s) => store.feedbackStats(s) };
}

/** JSON lines of event objects, as Store.appendEvents takes them. */
export const lines = (rows: readonly Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r));
