// inferlens's /metrics read by a real Prometheus (Debian's), started on loopback by this test.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';
import { startOwned, stopOwned } from './own-process.ts';

const PROMETHEUS = '/usr/bin/prometheus';
const dir = mkdtempSync(join(tmpdir(), 'inferlens-prom-'));
let server: InferlensServer;
let prom: ChildProcess | undefined;
let promUrl = '';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function promQuery(expr: string): Promise<{ metric: Record<string, string>; value: [number, string] }[]> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
  return body.data.result;
}

beforeAll(async () => {
  if (!existsSync(PROMETHEUS)) return;
  server = await startServer(loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' } } }), {
    logger: pino({ level: 'silent' }),
    collectors: false,
  });
  const target = new URL(server.url).host;
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: inferlens\n    static_configs:\n      - targets: ['${target}']\n`,
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prom = startOwned(PROMETHEUS, [
    `--config.file=${join(dir, 'prometheus.yml')}`,
    `--storage.tsdb.path=${join(dir, 'tsdb')}`,
    `--web.listen-address=127.0.0.1:${port}`,
  ]);
});

afterAll(async () => {
  await stopOwned(prom);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(PROMETHEUS))('a real Prometheus scraping /metrics', () => {
  it('reads per model × version request counts and ingest health back through its HTTP API', async () => {
    const now = Date.now();
    const rows = Array.from({ length: 37 }, (_, i) =>
      JSON.stringify({ ts: now - 1000, model: 'prom-m', model_version: 'v7', total_ms: 20 + i, status: i < 3 ? 'error' : 'ok' }),
    );
    const res = await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: rows.join('\n') });
    expect(res.status).toBe(200);
    let ok: { value: [number, string] }[] = [];
    for (let i = 0; i < 60 && ok.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      ok = await promQuery('inferlens_model_requests_total{model="prom-m",model_version="v7",status="ok"}').catch(() => []);
    }
    expect(ok[0]?.value[1]).toBe('34');
    const errors = await promQuery('inferlens_model_requests_total{model="prom-m",status="error"}');
    expect(errors[0]?.value[1]).toBe('3');
    const count = await promQuery('inferlens_model_request_duration_seconds_count{model="prom-m"}');
    expect(count[0]?.value[1]).toBe('37');
    const accepted = await promQuery('inferlens_ingest_rows_total{kind="event",outcome="accepted"}');
    expect(Number(accepted[0]?.value[1])).toBeGreaterThanOrEqual(37);
    const up = await promQuery('up{job="inferlens"}');
    expect(up[0]?.value[1]).toBe('1');
  });
});
