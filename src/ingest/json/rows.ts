/**
 * JSON bodies → rows. `application/x-ndjson` is one JSON value per line (blank lines skipped);
 * `application/json` is an array of rows or a single row. A line that is not JSON becomes a
 * rejected row with its index; the other lines go on. A JSON array that is not valid JSON is
 * refused as a whole (400).
 *
 * Bounded work: the body is parsed row by row with a turn of the event loop every ~1 Mi
 * characters or 2,000 rows (a 16 MiB array parsed in one `JSON.parse` held the loop ~130–240 ms),
 * and a row longer than `MAX_ROW_CHARS` is rejected without being parsed (no valid row is that
 * long: two captured texts of 64 Ki characters, escaped, are ~0.8 MB; DuckDB's reader stops at
 * 1 MiB per row too).
 */
import { CHARS_PER_SLICE, ROWS_PER_SLICE, yieldToLoop } from '../../pipeline/index.ts';
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

/** Longest row parsed, in characters (1 Mi). */
export const MAX_ROW_CHARS = 1 << 20;
const TOO_LONG = `row longer than ${MAX_ROW_CHARS} characters: no valid row is that long`;

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

/** The body as text, without a leading byte-order mark (some Windows tools write one). */
function bodyText(body: Buffer): string {
  const text = body.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

const isBlank = (s: string): boolean => /^[ \t\r]*$/.test(s);

export async function parseRows(body: Buffer, contentType: string | null | undefined): Promise<ParsedRows> {
  const text = bodyText(body);
  return isNdjson(contentType, body) ? parseNdjsonText(text) : parseJson(text);
}

/** NDJSON text → rows, a slice at a time. */
export async function parseNdjsonText(text: string): Promise<ParsedRows> {
  const rows: unknown[] = [];
  const lines: string[] = [];
  const indexes: number[] = [];
  const malformed: RowIssue[] = [];
  let index = 0;
  let sliceStart = 0;
  let sliceRows = 0;
  for (let start = 0; start < text.length;) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const next = end + 1;
    if (end > start && text.charCodeAt(end - 1) === 0x0d) end--;
    if (end - start > MAX_ROW_CHARS) {
      malformed.push({ index: index++, path: '', message: TOO_LONG });
    } else if (end > start) {
      const line = text.slice(start, end);
      if (!isBlank(line)) {
        try {
          rows.push(JSON.parse(line));
          lines.push(line);
          indexes.push(index);
        } catch (e) {
          malformed.push({ index, path: '', message: `malformed JSON: ${(e as Error).message}` });
        }
        index++;
        sliceRows++;
      }
    }
    start = next;
    if (start - sliceStart >= CHARS_PER_SLICE || sliceRows >= ROWS_PER_SLICE) {
      sliceStart = start;
      sliceRows = 0;
      await yieldToLoop();
    }
  }
  return { rows, lines, malformed, indexes };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const WS = /^[ \t\r\n]*$/;

/** A JSON body: an array of rows, parsed element by element, or one row. */
async function parseJson(text: string): Promise<ParsedRows> {
  const notJson = (why: string) => new InferlensError('invalid_argument', `body is not valid JSON: ${why}`);
  const open = text.search(/\S/);
  if (open < 0 || text.charCodeAt(open) !== 0x5b /* [ */) {
    if (text.length > MAX_ROW_CHARS) return { rows: [], malformed: [{ index: 0, path: '', message: TOO_LONG }], indexes: [] };
    try {
      return { rows: [JSON.parse(text)], malformed: [], indexes: [0] };
    } catch (e) {
      throw notJson((e as Error).message);
    }
  }
  const rows: unknown[] = [];
  const indexes: number[] = [];
  const malformed: RowIssue[] = [];
  let index = 0;
  let sliceStart = open;
  let sliceRows = 0;
  let depth = 0;
  let elementStart = open + 1;
  let closed = -1;
  const element = async (end: number, last: boolean) => {
    const raw = text.slice(elementStart, end);
    if (last && index === 0 && WS.test(raw)) return; // []
    if (raw.length > MAX_ROW_CHARS) {
      malformed.push({ index: index++, path: '', message: TOO_LONG });
    } else {
      try {
        rows.push(JSON.parse(raw));
      } catch (e) {
        throw notJson(`element ${index}: ${(e as Error).message}`);
      }
      indexes.push(index++);
    }
    sliceRows++;
    if (end - sliceStart >= CHARS_PER_SLICE || sliceRows >= ROWS_PER_SLICE) {
      sliceStart = end;
      sliceRows = 0;
      await yieldToLoop();
    }
  };
  // Finds the top-level elements: commas and the closing bracket outside strings and nested values.
  for (let i = open + 1; i < text.length && closed < 0; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      for (;;) {
        j = text.indexOf('"', j);
        if (j < 0) throw notJson('a string is not closed');
        let backslashes = 0;
        while (text.charCodeAt(j - 1 - backslashes) === BACKSLASH) backslashes++;
        if (backslashes % 2 === 0) break;
        j++;
      }
      i = j;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) depth++;
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (depth > 0) depth--;
      else if (c === 0x5d) {
        await element(i, true);
        closed = i;
      } else throw notJson(`unexpected "}" at position ${i}`);
    } else if (c === 0x2c /* , */ && depth === 0) {
      await element(i, false);
      elementStart = i + 1;
    }
  }
  if (closed < 0) throw notJson('the array is not closed');
  if (!WS.test(text.slice(closed + 1))) throw notJson(`unexpected text after the array at position ${closed + 1}`);
  return { rows, malformed, indexes };
}
