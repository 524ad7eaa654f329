import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS } from '../../schema/index.ts';
import { fixtureLines, rollupLines, runStoreConformance, spec } from '../conformance.test-support.ts';
import { createDuckDBStore } from './duckdb-store.ts';
import { duckdbType } from './ddl.ts';
import { ROLLUP_COLUMNS, sketchIndexSql } from './rollup-sql.ts';
import { ROLLUP_LEVELS } from '../rollup.ts';
import { DUCKDB_MIGRATIONS } from './migrations.ts';
import { sketchIndex } from '../log-sketch.ts';

// Only the "all" level keeps a sketch here (rollup-sql.ts `hasSketch`).
runStoreConformance('duckdb (:memory:)', () => createDuckDBStore({ path: ':memory:', threads: 2 }), { sketchLevels: ['all'] });

describe('DuckDB store', () => {
  it('migrations end with the tables the live field table and rollup columns expect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-ddl-'));
    const path = join(dir, 'x.duckdb');
    const store = await createDuckDBStore({ path });
    await store.migrate();
    await store.close();
    const inst = await DuckDBInstance.create(path);
    const conn = await inst.connect();
    const columns = async (table: string) =>
      Object.fromEntries(
        (await conn.runAndReadAll('SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1', [table]))
          .getRowObjectsJS()
          .map((c) => [String(c.column_name), String(c.data_type).replace(/\s/g, '')]),
      );
    const events = await columns('events');
    const versions = (await conn.runAndReadAll('SELECT version FROM schema_migrations ORDER BY version')).getRowObjectsJS().map((r) => Number(r.version));
    const rollups = await Promise.all(ROLLUP_LEVELS.map((l) => columns(`rollup_1m_${l.name}`)));
    conn.closeSync();
    inst.closeSync();
    expect(versions).toEqual(DUCKDB_MIGRATIONS.map((_, i) => i + 1));
    expect(events).toEqual(Object.fromEntries(EVENT_FIELDS.map((f) => [f.name, duckdbType(f.kind).replace(/\s/g, '')])));
    ROLLUP_LEVELS.forEach((l, i) => {
      const keys = Object.fromEntries([['minute', 'TIMESTAMP'], ...l.dims.map((d) => [d, 'VARCHAR']), ['probe', 'BOOLEAN']]);
      expect(rollups[i]).toEqual({ ...keys, ...Object.fromEntries(ROLLUP_COLUMNS.map((c) => [c.name, c.type])) });
    });
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a data directory from a newer schema', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    await store.migrate();
    await store.close();
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-newer-'));
    const path = join(dir, 'x.duckdb');
    const a = await createDuckDBStore({ path });
    await a.migrate();
    await a.close();
    const inst = await DuckDBInstance.create(path);
    const conn = await inst.connect();
    await conn.run(`INSERT INTO schema_migrations (version, applied_at) VALUES (${DUCKDB_MIGRATIONS.length + 1}, current_timestamp)`);
    conn.closeSync();
    inst.closeSync();
    const b = await createDuckDBStore({ path });
    await expect(b.migrate()).rejects.toThrow(/newer than this inferlens knows/);
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes staging files a killed process left, and only those', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-stage-'));
    const stage = join(dir, '.stage');
    mkdirSync(stage, { recursive: true });
    writeFileSync(join(stage, 'stage-4242-17.ndjson'), '{"half a row"');
    writeFileSync(join(stage, 'keep-me.txt'), 'not ours');
    const store = await createDuckDBStore({ path: join(dir, 'inferlens.duckdb') });
    expect(existsSync(join(stage, 'stage-4242-17.ndjson'))).toBe(false);
    expect(existsSync(join(stage, 'keep-me.txt'))).toBe(true);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a row it cannot read with invalid_argument (the pipeline isolates it), not a retryable error', async () => {
    const store = await createDuckDBStore({ path: ':memory:' });
    await store.migrate();
    // A duplicate key: JSON.parse tolerates it, DuckDB's reader does not.
    const dup = `{"ts":${Date.UTC(2026, 10, 30)},"model":"a","model":"b","status":"ok"}`;
    await expect(store.appendEvents([dup])).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/^the store cannot hold this row: .*duplicate key/),
    });
    // The message names no server path (the staging file).
    await expect(store.appendEvents([dup])).rejects.toSatisfy((e: Error) => !/\/tmp|stage-/.test(e.message));
    await store.close();
  });

  it('stores a large batch once, whole or not at all, and removes its staging file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-split-'));
    const store = await createDuckDBStore({ path: join(dir, 'inferlens.duckdb') });
    await store.migrate();
    const T = Date.parse('2026-11-30T10:00:00Z');
    const line = (i: number, id = `r${i}`) => JSON.stringify({ ts: T + i, request_id: id, model: 'm1', total_ms: i, status: 'ok' });
    const lines = Array.from({ length: 5000 }, (_, i) => line(i));
    // A repeat of row 10 far into the batch (same request_id and ts): stored once.
    lines[4000] = line(10, 'r10');
    await expect(store.appendEvents(lines)).resolves.toEqual({ inserted: 4999 });
    // Sent again, with a hint: nothing new.
    const hint = { minTsMs: T, maxTsMs: T + 4999, distinctRequestIds: false };
    await expect(store.appendEvents(lines, hint)).resolves.toEqual({ inserted: 0 });
    // A row the reader refuses near the end: nothing of the batch is stored.
    const fresh = Array.from({ length: 5000 }, (_, i) => line(i, `s${i}`));
    fresh[4500] = `{"ts":${T},"model":"a","model":"b","status":"ok"}`;
    await expect(store.appendEvents(fresh)).rejects.toMatchObject({ code: 'invalid_argument' });
    const all = spec(['count', 'sum(total_ms)'], { fromMs: T, toMs: T + 60_000 });
    // Rows 0–4999 but 4000 (the repeat of row 10): Σ i = 4999 · 5000 / 2 − 4000.
    expect(await store.aggregate(all)).toEqual([{ count: 4999, 'sum(total_ms)': (4999 * 5000) / 2 - 4000 }]);
    expect(readdirSync(join(dir, '.stage'))).toEqual([]);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps data in its file across reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-file-'));
    const path = join(dir, 'data', 'inferlens.duckdb');
    const a = await createDuckDBStore({ path });
    await a.migrate();
    await a.appendEvents(fixtureLines());
    await a.close();
    const b = await createDuckDBStore({ path });
    await b.migrate();
    expect(await b.aggregate(spec(['count']))).toEqual([{ count: 10 }]);
    expect((await b.stats()).bytes).toBeGreaterThan(0);
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('DuckDB rollup maintainer', () => {
  it('rolls up from the oldest event to the watermark; until then the rollup does not answer', async () => {
    const store = await createDuckDBStore({ path: ':memory:', threads: 2 });
    await store.migrate();
    await store.appendEvents(rollupLines());
    expect(await store.approxAggregate(spec(['count']))).toBeNull();
    const T0 = Date.parse('2026-11-30T10:00:00Z');
    expect(await store.maintainRollup(T0 + 7 * 60_000 + 30_000)).toEqual({ watermarkMs: T0 + 7 * 60_000, minutes: 7 });
    expect(await store.maintainRollup(T0 + 7 * 60_000 + 50_000)).toEqual({ watermarkMs: T0 + 7 * 60_000, minutes: 0 });
    // 588 user rows (12 probes left out), 60 of them weighing 4: 588 + 60 · 3 = 768.
    expect(await store.approxAggregate(spec(['count']))).toEqual([{ count: 768 }]);
    await store.close();
  });

  it('leaves the minutes of late rows within two hours to its next run, and rebuilds older ones in the insert', async () => {
    const store = await createDuckDBStore({ path: ':memory:', threads: 2 });
    await store.migrate();
    const T0 = Date.parse('2026-11-30T10:00:00Z');
    const HOUR = 3_600_000;
    const line = (ts: number, id: string) => JSON.stringify({ ts, request_id: id, model: 'm1', total_ms: 10, status: 'ok' });
    await store.appendEvents([line(T0 - 3 * HOUR, 'old-0'), line(T0, 'now-0')]);
    expect((await store.maintainRollup(T0 + 60_000)).watermarkMs).toBe(T0 + 60_000);
    // 30 minutes late: the watermark comes down to that minute; the next run redoes 31 minutes.
    await store.appendEvents([line(T0 - 30 * 60_000 + 5, 'late-0')], { minTsMs: T0 - 30 * 60_000 + 5, maxTsMs: T0 - 30 * 60_000 + 5 });
    expect(await store.maintainRollup(T0 + 60_000)).toEqual({ watermarkMs: T0 + 60_000, minutes: 31 });
    const s = spec(['count'], { fromMs: T0 - 4 * HOUR, toMs: T0 + 60_000 });
    expect(await store.approxAggregate(s)).toEqual([{ count: 3 }]);
    // Again, then an approximate read first: it rolls those minutes up before it answers.
    await store.appendEvents([line(T0 - 20 * 60_000, 'late-1')], { minTsMs: T0 - 20 * 60_000, maxTsMs: T0 - 20 * 60_000 });
    expect(await store.approxAggregate(s)).toEqual([{ count: 4 }]);
    expect(await store.maintainRollup(T0 + 60_000)).toEqual({ watermarkMs: T0 + 60_000, minutes: 0 });
    // Three hours late: rebuilt with the insert, the watermark stays.
    await store.appendEvents([line(T0 - 3 * HOUR + 7, 'old-1')], { minTsMs: T0 - 3 * HOUR + 7, maxTsMs: T0 - 3 * HOUR + 7 });
    expect(await store.maintainRollup(T0 + 60_000)).toEqual({ watermarkMs: T0 + 60_000, minutes: 0 });
    expect(await store.approxAggregate(s)).toEqual([{ count: 5 }]);
    expect(await store.aggregate(s)).toEqual([{ count: 5 }]);
    await store.close();
  });
});

describe('rollup SQL', () => {
  it('computes the same sketch index as the TypeScript mapping', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const values = [0, 0.001, 0.1, 0.125893, 1, 9.999, 10, 10.001, 25, 47.703, 100, 999.999, 1000, 60000, 3_600_000];
    const rows = (
      await conn.runAndReadAll(`SELECT v, ${sketchIndexSql('v')} AS i FROM (SELECT unnest([${values.join(', ')}]::DOUBLE[]) AS v)`)
    ).getRowObjectsJS();
    conn.closeSync();
    inst.closeSync();
    expect(rows.map((r) => Number(r.i))).toEqual(values.map(sketchIndex));
  });
});

describe('DuckDB store close', () => {
  it('waits for reads and writes in flight, then refuses new ones', async () => {
    const store = await createDuckDBStore({ path: ':memory:', threads: 2 });
    await store.migrate();
    const write = store.appendEvents(fixtureLines());
    const read = store.aggregate(spec(['count', 'p99(total_ms)']));
    const closed = store.close();
    await expect(write).resolves.toEqual({ inserted: 10 });
    await expect(read).resolves.toHaveLength(1);
    await closed;
    await expect(store.aggregate(spec(['count']))).rejects.toThrow(/closed/);
    await expect(store.appendEvents(fixtureLines())).rejects.toThrow(/closed/);
  });
});
