import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS } from '../../schema/index.ts';
import { fixtureLines, runStoreConformance, spec } from '../conformance.ts';
import { createDuckDBStore } from './duckdb-store.ts';
import { duckdbType } from './ddl.ts';
import { sketchIndexSql } from './rollup-sql.ts';
import { sketchIndex } from '../log-sketch.ts';

runStoreConformance('duckdb (:memory:)', () => createDuckDBStore({ path: ':memory:', threads: 2 }));

describe('DuckDB store', () => {
  it('creates the events table exactly from the schema field table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-ddl-'));
    const path = join(dir, 'x.duckdb');
    const store = await createDuckDBStore({ path });
    await store.migrate();
    await store.close();
    const inst = await DuckDBInstance.create(path);
    const conn = await inst.connect();
    const cols = (await conn.runAndReadAll("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'events' ORDER BY ordinal_position")).getRowObjectsJS();
    conn.closeSync();
    inst.closeSync();
    expect(cols.map((c) => c.column_name)).toEqual(EVENT_FIELDS.map((f) => f.name));
    expect(cols.map((c) => String(c.data_type).replace(/\s/g, ''))).toEqual(EVENT_FIELDS.map((f) => duckdbType(f.kind).replace(/\s/g, '')));
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
    await expect(store.appendEvents([dup])).rejects.toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/^the store cannot hold this row: .*duplicate key/) });
    // The message names no server path (the staging file).
    await expect(store.appendEvents([dup])).rejects.toSatisfy((e: Error) => !/\/tmp|stage-/.test(e.message));
    await store.close();
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

describe('rollup SQL', () => {
  it('computes the same sketch index as the TypeScript mapping', async () => {
    const inst = await DuckDBInstance.create(':memory:');
    const conn = await inst.connect();
    const values = [0, 0.001, 0.1, 0.125893, 1, 9.999, 10, 10.001, 25, 47.703, 100, 999.999, 1000, 60000, 3_600_000];
    const rows = (await conn.runAndReadAll(`SELECT v, ${sketchIndexSql('v')} AS i FROM (SELECT unnest([${values.join(', ')}]::DOUBLE[]) AS v)`)).getRowObjectsJS();
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
