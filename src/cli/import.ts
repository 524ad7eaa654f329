/** `inferlens import <file.ndjson[.gz]>`: streams a file to the ingest API in batches with a progress bar. */
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import cliProgress from 'cli-progress';

export interface ImportOptions {
  url: string;
  batchRows: number;
  apiKey?: string;
  quiet?: boolean;
}

export interface ImportResult {
  accepted: number;
  rejected: number;
  batches: number;
}

async function post(url: string, lines: string[], apiKey?: string): Promise<{ accepted: number; rejected: unknown[] }> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/v1/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
      body: lines.join('\n'),
    });
    if ((res.status === 429 || res.status === 503) && attempt < 20) {
      const wait = Number(res.headers.get('retry-after') ?? 1) * 1000;
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    const body = (await res.json()) as { accepted?: number; rejected?: unknown[]; error?: string };
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
  const bar = o.quiet ? undefined : new cliProgress.SingleBar({ format: 'import [{bar}] {percentage}% | {value}/{total} bytes | {accepted} accepted, {rejected} rejected', hideCursor: true }, cliProgress.Presets.shades_classic);
  bar?.start(total, 0, { accepted: 0, rejected: 0 });
  const result: ImportResult = { accepted: 0, rejected: 0, batches: 0 };
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const r = await post(o.url, batch, o.apiKey);
    result.accepted += r.accepted;
    result.rejected += r.rejected.length;
    result.batches++;
    batch = [];
    bar?.update(read, { accepted: result.accepted, rejected: result.rejected });
  };
  for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    batch.push(line);
    if (batch.length >= o.batchRows) await flush();
  }
  await flush();
  bar?.update(total, { accepted: result.accepted, rejected: result.rejected });
  bar?.stop();
  return result;
}
