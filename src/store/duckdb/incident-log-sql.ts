/**
 * The incident log (DuckDB): multi-row inserts with bound parameters, idempotent on `id` (the
 * write runs in one transaction on the single writer, so the check and the insert cannot race).
 */
import type { IncidentLogEntry, IncidentLogSpec } from '../store.ts';
import { MAX_INCIDENT_LOG_ROWS, incidentLogRow, newEntries, toIncidentLogEntry } from '../incident-log-rows.ts';
import { Params, tsParam } from './sql.ts';
import type { ReadFn } from './sql.ts';

const COLUMNS = ['id', 'incident_id', 'kind', 'alertname', 'fingerprint', 'severity', 'tenant', 'labels', 'detail'] as const;
/** Rows per INSERT statement (10 parameters each). */
const CHUNK = 500;

export interface IncidentLogWriter {
  run(sql: string, params: unknown[]): Promise<void>;
  read: ReadFn;
}

export async function appendIncidentLog(w: IncidentLogWriter, entries: readonly IncidentLogEntry[]): Promise<void> {
  for (let i = 0; i < entries.length; i += CHUNK) {
    const chunk = entries.slice(i, i + CHUNK);
    const q = new Params();
    const stored = await w.read(`SELECT id FROM incident_log WHERE id IN (${chunk.map((e) => q.add(e.id)).join(', ')})`, q.values);
    const fresh = newEntries(chunk, new Set(stored.map((r) => String(r['id']))));
    if (fresh.length === 0) continue;
    const p = new Params();
    const values = fresh.map((e) => {
      const row = incidentLogRow(e);
      return `(${tsParam(p, e.ts)}, ${COLUMNS.map((c) => p.add(row[c] ?? null)).join(', ')})`;
    });
    await w.run(`INSERT INTO incident_log (ts, ${COLUMNS.join(', ')}) VALUES ${values.join(', ')}`, p.values);
  }
}

export async function listIncidentLog(read: ReadFn, spec: IncidentLogSpec): Promise<IncidentLogEntry[]> {
  const p = new Params();
  const where = spec.incidentIds
    ? spec.incidentIds.length
      ? `incident_id IN (${spec.incidentIds.map((id) => p.add(id)).join(', ')})`
      : 'false'
    : `ts >= ${tsParam(p, spec.fromMs)} AND ts < ${tsParam(p, spec.toMs)}`;
  const limit = Math.min(Math.max(Math.trunc(spec.limit), 1), MAX_INCIDENT_LOG_ROWS);
  const rows = await read(
    `SELECT epoch_ms(ts) AS ts_ms, ${COLUMNS.join(', ')} FROM incident_log WHERE ${where} ORDER BY ts, id LIMIT ${p.add(limit)}`,
    p.values,
  );
  return rows.map(toIncidentLogEntry);
}
