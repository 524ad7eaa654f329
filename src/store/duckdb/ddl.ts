/**
 * DuckDB tables, derived from the event field table in src/schema so the two cannot drift apart
 * (a test checks the created table against EVENT_FIELDS).
 */
import { EVENT_FIELDS } from '../../schema/index.ts';
import type { FieldKind } from '../../schema/index.ts';
import { rollupDdl } from './rollup-sql.ts';

/** The DuckDB column type for each field kind. */
export function duckdbType(kind: FieldKind): string {
  switch (kind) {
    case 'ts':
      return 'TIMESTAMP';
    case 'id':
    case 'dim':
    case 'string':
    case 'text':
    case 'status':
    case 'error_type':
      return 'VARCHAR';
    case 'ms':
    case 'unit':
    case 'number':
    case 'positive':
      return 'DOUBLE';
    case 'count':
      return 'INTEGER';
    case 'http_status':
      return 'SMALLINT';
    case 'bool':
      return 'BOOLEAN';
    case 'attributes':
      return 'MAP(VARCHAR, VARCHAR)';
    case 'features':
      return 'MAP(VARCHAR, DOUBLE)';
    case 'tags':
      return 'VARCHAR[]';
  }
}

export const EVENT_COLUMNS = EVENT_FIELDS.map((f) => ({ name: f.name, kind: f.kind, type: duckdbType(f.kind) }));

/** How a staged (JSON-read) column becomes a stored one: UTC timestamps, µs-rounded latencies. */
export function stageToStored(name: string, kind: FieldKind): string {
  if (kind === 'ts') {
    // Staged as VARCHAR (2× cheaper than a JSON column here): numbers are epoch ms, strings are
    // UTC 'Z' timestamps (the pipeline rewrites other forms), told apart by the date's '-'.
    return `CASE WHEN contains(ts, '-') THEN CAST(ts AS TIMESTAMP) ELSE make_timestamp(CAST(round(CAST(ts AS DOUBLE) * 1000) AS BIGINT)) END AS ts`;
  }
  if (kind === 'ms') return `round(${name}, 3) AS ${name}`;
  return name;
}

const eventsTable = `CREATE TABLE IF NOT EXISTS events (\n  ${EVENT_COLUMNS.map((c) => `${c.name} ${c.type}`).join(',\n  ')}\n)`;

/** Ordered migrations; each runs once, in a transaction, recorded in schema_migrations. */
export const MIGRATIONS: readonly string[] = [
  [
    eventsTable,
    `CREATE TABLE IF NOT EXISTS resources (
      ts TIMESTAMP, node VARCHAR, replica VARCHAR, gpu VARCHAR, pool VARCHAR,
      metric VARCHAR, labels MAP(VARCHAR, VARCHAR), value DOUBLE, simulated BOOLEAN)`,
    `CREATE TABLE IF NOT EXISTS feedback (
      ts TIMESTAMP, request_id VARCHAR, kind VARCHAR, value_num DOUBLE, value_str VARCHAR,
      source VARCHAR, received_at TIMESTAMP)`,
  ].join(';\n'),
  // 2: captured samples (src/pipeline/capture.ts), bounded by the capture policy's quotas.
  `CREATE TABLE IF NOT EXISTS samples (
      ts TIMESTAMP, request_id VARCHAR, model VARCHAR, model_version VARCHAR, tenant VARCHAR, entry VARCHAR,
      node VARCHAR, replica VARCHAR, route_rule VARCHAR, status VARCHAR, error_type VARCHAR, label VARCHAR,
      confidence DOUBLE, reasons VARCHAR[], risk_tags VARCHAR[], sample_weight DOUBLE, input VARCHAR, output VARCHAR)`,
  // 3: the per-minute rollup (src/store/rollup.ts), filled from the watermark on by maintainRollup.
  rollupDdl().join(';\n'),
];
