// The demo end to end: inferlens on a temp store, ten minutes of backfilled history, the real
// service reporting through the SDK, live traffic and a compressed scenario with the slow-replica
// incident; then the public API must show the right versions, tenants, stages and statuses, the
// slow replica's tail, and what README.md promises about it: the slow-request slice finder and the
// stage attribution name the slow replica, the baseline carries client errors, timeouts and
// rate-limited requests, and the drift panel finds no drift against the backfilled history.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_GPU_HOUR_PRICE, demoActionEndpoints, startDemo } from '../demo/main.ts';
import type { CostResult } from '../src/query/index.ts';
import type { ErrorSlicesReply, StagesReply } from '../src/schema/index.ts';
import { ADMIN_ACTIONS } from '../demo/service/admin.ts';
import { ACTION_TYPES } from '../src/alerting/index.ts';
import type { Demo } from '../demo/main.ts';
import type { GroundTruth } from '../demo/scenario/index.ts';
import { createTenants } from '../demo/traffic/index.ts';

const WARMUP_MS = 6_000;
const INCIDENT_MS = 20_000;
const GAP_MS = 6_000;
let demo: Demo;
let dir: string;
let truth: GroundTruth;
let fromMs: number;

async function query(body: Record<string, unknown>): Promise<Record<string, unknown>[]> {
  const res = await fetch(`${demo.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const reply = (await res.json()) as { status: string; data?: { rows: Record<string, unknown>[] }; error?: string };
  expect(reply.status, reply.error).toBe('success');
  return reply.data?.rows ?? [];
}
const iso = (ms: number) => new Date(ms).toISOString();
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-demo-test-'));
  demo = await startDemo({
    port: 0,
    data: dir,
    backfill: '10m',
    scenario: 'custom',
    incidents: ['slow_replica', 'load_spike'],
    timing: { warmupMs: WARMUP_MS, durationMs: INCIDENT_MS, gapMs: GAP_MS },
    ratePerS: 25,
    ui: false,
    collectors: false,
    feedbackTimeScale: 0.05,
    gpuIntervalMs: 1_000,
    summaryEveryMs: 5_000,
    print: () => undefined,
  });
  // Live traffic starts after the history is written. Warm-up, the incident, and a few seconds after it.
  fromMs = Date.now() - 1_000;
  await new Promise((r) => setTimeout(r, WARMUP_MS + 2 * INCIDENT_MS + GAP_MS + 3_000));
  await demo.stopLoad();
  truth = JSON.parse(readFileSync(demo.groundTruthFile, 'utf8')) as GroundTruth;
}, 180_000);

afterAll(async () => {
  await demo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('demo, end to end', () => {
  it('writes the ground truth with the incident, where and when', () => {
    expect(truth.scenario).toBe('custom');
    // The history's own incidents are listed too (source: backfill); two live incidents.
    const live = truth.incidents.filter((x) => x.source === 'live');
    expect(live.map((x) => x.kind)).toEqual(['slow_replica', 'load_spike']);
    const i = live[0];
    expect(i).toMatchObject({ id: 'slow_replica', kind: 'slow_replica', source: 'live', where: { replica: 'replica-1', model: 'spam-filter' } });
    // The plan is the schedule's, exactly: INCIDENT_MS long, WARMUP_MS after the scenario started.
    const plannedStart = Date.parse(i?.planned_start ?? '');
    const plannedEnd = Date.parse(i?.planned_end ?? '');
    expect(plannedStart - Date.parse(truth.started_at)).toBe(WARMUP_MS);
    expect(plannedEnd - plannedStart).toBe(INCIDENT_MS);
    // What happened, in order (how close to plan a transition lands is scenario.test.ts's, on fake
    // timers): it began inside its window and ended no earlier than planned, since the load ran
    // on past the planned end.
    const start = Date.parse(i?.start ?? '');
    const end = Date.parse(i?.end ?? '');
    expect(start).toBeGreaterThanOrEqual(plannedStart);
    expect(start).toBeLessThan(plannedEnd);
    expect(end).toBeGreaterThanOrEqual(plannedEnd);
  });

  it('the query API returns the requests with versions, tenants, stages and statuses', async () => {
    // Up to the load spike (the next test looks at it): a healthy service with a trickle of mistakes.
    const spikeStart = truth.incidents.find((x) => x.source === 'live' && x.kind === 'load_spike')!.start;
    const range = { from: iso(fromMs), to: spikeStart, filters: { model: 'spam-filter' } };
    const byVersion = await query({ ...range, group_by: ['model_version', 'route_rule'], measures: ['count'] });
    const versions = new Map(byVersion.map((r) => [`${String(r.model_version)}/${String(r.route_rule)}`, r.count as number]));
    expect(versions.get('v1/default')).toBeGreaterThan(200);
    // 20 % of acme + globex (≈ 35 % of traffic) and half of wonka go to v2
    expect((versions.get('v2/canary') ?? 0) + (versions.get('v2/pilot') ?? 0)).toBeGreaterThan(10);

    const names = new Set(createTenants().map((t) => t.name));
    const byTenant = await query({ ...range, group_by: ['tenant'], measures: ['count'] });
    expect(byTenant.length).toBeGreaterThan(10);
    // A body that is not JSON names no tenant: tenant null.
    for (const r of byTenant) if (r.tenant !== null) expect(names.has(String(r.tenant)), String(r.tenant)).toBe(true);
    const counts = byTenant.map((r) => r.count as number).sort((a, b) => b - a);
    expect(byTenant.find((r) => r.tenant === 'acme')?.count).toBe(counts[0]);

    const byStatus = await query({ ...range, group_by: ['status'], measures: ['count'] });
    const statuses = new Map(byStatus.map((r) => [String(r.status), r.count as number]));
    const total = [...statuses.values()].reduce((a, b) => a + b, 0);
    expect((statuses.get('ok') ?? 0) / total).toBeGreaterThan(0.9);
    for (const s of statuses.keys()) expect(['ok', 'rate_limited', 'rejected', 'error', 'timeout']).toContain(s);

    const stages = await query({
      ...range,
      filters: { ...range.filters, status: 'ok' },
      measures: ['n', 'p50(ingress_ms)', 'p50(queue_ms)', 'p50(batch_ms)', 'p50(exec_ms)', 'p50(post_ms)', 'p50(total_ms)', 'max(batch_size)'],
    });
    const s = stages[0] ?? {};
    for (const f of ['ingress_ms', 'queue_ms', 'batch_ms', 'exec_ms', 'post_ms', 'total_ms']) expect(typeof s[`p50(${f})`], f).toBe('number');
    expect(s['p50(exec_ms)'] as number).toBeGreaterThan(0);
    expect(s['p50(total_ms)'] as number).toBeGreaterThanOrEqual(s['p50(exec_ms)'] as number);
    expect(s['max(batch_size)'] as number).toBeGreaterThanOrEqual(1);
  });

  it('README: the Cost view prices the simulated GPUs and attributes their time to model, version and tenant', async () => {
    const res = await fetch(`${demo.url}/v1/cost`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: iso(fromMs - 10 * 60_000), to: iso(Date.now()), step: '1m' }),
    });
    const { data } = (await res.json()) as { data: CostResult };
    expect(data).toMatchObject({ priced: true, currency: 'USD', unpriced: [] });
    // Three simulated GPUs, one per replica; each held minute is 2.50 / 60 of money.
    const held = data.nodes.reduce((a, n) => a + n.gpu_seconds, 0);
    expect(data.nodes.reduce((a, n) => a + n.gpus, 0)).toBe(3);
    expect(data.nodes.reduce((a, n) => a + n.cost!, 0)).toBeCloseTo((held / 3600) * DEMO_GPU_HOUR_PRICE, 9);
    // Every held second is attributed or named: the demo's requests carry node, replica and exec_ms.
    const unattributed = data.unattributed.reduce((a, u) => a + u.gpu_seconds, 0);
    expect(data.total.gpu_seconds + unattributed).toBeCloseTo(held, 6);
    expect(data.total.gpu_seconds / held).toBeGreaterThan(0.8);
    expect(data.by_model.map((m) => m.model)).toContain('spam-filter');
    expect(data.by_tenant.length).toBeGreaterThan(10);
    const acme = data.by_tenant.find((t) => t.tenant === 'acme')!;
    expect(acme.cost_per_1k_requests).toBeCloseTo((acme.cost! / acme.requests) * 1000, 9);
  });

  it("the slow replica's median exec_ms during the incident is well above the others'", async () => {
    const i = truth.incidents.find((x) => x.source === 'live' && x.kind === 'slow_replica');
    const rows = await query({
      from: i?.start,
      to: i?.end,
      filters: { model: 'spam-filter', status: 'ok' },
      group_by: ['replica'],
      measures: ['n', 'p50(exec_ms)'],
    });
    const p50 = new Map(rows.map((r) => [String(r.replica), r['p50(exec_ms)'] as number]));
    const others = [...p50].filter(([r]) => r !== 'replica-1').map(([, v]) => v);
    const detail = JSON.stringify(rows);
    expect(
      rows.every((r) => (r.n as number) >= 30),
      detail,
    ).toBe(true);
    // exec ×3 on replica-1. Only the median is asserted: exec takes well under a millisecond, so on a
    // loaded 2-core machine every replica's tail (P99: 5–55 ms seen) is preemption, not the incident;
    // a preempted minority does not move the median. The fixed cost of a sub-millisecond measured
    // call dilutes the ×3: 1.98× its peers' median was seen under a full test run (0.908 against 0.499
    // and 0.418 ms), so 1.5× is asserted; without the incident the three medians sit together.
    expect(others.length, detail).toBe(2);
    expect(p50.get('replica-1') as number, detail).toBeGreaterThan(1.5 * median(others));
  });

  it('README: the slow-request slice finder (on exec_ms) and the stage attribution name the slow replica', async () => {
    const i = truth.incidents.find((x) => x.source === 'live' && x.kind === 'slow_replica')!;
    const post = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(demo.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const reply = (await res.json()) as { status: string; data: T; error?: string };
      expect(reply.status, reply.error).toBe('success');
      return reply.data;
    };
    // Slow = exec above twice the window's median: the slow replica's whole distribution is 3× the
    // others' (its P95 alone is GC noise on a busy 2-core machine).
    const [typical] = await query({ from: i.start, to: i.end, filters: { model: 'spam-filter', status: 'ok' }, measures: ['p50(exec_ms)'] });
    const thresholdMs = 2 * (typical?.['p50(exec_ms)'] as number);
    const slow = await post<ErrorSlicesReply>('/v1/analysis/errors', {
      from: i.start,
      to: i.end,
      filters: { model: 'spam-filter' },
      kind: 'slow',
      field: 'exec_ms',
      threshold_ms: thresholdMs,
    });
    const top = slow.slices.find((x) => x.significant);
    expect(top?.slice, JSON.stringify(slow.slices.slice(0, 3))).toMatchObject({ replica: 'replica-1' });
    const stages = await post<StagesReply>('/v1/analysis/stages', { from: i.start, to: i.end, filters: { model: 'spam-filter' } });
    expect(stages.slow_replica, JSON.stringify(stages.replicas)).toMatchObject({ replica: 'replica-1' });
  });

  it('README: the history carries a trickle of client errors, timeouts and rate-limited requests', async () => {
    const from = iso(fromMs - 10 * 60_000);
    const rows = await query({ from, to: iso(fromMs), filters: { model: 'spam-filter' }, group_by: ['status', 'error_type'], measures: ['count'] });
    const kinds = new Set(rows.map((r) => `${String(r.status)}/${String(r.error_type)}`));
    for (const k of ['ok/null', 'error/bad_input', 'timeout/null', 'rate_limited/null']) expect(kinds, JSON.stringify(rows)).toContain(k);
  });

  it('README: the drift panel finds no drift between live traffic and the backfilled history', async () => {
    const res = await fetch(`${demo.url}/v1/quality/drift`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: iso(fromMs),
        to: iso(Date.now()),
        filters: { model: 'spam-filter', model_version: 'v1' },
        reference: { kind: 'window', from: iso(fromMs - 9 * 60_000), to: iso(fromMs - 60_000) },
      }),
    });
    const data = ((await res.json()) as { data: { fields: { field: string; test: { verdict: string; method: string; statistic: number } }[] } }).data;
    const verdicts = Object.fromEntries(data.fields.map((f) => [f.field, f.test.verdict]));
    expect(verdicts.confidence, JSON.stringify(data.fields)).toBe('no_drift');
    expect(verdicts.label).toBe('no_drift');
    // The demo sends no output_length (a classifier's reply length measured the echoed request id).
    expect(verdicts.output_length).toBe('not_enough_data');
  });

  it('README: every action type a rule can propose is wired to the demo service, scale-out included', () => {
    const endpoints = demoActionEndpoints('http://127.0.0.1:1');
    expect(Object.keys(endpoints).sort()).toEqual([...ACTION_TYPES].sort());
    for (const e of Object.values(endpoints)) expect(ADMIN_ACTIONS).toContain(e.url.replace('http://127.0.0.1:1/admin/', ''));
  });

  it('README: in the load spike the service sheds load with 503 rejects and the saturation analysis flags it', async () => {
    const spike = truth.incidents.find((x) => x.source === 'live' && x.kind === 'load_spike')!;
    // The service answers a full queue with 503 rejected / resource_exhausted (demo/service/service.ts).
    const byStatus = await query({
      from: spike.start,
      to: spike.end,
      filters: { model: 'spam-filter' },
      group_by: ['status', 'error_type'],
      measures: ['count'],
    });
    const counts = new Map(byStatus.map((r) => [`${String(r.status)}/${String(r.error_type)}`, r.count as number]));
    expect(counts.get('rejected/resource_exhausted') ?? 0, JSON.stringify(byStatus)).toBeGreaterThan(0);
    const [rejected] = await query({
      from: spike.start,
      to: spike.end,
      filters: { model: 'spam-filter', status: 'rejected' },
      measures: ['count', 'max(total_ms)'],
    });
    expect(rejected?.count as number).toBeGreaterThan(0);
    // 2 s steps: ten points in the spike, judged against the ten before it.
    const res = await fetch(`${demo.url}/v1/analysis/saturation`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: spike.start, to: spike.end, step: '2s', filters: { model: 'spam-filter' } }),
    });
    const sat = ((await res.json()) as { data: { saturated: boolean; signals: string[]; reasons: string[] } }).data;
    expect(sat.saturated, JSON.stringify(sat.reasons)).toBe(true);
    expect(sat.signals).toContain('shedding');
  });
});
