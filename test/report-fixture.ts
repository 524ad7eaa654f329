// The rows, rule and server behind test/report.test.ts and e2e/review.test.ts: the hour before NOW
// against the hour before that, every figure computed by hand in those tests.
import { join } from 'node:path';
import pino from 'pino';
import { expect } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer, ServerOptions } from '../src/main.ts';
import { ruleFile } from './two-tenants.ts';

export const NOW = Date.parse('2026-11-30T12:00:00Z');
export const H = 3_600_000;
export const MIN = 60_000;
const GiB = 1024 ** 3;

/**
 * Previous hour: m v1 takes 10 requests at 10:30, total_ms 10, 20, …, 100, one an error, on node n1
 * (exec 5 ms each). Current hour: m v1 10 requests at 11:30, total_ms 20, 40, …, 200, no error, on
 * n1; m v2 4 requests at 11:45, total_ms 70–100, two errors, no node.
 * GPU n1/0 (pool a100, 3.60 per hour): previous 10:30 at 40 %; current 11:30 at 90 % and 11:31 at
 * 50 %, 60 of 80 GiB used.
 */
export function reportRows(): { events: unknown[]; resources: unknown[] } {
  const events: unknown[] = [];
  for (let i = 0; i < 10; i++) {
    events.push({
      ts: NOW - 1.5 * H + i * 3000,
      model: 'm',
      model_version: 'v1',
      node: 'n1',
      total_ms: (i + 1) * 10,
      exec_ms: 5,
      status: i === 0 ? 'error' : 'ok',
    });
    events.push({ ts: NOW - 0.5 * H + i * 3000, model: 'm', model_version: 'v1', node: 'n1', total_ms: (i + 1) * 20, exec_ms: 5, status: 'ok' });
  }
  for (let i = 0; i < 4; i++)
    events.push({ ts: NOW - 0.25 * H + i * 1000, model: 'm', model_version: 'v2', total_ms: 70 + i * 10, status: i < 2 ? 'error' : 'ok' });
  const gpu = (ts: number, metric: string, value: number) => ({ ts, node: 'n1', gpu: '0', pool: 'a100', metric, value });
  const resources = [
    gpu(NOW - 1.5 * H + 30_000, 'gpu_utilization_ratio', 0.4),
    gpu(NOW - 0.5 * H + 30_000, 'gpu_utilization_ratio', 0.9),
    gpu(NOW - 0.5 * H + MIN + 30_000, 'gpu_utilization_ratio', 0.5),
    gpu(NOW - 0.5 * H + 30_000, 'gpu_memory_used_bytes', 60 * GiB),
    gpu(NOW - 0.5 * H + 30_000, 'gpu_memory_total_bytes', 80 * GiB),
  ];
  return { events, resources };
}

/** Fires on v2's errors (2 of 4 in the hour before NOW) when evaluated at NOW. */
/** Sends the fixture's events and resource samples to a running server. */
export async function postReportRows(url: string): Promise<void> {
  const { events, resources } = reportRows();
  for (const [p, list] of [
    ['/v1/events', events],
    ['/v1/resources', resources],
  ] as const) {
    const res = await fetch(url + p, {
      method: 'POST',
      headers: { 'content-type': 'application/x-ndjson' },
      body: list.map((r) => JSON.stringify(r)).join('\n'),
    });
    expect(res.status).toBe(200);
  }
}

export const VERSION_ERRORS_RULE = `alert: VersionErrors
condition: { kind: threshold, measure: error_rate, window: 1h, by: [model, model_version], op: '>', value: 0.3, min_count: 2 }
for: 0s
severity: warning`;

/** A server at NOW on `<dir>/data` with the rule, the GPU price (a100 at 3.60 an hour) and the rows, evaluated once at NOW. */
export async function startReportServer(dir: string, options: Partial<ServerOptions> = {}): Promise<InferlensServer> {
  const server = await startServer(
    loadConfig({
      env: {},
      flags: {
        server: { port: 0 },
        storage: { dataDir: join(dir, 'data') },
        alerting: { defaultRules: false, ruleFiles: [ruleFile(dir, VERSION_ERRORS_RULE)] },
        cost: { gpuHour: [{ pool: 'a100', price: 3.6 }] },
        log: { level: 'silent' },
      },
    }),
    { logger: pino({ level: 'silent' }), now: () => NOW, collectors: false, ui: false, ...options },
  );
  await postReportRows(server.url);
  // One evaluation at NOW: v2's 2 errors in 4 requests (50 %) fire VersionErrors.
  await server.alerting!.evaluateAt(NOW);
  return server;
}
