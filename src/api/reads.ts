/**
 * A caller's read services over a store's reads: the query service, the release comparer, the
 * quality reads and alerting's typed reads. main.ts builds one per read scope over the scoped
 * store (src/store/scoped-store.ts); route handlers get it as `c.var.reads`.
 */
import { createQueries, typedReads } from '../query/index.ts';
import { createComparer, feedbackFromStats } from '../release/index.ts';
import type { Reads } from './routes.ts';

/** The store reads these services need (a Store, or the scoped decorator of one). */
export type ReadSource = Parameters<typeof createQueries>[0] & Parameters<typeof typedReads>[0];

export function readsOver(store: ReadSource): Reads {
  const queries = createQueries(store);
  return {
    queries,
    comparer: createComparer(queries, { feedback: feedbackFromStats((spec) => store.feedbackStats(spec)) }),
    quality: { aggregate: queries.aggregate, events: queries.events, feedbackStats: (spec) => store.feedbackStats(spec) },
    typed: typedReads(store),
  };
}
