import type { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { readsOver } from './reads.ts';
import { releaseRoutes } from './release-routes.ts';
import type { ApiEnv } from './routes.ts';
import { testApi } from './testing.ts';

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
      const res = await post(app, JSON.stringify({ baseline: { filters: { model: 'm', model_version: 'v1' } }, candidate: { filters: { model: 'm', model_version: 'v2' } }, from: '2026-01-01T00:00:00Z', to: '2026-01-01T01:00:00Z' }));
      expect(res.status).toBe(200);
      const body = (await res.json()) as { status: string; data: Record<string, unknown> };
      expect(body.status).toBe('success');
      expect(Object.keys(body.data).sort()).toEqual(['baseline', 'candidate', 'evidence', 'reasons', 'score', 'verdict']);
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
    expect(await bad.json()).toMatchObject({ status: 'error', error_type: 'invalid_argument', issues: [{ path: 'baseline.from' }, { path: 'candidate.from' }] });
    const junk = await post(app, '{');
    expect(junk.status).toBe(400);
    expect(((await junk.json()) as { error: string }).error).toMatch(/not valid JSON/);
    await store.close();
  });
});
