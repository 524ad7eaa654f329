/**
 * How the live event field table meets the DuckDB tables: the column type of each field kind (the
 * type the NDJSON stage reads, and what migrations.ts must have created: a test checks the migrated
 * table against EVENT_FIELDS), and how a staged value becomes a stored one. The tables themselves
 * are created only by the frozen migrations (migrations.ts), never from this table.
 */
import { EVENT_FIELDS } from '../../schema/index.ts';
import type { FieldKind } from '../../schema/index.ts';

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

/** The `columns=` of read_ndjson over a staged event file (ts as VARCHAR, see stageToStored), and the select that stores it. */
export const EVENT_STAGE_COLUMNS = `{${EVENT_COLUMNS.map((c) => `${c.name}: '${c.kind === 'ts' ? 'VARCHAR' : c.type}'`).join(', ')}}`;
export const EVENT_STAGE_SELECT = EVENT_COLUMNS.map((c) => stageToStored(c.name, c.kind)).join(', ');
