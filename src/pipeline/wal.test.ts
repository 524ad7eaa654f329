import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { createPipeline } from './pipeline.ts';
import type { PipelineOptions } from './pipeline.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const DAY = 86_400_000;
let dir: string;
let store: Store;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-wal-test-'));
  store = await createDuckDBStore({ path: join(dir, 'inferlens.duckdb') });
  await store.migrate();
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const walDir = () => join(dir, 'wal');
const make = (o: Partial<PipelineOptions> = {}) =>
  createPipeline({ store, logger: pino({ level: 'silent' }), registry: new Registry(), now: () => NOW, retentionDays: 7, cardinalityCap: 100, maxQueueRows: 10_000, maxBatchRows: 1000, wal: { dir: walDir(), segmentMs: 60_000 }, ...o });
const rows = (n: number, tag: string, withId = true) => Array.from({ length: n }, (_, i) => ({ ts: NOW - 1000 + i, ...(withId && { request_id: `${tag}${i}` }), model: 'm', tenant: tag, status: 'ok' }));
const line = (o: object) => JSON.stringify(o);
/** A segment file name as an earlier run (an older run prefix) would have written it. */
const oldSegment = (seq: number) => join(walDir(), `seg-${String(NOW - DAY).padStart(15, '0')}-${String(seq).padStart(8, '0')}.ndjson`);
const metric = async (r: Registry, name: string) => (await r.getSingleMetric(name)?.get())?.values[0]?.value;

describe('pipeline with the ingest WAL', () => {
  it('acknowledges once the lines are fsynced in the WAL, and flush makes them visible to reads', async () => {
    const registry = new Registry();
    const p = make({ registry });
    const replies = await Promise.all(Array.from({ length: 10 }, (_, w) => p.writeEvents(rows(50, `w${w}-`))));
    expect(replies.every((r) => r.accepted === 50)).toBe(true);
    // Acknowledged = in the WAL (the segment is still open: 60 s, far below 200,000 rows).
    const walLines = readdirSync(walDir()).flatMap((f) => readFileSync(join(walDir(), f), 'utf8').split('\n').filter(Boolean));
    expect(walLines).toHaveLength(500);
    expect(p.queueRows()).toBe(500);
    expect(await metric(registry, 'inferlens_wal_backlog_rows')).toBe(500);
    expect(await p.flush(10_000)).toEqual({ lagRows: 0 });
    expect((await store.stats()).events).toBe(500);
    expect(p.queueRows()).toBe(0);
    // Loaded segments are deleted; one load for the one segment.
    expect(readdirSync(walDir())).toEqual([]);
    expect(await metric(registry, 'inferlens_wal_segments')).toBe(0);
    await p.stop();
  });

  it('rotates at segmentRows and loads the closed segments without being asked', async () => {
    const p = make({ wal: { dir: walDir(), segmentRows: 100, segmentMs: 60_000 } });
    for (let i = 0; i < 5; i++) await p.writeEvents(rows(100, `r${i}-`));
    for (let t = 0; t < 100 && (await store.stats()).events < 500; t++) await new Promise((r) => setTimeout(r, 50));
    expect((await store.stats()).events).toBe(500);
    await p.stop();
  });

  it('refuses with resource_exhausted when the backlog (appended, not loaded) is full, and counts it', async () => {
    const registry = new Registry();
    const p = make({ registry, maxQueueRows: 1000 });
    await p.writeEvents(rows(800, 'a'));
    await expect(p.writeEvents(rows(800, 'b'))).rejects.toMatchObject({ code: 'resource_exhausted', retryAfterS: 1 });
    expect(await registry.getSingleMetricAsString('inferlens_ingest_dropped_total')).toMatch(/reason="queue_full"} 800/);
    await p.flush(10_000);
    expect((await p.writeEvents(rows(800, 'b'))).accepted).toBe(800);
    await p.stop();
  });

  it('stop loads the WAL into the store', async () => {
    const p = make();
    await p.writeEvents(rows(300, 's'));
    await p.stop(10_000);
    expect((await store.stats()).events).toBe(300);
    expect(readdirSync(walDir())).toEqual([]);
  });

  it('at start loads segments left by a crash, cutting a torn last line and counting it', async () => {
    const registry = new Registry();
    make(); // creates the folder
    const whole = rows(3, 'x').map(line);
    // kill -9 mid-append: the last line has no '\n', so it was never fsynced whole nor acknowledged.
    writeFileSync(oldSegment(1), whole.join('\n') + '\n' + line(rows(1, 'torn')[0]!).slice(0, 25));
    writeFileSync(oldSegment(2), rows(2, 'y', false).map(line).join('\n') + '\n');
    const p = make({ registry });
    await p.start();
    expect((await store.stats()).events).toBe(5);
    expect(await store.getEvents('torn0')).toEqual([]);
    expect(await metric(registry, 'inferlens_wal_torn_lines_total')).toBe(1);
    expect(readdirSync(walDir())).toEqual([]);
    await p.stop();
  });

  it('skips a leftover segment whose load was already committed (crash between commit and delete): rows without request_id do not double', async () => {
    make();
    const file = oldSegment(7);
    writeFileSync(file, rows(4, 'z', false).map(line).join('\n') + '\n');
    const id = /seg-(.+)\.ndjson$/.exec(file)![1]!;
    expect((await store.appendEventsFile(file, { segmentId: id })).inserted).toBe(4);
    const p = make();
    await p.start();
    expect((await store.stats()).events).toBe(4);
    expect(existsSync(file)).toBe(false);
    await p.stop();
  });
});
