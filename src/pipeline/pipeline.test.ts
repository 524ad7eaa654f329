import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { createPipeline } from './pipeline.ts';
import { createRetention } from './retention.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const DAY = 86_400_000;
let store: Store;
beforeEach(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
});
afterEach(() => store.close());

const make = (o: Partial<Parameters<typeof createPipeline>[0]> = {}) =>
  createPipeline({ store, logger: pino({ level: 'silent' }), registry: new Registry(), now: () => NOW, retentionDays: 7, cardinalityCap: 100, maxQueueRows: 10_000, maxBatchRows: 1000, ...o });

describe('pipeline', () => {
  it('group-commits concurrent writes and resolves each after its rows are stored', async () => {
    const p = make();
    const writes = Array.from({ length: 20 }, (_, w) => p.writeEvents(Array.from({ length: 50 }, (_, i) => ({ ts: NOW - 1000, request_id: `w${w}-${i}`, model: 'm', status: 'ok' }))));
    const replies = await Promise.all(writes);
    expect(replies.every((r) => r.accepted === 50)).toBe(true);
    expect((await store.stats()).events).toBe(1000);
    expect(p.queueRows()).toBe(0);
  });

  it('refuses with resource_exhausted and a retry delay when the queue is full', async () => {
    const registry = new Registry();
    const p = make({ maxQueueRows: 1000, registry });
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ ts: NOW - 1000, request_id: `${tag}${i}`, model: 'm', status: 'ok' }));
    const first = p.writeEvents(rows(800, 'a'));
    await expect(p.writeEvents(rows(800, 'b'))).rejects.toMatchObject({ code: 'resource_exhausted', retryAfterS: 1 });
    await first;
    expect(await registry.getSingleMetricAsString('inferlens_ingest_dropped_total')).toMatch(/reason="queue_full"} 800/);
  });

  it('keeps the cardinality cap across restarts', async () => {
    await make({ cardinalityCap: 2 }).writeEvents(['a', 'b'].map((tenant) => ({ ts: NOW - 1000, model: 'm', tenant, status: 'ok' })));
    const p2 = make({ cardinalityCap: 2 });
    await p2.start();
    await p2.writeEvents([{ ts: NOW - 1000, model: 'm', tenant: 'c', status: 'ok' }]);
    expect((await store.distinctValues('tenant', NOW - DAY, NOW, 10)).sort()).toEqual(['__other__', 'a', 'b']);
  });
});

describe('retention', () => {
  it('deletes data older than the window and keeps the rest', async () => {
    // Written with a clock 10 days back, so the rows are inside that clock's window.
    const past = make({ now: () => NOW - 10 * DAY });
    expect((await past.writeEvents([{ ts: NOW - 10 * DAY - 1000, model: 'm', status: 'ok' }])).accepted).toBe(1);
    await make().writeEvents([{ ts: NOW - DAY, model: 'm', status: 'ok' }]);
    const r = createRetention({ store, logger: pino({ level: 'silent' }), days: 7, intervalMs: 60_000, now: () => NOW });
    expect(await r.runOnce()).toEqual({ events: 1, resources: 0, feedback: 0 });
    expect((await store.stats()).events).toBe(1);
  });
});
