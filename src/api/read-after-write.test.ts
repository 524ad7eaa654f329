import pino from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createPipeline } from '../pipeline/index.ts';
import { createQueries } from '../query/index.ts';
import { createDuckDBStore } from '../store/index.ts';
import { createApi } from './app.ts';

describe('read routes see acknowledged rows (beforeRead)', () => {
  it('flushes the WAL before a query, and says how many rows lag when the flush runs out of time', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    await store.migrate();
    const now = Date.now();
    // Segments close only on flush (60 s, 200,000 rows), so without the hook the query would see nothing.
    const pipeline = createPipeline({ store, logger: pino({ level: 'silent' }), registry: new Registry(), retentionDays: 7, cardinalityCap: 100, maxQueueRows: 10_000, maxBatchRows: 1000, wal: { segmentMs: 60_000 } });
    let lag = false;
    const api = (beforeRead: () => Promise<{ lagRows: number }>) =>
      createApi({ sink: pipeline, queries: createQueries(store), logger: pino({ level: 'silent' }), registry: new Registry(), maxBodyBytes: 1 << 20, apiKeys: [], ready: () => true, beforeRead });
    const app = api(async () => (lag ? { lagRows: 7 } : pipeline.flush(10_000)));
    try {
      const body = Array.from({ length: 20 }, (_, i) => JSON.stringify({ ts: now - 1000, request_id: `q${i}`, model: 'raw', status: 'ok' })).join('\n');
      const ingest = await app.request('/v1/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } });
      expect(ingest.status).toBe(200);
      expect((await store.stats()).events).toBe(0);
      const query = () =>
        app.request('/v1/query', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ from: new Date(now - 60_000).toISOString(), to: new Date(now + 60_000).toISOString(), filters: { model: 'raw' }, measures: ['count'] }),
        });
      const res = await query();
      expect(res.headers.get('x-inferlens-lag-rows')).toBeNull();
      expect(((await res.json()) as { data: { rows: { count: number }[] } }).data.rows).toEqual([{ count: 20 }]);
      lag = true;
      expect((await query()).headers.get('x-inferlens-lag-rows')).toBe('7');
      // Ingest routes do not wait for loads.
      expect((await app.request('/v1/events', { method: 'POST', body, headers: { 'content-type': 'application/x-ndjson' } })).headers.get('x-inferlens-lag-rows')).toBeNull();
    } finally {
      await pipeline.stop();
      await store.close();
    }
  });
});
