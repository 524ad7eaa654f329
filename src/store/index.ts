/** Storage: the Store seam and its backends. SQL lives only below this folder. */
export type {
  Store,
  StoreReads,
  AppendHint,
  AppendResult,
  ListSpec,
  SliceCountSpec,
  SliceCount,
  HistogramSpec,
  HistogramRow,
  BucketCountSpec,
  BucketCountRow,
  ResourceQuerySpec,
  ResourceRow,
  ResourceField,
  ResourceGroupKey,
  ResourceLabelKey,
  StoreStats,
  RollupProgress,
  FeedbackStatsSpec,
  FeedbackStatsRow,
  FeedbackStats,
  SampleRow,
  StoredSample,
  SampleListSpec,
  IncidentLogEntry,
  IncidentLogSpec,
  SampleReason,
  SampleFilterKey,
} from './store.ts';
/** The label name of a `labels.<name>` resource group key. */
export { resourceLabelOf } from './store.ts';
/** Why a sample was kept, and what samples can be filtered by. */
export { SAMPLE_REASONS, SAMPLE_FILTER_KEYS } from './store.ts';
/** Opens the configured backend; the DDL its migrations run (`inferlens migrate --print`). */
export { openStore, migrationDdl } from './open.ts';
export type { StoreOptions } from './open.ts';
/** The ClickHouse backend (scale-out): over HTTP, or in-process through chdb. */
export { createClickHouseStore } from './clickhouse/clickhouse-store.ts';
export type { ClickHouseStoreOptions } from './clickhouse/clickhouse-store.ts';
export { openChdbConnection } from './clickhouse/chdb.ts';
/** What a failed write means (row refused vs storage failure), the disk-full message, and a check that the data disk takes writes. */
export { storeWriteError, isDiskFull, driverMessage, DISK_FULL_MESSAGE } from './write-errors.ts';
export { probeWritable } from './probe.ts';
/** Opens (creating if needed) the embedded DuckDB store: a file path or ':memory:'. */
export { createDuckDBStore } from './duckdb/duckdb-store.ts';
export type { DuckDBStoreOptions } from './duckdb/duckdb-store.ts';
/** The per-minute rollup: levels, kept fields, what the API reports when it answered. */
export { ROLLUP_LEVELS, ROLLUP_APPROXIMATION, HISTOGRAM_APPROXIMATION, rollupLevelFor } from './rollup.ts';
export type { Approximation, RollupLevel } from './rollup.ts';
/** The rollup's log-bucket histogram mapping (γ = 10^(1/120), α ≈ 0.96 %). */
export { SKETCH_RELATIVE_ERROR, sketchIndex, sketchValue, sketchQuantile, sketchBoundIndex } from './log-sketch.ts';
/** The same mapping at another resolution, and linear buckets: what `Store.bucketCounts` returns. */
export { ZERO_INDEX, logBucketIndex } from './log-sketch.ts';
/** The read scope, applied in one place: the Store's reads limited to a caller's tenants. */
export { scopeStore, scopeFilters } from './scoped-store.ts';
