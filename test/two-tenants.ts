// A server with data of two tenants (acme, globex) and an alert rule per tenant, at a fixed time,
// and a valid request for every read route: what route-matrix, hostile-read and the e2e attack use.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { expect } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import type { ConfigInput } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer, ServerOptions } from '../src/main.ts';

export const NOW = Date.parse('2026-03-02T10:00:00Z');
export const iso = (ms: number) => new Date(ms).toISOString();
/** The last hour up to a minute past NOW. */
export const W = { from: iso(NOW - 3_600_000), to: iso(NOW + 60_000) };
export const TENANTS = ['acme', 'globex'] as const;

/** One rule group (30 s interval) holding `rule` (YAML of one rule, unindented), written to `<dir>/rules.yaml`. */
export function ruleFile(dir: string, rule: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'rules.yaml');
  writeFileSync(
    file,
    `groups:\n  - name: g\n    interval: 30s\n    rules:\n${rule
      .trim()
      .split('\n')
      .map((l, i) => `${i === 0 ? '      - ' : '        '}${l}`)
      .join('\n')}\n`,
  );
  return file;
}

/** Fires per model and tenant when more than 10 % of 5+ requests in 10 minutes fail; proposes a rate limit. */
export const TENANT_ERRORS_RULE = `alert: TenantErrors
condition: { kind: threshold, measure: error_rate, window: 10m, by: [model, tenant], op: '>', value: 0.1, min_count: 5 }
for: 0s
severity: warning
action: { type: rate_limit, params: { tenant: '{{ $labels.tenant }}' } }`;

/** 60 requests per tenant over the 20 minutes before NOW, a third failing; each tenant its own model, replica and ids. */
export function tenantEvents(): Record<string, unknown>[] {
  return TENANTS.flatMap((t) =>
    Array.from({ length: 60 }, (_, i) => ({
      ts: NOW - 20 * 60_000 + i * 20_000,
      request_id: `${t[0]}-${i}`,
      model: `${t}-model`,
      model_version: i % 2 ? 'v2' : 'v1',
      tenant: t,
      replica: `${t}-r1`,
      queue_ms: 1 + (i % 3),
      exec_ms: 15 + (i % 5),
      total_ms: 20 + (i % 7),
      status: i % 3 === 0 ? 'error' : 'ok',
      ...(i % 3 === 0 ? { error_type: 'internal' } : {}),
      label: i % 2 ? 'spam' : 'ham',
      confidence: 0.5 + (i % 5) / 10,
      input: `a question from ${t}`,
      output: 'an answer',
    })),
  );
}

export interface TenantServerOptions {
  server?: ConfigInput['server'];
  options?: ServerOptions;
  /** Sent with the seeding request (a keyed server). */
  key?: string;
  /** Default TENANT_ERRORS_RULE. */
  rule?: string;
  /** Action endpoints (actions wait for approval). */
  endpoints?: NonNullable<NonNullable<ConfigInput['alerting']>['actions']>['endpoints'];
  /** Default tenantEvents(). */
  events?: Record<string, unknown>[];
}

/** Starts inferlens on `<dir>/data` at NOW with one rule, seeds the events and evaluates the rule once. */
export async function startTenantServer(dir: string, o: TenantServerOptions = {}): Promise<InferlensServer> {
  const config = loadConfig({
    env: {},
    flags: {
      server: { port: 0, ...o.server },
      storage: { dataDir: join(dir, 'data') },
      alerting: {
        defaultRules: false,
        ruleFiles: [ruleFile(dir, o.rule ?? TENANT_ERRORS_RULE)],
        actions: { mode: 'approval', ...(o.endpoints ? { endpoints: o.endpoints } : {}) },
      },
      log: { level: 'silent' },
    },
  });
  const server = await startServer(config, { logger: pino({ level: 'silent' }), now: () => NOW, collectors: false, ui: false, ...o.options });
  const res = await fetch(`${server.url}/v1/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-ndjson', ...(o.key ? { authorization: `Bearer ${o.key}` } : {}) },
    body: (o.events ?? tenantEvents()).map((e) => JSON.stringify(e)).join('\n'),
  });
  expect(res.status).toBe(200);
  await server.alerting!.evaluateAt(NOW);
  return server;
}

/** A valid request for every read route: `METHOD path` → the path to call (params filled in) and a POST's JSON body. */
export interface ReadSample {
  path: string;
  body?: Record<string, unknown>;
}

export function readSamples(w: { from: string; to: string }): Record<string, ReadSample> {
  return {
    'GET /v1/requests/:id': { path: '/v1/requests/g-3' },
    'GET /v1/labels/:dimension': { path: '/v1/labels/tenant' },
    'POST /v1/query': { path: '/v1/query', body: { ...w, group_by: ['tenant', 'model'], measures: ['count', 'error_rate'] } },
    'POST /v1/events/search': { path: '/v1/events/search', body: { ...w, limit: 500 } },
    'POST /v1/histogram': { path: '/v1/histogram', body: { ...w } },
    'POST /v1/analysis/errors': { path: '/v1/analysis/errors', body: { ...w, min_support: 1 } },
    'POST /v1/analysis/stages': { path: '/v1/analysis/stages', body: { ...w } },
    'POST /v1/analysis/saturation': { path: '/v1/analysis/saturation', body: { ...w } },
    'POST /v1/resources/query': { path: '/v1/resources/query', body: { ...w, metrics: ['gpu_utilization_ratio'], group_by: ['node'] } },
    'POST /v1/resources/quantiles': { path: '/v1/resources/quantiles', body: { ...w, metric: 'ttft_seconds', group_by: ['labels.model'] } },
    'GET /v1/scrape/targets': { path: '/v1/scrape/targets' },
    'POST /v1/analysis/capacity': { path: '/v1/analysis/capacity', body: { ...w } },
    'GET /v1/audit': { path: '/v1/audit' },
    'POST /v1/compare': {
      path: '/v1/compare',
      body: { ...w, baseline: { filters: { model_version: 'v1' } }, candidate: { filters: { model_version: 'v2' } }, min_requests: 1 },
    },
    'POST /v1/samples/search': { path: '/v1/samples/search', body: { ...w, limit: 1000 } },
    'POST /v1/cost': { path: '/v1/cost', body: { ...w, step: '10m' } },
    'GET /v1/reports': { path: '/v1/reports?period=1h' },
    'POST /v1/quality/summary': { path: '/v1/quality/summary', body: { ...w, group_by: ['tenant'] } },
    'POST /v1/quality/drift': { path: '/v1/quality/drift', body: { ...w } },
    'POST /v1/quality/feedback': { path: '/v1/quality/feedback', body: { ...w, group_by: ['tenant'] } },
    'GET /v1/golden/sets': { path: '/v1/golden/sets' },
    'GET /v1/golden/results': { path: `/v1/golden/results?from=${w.from}&to=${w.to}` },
    'GET /v1/alerts': { path: '/v1/alerts' },
    'GET /v1/incidents': { path: '/v1/incidents' },
    'GET /v1/silences': { path: '/v1/silences' },
    'GET /v1/actions': { path: '/v1/actions' },
    'GET /v1/rules': { path: '/v1/rules' },
  };
}
