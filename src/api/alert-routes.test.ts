import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createAlerting, createManualClock } from '../alerting/index.ts';
import type { TypedReads } from '../query/index.ts';
import { parseRuleText } from '../alerting/index.ts';
import { toErrorResponse } from './errors.ts';
import { alertRoutes } from './alert-routes.ts';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const { groups } = parseRuleText(
  `groups:
  - name: g
    interval: 10s
    rules:
      - alert: Slow
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [replica], op: '>', value: 500 }
        for: 30s
        severity: warning
        action: { type: switch_route, params: { replica: '{{ $labels.replica }}' } }
`,
  'r.yaml',
);

async function setup() {
  const clock = createManualClock(T0);
  const reads = { aggregate: async () => [{ replica: 'r1', 'p99(total_ms)': 900, n: 10 }] } as unknown as TypedReads;
  const alerting = createAlerting({ groups, reads, clock, actions: { mode: 'approval', url: 'http://127.0.0.1:9/unused' } });
  const app = new Hono();
  app.onError((e, c) => {
    const r = toErrorResponse(e);
    return c.json(r.body, r.status as 400);
  });
  alertRoutes({ alerting })(app);
  alerting.start();
  for (let i = 0; i < 5; i++) {
    clock.advance(10_000);
    await alerting.settled();
  }
  const json = async (path: string, init?: RequestInit) => {
    const res = await app.request(path, init);
    return { status: res.status, body: (await res.json()) as { status: string; data: never; error?: string } };
  };
  return { alerting, json };
}

describe('alert routes', () => {
  it('GET /v1/alerts, /v1/rules, /v1/incidents', async () => {
    const { json, alerting } = await setup();
    const alerts = await json('/v1/alerts');
    expect(alerts.status).toBe(200);
    expect(alerts.body).toMatchObject({ status: 'success', data: [{ alertname: 'Slow', state: 'firing', severity: 'warning', value: 900, labels: { replica: 'r1' } }] });
    expect((await json('/v1/alerts?state=pending')).body.data).toEqual([]);
    expect((await json('/v1/alerts?state=bogus')).status).toBe(400);
    const rules = await json('/v1/rules');
    expect(rules.body).toMatchObject({ data: { groups: [{ name: 'g', rules: [{ alert: 'Slow', health: 'ok', for: '30s', alerts: { firing: 1 } }] }] } });
    expect((await json('/v1/incidents')).body.data).toHaveLength(1);
    await alerting.stop(100);
  });

  it('silences: create, list, expire; bad input is a 400 with issues', async () => {
    const { json, alerting } = await setup();
    const created = await json('/v1/silences', { method: 'POST', body: JSON.stringify({ matchers: ['replica="r1"'], duration_s: 3600, createdBy: 'ops' }), headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(200);
    const id = (created.body.data as { id: string }).id;
    expect((await json('/v1/silences')).body.data).toMatchObject([{ id, state: 'active', matchers: [{ name: 'replica', value: 'r1', isRegex: false, isEqual: true }] }]);
    expect((await json('/v1/alerts')).body.data).toMatchObject([{ silencedBy: [id] }]);
    expect((await json(`/v1/silences/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await json('/v1/silences')).body.data).toMatchObject([{ id, state: 'expired' }]);
    expect((await json('/v1/silences/nope', { method: 'DELETE' })).status).toBe(404);
    const bad = await json('/v1/silences', { method: 'POST', body: '{"matchers": []}' });
    expect(bad.status).toBe(400);
    expect((await json('/v1/silences', { method: 'POST', body: '{oops' })).status).toBe(400);
    await alerting.stop(100);
  });

  it('actions: the audit trail and approval', async () => {
    const { json, alerting } = await setup();
    const list = await json('/v1/actions');
    const { mode, actions } = list.body.data as { mode: string; actions: { id: string; state: string }[] };
    expect(mode).toBe('approval');
    expect(actions).toMatchObject([{ state: 'awaiting_approval' }]);
    const ok = await json(`/v1/actions/${actions[0]!.id}/approve`, { method: 'POST', body: JSON.stringify({ by: 'alice' }) });
    expect(ok.body.data).toMatchObject({ approvedBy: 'alice' });
    expect((await json(`/v1/actions/${actions[0]!.id}/approve`, { method: 'POST' })).status).toBe(400);
    expect((await json('/v1/actions/nope/approve', { method: 'POST' })).status).toBe(404);
    await alerting.stop(100);
  });
});
