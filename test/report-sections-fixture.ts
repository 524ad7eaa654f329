// The rows and server behind test/report-sections.test.ts and e2e/report-html.test.ts: the hour
// before NOW against the hour before that, every figure computed by hand in the former.
import { join } from 'node:path';
import pino from 'pino';
import { expect } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer, ServerOptions } from '../src/main.ts';

export const NOW = Date.parse('2026-11-30T12:00:00Z');
export const H = 3_600_000;

/**
 * Each hour, 100 requests per (version, tenant) at 10 s apart from 1 min into the hour:
 * current hour — m v1 t1: 100 ms, 1 error; m v1 t2: 100 ms, 30 errors; m v2 t1: 250 + i ms
 *   (250 … 349), 2 errors, confidence 0.500 + 0.001 i; v1's confidence 0.9;
 * previous hour — every slice at 100 ms with 1 error; v2's confidence 0.9 + 0.0005 i.
 * Golden probes (set g, sample s1), 10 per version and hour: v1 all pass; v2 10 of 10 before, 6 of 10 now.
 */
export function sectionRows(): unknown[] {
  const out: unknown[] = [];
  for (const [hourStart, current] of [
    [NOW - 2 * H, false],
    [NOW - H, true],
  ] as const) {
    for (let i = 0; i < 100; i++) {
      const ts = hourStart + 60_000 + i * 10_000;
      const base = { ts, model: 'm', label: 'ham' };
      out.push({ ...base, model_version: 'v1', tenant: 't1', total_ms: 100, confidence: 0.9, status: i === 0 ? 'error' : 'ok' });
      out.push({ ...base, model_version: 'v1', tenant: 't2', total_ms: 100, confidence: 0.9, status: i < (current ? 30 : 1) ? 'error' : 'ok' });
      out.push({
        ...base,
        model_version: 'v2',
        tenant: 't1',
        total_ms: current ? 250 + i : 100,
        confidence: current ? 0.5 + 0.001 * i : 0.9 + 0.0005 * i,
        status: i < (current ? 2 : 1) ? 'error' : 'ok',
      });
    }
    for (let i = 0; i < 10; i++) {
      const probe = (v: string, pass: boolean) => ({
        ts: hourStart + 120_000 + i * 60_000,
        model: 'm',
        model_version: v,
        probe: true,
        total_ms: 50,
        status: 'ok',
        attributes: { golden_set: 'g', golden_id: 's1', golden_pass: String(pass) },
      });
      out.push(probe('v1', true), probe('v2', current ? i < 6 : true));
    }
  }
  return out;
}

/** A server at NOW on `<dir>/data` (alerting off) with the rows. */
export async function startSectionsServer(dir: string, options: Partial<ServerOptions> = {}): Promise<InferlensServer> {
  const server = await startServer(
    loadConfig({ env: {}, flags: { server: { port: 0 }, storage: { dataDir: join(dir, 'data') }, alerting: { enabled: false }, log: { level: 'silent' } } }),
    { logger: pino({ level: 'silent' }), now: () => NOW, collectors: false, ui: false, ...options },
  );
  await postSectionRows(server.url);
  return server;
}

/** Posts the rows to a server's event intake. */
export async function postSectionRows(url: string): Promise<void> {
  const res = await fetch(`${url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson' },
    body: sectionRows()
      .map((x) => JSON.stringify(x))
      .join('\n'),
  });
  expect(res.status).toBe(200);
}
