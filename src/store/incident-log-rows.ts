/**
 * The incident log's rows as both backends read them back: labels and detail are stored as JSON
 * text (written by the store from objects, so a row that does not parse is a bug, not input).
 */
import type { IncidentLogEntry } from './store.ts';

/** Most entries one incident log read returns. */
export const MAX_INCIDENT_LOG_ROWS = 50_000;

const text = (v: unknown): string | null => (v == null ? null : String(v));

/** A stored row (ts as epoch ms in `ts_ms`) → the entry. */
export function toIncidentLogEntry(r: Record<string, unknown>): IncidentLogEntry {
  return {
    ts: Number(r['ts_ms']),
    id: String(r['id']),
    incident_id: text(r['incident_id']),
    kind: String(r['kind']),
    alertname: text(r['alertname']),
    fingerprint: text(r['fingerprint']),
    severity: text(r['severity']),
    tenant: text(r['tenant']),
    labels: JSON.parse(String(r['labels'] ?? '{}')) as Record<string, string>,
    detail: JSON.parse(String(r['detail'] ?? '{}')) as Record<string, unknown>,
  };
}

/** The entry → the row to insert (labels and detail as JSON text). */
export function incidentLogRow(e: IncidentLogEntry): Record<string, unknown> {
  return { ...e, labels: JSON.stringify(e.labels), detail: JSON.stringify(e.detail) };
}

/** Entries not already stored (by id), in the batch's order, each id once. */
export function newEntries(entries: readonly IncidentLogEntry[], stored: ReadonlySet<string>): IncidentLogEntry[] {
  const seen = new Set(stored);
  return entries.filter((e) => !seen.has(e.id) && (seen.add(e.id), true));
}
