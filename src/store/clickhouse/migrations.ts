/**
 * The ClickHouse schema as numbered migrations, the same discipline as DuckDB's
 * (src/store/duckdb/migrations.ts): literal DDL written once, never edited or regenerated, only
 * appended, only additive. Laid out the way Langfuse keeps one canonical template per migration and
 * renders it for a single server or a cluster, and the way SigNoz pairs each replicated local table
 * with a Distributed table of the plain name:
 *
 * - `{db}`: the database (a checked identifier, back-quoted).
 * - `{on_cluster}`: `ON CLUSTER <name>` on a cluster, empty on a single server.
 * - `{replicated}`: `Replicated` on a cluster (engine arguments from the server's
 *   `default_replica_path` / `default_replica_name`), empty on a single server.
 * - `{local}`: `_local` on a cluster, where the data lives in `<table>_local` on each shard and
 *   `<table>` is a Distributed table over them; empty on a single server, where `<table>` is the
 *   data. Every read and write goes to `<table>`, so the queries are the same in both layouts.
 * - A statement that starts with `{cluster_only}` is rendered on a cluster only.
 *
 * Engine strengths used: MergeTree ordered for the dashboard's reads (model, then time), daily
 * partitions, TTL for retention (set from `storage.retentionDays` on every start, not frozen here:
 * `retentionTtlSql`), the per-minute rollup as materialized views into AggregatingMergeTree tables
 * whose statuses and error types are map keys (a new one needs no migration) and whose latency
 * sketches are `sumMap` states of the log-bucket index (`../log-sketch.ts`).
 *
 * Each statement is idempotent (IF NOT EXISTS), so a migration that stopped half-way (ClickHouse
 * DDL is not transactional) runs again from its start. Works on ClickHouse ≥ 24.3.
 */

/** Migration N is `CLICKHOUSE_MIGRATIONS[N - 1]`: statement templates, run in order. */
export const CLICKHOUSE_MIGRATIONS: readonly (readonly string[])[] = [
  // 1: events, resource samples, feedback, captured samples, the per-minute rollup.
  [
    `CREATE TABLE IF NOT EXISTS {db}.events{local} {on_cluster} (
      ts DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
      request_id Nullable(String) CODEC(ZSTD(1)),
      trace_id Nullable(String) CODEC(ZSTD(1)),
      model LowCardinality(String),
      model_version LowCardinality(Nullable(String)),
      service_version LowCardinality(Nullable(String)),
      route_rule LowCardinality(Nullable(String)),
      tenant LowCardinality(Nullable(String)),
      entry LowCardinality(Nullable(String)),
      node LowCardinality(Nullable(String)),
      replica LowCardinality(Nullable(String)),
      service_tier LowCardinality(Nullable(String)),
      pool LowCardinality(Nullable(String)),
      attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
      ingress_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      queue_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      batch_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      exec_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      post_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      total_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      ttft_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      tpot_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      prefill_ms Nullable(Decimal(18, 3)) CODEC(ZSTD(1)),
      batch_size Nullable(UInt32) CODEC(ZSTD(1)),
      batch_tokens Nullable(UInt32) CODEC(ZSTD(1)),
      status LowCardinality(Nullable(String)),
      error_type LowCardinality(Nullable(String)),
      http_status Nullable(UInt16) CODEC(ZSTD(1)),
      input_tokens Nullable(UInt32) CODEC(ZSTD(1)),
      output_tokens Nullable(UInt32) CODEC(ZSTD(1)),
      cached_tokens Nullable(UInt32) CODEC(ZSTD(1)),
      label LowCardinality(Nullable(String)),
      confidence Nullable(Float64) CODEC(ZSTD(1)),
      score Nullable(Float64) CODEC(ZSTD(1)),
      output_length Nullable(UInt32) CODEC(ZSTD(1)),
      finish_reason LowCardinality(Nullable(String)),
      empty Nullable(Bool),
      refused Nullable(Bool),
      format_ok Nullable(Bool),
      features Map(LowCardinality(String), Float64) CODEC(ZSTD(1)),
      probe Nullable(Bool),
      sample_weight Nullable(Float64) CODEC(ZSTD(1)),
      input Nullable(String) CODEC(ZSTD(3)),
      output Nullable(String) CODEC(ZSTD(3)),
      risk_tags Array(LowCardinality(String)),
      INDEX idx_request_id request_id TYPE bloom_filter(0.001) GRANULARITY 4
    ) ENGINE = {replicated}MergeTree
    PARTITION BY toDate(ts)
    ORDER BY (model, ts)
    SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000, fsync_after_insert = 1, fsync_part_directory = 1`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.events {on_cluster} AS {db}.events_local ENGINE = Distributed({cluster}, {db_name}, events_local, rand())`,

    `CREATE TABLE IF NOT EXISTS {db}.resources{local} {on_cluster} (
      ts DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
      node LowCardinality(String),
      replica LowCardinality(Nullable(String)),
      gpu LowCardinality(Nullable(String)),
      pool LowCardinality(Nullable(String)),
      metric LowCardinality(String),
      labels Map(LowCardinality(String), String) CODEC(ZSTD(1)),
      value Float64 CODEC(ZSTD(1)),
      simulated Bool
    ) ENGINE = {replicated}MergeTree
    PARTITION BY toDate(ts)
    ORDER BY (metric, node, ts)
    SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000, fsync_after_insert = 1, fsync_part_directory = 1`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.resources {on_cluster} AS {db}.resources_local ENGINE = Distributed({cluster}, {db_name}, resources_local, rand())`,

    `CREATE TABLE IF NOT EXISTS {db}.feedback{local} {on_cluster} (
      ts DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
      request_id String CODEC(ZSTD(1)),
      kind LowCardinality(String),
      value_num Nullable(Float64),
      value_str Nullable(String) CODEC(ZSTD(1)),
      source LowCardinality(Nullable(String)),
      received_at DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1))
    ) ENGINE = {replicated}MergeTree
    PARTITION BY toDate(ts)
    ORDER BY (request_id, kind, ts)
    SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000, fsync_after_insert = 1, fsync_part_directory = 1`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.feedback {on_cluster} AS {db}.feedback_local ENGINE = Distributed({cluster}, {db_name}, feedback_local, rand())`,

    `CREATE TABLE IF NOT EXISTS {db}.samples{local} {on_cluster} (
      ts DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
      request_id Nullable(String),
      model LowCardinality(String),
      model_version LowCardinality(Nullable(String)),
      tenant LowCardinality(Nullable(String)),
      entry LowCardinality(Nullable(String)),
      node LowCardinality(Nullable(String)),
      replica LowCardinality(Nullable(String)),
      route_rule LowCardinality(Nullable(String)),
      status LowCardinality(Nullable(String)),
      error_type LowCardinality(Nullable(String)),
      label LowCardinality(Nullable(String)),
      confidence Nullable(Float64),
      reasons Array(LowCardinality(String)),
      risk_tags Array(LowCardinality(String)),
      sample_weight Float64,
      input Nullable(String) CODEC(ZSTD(3)),
      output Nullable(String) CODEC(ZSTD(3))
    ) ENGINE = {replicated}MergeTree
    PARTITION BY toDate(ts)
    ORDER BY (model, ts)
    SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000, fsync_after_insert = 1, fsync_part_directory = 1`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.samples {on_cluster} AS {db}.samples_local ENGINE = Distributed({cluster}, {db_name}, samples_local, rand())`,

    // The rollup, per level: one row per minute × key × probe after merges. Counters are sums,
    // per-status and per-error-type weights are maps (sumMap), n / Σ / min / max per field, and a
    // log-bucket sketch per latency field (bucket index → rows, `../log-sketch.ts`).
    `CREATE TABLE IF NOT EXISTS {db}.rollup_1m_model{local} {on_cluster} (
      minute DateTime('UTC'),
      model LowCardinality(String),
      model_version LowCardinality(Nullable(String)),
      probe Bool,
      n SimpleAggregateFunction(sum, UInt64),
      w SimpleAggregateFunction(sum, Float64),
      w_status SimpleAggregateFunction(sum, Float64),
      w_by_status SimpleAggregateFunction(sumMap, Map(String, Float64)),
      w_by_error SimpleAggregateFunction(sumMap, Map(String, Float64)),
      ingress_ms_n SimpleAggregateFunction(sum, UInt64), ingress_ms_sum SimpleAggregateFunction(sum, Float64),
      ingress_ms_min SimpleAggregateFunction(min, Nullable(Float64)), ingress_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      ingress_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      queue_ms_n SimpleAggregateFunction(sum, UInt64), queue_ms_sum SimpleAggregateFunction(sum, Float64),
      queue_ms_min SimpleAggregateFunction(min, Nullable(Float64)), queue_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      queue_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      batch_ms_n SimpleAggregateFunction(sum, UInt64), batch_ms_sum SimpleAggregateFunction(sum, Float64),
      batch_ms_min SimpleAggregateFunction(min, Nullable(Float64)), batch_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      batch_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      exec_ms_n SimpleAggregateFunction(sum, UInt64), exec_ms_sum SimpleAggregateFunction(sum, Float64),
      exec_ms_min SimpleAggregateFunction(min, Nullable(Float64)), exec_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      exec_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      post_ms_n SimpleAggregateFunction(sum, UInt64), post_ms_sum SimpleAggregateFunction(sum, Float64),
      post_ms_min SimpleAggregateFunction(min, Nullable(Float64)), post_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      post_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      total_ms_n SimpleAggregateFunction(sum, UInt64), total_ms_sum SimpleAggregateFunction(sum, Float64),
      total_ms_min SimpleAggregateFunction(min, Nullable(Float64)), total_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      total_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      ttft_ms_n SimpleAggregateFunction(sum, UInt64), ttft_ms_sum SimpleAggregateFunction(sum, Float64),
      ttft_ms_min SimpleAggregateFunction(min, Nullable(Float64)), ttft_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      ttft_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      tpot_ms_n SimpleAggregateFunction(sum, UInt64), tpot_ms_sum SimpleAggregateFunction(sum, Float64),
      tpot_ms_min SimpleAggregateFunction(min, Nullable(Float64)), tpot_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      tpot_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      prefill_ms_n SimpleAggregateFunction(sum, UInt64), prefill_ms_sum SimpleAggregateFunction(sum, Float64),
      prefill_ms_min SimpleAggregateFunction(min, Nullable(Float64)), prefill_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      prefill_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      batch_size_n SimpleAggregateFunction(sum, UInt64), batch_size_sum SimpleAggregateFunction(sum, Float64),
      batch_size_min SimpleAggregateFunction(min, Nullable(Float64)), batch_size_max SimpleAggregateFunction(max, Nullable(Float64)),
      input_tokens_n SimpleAggregateFunction(sum, UInt64), input_tokens_sum SimpleAggregateFunction(sum, Float64),
      input_tokens_min SimpleAggregateFunction(min, Nullable(Float64)), input_tokens_max SimpleAggregateFunction(max, Nullable(Float64)),
      output_tokens_n SimpleAggregateFunction(sum, UInt64), output_tokens_sum SimpleAggregateFunction(sum, Float64),
      output_tokens_min SimpleAggregateFunction(min, Nullable(Float64)), output_tokens_max SimpleAggregateFunction(max, Nullable(Float64))
    ) ENGINE = {replicated}AggregatingMergeTree
    PARTITION BY toDate(minute)
    ORDER BY (minute, model, model_version, probe)
    SETTINGS allow_nullable_key = 1, ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.rollup_1m_model {on_cluster} AS {db}.rollup_1m_model_local ENGINE = Distributed({cluster}, {db_name}, rollup_1m_model_local, rand())`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.rollup_1m_model_mv {on_cluster} TO {db}.rollup_1m_model{local} AS
    SELECT
      toStartOfMinute(ts) AS minute, model, model_version, ifNull(probe, false) AS probe,
      count() AS n,
      sum(ifNull(sample_weight, 1)) AS w,
      sumIf(ifNull(sample_weight, 1), status IS NOT NULL) AS w_status,
      sumMapIf(map(assumeNotNull(status), ifNull(sample_weight, 1)), status IS NOT NULL) AS w_by_status,
      sumMapIf(map(assumeNotNull(error_type), ifNull(sample_weight, 1)), status = 'error' AND error_type IS NOT NULL) AS w_by_error,
      count(ingress_ms) AS ingress_ms_n, sum(toFloat64(ifNull(ingress_ms, 0))) AS ingress_ms_sum, min(toFloat64(ingress_ms)) AS ingress_ms_min, max(toFloat64(ingress_ms)) AS ingress_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(ingress_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(ingress_ms))) * 120 - 1e-9))), toUInt64(1)), ingress_ms IS NOT NULL) AS ingress_ms_sketch,
      count(queue_ms) AS queue_ms_n, sum(toFloat64(ifNull(queue_ms, 0))) AS queue_ms_sum, min(toFloat64(queue_ms)) AS queue_ms_min, max(toFloat64(queue_ms)) AS queue_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(queue_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(queue_ms))) * 120 - 1e-9))), toUInt64(1)), queue_ms IS NOT NULL) AS queue_ms_sketch,
      count(batch_ms) AS batch_ms_n, sum(toFloat64(ifNull(batch_ms, 0))) AS batch_ms_sum, min(toFloat64(batch_ms)) AS batch_ms_min, max(toFloat64(batch_ms)) AS batch_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(batch_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(batch_ms))) * 120 - 1e-9))), toUInt64(1)), batch_ms IS NOT NULL) AS batch_ms_sketch,
      count(exec_ms) AS exec_ms_n, sum(toFloat64(ifNull(exec_ms, 0))) AS exec_ms_sum, min(toFloat64(exec_ms)) AS exec_ms_min, max(toFloat64(exec_ms)) AS exec_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(exec_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(exec_ms))) * 120 - 1e-9))), toUInt64(1)), exec_ms IS NOT NULL) AS exec_ms_sketch,
      count(post_ms) AS post_ms_n, sum(toFloat64(ifNull(post_ms, 0))) AS post_ms_sum, min(toFloat64(post_ms)) AS post_ms_min, max(toFloat64(post_ms)) AS post_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(post_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(post_ms))) * 120 - 1e-9))), toUInt64(1)), post_ms IS NOT NULL) AS post_ms_sketch,
      count(total_ms) AS total_ms_n, sum(toFloat64(ifNull(total_ms, 0))) AS total_ms_sum, min(toFloat64(total_ms)) AS total_ms_min, max(toFloat64(total_ms)) AS total_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(total_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(total_ms))) * 120 - 1e-9))), toUInt64(1)), total_ms IS NOT NULL) AS total_ms_sketch,
      count(ttft_ms) AS ttft_ms_n, sum(toFloat64(ifNull(ttft_ms, 0))) AS ttft_ms_sum, min(toFloat64(ttft_ms)) AS ttft_ms_min, max(toFloat64(ttft_ms)) AS ttft_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(ttft_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(ttft_ms))) * 120 - 1e-9))), toUInt64(1)), ttft_ms IS NOT NULL) AS ttft_ms_sketch,
      count(tpot_ms) AS tpot_ms_n, sum(toFloat64(ifNull(tpot_ms, 0))) AS tpot_ms_sum, min(toFloat64(tpot_ms)) AS tpot_ms_min, max(toFloat64(tpot_ms)) AS tpot_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(tpot_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(tpot_ms))) * 120 - 1e-9))), toUInt64(1)), tpot_ms IS NOT NULL) AS tpot_ms_sketch,
      count(prefill_ms) AS prefill_ms_n, sum(toFloat64(ifNull(prefill_ms, 0))) AS prefill_ms_sum, min(toFloat64(prefill_ms)) AS prefill_ms_min, max(toFloat64(prefill_ms)) AS prefill_ms_max,
      sumMapIf(map(if(toFloat64(assumeNotNull(prefill_ms)) <= 0, -32768, toInt16(ceil(log10(toFloat64(assumeNotNull(prefill_ms))) * 120 - 1e-9))), toUInt64(1)), prefill_ms IS NOT NULL) AS prefill_ms_sketch,
      count(batch_size) AS batch_size_n, sum(toFloat64(ifNull(batch_size, 0))) AS batch_size_sum, min(toFloat64(batch_size)) AS batch_size_min, max(toFloat64(batch_size)) AS batch_size_max,
      count(input_tokens) AS input_tokens_n, sum(toFloat64(ifNull(input_tokens, 0))) AS input_tokens_sum, min(toFloat64(input_tokens)) AS input_tokens_min, max(toFloat64(input_tokens)) AS input_tokens_max,
      count(output_tokens) AS output_tokens_n, sum(toFloat64(ifNull(output_tokens, 0))) AS output_tokens_sum, min(toFloat64(output_tokens)) AS output_tokens_min, max(toFloat64(output_tokens)) AS output_tokens_max
    FROM {db}.events{local}
    GROUP BY minute, model, model_version, probe`,
    `CREATE TABLE IF NOT EXISTS {db}.rollup_1m_all{local} {on_cluster} (
      minute DateTime('UTC'),
      probe Bool,
      n SimpleAggregateFunction(sum, UInt64),
      w SimpleAggregateFunction(sum, Float64),
      w_status SimpleAggregateFunction(sum, Float64),
      w_by_status SimpleAggregateFunction(sumMap, Map(String, Float64)),
      w_by_error SimpleAggregateFunction(sumMap, Map(String, Float64)),
      ingress_ms_n SimpleAggregateFunction(sum, UInt64), ingress_ms_sum SimpleAggregateFunction(sum, Float64),
      ingress_ms_min SimpleAggregateFunction(min, Nullable(Float64)), ingress_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      ingress_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      queue_ms_n SimpleAggregateFunction(sum, UInt64), queue_ms_sum SimpleAggregateFunction(sum, Float64),
      queue_ms_min SimpleAggregateFunction(min, Nullable(Float64)), queue_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      queue_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      batch_ms_n SimpleAggregateFunction(sum, UInt64), batch_ms_sum SimpleAggregateFunction(sum, Float64),
      batch_ms_min SimpleAggregateFunction(min, Nullable(Float64)), batch_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      batch_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      exec_ms_n SimpleAggregateFunction(sum, UInt64), exec_ms_sum SimpleAggregateFunction(sum, Float64),
      exec_ms_min SimpleAggregateFunction(min, Nullable(Float64)), exec_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      exec_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      post_ms_n SimpleAggregateFunction(sum, UInt64), post_ms_sum SimpleAggregateFunction(sum, Float64),
      post_ms_min SimpleAggregateFunction(min, Nullable(Float64)), post_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      post_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      total_ms_n SimpleAggregateFunction(sum, UInt64), total_ms_sum SimpleAggregateFunction(sum, Float64),
      total_ms_min SimpleAggregateFunction(min, Nullable(Float64)), total_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      total_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      ttft_ms_n SimpleAggregateFunction(sum, UInt64), ttft_ms_sum SimpleAggregateFunction(sum, Float64),
      ttft_ms_min SimpleAggregateFunction(min, Nullable(Float64)), ttft_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      ttft_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      tpot_ms_n SimpleAggregateFunction(sum, UInt64), tpot_ms_sum SimpleAggregateFunction(sum, Float64),
      tpot_ms_min SimpleAggregateFunction(min, Nullable(Float64)), tpot_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      tpot_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      prefill_ms_n SimpleAggregateFunction(sum, UInt64), prefill_ms_sum SimpleAggregateFunction(sum, Float64),
      prefill_ms_min SimpleAggregateFunction(min, Nullable(Float64)), prefill_ms_max SimpleAggregateFunction(max, Nullable(Float64)),
      prefill_ms_sketch SimpleAggregateFunction(sumMap, Map(Int16, UInt64)),
      batch_size_n SimpleAggregateFunction(sum, UInt64), batch_size_sum SimpleAggregateFunction(sum, Float64),
      batch_size_min SimpleAggregateFunction(min, Nullable(Float64)), batch_size_max SimpleAggregateFunction(max, Nullable(Float64)),
      input_tokens_n SimpleAggregateFunction(sum, UInt64), input_tokens_sum SimpleAggregateFunction(sum, Float64),
      input_tokens_min SimpleAggregateFunction(min, Nullable(Float64)), input_tokens_max SimpleAggregateFunction(max, Nullable(Float64)),
      output_tokens_n SimpleAggregateFunction(sum, UInt64), output_tokens_sum SimpleAggregateFunction(sum, Float64),
      output_tokens_min SimpleAggregateFunction(min, Nullable(Float64)), output_tokens_max SimpleAggregateFunction(max, Nullable(Float64))
    ) ENGINE = {replicated}AggregatingMergeTree
    PARTITION BY toDate(minute)
    ORDER BY (minute, probe)
    SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 1000`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.rollup_1m_all {on_cluster} AS {db}.rollup_1m_all_local ENGINE = Distributed({cluster}, {db_name}, rollup_1m_all_local, rand())`,
    // The all-traffic level adds up the model level's rows as they are written.
    `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.rollup_1m_all_mv {on_cluster} TO {db}.rollup_1m_all{local} AS
    SELECT
      minute, probe,
      sum(n) AS n, sum(w) AS w, sum(w_status) AS w_status, sumMap(w_by_status) AS w_by_status, sumMap(w_by_error) AS w_by_error,
      sum(ingress_ms_n) AS ingress_ms_n, sum(ingress_ms_sum) AS ingress_ms_sum, min(ingress_ms_min) AS ingress_ms_min, max(ingress_ms_max) AS ingress_ms_max, sumMap(ingress_ms_sketch) AS ingress_ms_sketch,
      sum(queue_ms_n) AS queue_ms_n, sum(queue_ms_sum) AS queue_ms_sum, min(queue_ms_min) AS queue_ms_min, max(queue_ms_max) AS queue_ms_max, sumMap(queue_ms_sketch) AS queue_ms_sketch,
      sum(batch_ms_n) AS batch_ms_n, sum(batch_ms_sum) AS batch_ms_sum, min(batch_ms_min) AS batch_ms_min, max(batch_ms_max) AS batch_ms_max, sumMap(batch_ms_sketch) AS batch_ms_sketch,
      sum(exec_ms_n) AS exec_ms_n, sum(exec_ms_sum) AS exec_ms_sum, min(exec_ms_min) AS exec_ms_min, max(exec_ms_max) AS exec_ms_max, sumMap(exec_ms_sketch) AS exec_ms_sketch,
      sum(post_ms_n) AS post_ms_n, sum(post_ms_sum) AS post_ms_sum, min(post_ms_min) AS post_ms_min, max(post_ms_max) AS post_ms_max, sumMap(post_ms_sketch) AS post_ms_sketch,
      sum(total_ms_n) AS total_ms_n, sum(total_ms_sum) AS total_ms_sum, min(total_ms_min) AS total_ms_min, max(total_ms_max) AS total_ms_max, sumMap(total_ms_sketch) AS total_ms_sketch,
      sum(ttft_ms_n) AS ttft_ms_n, sum(ttft_ms_sum) AS ttft_ms_sum, min(ttft_ms_min) AS ttft_ms_min, max(ttft_ms_max) AS ttft_ms_max, sumMap(ttft_ms_sketch) AS ttft_ms_sketch,
      sum(tpot_ms_n) AS tpot_ms_n, sum(tpot_ms_sum) AS tpot_ms_sum, min(tpot_ms_min) AS tpot_ms_min, max(tpot_ms_max) AS tpot_ms_max, sumMap(tpot_ms_sketch) AS tpot_ms_sketch,
      sum(prefill_ms_n) AS prefill_ms_n, sum(prefill_ms_sum) AS prefill_ms_sum, min(prefill_ms_min) AS prefill_ms_min, max(prefill_ms_max) AS prefill_ms_max, sumMap(prefill_ms_sketch) AS prefill_ms_sketch,
      sum(batch_size_n) AS batch_size_n, sum(batch_size_sum) AS batch_size_sum, min(batch_size_min) AS batch_size_min, max(batch_size_max) AS batch_size_max,
      sum(input_tokens_n) AS input_tokens_n, sum(input_tokens_sum) AS input_tokens_sum, min(input_tokens_min) AS input_tokens_min, max(input_tokens_max) AS input_tokens_max,
      sum(output_tokens_n) AS output_tokens_n, sum(output_tokens_sum) AS output_tokens_sum, min(output_tokens_min) AS output_tokens_min, max(output_tokens_max) AS output_tokens_max
    FROM {db}.rollup_1m_model{local}
    GROUP BY minute, probe`,
  ],
  // 2: the incident log (src/alerting/incident-log.ts): one row per step of an incident, an alert,
  // an action or a silence, kept so incidents survive restarts. labels and detail are JSON text.
  // A few rows per incident: no TTL (kept beyond the events' retention, as an audit trail is).
  [
    `CREATE TABLE IF NOT EXISTS {db}.incident_log{local} {on_cluster} (
      ts DateTime64(6, 'UTC') CODEC(Delta, ZSTD(1)),
      id String,
      incident_id Nullable(String),
      kind LowCardinality(String),
      alertname LowCardinality(Nullable(String)),
      fingerprint Nullable(String),
      severity LowCardinality(Nullable(String)),
      tenant LowCardinality(Nullable(String)),
      labels String CODEC(ZSTD(1)),
      detail String CODEC(ZSTD(1))
    ) ENGINE = {replicated}MergeTree
    PARTITION BY toYYYYMM(ts)
    ORDER BY (ts, id)
    SETTINGS non_replicated_deduplication_window = 1000, fsync_after_insert = 1, fsync_part_directory = 1`,
    `{cluster_only}CREATE TABLE IF NOT EXISTS {db}.incident_log {on_cluster} AS {db}.incident_log_local ENGINE = Distributed({cluster}, {db_name}, incident_log_local, rand())`,
  ],
];
