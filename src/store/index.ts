/** Storage: the Store seam and its backends. SQL lives only below this folder. */
export type {
  Store,
  AppendResult,
  ListSpec,
  SliceCountSpec,
  SliceCount,
  HistogramSpec,
  HistogramRow,
  ResourceQuerySpec,
  ResourceRow,
  StoreStats,
  FeedbackStatsSpec,
  FeedbackStatsRow,
  FeedbackStats,
  SampleRow,
  StoredSample,
  SampleListSpec,
  SampleReason,
  SampleFilterKey,
} from './store.ts';
/** Why a sample was kept, and what samples can be filtered by. */
export { SAMPLE_REASONS, SAMPLE_FILTER_KEYS } from './store.ts';
/** Opens (creating if needed) the embedded DuckDB store: a file path or ':memory:'. */
export { createDuckDBStore } from './duckdb/duckdb-store.ts';
export type { DuckDBStoreOptions } from './duckdb/duckdb-store.ts';
