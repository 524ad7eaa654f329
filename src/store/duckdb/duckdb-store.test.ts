import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { EVENT_FIELDS } from '../../schema/index.ts';
import { fixtureLines, runStoreConformance, spec } from '../conformance.ts';
import { createDuckDBStore } from './duckdb-store.ts';
import { duckdbType } from './ddl.ts';

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
