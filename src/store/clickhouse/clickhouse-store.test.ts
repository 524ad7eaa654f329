import { createClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_FIELDS } from '../../schema/index.ts';
import { fixtureLines, rollupLines, runStoreConformance, spec } from '../conformance.test-support.ts';
import { sketchIndex } from '../log-sketch.ts';
import { createClickHouseStore, tsMicros } from './clickhouse-store.ts';
import { openChdbConnection } from './chdb.ts';
import { clickhouseMigrations, clickhouseType, renderDdl } from './ddl.ts';
import { CLICKHOUSE_MIGRATIONS } from './migrations.ts';
import { ROLLUP_MODEL_COLUMNS, rollupSelectSql, sketchIndexSql } from './rollup-sql.ts';

let seq = 0;
const database = () => `t_${process.pid}_${++seq}`;
/** A fresh database per test on the process's one in-process ClickHouse engine (chdb). */
async function open() {
  return createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: database() });
}

runStoreConformance('clickhouse (chdb)', open);

/** A raw client on the same engine, to look at what the store wrote. */
async function rawClient() {
  const client = createClient({ connection: await openChdbConnection(':memory:'), clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const q = async <T = Record<string, unknown>>(query: string, query_params?: Record<string, unknown>) =>
    (await client.query({ query, query_params, format: 'JSONEachRow' })).json<T>();
  return { client, q };
}

describe('ClickHouse store', () => {
  let raw: Awaited<ReturnType<typeof rawClient>>;
  beforeAll(async () => {
    raw = await rawClient();
  });
  afterAll(async () => {
    await raw.client.close();
  });

  it('migrations end with the events table the live field table expects', async () => {
    const db = database();
    const store = createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db });
    await store.migrate();
    await store.close();
    const cols = await raw.q<{ name: string; type: string }>('SELECT name, type FROM system.columns WHERE database = {db:String} AND table = {t:String}', {
      db,
      t: 'events',
    });
    const model = (t: string) => (t === 'LowCardinality(Nullable(String))' ? 'LowCardinality(String)' : t); // model is required
    expect(Object.fromEntries(cols.map((c) => [c.name, c.type]))).toEqual(
      Object.fromEntries(EVENT_FIELDS.map((f) => [f.name, f.name === 'model' ? model(clickhouseType(f.kind)) : clickhouseType(f.kind)])),
    );
    const versions = await raw.q<{ version: number }>(`SELECT version FROM ${db}.schema_migrations ORDER BY version`);
    expect(versions.map((v) => v.version)).toEqual(CLICKHOUSE_MIGRATIONS.map((_, i) => i + 1));
  });

  it('the materialized view writes what the live rollup expressions compute', async () => {
    const db = database();
    const store = createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db });
    await store.migrate();
    await store.appendEvents(rollupLines());
    await store.close();
    const cols = ROLLUP_MODEL_COLUMNS.join(', ');
    const merged = ROLLUP_MODEL_COLUMNS.slice(4)
      .map((c) =>
        c.endsWith('_min')
          ? `min(${c}) AS ${c}`
          : c.endsWith('_max')
            ? `max(${c}) AS ${c}`
            : c.endsWith('_sketch') || c.startsWith('w_by')
              ? `sumMap(${c}) AS ${c}`
              : `sum(${c}) AS ${c}`,
      )
      .join(', ');
    const fromView = await raw.q(
      `SELECT minute, model, model_version, probe, ${merged} FROM \`${db}\`.rollup_1m_model GROUP BY minute, model, model_version, probe ORDER BY minute, model, model_version, probe`,
    );
    const T0 = Date.parse('2026-11-30T10:00:00Z');
    const { sql, params } = rollupSelectSql(T0, T0 + 10 * 60_000, `\`${db}\``);
    const fromCode = await raw.q(`SELECT ${cols} FROM (${sql}) ORDER BY minute, model, model_version, probe`, params);
    expect(fromView.length).toBeGreaterThan(30);
    expect(fromView).toEqual(fromCode);
  });

  it('computes the same sketch index as the TypeScript mapping', async () => {
    const values = [0.001, 0.1, 0.125893, 1, 9.999, 10, 10.001, 25, 47.703, 100, 999.999, 1000, 60000, 3_600_000, 0];
    const rows = await raw.q<{ i: number }>(`SELECT ${sketchIndexSql('v')} AS i FROM (SELECT arrayJoin([${values.join(', ')}]::Array(Float64)) AS v)`);
    expect(rows.map((r) => r.i)).toEqual(values.map(sketchIndex));
  });

  it('drops a block re-sent with the same deduplication token, in events and in the rollup', async () => {
    const db = database();
    const store = createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db });
    await store.migrate();
    await store.close();
    const rows = fixtureLines().map((l) => {
      const o = JSON.parse(l) as Record<string, unknown>;
      return { ...o, ts: tsMicros(o.ts) };
    });
    const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))] as [string, ...string[]];
    for (let i = 0; i < 2; i++)
      await raw.client.insert({
        table: `${db}.events`,
        values: rows,
        format: 'JSONEachRow',
        columns,
        clickhouse_settings: { insert_deduplication_token: 'batch-1' },
      });
    expect(await raw.q(`SELECT count() AS n FROM ${db}.events`)).toEqual([{ n: 10 }]);
    expect(await raw.q(`SELECT sum(n) AS n FROM ${db}.rollup_1m_model`)).toEqual([{ n: 10 }]);
    expect(await raw.q(`SELECT sum(n) AS n FROM ${db}.rollup_1m_all`)).toEqual([{ n: 10 }]);
    // Another token is another block.
    await raw.client.insert({
      table: `${db}.events`,
      values: rows,
      format: 'JSONEachRow',
      columns,
      clickhouse_settings: { insert_deduplication_token: 'batch-2' },
    });
    expect(await raw.q(`SELECT count() AS n FROM ${db}.events`)).toEqual([{ n: 20 }]);
  });

  it('sets retention as TTL, and changes it only when the setting changes', async () => {
    const db = database();
    const open = async (days: number) => createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db, retentionDays: days });
    const a = await open(7);
    await a.migrate();
    await a.close();
    const ttl = async () =>
      (
        await raw.q<{ name: string; e: string }>(
          "SELECT name, extract(engine_full, 'TTL .+?\\(\\d+\\)') AS e FROM system.tables WHERE database = {db:String} AND engine LIKE '%MergeTree' ORDER BY name",
          { db },
        )
      ).map((r) => `${r.name}: ${r.e.trim()}`);
    expect(await ttl()).toEqual([
      'events: TTL toDateTime(ts) + toIntervalSecond(604800)',
      'feedback: TTL toDateTime(ts) + toIntervalSecond(604800)',
      // The incident log is kept beyond the events' retention (ARCHITECTURE.md, "Storage").
      'incident_log: ',
      'resources: TTL toDateTime(ts) + toIntervalSecond(604800)',
      'rollup_1m_all: TTL minute + toIntervalSecond(604800)',
      'rollup_1m_model: TTL minute + toIntervalSecond(604800)',
      'samples: TTL toDateTime(ts) + toIntervalSecond(604800)',
      'schema_migrations: ',
    ]);
    const b = await open(0.5);
    await b.migrate();
    await b.close();
    expect((await ttl())[0]).toBe('events: TTL toDateTime(ts) + toIntervalSecond(43200)');
  });

  it('answers an unreachable server with unavailable and what to check, never a crash', async () => {
    const store = createClickHouseStore({ url: 'http://127.0.0.1:9', database: 'x', requestTimeoutMs: 2000 });
    await expect(store.migrate()).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/ClickHouse at http:\/\/127\.0\.0\.1:9 is unreachable/),
    });
    await expect(store.appendEvents(fixtureLines())).rejects.toMatchObject({ code: 'unavailable', retryAfterS: 5 });
    await expect(store.aggregate(spec(['count']))).rejects.toMatchObject({ code: 'unavailable' });
    await store.close();
    await expect(store.aggregate(spec(['count']))).rejects.toThrow(/closed/);
  });

  it('says when the rows themselves cannot be stored (invalid_argument), and stores nothing of that append', async () => {
    const db = database();
    const store = createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db });
    await store.migrate();
    const good = JSON.stringify({ ts: Date.parse('2026-11-30T10:00:00Z'), request_id: 'ok-1', model: 'm', total_ms: 1 });
    const bad = JSON.stringify({ ts: Date.parse('2026-11-30T10:00:01Z'), request_id: 'bad-1', model: 'm', total_ms: 'not a number' });
    await expect(store.appendEvents([good, bad])).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringMatching(/^the store cannot hold this row: /),
    });
    expect((await store.stats()).events).toBe(0);
    await store.close();
  });

  it('refuses a database written by a newer schema', async () => {
    const db = database();
    const a = createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db });
    await a.migrate();
    await a.close();
    await raw.client.insert({ table: `${db}.schema_migrations`, values: [{ version: CLICKHOUSE_MIGRATIONS.length + 1 }], format: 'JSONEachRow' });
    const b = createClickHouseStore({ connection: await openChdbConnection(':memory:'), database: db });
    await expect(b.migrate()).rejects.toThrow(/newer than this inferlens knows/);
    await b.close();
  });
});

describe('ClickHouse DDL on a cluster', () => {
  const layout = { database: 'inferlens', cluster: 'prod' };
  const rendered = clickhouseMigrations(layout).flat();

  it('puts every statement ON CLUSTER, data in Replicated*MergeTree _local tables, reads and writes through Distributed ones', () => {
    expect(rendered.every((s) => s.includes(' ON CLUSTER `prod`'))).toBe(true);
    const created = rendered.map((s) => /^CREATE (?:TABLE|MATERIALIZED VIEW) IF NOT EXISTS `inferlens`\.(\w+)/.exec(s)?.[1]);
    expect(created).toEqual([
      'events_local',
      'events',
      'resources_local',
      'resources',
      'feedback_local',
      'feedback',
      'samples_local',
      'samples',
      'rollup_1m_model_local',
      'rollup_1m_model',
      'rollup_1m_model_mv',
      'rollup_1m_all_local',
      'rollup_1m_all',
      'rollup_1m_all_mv',
      'incident_log_local',
      'incident_log',
    ]);
    expect(rendered.filter((s) => /ENGINE = Replicated(Aggregating)?MergeTree\s/.test(s))).toHaveLength(7);
    expect(rendered.find((s) => s.includes('`inferlens`.events ON CLUSTER'))).toContain("ENGINE = Distributed('prod', 'inferlens', events_local, rand())");
    // The views read the local table of their shard and write its local rollup.
    expect(rendered.find((s) => s.includes('rollup_1m_model_mv'))).toMatch(/TO `inferlens`\.rollup_1m_model_local AS[\s\S]*FROM `inferlens`\.events_local/);
  });

  it('renders as a single server without any cluster statement', () => {
    const single = clickhouseMigrations({ database: 'inferlens' }).flat();
    expect(single.some((s) => /ON CLUSTER|Replicated|Distributed|_local/.test(s))).toBe(false);
    expect(renderDdl('{cluster_only}CREATE TABLE x', { database: 'inferlens' })).toBeNull();
  });

  it('runs on the engine once the cluster parts are taken away (same local tables and views)', async () => {
    const db = `cl_${process.pid}`;
    const { client } = await rawClient();
    await client.command({ query: `CREATE DATABASE ${db}` });
    for (const s of clickhouseMigrations({ database: db, cluster: 'prod' }).flat()) {
      if (s.includes('ENGINE = Distributed')) continue;
      await client.command({ query: s.replace(' ON CLUSTER `prod`', '').replace(/ENGINE = Replicated/, 'ENGINE = ') });
    }
    const tables = (
      await (
        await client.query({ query: 'SELECT name FROM system.tables WHERE database = {db:String} ORDER BY name', query_params: { db }, format: 'JSONEachRow' })
      ).json<{ name: string }>()
    ).map((t) => t.name);
    expect(tables).toEqual([
      'events_local',
      'feedback_local',
      'incident_log_local',
      'resources_local',
      'rollup_1m_all_local',
      'rollup_1m_all_mv',
      'rollup_1m_model_local',
      'rollup_1m_model_mv',
      'samples_local',
    ]);
    await client.close();
  });

  it('refuses names that would not be identifiers', () => {
    expect(() => clickhouseMigrations({ database: 'x; DROP TABLE y' })).toThrow(/database/);
    expect(() => clickhouseMigrations({ database: 'x', cluster: 'a`b' })).toThrow(/cluster/);
  });
});

describe('timestamps', () => {
  it('reads epoch ms and RFC 3339 strings to the microsecond', () => {
    expect(tsMicros(1_764_496_800_123)).toBe(1_764_496_800_123_000);
    expect(tsMicros(1_764_496_800_123.456)).toBe(1_764_496_800_123_456);
    expect(tsMicros('2025-11-30T10:00:00.123456Z')).toBe(1_764_496_800_123_456);
    expect(tsMicros('2025-11-30T10:00:00Z')).toBe(1_764_496_800_000_000);
    expect(tsMicros('2025-11-30T10:00:00.5Z')).toBe(1_764_496_800_500_000);
  });
});
