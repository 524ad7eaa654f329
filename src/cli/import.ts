/** `inferlens import <file.ndjson[.gz]>`: streams a file to the ingest API in batches with a progress bar. */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';
import { serverUnreachable } from './reach.ts';

export interface ImportOptions {
  url: string;
  batchRows: number;
  apiKey?: string;
  quiet?: boolean;
}

export interface ImportResult {
  /** Rows stored. */
  accepted: number;
  /** Rows not stored (a row with three problems counts once). */
  rejected: number;
  batches: number;
  /** Why rows were rejected: one entry per distinct problem, most rows first. */
  reasons: { reason: string; rows: number; firstLine: number }[];
}

interface RowIssue {
  index: number;
  path?: string;
  message?: string;
}

async function post(url: string, lines: string[], apiKey?: string): Promise<{ accepted: number; rejected: RowIssue[] }> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: lines.join('\n'),
    }).catch((e: unknown) => {
      throw serverUnreachable(url, e);
    });
    if ((res.status === 429 || res.status === 503) && attempt < 20) {
      const wait = Number(res.headers.get('retry-after') ?? 1) * 1000;
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    const body = (await res.json()) as { accepted?: number; rejected?: RowIssue[]; error?: string };
    if (res.status === 200 || res.status === 400) return { accepted: body.accepted ?? 0, rejected: body.rejected ?? [] };
    throw new Error(`ingest answered ${res.status}: ${body.error ?? JSON.stringify(body)}`);
  }
}

export async function importFile(file: string, o: ImportOptions): Promise<ImportResult> {
  const total = statSync(file).size;
  const raw = createReadStream(file);
  let read = 0;
  raw.on('data', (c) => (read += c.length));
  const stream: Readable = file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const bar = o.quiet
    ? undefined
    : new cliProgress.SingleBar(
        { format: 'import [{bar}] {percentage}% | {value}/{total} bytes | {accepted} accepted, {rejected} rejected', hideCursor: true },
        cliProgress.Presets.shades_classic,
      );
  bar?.start(total, 0, { accepted: 0, rejected: 0 });
  const result: ImportResult = { accepted: 0, rejected: 0, batches: 0, reasons: [] };
  const reasons = new Map<string, { rows: Set<number>; firstLine: number }>();
  let batch: string[] = [];
  let batchLines: number[] = [];
  let lineNo = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const r = await post(o.url, batch, o.apiKey);
    result.accepted += r.accepted;
    // The reply lists problems, several per row at times: rows not stored = sent − accepted.
    result.rejected += batch.length - r.accepted;
    for (const issue of r.rejected) {
      const key = issue.path ? `${issue.path}: ${issue.message ?? 'invalid'}` : (issue.message ?? 'invalid');
      const line = batchLines[issue.index] ?? 0;
      const entry = reasons.get(key) ?? { rows: new Set<number>(), firstLine: line };
      entry.rows.add(line);
      entry.firstLine = Math.min(entry.firstLine, line);
      reasons.set(key, entry);
    }
    result.batches++;
    batch = [];
    batchLines = [];
    bar?.update(read, { accepted: result.accepted, rejected: result.rejected });
  };
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    lineNo++;
    if (line.trim() === '') continue;
    batch.push(line);
    batchLines.push(lineNo);
    if (batch.length >= o.batchRows) await flush();
  }
  await flush();
  bar?.update(total, { accepted: result.accepted, rejected: result.rejected });
  bar?.stop();
  result.reasons = [...reasons.entries()]
    .map(([reason, e]) => ({ reason, rows: e.rows.size, firstLine: e.firstLine }))
    .sort((a, b) => b.rows - a.rows || a.firstLine - b.firstLine);
  return result;
}

/** Most distinct reasons printed after an import. */
const MAX_REASONS = 10;

/**
 * The import summary: totals, then each reason with its row count and first line.
 * Worked: "imported 1200 events in 3 requests; 2 rows rejected" then
 * "  1 row  line 6: not valid JSON …".
 */
export function printImport(r: ImportResult, out: (line: string) => void): void {
  out(`imported ${r.accepted} events in ${r.batches} requests; ${r.rejected} ${r.rejected === 1 ? 'row' : 'rows'} rejected`);
  for (const x of r.reasons.slice(0, MAX_REASONS))
    out(`  ${x.rows} ${x.rows === 1 ? 'row ' : 'rows'}  line ${x.firstLine}${x.rows > 1 ? ' (first)' : ''}: ${x.reason}`);
  if (r.reasons.length > MAX_REASONS) out(`  … ${r.reasons.length - MAX_REASONS} more reasons`);
}
