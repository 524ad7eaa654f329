/**
 * The DuckDB schema as numbered migrations. Each one is literal DDL, written once when it was added
 * and never edited or regenerated afterwards: a data directory made by any earlier version runs the
 * missing ones in order (each in a transaction, recorded in `schema_migrations`) and ends with the
 * same tables as a new one. Only ever append a migration, and only additive changes (new tables,
 * `ADD COLUMN` with a default that is right for the rows already stored).
 *
 * How to add an event field, a stage, a status or an error type: change src/schema first, then
 * append a migration here with the columns it needs (events; for a status, error type or rollup
 * field also both rollup tables) and the same in src/store/clickhouse/migrations.ts; a latency field
 * also needs its code appended to `SKETCH_FIELD_CODES` (src/store/rollup.ts). Tests fail until the
 * migrated tables match the live field table (`duckdb-store.test.ts`), and test/upgrade.test.ts
 * opens a data directory written by schema version 3.
 */

/** Migration N is `DUCKDB_MIGRATIONS[N - 1]`: its statements, run in order in one transaction. */
export const DUCKDB_MIGRATIONS: readonly (readonly string[])[] = [
  // 1: events, resource samples, feedback.
  [
    `CREATE TABLE IF NOT EXISTS events (
      ts TIMESTAMP, request_id VARCHAR, trace_id VARCHAR,
      model VARCHAR, model_version VARCHAR, service_version VARCHAR, route_rule VARCHAR, tenant VARCHAR,
      entry VARCHAR, node VARCHAR, replica VARCHAR, service_tier VARCHAR, pool VARCHAR,
      attributes MAP(VARCHAR, VARCHAR),
      ingress_ms DOUBLE, queue_ms DOUBLE, batch_ms DOUBLE, exec_ms DOUBLE, post_ms DOUBLE, total_ms DOUBLE,
      ttft_ms DOUBLE, tpot_ms DOUBLE,
      batch_size INTEGER, batch_tokens INTEGER,
      status VARCHAR, error_type VARCHAR, http_status SMALLINT,
      input_tokens INTEGER, output_tokens INTEGER,
      label VARCHAR, confidence DOUBLE, score DOUBLE, output_length INTEGER, finish_reason VARCHAR,
      empty BOOLEAN, refused BOOLEAN, format_ok BOOLEAN, features MAP(VARCHAR, DOUBLE), probe BOOLEAN,
      sample_weight DOUBLE, input VARCHAR, output VARCHAR, risk_tags VARCHAR[])`,
    `CREATE TABLE IF NOT EXISTS resources (
      ts TIMESTAMP, node VARCHAR, replica VARCHAR, gpu VARCHAR, pool VARCHAR,
      metric VARCHAR, labels MAP(VARCHAR, VARCHAR), value DOUBLE, simulated BOOLEAN)`,
    `CREATE TABLE IF NOT EXISTS feedback (
      ts TIMESTAMP, request_id VARCHAR, kind VARCHAR, value_num DOUBLE, value_str VARCHAR,
      source VARCHAR, received_at TIMESTAMP)`,
  ],
  // 2: captured samples (src/pipeline/capture.ts), bounded by the capture policy's quotas.
  [
    `CREATE TABLE IF NOT EXISTS samples (
      ts TIMESTAMP, request_id VARCHAR, model VARCHAR, model_version VARCHAR, tenant VARCHAR, entry VARCHAR,
      node VARCHAR, replica VARCHAR, route_rule VARCHAR, status VARCHAR, error_type VARCHAR, label VARCHAR,
      confidence DOUBLE, reasons VARCHAR[], risk_tags VARCHAR[], sample_weight DOUBLE, input VARCHAR, output VARCHAR)`,
  ],
  // 3: the per-minute rollup (src/store/rollup.ts): per level the counters and a log-bucket sketch
  // per latency field (`field` holds SKETCH_FIELD_CODES), and the watermark.
  [
    `CREATE TABLE IF NOT EXISTS rollup_1m_model (
      minute TIMESTAMP, model VARCHAR, model_version VARCHAR, probe BOOLEAN,
      n BIGINT, w DOUBLE, w_status DOUBLE, w_ok DOUBLE, w_error DOUBLE, w_rejected DOUBLE,
      w_rate_limited DOUBLE, w_timeout DOUBLE, w_aborted DOUBLE, w_err_model_load DOUBLE,
      w_err_bad_input DOUBLE, w_err_resource_exhausted DOUBLE, w_err_dependency_timeout DOUBLE,
      w_err_replica_fault DOUBLE, w_err_internal DOUBLE, w_err_other DOUBLE, ingress_ms_n BIGINT,
      ingress_ms_sum DOUBLE, ingress_ms_min DOUBLE, ingress_ms_max DOUBLE, queue_ms_n BIGINT,
      queue_ms_sum DOUBLE, queue_ms_min DOUBLE, queue_ms_max DOUBLE, batch_ms_n BIGINT,
      batch_ms_sum DOUBLE, batch_ms_min DOUBLE, batch_ms_max DOUBLE, exec_ms_n BIGINT,
      exec_ms_sum DOUBLE, exec_ms_min DOUBLE, exec_ms_max DOUBLE, post_ms_n BIGINT, post_ms_sum DOUBLE,
      post_ms_min DOUBLE, post_ms_max DOUBLE, total_ms_n BIGINT, total_ms_sum DOUBLE,
      total_ms_min DOUBLE, total_ms_max DOUBLE, ttft_ms_n BIGINT, ttft_ms_sum DOUBLE, ttft_ms_min DOUBLE,
      ttft_ms_max DOUBLE, tpot_ms_n BIGINT, tpot_ms_sum DOUBLE, tpot_ms_min DOUBLE, tpot_ms_max DOUBLE,
      batch_size_n BIGINT, batch_size_sum DOUBLE, batch_size_min DOUBLE, batch_size_max DOUBLE,
      input_tokens_n BIGINT, input_tokens_sum DOUBLE, input_tokens_min DOUBLE, input_tokens_max DOUBLE,
      output_tokens_n BIGINT, output_tokens_sum DOUBLE, output_tokens_min DOUBLE,
      output_tokens_max DOUBLE)`,
    `CREATE TABLE IF NOT EXISTS rollup_1m_model_sketch (
      minute TIMESTAMP, model VARCHAR, model_version VARCHAR, probe BOOLEAN, field UTINYINT, idx SMALLINT, n BIGINT)`,
    `CREATE TABLE IF NOT EXISTS rollup_1m_all (
      minute TIMESTAMP, probe BOOLEAN,
      n BIGINT, w DOUBLE, w_status DOUBLE, w_ok DOUBLE, w_error DOUBLE, w_rejected DOUBLE,
      w_rate_limited DOUBLE, w_timeout DOUBLE, w_aborted DOUBLE, w_err_model_load DOUBLE,
      w_err_bad_input DOUBLE, w_err_resource_exhausted DOUBLE, w_err_dependency_timeout DOUBLE,
      w_err_replica_fault DOUBLE, w_err_internal DOUBLE, w_err_other DOUBLE, ingress_ms_n BIGINT,
      ingress_ms_sum DOUBLE, ingress_ms_min DOUBLE, ingress_ms_max DOUBLE, queue_ms_n BIGINT,
      queue_ms_sum DOUBLE, queue_ms_min DOUBLE, queue_ms_max DOUBLE, batch_ms_n BIGINT,
      batch_ms_sum DOUBLE, batch_ms_min DOUBLE, batch_ms_max DOUBLE, exec_ms_n BIGINT,
      exec_ms_sum DOUBLE, exec_ms_min DOUBLE, exec_ms_max DOUBLE, post_ms_n BIGINT, post_ms_sum DOUBLE,
      post_ms_min DOUBLE, post_ms_max DOUBLE, total_ms_n BIGINT, total_ms_sum DOUBLE,
      total_ms_min DOUBLE, total_ms_max DOUBLE, ttft_ms_n BIGINT, ttft_ms_sum DOUBLE, ttft_ms_min DOUBLE,
      ttft_ms_max DOUBLE, tpot_ms_n BIGINT, tpot_ms_sum DOUBLE, tpot_ms_min DOUBLE, tpot_ms_max DOUBLE,
      batch_size_n BIGINT, batch_size_sum DOUBLE, batch_size_min DOUBLE, batch_size_max DOUBLE,
      input_tokens_n BIGINT, input_tokens_sum DOUBLE, input_tokens_min DOUBLE, input_tokens_max DOUBLE,
      output_tokens_n BIGINT, output_tokens_sum DOUBLE, output_tokens_min DOUBLE,
      output_tokens_max DOUBLE)`,
    `CREATE TABLE IF NOT EXISTS rollup_1m_all_sketch (minute TIMESTAMP, probe BOOLEAN, field UTINYINT, idx SMALLINT, n BIGINT)`,
    'CREATE TABLE IF NOT EXISTS rollup_state (watermark TIMESTAMP)',
  ],
  // 4: the prefill_ms stage (sketch code 8), cached_tokens, status cancelled, error type
  // dependency_error. Minutes rolled up before it hold none of them: 0 (counts) and NULL (stats).
  [
    'ALTER TABLE events ADD COLUMN prefill_ms DOUBLE',
    'ALTER TABLE events ADD COLUMN cached_tokens INTEGER',
    'ALTER TABLE rollup_1m_model ADD COLUMN w_cancelled DOUBLE DEFAULT 0',
    'ALTER TABLE rollup_1m_model ADD COLUMN w_err_dependency_error DOUBLE DEFAULT 0',
    'ALTER TABLE rollup_1m_model ADD COLUMN prefill_ms_n BIGINT DEFAULT 0',
    'ALTER TABLE rollup_1m_model ADD COLUMN prefill_ms_sum DOUBLE',
    'ALTER TABLE rollup_1m_model ADD COLUMN prefill_ms_min DOUBLE',
    'ALTER TABLE rollup_1m_model ADD COLUMN prefill_ms_max DOUBLE',
    'ALTER TABLE rollup_1m_all ADD COLUMN w_cancelled DOUBLE DEFAULT 0',
    'ALTER TABLE rollup_1m_all ADD COLUMN w_err_dependency_error DOUBLE DEFAULT 0',
    'ALTER TABLE rollup_1m_all ADD COLUMN prefill_ms_n BIGINT DEFAULT 0',
    'ALTER TABLE rollup_1m_all ADD COLUMN prefill_ms_sum DOUBLE',
    'ALTER TABLE rollup_1m_all ADD COLUMN prefill_ms_min DOUBLE',
    'ALTER TABLE rollup_1m_all ADD COLUMN prefill_ms_max DOUBLE',
  ],
  // 5: the incident log (src/alerting/incident-log.ts): one row per step of an incident, an
  // alert, an action or a silence, kept so incidents survive restarts. labels and detail are JSON text.
  [
    `CREATE TABLE IF NOT EXISTS incident_log (
      ts TIMESTAMP, id VARCHAR, incident_id VARCHAR, kind VARCHAR, alertname VARCHAR, fingerprint VARCHAR,
      severity VARCHAR, tenant VARCHAR, labels VARCHAR, detail VARCHAR)`,
  ],
];
