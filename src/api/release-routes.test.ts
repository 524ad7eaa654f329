import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { mixWarnings } from '../release/index.ts';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { readsOver } from './reads.ts';
import { releaseRoutes } from './release-routes.ts';
import type { ApiEnv } from './routes.ts';
import { testApi } from './api.test-support.ts';

function appWith(store: Store): Hono<ApiEnv> {
  const reads = readsOver(store);
  return testApi({ routes: [releaseRoutes()], reads: () => reads }).app;
}

const post = (app: Hono<ApiEnv>, body: string) => app.request('/v1/compare', { method: 'POST', body, headers: { 'content-type': 'application/json' } });

describe('POST /v1/compare', () => {
  it('answers the success envelope with verdict, score, reasons, evidence and both sides', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    await store.migrate();
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    await store.appendEvents([
      JSON.stringify({ ts: t0 + 1000, model: 'm', model_version: 'v1', total_ms: 10, status: 'ok' }),
      JSON.stringify({ ts: t0 + 2000, model: 'm', model_version: 'v2', total_ms: 12, status: 'ok' }),
    ]);
    try {
      const app = appWith(store);
      const res = await post(
        app,
        JSON.stringify({
          baseline: { filters: { model: 'm', model_version: 'v1' } },
          candidate: { filters: { model: 'm', model_version: 'v2' } },
          from: '2026-01-01T00:00:00Z',
          to: '2026-01-01T01:00:00Z',
        }),
      );
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; data: Record<string, unknown> };
      expect(body.status).toBe('success');
      expect(Object.keys(body.data).sort()).toEqual(['baseline', 'candidate', 'evidence', 'reasons', 'score', 'verdict', 'warnings']);
      expect(body.data.verdict).toBe('not_enough_data');
      expect(body.data.baseline).toMatchObject({ n: 1, from: '2026-01-01T00:00:00.000Z', filters: { model: 'm', model_version: 'v1' } });
    } finally {
      await store.close();
    }
  });
  it('400 with field paths for a bad body, and for malformed JSON', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    const app = appWith(store);
    const bad = await post(app, JSON.stringify({ baseline: {}, candidate: {} }));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({
      status: 'error',
      error_type: 'invalid_argument',
      issues: [{ path: 'baseline.from' }, { path: 'candidate.from' }],
    });
    const junk = await post(app, '{');
    expect(junk.status).toBe(400);
    expect(((await junk.json()) as { error: string }).error).toMatch(/not valid JSON/);
    await store.close();
  });

  it('scores feedback_hit_rate from the feedback join and warns when the tenant mixes differ', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    await store.migrate();
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    // 150 requests per version with label feedback: v1 right on 120 (80 %), v2 on 75 (50 %).
    // v1 serves tenants a and b half each; v2 serves a only.
    const events: string[] = [];
    const feedback: { ts: number; request_id: string; kind: 'label'; value: string }[] = [];
    for (const v of ['v1', 'v2']) {
      for (let i = 0; i < 150; i++) {
        const id = `${v}-${i}`;
        events.push(
          JSON.stringify({
            ts: t0 + 1000 + i * 10,
            request_id: id,
            model: 'm',
            model_version: v,
            tenant: v === 'v1' && i % 2 ? 'b' : 'a',
            total_ms: 10 + (i % 7),
            status: 'ok',
            label: 'spam',
          }),
        );
        const right = v === 'v1' ? i < 120 : i < 75;
        feedback.push({ ts: t0 + 5000 + i, request_id: id, kind: 'label', value: right ? 'spam' : 'ham' });
      }
    }
    await store.appendEvents(events);
    await store.appendFeedback(feedback);
    try {
      const app = appWith(store);
      const res = await post(
        app,
        JSON.stringify({
          baseline: { filters: { model: 'm', model_version: 'v1' } },
          candidate: { filters: { model: 'm', model_version: 'v2' } },
          from: '2026-01-01T00:00:00Z',
          to: '2026-01-01T01:00:00Z',
        }),
      );
      const data = (
        (await res.json()) as {
          data: {
            verdict: string;
            warnings: string[];
            evidence: { metric: string; baseline: number; candidate: number; classification: string; n: { baseline: number } }[];
          };
        }
      ).data;
      const hit = data.evidence.find((r) => r.metric === 'feedback_hit_rate')!;
      expect(hit).toMatchObject({ baseline: 0.8, candidate: 0.5, classification: 'low', n: { baseline: 150, candidate: 150 } });
      expect(data.verdict).toBe('rollback');
      // Tenant mix: {a: 75, b: 75} vs {a: 150}: Jensen–Shannon distance √(JS) = 0.5579 (base 2).
      expect(data.warnings).toHaveLength(1);
      expect(data.warnings[0]).toMatch(
        /^the two sides serve different tenant mixes \(Jensen–Shannon distance 0\.56; baseline a 50 %, b 50 %; candidate a 100 %\)/,
      );
    } finally {
      await store.close();
    }
  });

  it('mixWarnings: silent for the same mix or a single tenant', () => {
    expect(mixWarnings({ tenants: { a: 50, b: 50 } }, { tenants: { a: 48, b: 52 } })).toEqual([]);
    expect(mixWarnings({ tenants: { a: 50 } }, { tenants: { a: 70 } })).toEqual([]);
  });
});
