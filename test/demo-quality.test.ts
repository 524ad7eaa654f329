// The demo's result quality end to end: inferlens on a temp store, the real service with its golden
// probes (v1 and v2, every 4 s), live traffic at a 120 req/s daily mean, feedback with short delays
// (every answer reviewed), and a compressed scenario: 30 s quiet, 15 s input drift, 8 s gap, 15 s
// canary regression. The public quality API must show:
// - input drift: POST /v1/quality/drift on v2's confidence (current = the incident, reference =
//   the same length before) says drift; the same query on the quiet window before it does not;
// - the canary regression: POST /v1/quality/feedback by model_version has v2's correct_rate (hit
//   rate) below v1's over the incident;
// - golden probes: GET /v1/golden/results reports a pass rate per version; v1 passes every call,
//   v2 every call before the regression and fewer during it (15 % of its labels flipped);
// - probe calls are not user traffic: the service tags its own events of them probe: true.
//
// Why 120 req/s: at 50, v2 had 54–76 rows a side and two CI runs of 2026-12-02 failed by chance — the
// incident at D 0.28, p 0.0066 (its D varies with how the 15 s fall) and, under an older check, a quiet
// window; at 120 (179–187 rows a side) the incident read D 0.40, p 2e-13, the quiet window D 0.07, p 0.79.
//
// Measured at 50 req/s (2 cores, 2 logged runs of 4 green): v2 confidence KS D 0.48 / 0.49, p 3e-7 / 2e-6 on
// 54–68 rows per side during the drift; quiet window D 0.12 / 0.16, p 0.71 / 0.46; hit rate v1
// 0.990 / 0.992 (~600–700 reviews), v2 0.89 / 0.91 (85–100); golden v2 70/80 = 0.875 during the
// regression, 260/260 before; v1 always 1.0; 720 service probe events, none in user statistics.
//
// What is not asserted, and why:
// - the quiet window's verdict at the endpoint's α = 0.05: under no drift a KS test says "drift" in
//   5 % of quiet windows, so that assertion would fail one run in twenty. The test asserts instead
//   that the quiet window's p-value is above 0.001 (no drift at α = 0.001; D below ~0.2 at these
//   sizes), and that the incident's p-value is below 0.001 as well as its verdict "drift".
// - label drift: the drifted messages are ham that looks like marketing, and v2 still calls them
//   ham with lower confidence, so the label share does not move (two-proportion z, p ≈ 0.99);
//   nothing is asserted on it. On all versions together the confidence shift is not significant
//   either (v1, naive Bayes, stays overconfident), so the drift query is on v2.
// - the hour it runs at: the rate curve is pinned flat (no daily cycle, no bursts; ±15 % noise), so
//   the sample sizes asserted below do not depend on the wall-clock hour (they did: at the daily
//   trough, 03:00 UTC, the quiet window's v2 sample came close to the 30 asserted).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemo } from '../demo/main.ts';
import type { Demo } from '../demo/main.ts';
import type { GroundTruthIncident } from '../demo/scenario/index.ts';
import type { FeedbackRowReply, FieldDriftReply, GoldenVersionReply } from '../src/schema/index.ts';

const DURATION_MS = 15_000;
const WARMUP_MS = 2 * DURATION_MS;
const GAP_MS = 8_000;
const TAIL_MS = 4_000;
const PROBE_INTERVAL_MS = 4_000;
let demo: Demo;
let dir: string;
let drift: GroundTruthIncident;
let regression: GroundTruthIncident;
let startedMs: number;
let endMs: number;

type DriftField = FieldDriftReply;
type FeedbackRow = FeedbackRowReply;
type VersionResult = GoldenVersionReply;

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${demo.url}${path}`, {
    method,
    ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const reply = (await res.json()) as { status: string; data?: T; error?: string };
  expect(reply.status, `${path}: ${reply.error ?? ''}`).toBe('success');
  return reply.data as T;
}
const iso = (ms: number) => new Date(ms).toISOString();
const span = (i: GroundTruthIncident) => ({ fromMs: Date.parse(i.start ?? ''), toMs: Date.parse(i.end ?? '') });

async function driftOf(fromMs: number, toMs: number, field: 'confidence' | 'label', version?: string): Promise<DriftField> {
  const reply = await call<{ fields: DriftField[] }>('POST', '/v1/quality/drift', {
    from: iso(fromMs),
    to: iso(toMs),
    filters: { model: 'spam-filter', ...(version && { model_version: version }) },
    reference: { kind: 'previous' },
    fields: [field],
  });
  return reply.fields[0] as DriftField;
}
async function golden(fromMs: number, toMs: number): Promise<Map<string, VersionResult>> {
  const r = await call<{ versions: VersionResult[] }>(
    'GET',
    `/v1/golden/results?from=${encodeURIComponent(iso(fromMs))}&to=${encodeURIComponent(iso(toMs))}&model=spam-filter`,
  );
  return new Map(r.versions.map((v) => [String(v.model_version), v]));
}
const show = (x: unknown) => JSON.stringify(x);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-demo-quality-'));
  startedMs = Date.now();
  demo = await startDemo({
    port: 0,
    data: dir,
    backfill: 'off',
    scenario: 'custom',
    incidents: ['input_drift', 'canary_regression'],
    timing: { warmupMs: WARMUP_MS, durationMs: DURATION_MS, gapMs: GAP_MS },
    ratePerS: 120,
    rateShape: { amplitude: 0, burstsPerDay: 0 },
    ui: false,
    collectors: false,
    probeIntervalMs: PROBE_INTERVAL_MS,
    // Every answer gets a `correct` review, arriving within ~1 s (median 20 s × 0.02 = 0.4 s).
    feedbackPolicy: { reviewShare: 1 },
    feedbackTimeScale: 0.02,
    gpuIntervalMs: 5_000,
    summaryEveryMs: 60_000,
    print: () => undefined,
  });
  await new Promise((r) => setTimeout(r, WARMUP_MS + 2 * DURATION_MS + GAP_MS + TAIL_MS));
  endMs = Date.now();
  const incidents = demo.scenario.groundTruth().incidents;
  drift = incidents.find((i) => i.kind === 'input_drift') as GroundTruthIncident;
  regression = incidents.find((i) => i.kind === 'canary_regression') as GroundTruthIncident;
  await demo.stopLoad();
}, 110_000);

afterAll(async () => {
  await demo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('demo result quality, end to end', () => {
  it('input drift: v2 confidence drifts during the incident and not in a quiet window', async () => {
    const d = span(drift);
    const during = (await driftOf(d.fromMs, d.toMs, 'confidence', 'v2')).test;
    const quiet = (await driftOf(d.fromMs - DURATION_MS, d.fromMs, 'confidence', 'v2')).test;
    const detail = show({ during, quiet });
    expect(during.method, detail).toBe('ks');
    expect(Math.min(during.n_ref, during.n_cur, quiet.n_ref, quiet.n_cur), detail).toBeGreaterThanOrEqual(30);
    expect(during.verdict, detail).toBe('drift');
    expect(during.p_value ?? 1, detail).toBeLessThan(0.001);
    expect(quiet.verdict, detail).not.toBe('not_enough_data');
    // The quiet window is judged by its p-value alone. Its KS statistic against half the incident's
    // is no test: at ~50 answers a side the null statistic's 95th percentile is 1.36 × √(101 / 2550)
    // = 0.27, above half a typical incident's 0.41 (a quiet window at 0.206, p 0.20, failed it).
    expect(quiet.p_value ?? 0, detail).toBeGreaterThan(0.001);
  });

  it('canary regression: v2 hit rate (correct_rate) falls below v1', async () => {
    const r = span(regression);
    const reply = await call<{ rows: FeedbackRow[]; orphans: number }>('POST', '/v1/quality/feedback', {
      from: iso(r.fromMs),
      to: iso(r.toMs),
      filters: { model: 'spam-filter' },
      group_by: ['model_version'],
    });
    const detail = show(reply.rows.map(({ model_version, requests, correct_n, correct_rate }) => ({ model_version, requests, correct_n, correct_rate })));
    const byVersion = new Map(reply.rows.map((x) => [String(x.model_version), x]));
    const v1 = byVersion.get('v1');
    const v2 = byVersion.get('v2');
    expect(v1?.correct_n ?? 0, detail).toBeGreaterThanOrEqual(200);
    expect(v2?.correct_n ?? 0, detail).toBeGreaterThanOrEqual(30);
    expect(v2?.correct_rate ?? 1, detail).toBeLessThan(v1?.correct_rate ?? 0);
  });

  it('golden probes: pass rate per version, v2 fails while the regression flips labels', async () => {
    const r = span(regression);
    // A probe run that straddles the regression's start may see its first flips; leave 1 s out.
    const before = await golden(startedMs, r.fromMs - 1_000);
    const during = await golden(r.fromMs, r.toMs);
    const all = await golden(startedMs, endMs);
    const detail = show({ before: [...before.values()], during: [...during.values()] });
    for (const v of ['v1', 'v2']) {
      expect(before.get(v)?.runs ?? 0, detail).toBeGreaterThanOrEqual(100);
      expect(during.get(v)?.runs ?? 0, detail).toBeGreaterThanOrEqual(40);
      expect(all.get(v)?.errors, detail).toBe(0);
      expect(before.get(v)?.pass_rate, detail).toBe(1);
    }
    expect(all.get('v1')?.pass_rate, detail).toBe(1);
    // 15 % of v2's labels flipped: P(no flip in 40 calls) = 0.85^40 ≈ 0.15 %.
    expect(during.get('v2')?.pass_rate ?? 1, detail).toBeLessThan(1);
    expect(during.get('v1')?.pass_rate, detail).toBe(1);
  });

  it('probe calls are not user traffic: neither the runner nor the service counts them', async () => {
    const range = { from: iso(startedMs), to: iso(endMs), filters: { model: 'spam-filter' }, group_by: ['tenant', 'route_rule'], measures: ['count'] };
    const user = await call<{ rows: Record<string, unknown>[] }>('POST', '/v1/query', range);
    const withProbes = await call<{ rows: Record<string, unknown>[] }>('POST', '/v1/query', { ...range, include_probes: true });
    const probeRows = (rows: Record<string, unknown>[]) => rows.filter((x) => x.route_rule === 'probe' || x.tenant === 'golden-probe' || x.tenant == null);
    const detail = show({ user: probeRows(user.rows), withProbes: probeRows(withProbes.rows) });
    expect(probeRows(user.rows), detail).toEqual([]);
    // The service's own events of the probe calls, tagged probe: true, and the runner's (no tenant).
    const service = withProbes.rows.find((x) => x.tenant === 'golden-probe' && x.route_rule === 'probe');
    const runner = withProbes.rows.find((x) => x.tenant == null);
    expect(service?.count as number, detail).toBeGreaterThanOrEqual(200);
    expect(runner?.count as number, detail).toBeGreaterThanOrEqual(200);
  });
});
