/**
 * JSON bodies → rows. `application/x-ndjson` is one JSON value per line (blank lines skipped);
 * `application/json` is an array of rows or a single row. A line that is not JSON becomes a
 * rejected row with its index; the other lines go on.
 */
import { InferlensError } from '../../schema/index.ts';
import type { RowIssue } from '../../schema/index.ts';

export interface ParsedRows {
  rows: unknown[];
  /** Original text of each row (NDJSON only), parallel to rows. */
  lines?: string[];
  /** Rows that did not parse; their indexes count in the same numbering as `rows`' positions in the body. */
  malformed: RowIssue[];
  /** Index in the body of each entry of `rows`. */
  indexes: number[];
}

export function isNdjson(contentType: string | null | undefined, body: Buffer): boolean {
  const ct = (contentType ?? '').toLowerCase();
  if (ct.includes('ndjson') || ct.includes('jsonl') || ct.includes('jsonlines')) return true;
  if (ct.includes('json')) return false;
  // No or unknown content type: an array is JSON, anything else is read as NDJSON.
  for (const b of body) {
    if (b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09) continue;
    return b !== 0x5b; // '['
  }
  return true;
}

export function parseRows(body: Buffer, contentType: string | null | undefined): ParsedRows {
  const text = body.toString('utf8');
  if (isNdjson(contentType, body)) {
    const rows: unknown[] = [];
    const lines: string[] = [];
    const indexes: number[] = [];
    const malformed: RowIssue[] = [];
    let index = 0;
    for (const raw of text.split('\n')) {
      const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (line.trim() === '') continue;
      try {
        rows.push(JSON.parse(line));
        lines.push(line);
        indexes.push(index);
      } catch (e) {
        malformed.push({ index, path: '', message: `malformed JSON: ${(e as Error).message}` });
      }
      index++;
    }
    return { rows, lines, malformed, indexes };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InferlensError('invalid_argument', `body is not valid JSON: ${(e as Error).message}`);
  }
  const rows = Array.isArray(value) ? value : [value];
  return { rows, malformed: [], indexes: rows.map((_, i) => i) };
}
