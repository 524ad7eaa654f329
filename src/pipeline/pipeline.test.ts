import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InferlensError } from '../schema/index.ts';
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
  createPipeline({
    store,
    logger: pino({ level: 'silent' }),
    registry: new Registry(),
    now: () => NOW,
    retentionDays: 7,
    cardinalityCap: 100,
    maxQueueRows: 10_000,
    maxBatchRows: 1000,
    ...o,
  });

describe('pipeline', () => {
  it('group-commits concurrent writes and resolves each after its rows are stored', async () => {
    const p = make();
    const writes = Array.from({ length: 20 }, (_, w) =>
      p.writeEvents(Array.from({ length: 50 }, (_, i) => ({ ts: NOW - 1000, request_id: `w${w}-${i}`, model: 'm', status: 'ok' }))),
    );
    const replies = await Promise.all(writes);
    expect(replies.every((r) => r.accepted === 50)).toBe(true);
    expect((await store.stats()).events).toBe(1000);
    expect(p.queueRows()).toBe(0);
  });

  it('stores a row repeated within a request, or across the requests of one group commit, once', async () => {
    const p = make();
    const hints: (boolean | undefined)[] = [];
    const spying = make({ store: { ...store, appendEvents: (ls, hint) => (hints.push(hint?.distinctRequestIds), store.appendEvents(ls, hint)) } });
    const r = (id: string) => ({ ts: NOW - 1000, request_id: id, model: 'm', status: 'ok' });
    // Three requests that arrive while nothing is written: one group commit.
    const replies = await Promise.all([spying.writeEvents([r('a'), r('b')]), spying.writeEvents([r('c'), r('a')]), spying.writeEvents([r('d')])]);
    expect(replies.map((x) => x.accepted)).toEqual([2, 2, 1]);
    expect(await p.writeEvents([r('e'), r('e'), r('f')])).toMatchObject({ accepted: 3 });
    expect((await store.stats()).events).toBe(6);
    // The store was told the batch repeats a request_id, so it looked for repeats within it.
    expect(hints).toEqual([false]);
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

// ---------- one request's rows never fail another's; storage failures; overload ----------

const row = (id: string, extra: Record<string, unknown> = {}) => ({ ts: NOW - 1000, request_id: id, model: 'm', status: 'ok', ...extra });
const lines = (rows: readonly Record<string, unknown>[]) => rows.map((r) => JSON.stringify(r));

/** The real store, refusing (as DuckDB refuses a value it cannot read) any append with a line containing `marker`. */
function refusingLinesWith(inner: Store, marker: string): Store {
  return {
    ...inner,
    appendEvents: (ls, hint) =>
      ls.some((l) => l.includes(marker))
        ? Promise.reject(new InferlensError('invalid_argument', 'the store cannot hold this row: Conversion Error: a value out of range'))
        : inner.appendEvents(ls, hint),
  };
}

describe('pipeline isolation', () => {
  it('a line the store refuses as sent (a duplicate key) is stored re-serialised; the other requests of the group commit are untouched', async () => {
    const p = make();
    // JSON.parse keeps the last "tenant"; DuckDB's reader refuses the duplicate key.
    const dup = `{"ts":${NOW - 1000},"request_id":"dup","model":"m","tenant":"first","tenant":"last","status":"ok"}`;
    const writes = Array.from({ length: 10 }, (_, w) => {
      const ls = w === 3 ? [dup] : lines(Array.from({ length: 20 }, (_, i) => row(`w${w}-${i}`)));
      return p.writeEvents(
        ls.map((l) => JSON.parse(l) as unknown),
        { lines: ls },
      );
    });
    const replies = await Promise.all(writes);
    expect(replies.map((r) => r.accepted)).toEqual([20, 20, 20, 1, 20, 20, 20, 20, 20, 20]);
    expect(replies.every((r) => r.rejected.length === 0)).toBe(true);
    expect((await store.stats()).events).toBe(181);
    expect((await store.getEvents('dup'))[0]?.tenant).toBe('last');
  });

  it('a row the store refuses is rejected alone: its request keeps its other rows, the others keep all of theirs', async () => {
    const p = make({ store: refusingLinesWith(store, 'poison') });
    const writes = Array.from({ length: 20 }, (_, w) =>
      p.writeEvents(Array.from({ length: 50 }, (_, i) => row(`w${w}-${i}`, w === 7 && (i === 3 || i === 40) ? { label: 'poison' } : {}))),
    );
    const replies = await Promise.all(writes);
    for (const [w, r] of replies.entries()) {
      if (w === 7) {
        expect(r.accepted).toBe(48);
        expect(r.rejected).toEqual([
          { index: 3, path: '', message: expect.stringMatching(/store cannot hold this row/) },
          { index: 40, path: '', message: expect.stringMatching(/store cannot hold this row/) },
        ]);
      } else expect(r).toEqual({ accepted: 50, rejected: [] });
    }
    expect((await store.stats()).events).toBe(20 * 50 - 2);
  });

  it('a storage failure is retryable, says why, and is reported until the storage probe passes', async () => {
    let full = true;
    let probeOk = false;
    let clock = 0;
    const failing: Store = {
      ...store,
      appendEvents: (ls, hint) => (full ? Promise.reject(new InferlensError('unavailable', 'the disk … is full')) : store.appendEvents(ls, hint)),
    };
    const p = make({ store: failing, monotonicNow: () => clock, probeStorage: async () => void (probeOk || (await Promise.reject(new Error('ENOSPC')))) });
    expect(await p.writeFailure()).toBeUndefined();
    await expect(p.writeEvents([row('a')])).rejects.toMatchObject({ code: 'unavailable', message: 'the disk … is full' });
    expect(await p.writeFailure()).toBe('the disk … is full');
    full = false;
    probeOk = true;
    // Probed at most once a second: the clock has not moved since the failed probe above.
    expect(await p.writeFailure()).toBe('the disk … is full');
    clock += 1000;
    expect(await p.writeFailure()).toBeUndefined();
    expect((await p.writeEvents([row('b')])).accepted).toBe(1);
  });
});

describe('pipeline overload', () => {
  /**
   * The real store behind a gate, costing `msPerRow` of an injected clock per row: appends wait
   * until the test opens the gate, then each one moves the clock by its rows × msPerRow.
   */
  function timedStore(msPerRow: number) {
    const t = { clock: 0, open: () => undefined as void, gate: Promise.resolve() };
    const gated: Store = {
      ...store,
      appendEvents: async (ls, hint) => {
        await t.gate;
        const r = await store.appendEvents(ls, hint);
        t.clock += ls.length * msPerRow;
        return r;
      },
    };
    const close = () => {
      t.gate = new Promise<void>((r) => (t.open = r));
    };
    return { t, gated, close };
  }

  it('admits writes only while the rows ahead can be written within maxQueueWaitMs; none waits longer than that plus its own rows', async () => {
    // 0.125 ms a row (8,000 rows/s), a 3 s bound: a write is admitted while at most 24,000 rows
    // (3 s) are ahead of it, so of 64 clients' 5,000-row batches that arrive together, 5 are
    // admitted (the 5th has 20,000 rows, 2.5 s, ahead) and 59 refused (25,000 rows, 3.125 s, ahead).
    const { t, gated, close } = timedStore(0.125);
    const p = make({ store: gated, monotonicNow: () => t.clock, maxQueueRows: 200_000, maxBatchRows: 50_000, maxQueueWaitMs: 3000 });
    await p.writeEvents(Array.from({ length: 5000 }, (_, i) => row(`warm-${i}`))); // measures the cost
    close();
    const startMs = t.clock;
    const ownMs = 5000 * 0.125;
    const waits: number[] = [];
    const refused: InferlensError[] = [];
    const clients = Array.from({ length: 64 }, (_, c) =>
      p.writeEvents(Array.from({ length: 5000 }, (_, i) => row(`c${c}-${i}`))).then(
        // The wait beyond the writing of its own rows.
        () => void waits.push(t.clock - startMs - ownMs),
        (e: InferlensError) => void refused.push(e),
      ),
    );
    // Every client is admitted or refused before any queued row is written.
    for (let turns = 0; refused.length * 5000 + p.queueRows() < 64 * 5000; turns++) {
      expect(turns).toBeLessThan(100_000);
      await new Promise((r) => setImmediate(r));
    }
    expect(p.expectedWaitMs()).toBe(3125);
    expect(() => p.admit()).toThrow(expect.objectContaining({ code: 'resource_exhausted', retryAfterS: 4 }));
    t.open();
    await Promise.all(clients);
    expect(waits.length).toBe(5);
    expect(Math.max(...waits)).toBeLessThanOrEqual(3000);
    expect(refused.length).toBe(59);
    expect(refused.every((e) => e.code === 'resource_exhausted' && e.retryAfterS === 4)).toBe(true);
    expect((await store.stats()).events).toBe(5000 + 5 * 5000);
    expect(() => p.admit()).not.toThrow();
  });

  it('refuses before parsing (admit) once the queue is behind by more than the bound', async () => {
    const { t, gated, close } = timedStore(0.5);
    const p = make({ store: gated, monotonicNow: () => t.clock, maxQueueWaitMs: 3000, maxQueueRows: 100_000, maxBatchRows: 50_000 });
    await p.writeEvents(Array.from({ length: 2000 }, (_, i) => row(`warm-${i}`))); // 0.5 ms a row
    close();
    const queued = p.writeEvents(Array.from({ length: 8000 }, (_, i) => row(`q-${i}`))); // 4 s of writing
    for (let turns = 0; p.queueRows() < 8000; turns++) {
      expect(turns).toBeLessThan(100_000);
      await new Promise((r) => setImmediate(r));
    }
    expect(() => p.admit()).toThrow(expect.objectContaining({ code: 'resource_exhausted', retryAfterS: 4 }));
    t.open();
    await queued;
    expect(() => p.admit()).not.toThrow();
  });
});
