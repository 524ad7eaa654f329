// The incident log: incidents, their alerts, actions (proposed, approved, sent, failed, rejected)
// and silences are written to a DuckDB file as the alerting component runs on a manual clock over
// real stored events, read back by `GET /v1/incidents?from&to` with their timelines, and still
// there after the store and the alerting component are closed and opened again (a restart).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAlerting, createManualClock, parseRuleText } from '../src/alerting/index.ts';
import type { Alerting } from '../src/alerting/index.ts';
import type { IncidentHistoryWireReply as IncidentHistoryReply } from '../src/schema/index.ts';
import { alertRoutes, createKeyring, generateKey } from '../src/api/index.ts';
import { testApi } from '../src/api/api.test-support.ts';
import { typedReads } from '../src/query/index.ts';
import { createDuckDBStore } from '../src/store/duckdb/duckdb-store.ts';
import type { Store } from '../src/store/index.ts';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const { groups } = parseRuleText(
  `groups:
  - name: g
    interval: 10s
    rules:
      - alert: Slow
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [replica, tenant], op: '>', value: 500 }
        for: 30s
        severity: critical
        action: { type: switch_route, params: { replica: '{{ $labels.replica }}' } }
`,
  'r.yaml',
);
const acmeKey = generateKey({ name: 'acme reader', role: 'read', tenants: ['acme'], nowMs: T0 });
const readKey = generateKey({ name: 'reader', role: 'read', tenants: null, nowMs: T0 });

let dir: string;
let store: Store;
let alerting: Alerting;
let clock: ReturnType<typeof createManualClock>;

function start(s: Store, atMs: number): { alerting: Alerting; api: ReturnType<typeof testApi> } {
  clock = createManualClock(atMs);
  const a = createAlerting({
    groups,
    reads: typedReads(s),
    clock,
    groupBy: ['tenant'],
    groupWaitMs: 0,
    groupIntervalMs: 60_000,
    // Nothing listens on port 9: an approved action is sent and fails.
    actions: { mode: 'approval', url: 'http://127.0.0.1:9/actions' },
    incidentLog: s,
  });
  const api = testApi({ routes: [alertRoutes({ alerting: a })], keyring: createKeyring({ keys: [acmeKey.record, readKey.record] }), now: () => clock.now() });
  return { alerting: a, api };
}

async function tick(to: number): Promise<void> {
  while (clock.now() < to) {
    clock.advance(10_000);
    await alerting.settled();
  }
}

async function history(api: ReturnType<typeof testApi>, key = readKey.key): Promise<IncidentHistoryReply> {
  const res = await api.app.request(`/v1/incidents?from=${iso(T0 - 3_600_000)}&to=${iso(T0 + 3_600_000)}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: IncidentHistoryReply }).data;
}

const kinds = (h: IncidentHistoryReply, tenant: string) =>
  h.incidents.filter((i) => i.group_labels['tenant'] === tenant).map((i) => i.timeline.map((t) => t.kind));

describe('the incident log', () => {
  let api: ReturnType<typeof testApi>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inferlens-incident-log-'));
    store = await createDuckDBStore({ path: join(dir, 'inferlens.duckdb') });
    await store.migrate();
    // Four minutes of slow requests: acme on r1 (P99 900 ms), globex on r2 (800 ms).
    const rows = Array.from({ length: 40 }, (_, i) =>
      JSON.stringify({
        ts: T0 - 240_000 + i * 6_000,
        model: 'm',
        tenant: i % 2 ? 'globex' : 'acme',
        replica: i % 2 ? 'r2' : 'r1',
        total_ms: i % 2 ? 800 : 900,
        status: 'ok',
      }),
    );
    await store.appendEvents(rows);
    ({ alerting, api } = start(store, T0));
    alerting.start();
    // Pending at +10 s, firing at +40 s (for: 30s): one incident per tenant, each proposing a switch_route.
    await tick(T0 + 50_000);
    const actions = alerting.actions.list();
    expect(actions.map((a) => [a.alert.labels['tenant'], a.state])).toEqual([
      ['globex', 'awaiting_approval'],
      ['acme', 'awaiting_approval'],
    ]);
    alerting.actions.approve(actions.find((a) => a.alert.labels['tenant'] === 'acme')!.id, 'ops (k1)');
    await alerting.actions.idle();
    alerting.actions.reject(actions.find((a) => a.alert.labels['tenant'] === 'globex')!.id, 'ops (k1)', 'not this one');
    // A silence on globex mutes its alert (it leaves its incident, which then resolves), then is expired.
    const silence = alerting.silences.create({
      matchers: [{ name: 'tenant', value: 'globex', isRegex: false, isEqual: true }],
      duration_s: 3600,
      comment: 'known',
      createdBy: 'ops (k1)',
    });
    await tick(T0 + 120_000);
    alerting.silences.expire(silence.id);
    // The requests age out of the 5-minute window at +5 min: the alerts resolve, then their incidents.
    await tick(T0 + 7 * 60_000);
  }, 60_000);

  afterAll(async () => {
    await alerting?.stop(1000);
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists each incident with its alerts, actions and timeline, in order', async () => {
    const h = await history(api);
    expect(kinds(h, 'acme')).toEqual([
      ['opened', 'alert_firing', 'action_proposed', 'notified', 'action_approved', 'action_sent', 'action_failed', 'alert_resolved', 'notified', 'resolved'],
    ]);
    const acme = h.incidents.find((i) => i.group_labels['tenant'] === 'acme')!;
    expect(acme).toMatchObject({ status: 'resolved', tier: 'page', opened_at: iso(T0 + 40_000), notifications: 2 });
    expect(acme.alerts).toEqual([
      expect.objectContaining({
        alertname: 'Slow',
        severity: 'critical',
        first_firing_at: iso(T0 + 40_000),
        value: 900,
        labels: expect.objectContaining({ tenant: 'acme', replica: 'r1' }),
      }),
    ]);
    expect(acme.actions).toEqual([expect.objectContaining({ action: 'switch_route', state: 'failed', by: 'ops (k1)', proposed_at: iso(T0 + 40_000) })]);
    // globex: muted by the silence (its incident resolves), back when the silence expired.
    const globex = kinds(h, 'globex');
    expect(globex[1]).toEqual(['opened', 'alert_firing', 'action_proposed', 'notified', 'action_rejected', 'alert_left', 'resolved']);
    expect(globex[0]!.slice(0, 2)).toEqual(['opened', 'alert_firing']);
    expect(h.silences).toEqual([
      expect.objectContaining({
        createdBy: 'ops (k1)',
        comment: 'known',
        matchers: ['tenant="globex"'],
        tenant: 'globex',
        createdAt: iso(T0 + 50_000),
        expiredAt: iso(T0 + 120_000),
      }),
    ]);
  });

  it('survives a restart: the same incidents from the file, after the store and alerting are opened again', async () => {
    const before = await history(api);
    await alerting.stop(1000);
    await store.close();
    store = await createDuckDBStore({ path: join(dir, 'inferlens.duckdb') });
    await store.migrate();
    ({ alerting, api } = start(store, T0 + 8 * 60_000));
    const after = await history(api);
    expect(after.incidents.map((i) => [i.id, i.status, i.timeline.length])).toEqual(before.incidents.map((i) => [i.id, i.status, i.timeline.length]));
    expect(after.incidents.length).toBe(3);
    expect(after.silences).toEqual(before.silences);
  });

  it("shows a tenant-scoped key only its tenant's incidents, steps and silences", async () => {
    const h = await history(api, acmeKey.key);
    expect(h.incidents.map((i) => i.group_labels['tenant'])).toEqual(['acme']);
    expect(JSON.stringify(h)).not.toContain('globex');
    expect(h.silences).toEqual([]);
  });

  it('asks for both ends of the window', async () => {
    const res = await api.app.request(`/v1/incidents?from=${iso(T0)}`, { headers: { authorization: `Bearer ${readKey.key}` } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('give both from and to');
  });
});
