import { describe, expect, it } from 'vitest';
import { createAlerting, createManualClock } from '../alerting/index.ts';
import type { TypedReads } from '../query/index.ts';
import { parseRuleText } from '../alerting/index.ts';
import { generateKey, createKeyring } from './keys.ts';
import { alertRoutes } from './alert-routes.ts';
import { testApi } from './api.test-support.ts';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const { groups } = parseRuleText(
  `groups:
  - name: g
    interval: 10s
    rules:
      - alert: Slow
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [replica, tenant], op: '>', value: 500 }
        for: 30s
        severity: warning
        action: { type: switch_route, params: { replica: '{{ $labels.replica }}' } }
`,
  'r.yaml',
);

const JSON_HEADERS = { 'content-type': 'application/json' };

/** Two slow slices: replica r1 of tenant acme, replica r2 of tenant globex. */
async function setup(keys: { role: 'read' | 'operate' | 'admin'; tenants?: string[] }[] = []) {
  const clock = createManualClock(T0);
  const queries = {
    aggregate: async () => [
      { replica: 'r1', tenant: 'acme', 'p99(total_ms)': 900, n: 10 },
      { replica: 'r2', tenant: 'globex', 'p99(total_ms)': 800, n: 10 },
    ],
  } as unknown as TypedReads;
  const alerting = createAlerting({ groups, reads: queries, clock, actions: { mode: 'approval', url: 'http://127.0.0.1:9/unused' } });
  const made = keys.map((k) => generateKey({ name: `${k.role}-${k.tenants?.join('+') ?? 'all'}`, role: k.role, tenants: k.tenants ?? null, nowMs: T0 }));
  const { app, audit } = testApi({ routes: [alertRoutes({ alerting })], keyring: createKeyring({ keys: made.map((m) => m.record) }), now: () => clock.now() });
  alerting.start();
  for (let i = 0; i < 5; i++) {
    clock.advance(10_000);
    await alerting.settled();
  }
  const json = async (path: string, init: RequestInit & { key?: string } = {}) => {
    const { key, ...rest } = init;
    const headers = { ...(rest.headers as Record<string, string> | undefined), ...(key ? { authorization: `Bearer ${key}` } : {}) };
    const res = await app.request(path, { ...rest, headers });
    return { status: res.status, body: (await res.json()) as { status: string; data: never; error?: string; issues?: { path: string }[] } };
  };
  return { alerting, json, audit, keys: made.map((m) => m.key) };
}

describe('alert routes', () => {
  it('GET /v1/alerts, /v1/rules, /v1/incidents', async () => {
    const { json, alerting } = await setup();
    const alerts = await json('/v1/alerts');
    expect(alerts.status).toBe(200);
    expect(alerts.body).toMatchObject({
      status: 'success',
      data: [{ alertname: 'Slow', state: 'firing', severity: 'warning', value: 900, labels: { replica: 'r1' } }, { labels: { replica: 'r2' } }],
    });
    expect((await json('/v1/alerts?state=pending')).body.data).toEqual([]);
    const bogus = await json('/v1/alerts?state=bogus');
    expect(bogus.status).toBe(400);
    expect(bogus.body.issues).toMatchObject([{ path: 'state' }]);
    expect((await json('/v1/alerts?colour=red')).status).toBe(400);
    const rules = await json('/v1/rules');
    expect(rules.body).toMatchObject({ data: { groups: [{ name: 'g', rules: [{ alert: 'Slow', health: 'ok', for: '30s', alerts: { firing: 2 } }] }] } });
    expect((await json('/v1/incidents')).body.data).toHaveLength(1);
    await alerting.stop(100);
  });

  it('silences: create, list, expire; the silencer is the caller, never a body field; bad input is a 400 with issues', async () => {
    const { json, alerting, audit } = await setup();
    const created = await json('/v1/silences', {
      method: 'POST',
      body: JSON.stringify({ matchers: ['replica="r1"'], duration_s: 3600 }),
      headers: JSON_HEADERS,
    });
    expect(created.status).toBe(200);
    const id = (created.body.data as { id: string; createdBy: string }).id;
    expect((created.body.data as { createdBy: string }).createdBy).toBe('anonymous');
    expect((await json('/v1/silences')).body.data).toMatchObject([
      { id, state: 'active', matchers: [{ name: 'replica', value: 'r1', isRegex: false, isEqual: true }] },
    ]);
    expect((await json('/v1/alerts')).body.data).toMatchObject([{ silenced_by: [id] }, { silenced_by: [] }]);
    expect((await json(`/v1/silences/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await json('/v1/silences')).body.data).toMatchObject([{ id, state: 'expired' }]);
    expect((await json('/v1/silences/nope', { method: 'DELETE' })).status).toBe(404);
    const forged = await json('/v1/silences', {
      method: 'POST',
      body: JSON.stringify({ matchers: ['replica="r1"'], duration_s: 60, createdBy: 'mallory' }),
      headers: JSON_HEADERS,
    });
    expect(forged.status).toBe(400);
    expect(forged.body.issues).toMatchObject([{ path: 'createdBy' }]);
    expect((await json('/v1/silences', { method: 'POST', body: '{"matchers": []}', headers: JSON_HEADERS })).status).toBe(400);
    expect((await json('/v1/silences', { method: 'POST', body: '{oops', headers: JSON_HEADERS })).status).toBe(400);
    // A silence starting in year 275760 (Date.parse accepts it) was a 500.
    const far = await json('/v1/silences', {
      method: 'POST',
      body: JSON.stringify({ matchers: ['replica="r1"'], startsAt: '+275760-09-13T00:00:00.000Z', duration_s: 60 }),
      headers: JSON_HEADERS,
    });
    expect(far.status).toBe(400);
    expect(far.body.issues).toMatchObject([{ path: 'startsAt' }]);
    expect(
      (
        await json('/v1/silences', {
          method: 'POST',
          body: JSON.stringify({ matchers: ['replica="r1"'], startsAt: '9999-12-31T00:00:00Z', duration_s: 86_400 * 2 }),
          headers: JSON_HEADERS,
        })
      ).status,
    ).toBe(400);
    // text/plain is what a page on another origin can send without a preflight.
    expect(
      (
        await json('/v1/silences', {
          method: 'POST',
          body: JSON.stringify({ matchers: ['replica="r1"'], duration_s: 60 }),
          headers: { 'content-type': 'text/plain' },
        })
      ).status,
    ).toBe(415);
    expect(audit.list({ limit: 10 }, { tenants: null }).map((e) => [e.action, e.principal.id, e.target])).toEqual([
      ['silence.expire', 'anonymous', id],
      ['silence.create', 'anonymous', id],
    ]);
    await alerting.stop(100);
  });

  it('actions: the approver is the caller; a `by` field is refused', async () => {
    const { json, alerting, audit } = await setup();
    const list = await json('/v1/actions');
    const { mode, actions } = list.body.data as { mode: string; actions: { id: string; state: string }[] };
    expect(mode).toBe('approval');
    expect(actions).toMatchObject([{ state: 'awaiting_approval' }, { state: 'awaiting_approval' }]);
    const id = actions[0]!.id;
    expect((await json(`/v1/actions/${id}/approve`, { method: 'POST', body: JSON.stringify({ by: 'alice' }), headers: JSON_HEADERS })).status).toBe(400);
    // No body but no content type either: a simple request, refused.
    expect((await json(`/v1/actions/${id}/approve`, { method: 'POST' })).status).toBe(415);
    const ok = await json(`/v1/actions/${id}/approve`, { method: 'POST', body: '{}', headers: JSON_HEADERS });
    expect(ok.body.data).toMatchObject({ approved_by: 'anonymous' });
    expect((await json(`/v1/actions/${id}/approve`, { method: 'POST', body: '{}', headers: JSON_HEADERS })).status).toBe(400);
    expect((await json('/v1/actions/nope/approve', { method: 'POST', body: '{}', headers: JSON_HEADERS })).status).toBe(404);
    expect(audit.list({ limit: 10 }, { tenants: null })).toMatchObject([{ action: 'action.approve', target: id, principal: { id: 'anonymous' } }]);
    await alerting.stop(100);
  });

  it('a tenant-scoped key sees, silences and approves only its tenant; roles gate the changes', async () => {
    const { json, alerting, audit, keys } = await setup([{ role: 'operate', tenants: ['acme'] }, { role: 'read' }, { role: 'operate' }]);
    const [acmeOps, reader, ops] = keys as [string, string, string];
    expect((await json('/v1/alerts')).status).toBe(401);
    const seen = (await json('/v1/alerts', { key: acmeOps })).body.data as { labels: { tenant: string } }[];
    expect(seen.map((a) => a.labels.tenant)).toEqual(['acme']);
    expect(((await json('/v1/alerts', { key: reader })).body.data as unknown[]).length).toBe(2);
    const incidents = (await json('/v1/incidents', { key: acmeOps })).body.data as { alerts: { labels: { tenant: string } }[] }[];
    expect(incidents.flatMap((i) => i.alerts.map((a) => a.labels.tenant))).toEqual(['acme']);
    expect((await json('/v1/rules', { key: acmeOps })).body).toMatchObject({ data: { groups: [{ rules: [{ alerts: { firing: 1 } }] }] } });

    const actions = ((await json('/v1/actions', { key: acmeOps })).body.data as { actions: { id: string; alert: { labels: { tenant: string } } }[] }).actions;
    expect(actions.map((a) => a.alert.labels.tenant)).toEqual(['acme']);
    const all = ((await json('/v1/actions', { key: ops })).body.data as { actions: { id: string; alert: { labels: { tenant: string } } }[] }).actions;
    const globexAction = all.find((a) => a.alert.labels.tenant === 'globex')!.id;
    expect((await json(`/v1/actions/${globexAction}/approve`, { method: 'POST', body: '{}', headers: JSON_HEADERS, key: acmeOps })).status).toBe(404);
    expect((await json(`/v1/actions/${globexAction}/approve`, { method: 'POST', body: '{}', headers: JSON_HEADERS, key: reader })).status).toBe(403);
    const approved = await json(`/v1/actions/${actions[0]!.id}/approve`, { method: 'POST', body: '{}', headers: JSON_HEADERS, key: acmeOps });
    expect(approved.body.data).toMatchObject({ approved_by: expect.stringMatching(/^operate-acme \([0-9a-f]{12}\)$/) });

    const silence = (matchers: string[], key: string) =>
      json('/v1/silences', { method: 'POST', body: JSON.stringify({ matchers, duration_s: 600 }), headers: JSON_HEADERS, key });
    const everything = await silence(['alertname="Slow"'], acmeOps);
    expect(everything.status).toBe(403);
    expect(everything.body.error).toMatch(/tenant="acme"/);
    expect((await silence(['tenant="globex"'], acmeOps)).status).toBe(403);
    expect((await silence(['tenant=~"acme|globex"'], acmeOps)).status).toBe(403);
    const mine = await silence(['tenant="acme"', 'replica="r1"'], acmeOps);
    expect(mine.status).toBe(200);
    const fleet = await silence(['replica="r2"'], ops);
    expect(fleet.status).toBe(200);
    expect(((await json('/v1/silences', { key: acmeOps })).body.data as { id: string }[]).map((s) => s.id)).toEqual([(mine.body.data as { id: string }).id]);
    expect((await json(`/v1/silences/${(fleet.body.data as { id: string }).id}`, { method: 'DELETE', key: acmeOps })).status).toBe(404);

    // The audit log: the scoped operator sees its own changes, not the fleet operator's.
    const scoped = audit.list({ limit: 10 }, { tenants: ['acme'] });
    expect(scoped.map((e) => e.action)).toEqual(['silence.create', 'action.approve']);
    expect(audit.list({ limit: 10 }, { tenants: null }).map((e) => e.action)).toEqual(['silence.create', 'silence.create', 'action.approve']);
    await alerting.stop(100);
  });
});
