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
} from './store.ts';
/** Opens (creating if needed) the embedded DuckDB store: a file path or ':memory:'. */
export { createDuckDBStore } from './duckdb/duckdb-store.ts';
export type { DuckDBStoreOptions } from './duckdb/duckdb-store.ts';
