/**
 * Captured samples (DuckDB). Rows are staged as NDJSON and loaded with DuckDB's reader, like
 * events, so payload text never enters SQL; every read value is a bound parameter.
 */
import { rmSync } from 'node:fs';
import { InferlensError } from '../../schema/index.ts';
import { SAMPLE_FILTER_KEYS } from '../store.ts';
import type { SampleListSpec, SampleRow, StoredSample } from '../store.ts';
import { Params, tsParam } from './sql.ts';
import type { ReadFn, StagedWriter } from './sql.ts';
import { toStoredSample } from '../result-rows.ts';

/** Most samples one listing returns. */
export const MAX_SAMPLES_LISTED = 1000;

const COLUMNS = `ts, request_id, model, model_version, tenant, entry, node, replica, route_rule, status, error_type, label,
  confidence, reasons, risk_tags, sample_weight, input, output`;
const STAGE_COLUMNS = `{ts: 'DOUBLE', request_id: 'VARCHAR', model: 'VARCHAR', model_version: 'VARCHAR', tenant: 'VARCHAR', entry: 'VARCHAR',
  node: 'VARCHAR', replica: 'VARCHAR', route_rule: 'VARCHAR', status: 'VARCHAR', error_type: 'VARCHAR', label: 'VARCHAR',
  confidence: 'DOUBLE', reasons: 'VARCHAR[]', risk_tags: 'VARCHAR[]', sample_weight: 'DOUBLE', input: 'VARCHAR', output: 'VARCHAR'}`;
// Two texts of at most 64 Ki characters (the event schema's text limit), up to 4 UTF-8 bytes per
// character after JSON escaping, plus the rest of the row: 2 · 4 · 65 536 + 65 536 = 589 824 bytes.
const MAX_OBJECT_BYTES = 2 * 4 * 65_536 + 65_536;

/** Appends samples in one statement. */
export async function appendSamples(w: StagedWriter, rows: readonly SampleRow[]): Promise<void> {
  if (rows.length === 0) return;
  const file = w.stageFile(rows.map((r) => JSON.stringify(r)));
  try {
    await w.run(
      `INSERT INTO samples (${COLUMNS}) SELECT make_timestamp(CAST(round(ts * 1000) AS BIGINT)) AS ts, ${COLUMNS.replace(/^ts, /, '')}
       FROM read_ndjson($1, columns=${STAGE_COLUMNS}, format='newline_delimited', maximum_object_size=${MAX_OBJECT_BYTES})`,
      [file],
    );
  } finally {
    rmSync(file, { force: true });
  }
}

const FILTER_OK: ReadonlySet<string> = new Set(SAMPLE_FILTER_KEYS);

/** The listing query: time range, filters, reasons, tags, request id; newest first. */
export function listSamplesSql(spec: SampleListSpec): { sql: string; params: unknown[] } {
  const p = new Params();
  const parts = [`ts >= ${tsParam(p, spec.fromMs)}`, `ts < ${tsParam(p, spec.toMs)}`];
  for (const [key, value] of Object.entries(spec.filters)) {
    if (value === undefined) continue;
    if (!FILTER_OK.has(key))
      throw new InferlensError('invalid_argument', `samples cannot be filtered by "${key}": use one of ${SAMPLE_FILTER_KEYS.join(', ')}`);
    const list = Array.isArray(value) ? value : [value];
    parts.push(`${key} IN (${list.map((v) => p.add(v)).join(', ')})`);
  }
  if (spec.reasons?.length) parts.push(`list_has_any(reasons, [${spec.reasons.map((r) => p.add(r)).join(', ')}]::VARCHAR[])`);
  if (spec.tags?.length) parts.push(`list_has_any(risk_tags, [${spec.tags.map((t) => p.add(t)).join(', ')}]::VARCHAR[])`);
  if (spec.requestId !== undefined) parts.push(`request_id = ${p.add(spec.requestId)}`);
  const limit = Math.min(Math.max(Math.trunc(spec.limit), 1), MAX_SAMPLES_LISTED);
  const sql = `SELECT epoch_ms(ts) AS ts_ms, ${COLUMNS.replace(/^ts, /, '')} FROM samples WHERE ${parts.join(' AND ')} ORDER BY ts DESC LIMIT ${p.add(limit)}`;
  return { sql, params: p.values };
}

export async function listSamples(read: ReadFn, spec: SampleListSpec): Promise<StoredSample[]> {
  const { sql, params } = listSamplesSql(spec);
  const rows = await read(sql, params);
  return rows.map(toStoredSample);
}
