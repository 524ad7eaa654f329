// Over 400 lines on purpose: one room, the ClickHouse backend's Store methods over one client; its SQL moves to *-sql.ts files when the DuckDB store's split (issue 18) sets the shape both follow.
/**
 * The scale-out store: ClickHouse through `@clickhouse/client`, over HTTP to a server or cluster, or
 * in-process through chdb (`chdb.ts`) for local use and the tests. Same Store contract as DuckDB,
 * proven by the same conformance suite. Supports ClickHouse ≥ 24.3.
 *
 * Write path: the batch's JSON lines are parsed once here (timestamps to integer microseconds,
 * latencies rounded to µs), re-sent rows dropped (see below), and the rest inserted as one
 * `INSERT INTO events (<named columns>) FORMAT JSONEachRow` block. Materialized views roll each block
 * up per minute as it is written (migrations.ts), so there is no rollup maintainer.
 *
 * Idempotent re-sends, in two layers (docs/clickhouse.md has the measurements):
 * 1. Before the insert, the batch's (request_id, ts) pairs are looked up among the stored rows of
 *    its time range, and those already stored, or repeated within the batch, are dropped — the
 *    DuckDB contract, exact for re-sends that arrive after the first copy was acknowledged.
 * 2. The insert carries `insert_deduplication_token` = a hash of the block, and is retried with the
 *    same token after a network error: if the first attempt was written but its reply lost,
 *    ClickHouse drops the second (atomically through Keeper on a replicated table), and the rollup
 *    views see it once.
 * What is left: two copies of one row sent at the same moment to two ingest nodes, inside two
 * different batches, can both pass layer 1; the row is then stored twice.
 *
 * Durable acknowledgement: `wait_end_of_query=1` (the reply is sent when the insert has finished,
 * so an error can never follow a 200), tables with `fsync_after_insert` (a written part is synced
 * before the insert returns), and on a cluster `insert_quorum` (default 'auto': a majority of the
 * shard's replicas have the part) with `insert_distributed_sync=1` (the Distributed table forwards
 * to the shards before it returns instead of queueing on the node that took the insert).
 */
import { randomUUID } from 'node:crypto';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import type { ClickHouseClient, ClickHouseClientConfigOptions, ClickHouseSettings } from '@clickhouse/client';
import { EVENT_FIELDS, InferlensError, LATENCY_FIELDS } from '../../schema/index.ts';
import type { Feedback, QueryRow, QuerySpec, ResourceSample, StoredEvent } from '../../schema/index.ts';
import { SAMPLE_FILTER_KEYS, resourceLabelOf } from '../store.ts';
import type {
  AppendResult,
  BucketCountRow,
  BucketCountSpec,
  HistogramRow,
  HistogramSpec,
  ListSpec,
  ResourceField,
  ResourceQuerySpec,
  ResourceRow,
  RollupProgress,
  SampleListSpec,
  SampleRow,
  SliceCount,
  SliceCountSpec,
  Store,
  StoreStats,
  StoredSample,
} from '../store.ts';
import { ROLLUP_LEVELS, ROLLUP_STEP_MS, rollupLevelFor } from '../rollup.ts';
import { bootstrapDdl, checkLayout, clickhouseMigrations, renderDdl, retentionTtlSql, TTL_TABLES } from './ddl.ts';
import type { ClickHouseLayout } from './ddl.ts';
import { feedbackStatsSql, orphanFeedbackSql } from './feedback-sql.ts';
import { ROLLUP_MODEL_COLUMNS, rollupAggregateSql, rollupHistogramSql, rollupSelectSql, rollupTable, sketchIndexSql } from './rollup-sql.ts';
import { SKETCH_INDEX_EPSILON } from '../log-sketch.ts';
import { sliceGroupingSets, toBucketCountRows, toFeedbackStats, toHistogramRows, toQueryRows, toSliceCounts, toStoredSample } from '../result-rows.ts';
import { driverMessage, storeWriteError } from '../write-errors.ts';
import { MAX_INCIDENT_LOG_ROWS, incidentLogRow, newEntries, toIncidentLogEntry } from '../incident-log-rows.ts';
import { Params, aggregateSql, bucketSql, ident, literal, tsParam, whereClause, W } from './sql.ts';

/** What `createClickHouseStore` needs: where ClickHouse is, and how the tables are laid out. */
export interface ClickHouseStoreOptions extends ClickHouseLayout {
  /** HTTP(S) URL of a server or a load balancer in front of a cluster, e.g. http://127.0.0.1:8123. */
  url?: string;
  username?: string;
  password?: string;
  /** A ready connection instead of HTTP (chdb in-process: `openChdbConnection`). */
  connection?: ClickHouseClientConfigOptions['connection'];
  /** Rows older than this are dropped by TTL (whole days, as their partition expires). */
  retentionDays?: number;
  /** On a cluster: replicas that must have a part before an insert returns (default 'auto': a majority). */
  insertQuorum?: 'auto' | number;
  /** Per-request timeout (default 30 s). */
  requestTimeoutMs?: number;
}

type Row = Record<string, unknown>;

/** Most request ids one duplicate lookup binds (the parameters travel in the URL). */
const DUP_LOOKUP_IDS = 5000;
/** Event columns in the order of the field table (every insert names them). */
const EVENT_COLUMN_NAMES = EVENT_FIELDS.map((f) => f.name);
const EVENT_COLUMN_SET: ReadonlySet<string> = new Set(EVENT_COLUMN_NAMES);
const MAP_COLUMNS: ReadonlySet<string> = new Set(EVENT_FIELDS.filter((f) => f.kind === 'attributes' || f.kind === 'features').map((f) => f.name));
const ARRAY_COLUMNS: ReadonlySet<string> = new Set(EVENT_FIELDS.filter((f) => f.kind === 'tags').map((f) => f.name));
const LATENCY_SET: ReadonlySet<string> = new Set(LATENCY_FIELDS);

/**
 * ClickHouse errors of an insert that mean the rows themselves cannot be stored (a value the
 * JSONEachRow reader or a cast refuses): CANNOT_PARSE_TEXT, CANNOT_PARSE_QUOTED_STRING,
 * CANNOT_PARSE_INPUT_ASSERTION_FAILED, CANNOT_PARSE_DATE, CANNOT_PARSE_DATETIME, TYPE_MISMATCH,
 * ARGUMENT_OUT_OF_BOUND, CANNOT_CONVERT_TYPE, CANNOT_PARSE_NUMBER, INCORRECT_DATA,
 * TOO_LARGE_STRING_SIZE, VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE, DECIMAL_OVERFLOW.
 */
const ROW_CODES = new Set(['6', '26', '27', '38', '41', '53', '69', '70', '72', '117', '131', '321', '407']);
/** NOT_ENOUGH_SPACE: ClickHouse's disks are full. */
const NO_SPACE_CODE = '243';
/** ClickHouse errors that mean "too busy now": retry later. */
const BUSY_CODES = new Set(['202', '252', '241', '164']); // TOO_MANY_SIMULTANEOUS_QUERIES, TOO_MANY_PARTS, MEMORY_LIMIT_EXCEEDED, READONLY
/** Error codes of the network, not of ClickHouse: the request may not have arrived. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'UND_ERR_SOCKET']);

function isNetworkError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  const msg = e instanceof Error ? e.message : '';
  return /socket hang up|timeout|ECONNREFUSED|ECONNRESET|connect|closed/i.test(msg) && !(e as { type?: unknown }).type;
}

/** Epoch microseconds of an event timestamp: epoch ms (a number) or an RFC 3339 UTC string. */
export function tsMicros(ts: unknown): number {
  if (typeof ts === 'number') return Math.round(ts * 1000);
  const s = String(ts);
  const m = /^(.*?)(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/.exec(s);
  if (!m) return Date.parse(s) * 1000;
  const frac = (m[2] ?? '').padEnd(6, '0').slice(0, 6);
  return Date.parse(`${m[1]}${m[3]}`) * 1000 + Number(frac);
}

/** A µs-rounded number, as DuckDB's round(x, 3). */
const roundUs = (v: number) => Math.round(v * 1000) / 1000;

export function createClickHouseStore(options: ClickHouseStoreOptions): Store {
  checkLayout(options);
  const layout: ClickHouseLayout = { database: options.database, ...(options.cluster ? { cluster: options.cluster } : {}) };
  const where = options.url ?? 'the in-process engine (chdb)';
  /** A table to read or insert into (Distributed on a cluster), and the local one (for deletes). */
  const db = renderDdl('{db}', layout)!;
  const t = (name: string) => `${db}.${name}`;
  const table = (name: string) => renderDdl(`{db}.${name}{local}`, layout)!;
  const onCluster = renderDdl(' {on_cluster}', layout)!;
  const client: ClickHouseClient = createClient({
    ...(options.connection ? { connection: options.connection } : { url: options.url ?? 'http://127.0.0.1:8123' }),
    ...(options.username !== undefined ? { username: options.username } : {}),
    ...(options.password !== undefined ? { password: options.password } : {}),
    database: options.database,
    request_timeout: options.requestTimeoutMs ?? 30_000,
    application: 'inferlens',
    // Failures reach the caller as InferlensErrors and are logged there once, not by the client too.
    log: { level: ClickHouseLogLevel.OFF },
    clickhouse_settings: {
      output_format_json_quote_64bit_integers: 0,
      output_format_json_quote_64bit_floats: 0,
      output_format_json_quote_decimals: 0,
      // Subqueries over Distributed tables (IN, JOIN) run once, on the node that took the query.
      distributed_product_mode: 'global',
    },
  });
  const cluster = layout.cluster !== undefined;
  const insertSettings: ClickHouseSettings = {
    wait_end_of_query: 1,
    ...(cluster ? { insert_quorum: options.insertQuorum ?? 'auto', insert_distributed_sync: 1 } : {}),
  } as ClickHouseSettings;
  // Deletes return when done on every replica (24.3 reads mutations_sync for lightweight deletes too).
  const mutationSettings: ClickHouseSettings = { mutations_sync: '2' } as ClickHouseSettings;
  let closed = false;
  let migrated = false;
  const inFlight = new Set<Promise<unknown>>();

  /** Every call goes through here: closed check, in-flight tracking, errors as InferlensError. */
  function call<T>(what: string, fn: () => Promise<T>, schemaNeeded = true): Promise<T> {
    if (closed) return Promise.reject(new InferlensError('unavailable', 'the store is closed (the server is stopping): retry against a running server'));
    // Until migrate() has run, tables may be missing or old: retryable, not a failure of the query.
    if (!migrated && schemaNeeded)
      return Promise.reject(
        new InferlensError('unavailable', `the ClickHouse schema at ${where} is not migrated yet (inferlens retries in the background): retry later`, {
          retryAfterS: 5,
        }),
      );
    const p = fn().catch((e: unknown) => {
      throw toInferlensError(e, what);
    });
    inFlight.add(p);
    const done = () => inFlight.delete(p);
    p.then(done, done);
    return p;
  }

  function toInferlensError(e: unknown, what: string): InferlensError {
    if (e instanceof InferlensError) return e;
    const code = String((e as { code?: unknown } | null)?.code ?? '');
    const message = e instanceof Error ? e.message : String(e);
    if (isNetworkError(e))
      return new InferlensError('unavailable', `ClickHouse at ${where} is unreachable (${what}): ${message}; retry later`, { cause: e, retryAfterS: 5 });
    // The Store contract for a failed append (write-errors.ts): rows it cannot hold, a full disk, the rest retryable.
    if (what === 'insert') {
      if (code === NO_SPACE_CODE)
        return new InferlensError(
          'unavailable',
          `ClickHouse at ${where} has no space left on its disks: free space there; writes resume by themselves (${driverMessage(e)})`,
          { cause: e, retryAfterS: 30 },
        );
      return storeWriteError(e, (x) => ROW_CODES.has(String((x as { code?: unknown } | null)?.code ?? '')));
    }
    if (code === '516' || code === '192' || code === '194')
      return new InferlensError(
        'unavailable',
        `ClickHouse at ${where} refused the credentials (${what}): ${message}; check storage.clickhouse.username and the password`,
        { cause: e, retryAfterS: 30 },
      );
    if (BUSY_CODES.has(code))
      return new InferlensError('unavailable', `ClickHouse is overloaded (${what}): ${message}; retry later`, { cause: e, retryAfterS: 5 });
    if (code === '159') return new InferlensError('deadline_exceeded', `ClickHouse did not answer in time (${what}): ${message}`, { cause: e });
    return new InferlensError('internal', `ClickHouse failed (${what}): ${message}`, { cause: e });
  }

  async function read(sql: string, params: Record<string, unknown> = {}, settings?: ClickHouseSettings, schemaNeeded = true): Promise<Row[]> {
    return call(
      'read',
      async () => {
        const rs = await client.query({ query: sql, query_params: params, format: 'JSONEachRow', ...(settings ? { clickhouse_settings: settings } : {}) });
        return rs.json<Row>();
      },
      schemaNeeded,
    );
  }

  async function command(sql: string, params: Record<string, unknown> = {}, settings?: ClickHouseSettings, schemaNeeded = true): Promise<void> {
    await call(
      'command',
      () => client.command({ query: sql, query_params: params, clickhouse_settings: { wait_end_of_query: 1, ...settings } as ClickHouseSettings }),
      schemaNeeded,
    );
  }

  /**
   * Inserts rows as one block into the named columns. After a network error the same block is sent
   * again with the same deduplication token, so a first attempt that was written but whose reply
   * was lost is not written twice.
   */
  async function insertRows(into: string, columns: readonly string[], rows: readonly Row[], schemaNeeded = true): Promise<void> {
    if (rows.length === 0) return;
    const token = randomUUID();
    for (let attempt = 1; ; attempt++) {
      try {
        await call(
          'insert',
          () =>
            client.insert({
              table: into,
              columns: columns as [string, ...string[]],
              format: 'JSONEachRow',
              values: rows as Row[],
              clickhouse_settings: { ...insertSettings, insert_deduplication_token: token } as ClickHouseSettings,
            }),
          schemaNeeded,
        );
        return;
      } catch (e) {
        if (attempt >= 3 || !(e instanceof InferlensError) || !isNetworkError(e.cause)) throw e;
      }
    }
  }

  const floorMinute = (ms: number) => Math.floor(ms / ROLLUP_STEP_MS) * ROLLUP_STEP_MS;

  /** The events of a batch that are not stored yet, as rows to insert. */
  async function newEventRows(lines: readonly string[]): Promise<Row[]> {
    const rows: { id: string | null; us: number; row: Row }[] = [];
    const seen = new Set<string>();
    for (const line of lines) {
      const o = JSON.parse(line) as Record<string, unknown>;
      const us = tsMicros(o.ts);
      o.ts = us;
      for (const k in o) if (LATENCY_SET.has(k) && typeof o[k] === 'number') o[k] = roundUs(o[k]);
      const id = typeof o.request_id === 'string' ? o.request_id : null;
      if (id !== null) {
        const key = `${us}\u0000${id}`;
        if (seen.has(key)) continue;
        seen.add(key);
      }
      rows.push({ id, us, row: o });
    }
    const withId = rows.filter((r) => r.id !== null);
    if (withId.length === 0) return rows.map((r) => r.row);
    let lo = Infinity;
    let hi = -Infinity;
    for (const r of withId) {
      lo = Math.min(lo, r.us);
      hi = Math.max(hi, r.us);
    }
    const ids = [...new Set(withId.map((r) => r.id!))];
    const stored = new Set<string>();
    for (let i = 0; i < ids.length; i += DUP_LOOKUP_IDS) {
      const p = new Params();
      const found = await read(
        `SELECT request_id AS id, toUnixTimestamp64Micro(ts) AS us FROM ${t('events')}
         WHERE ts >= fromUnixTimestamp64Micro(${p.int(lo)}, 'UTC') AND ts <= fromUnixTimestamp64Micro(${p.int(hi)}, 'UTC') AND request_id IN ${p.add(ids.slice(i, i + DUP_LOOKUP_IDS), 'Array(String)')}`,
        p.values,
      );
      for (const f of found) stored.add(`${Number(f.us)}\u0000${String(f.id)}`);
    }
    return rows.filter((r) => r.id === null || !stored.has(`${r.us}\u0000${r.id}`)).map((r) => r.row);
  }

  /** The minute-aligned part of a range the rollup covers: every stored row is rolled up on insert. */
  function rolledUpRange(fromMs: number, toMs: number): { a: number; b: number } | null {
    const a = Math.ceil(fromMs / ROLLUP_STEP_MS) * ROLLUP_STEP_MS;
    const b = floorMinute(toMs);
    return b > a ? { a, b } : null;
  }

  /**
   * One DDL statement of a migration. Instances that start together migrate together: the loser of
   * an IF NOT EXISTS race gets "already exists" (57 table, 82 database), which means done.
   */
  async function ddl(st: string): Promise<void> {
    try {
      await command(st, {}, undefined, false);
    } catch (e) {
      const code = String((e as { cause?: { code?: unknown } }).cause?.code ?? '');
      if (code !== '57' && code !== '82') throw e;
    }
  }

  async function migrateNow(): Promise<void> {
    for (const st of bootstrapDdl(layout)) await ddl(st);
    const rows = await read(`SELECT max(version) AS v FROM ${t('schema_migrations')}`, {}, undefined, false);
    const current = Number(rows[0]?.v ?? 0);
    const migrations = clickhouseMigrations(layout);
    if (current > migrations.length) {
      throw new InferlensError(
        'unavailable',
        `ClickHouse database ${layout.database} has schema version ${current}, newer than this inferlens knows (${migrations.length}): run a newer inferlens on it`,
      );
    }
    for (let v = current + 1; v <= migrations.length; v++) {
      for (const st of migrations[v - 1]!) await ddl(st);
      await insertRows(t('schema_migrations'), ['version'], [{ version: v }], false);
    }
    if (options.retentionDays !== undefined) {
      // TTL is a setting, not schema: changed only when it differs (MODIFY TTL rewrites parts).
      const current = await read(`SELECT name, engine_full FROM system.tables WHERE database = {db:String}`, { db: layout.database }, undefined, false);
      const engine = new Map(current.map((r) => [String(r.name), String(r.engine_full)]));
      for (const t of TTL_TABLES) {
        const name = `${t.table}${cluster ? '_local' : ''}`;
        const want = `toIntervalSecond(${Math.round(options.retentionDays * 86_400)})`;
        if (!engine.get(name)?.includes(want)) await command(retentionTtlSql(layout, t.table, t.expr, options.retentionDays), {}, undefined, false);
      }
    }
  }

  const store: Store = {
    async migrate() {
      await migrateNow();
      migrated = true;
    },

    async ping() {
      await read(`SELECT count() AS n FROM ${t('schema_migrations')}`);
    },

    async appendEvents(lines): Promise<AppendResult> {
      if (lines.length === 0) return { inserted: 0 };
      const fresh = await newEventRows(lines);
      await insertRows(t('events'), EVENT_COLUMN_NAMES, fresh);
      return { inserted: fresh.length };
    },

    async appendResources(samples: readonly ResourceSample[]) {
      const rows = samples.map((s) => ({
        ts: tsMicros(s.ts),
        node: s.node,
        replica: s.replica ?? null,
        gpu: s.gpu ?? null,
        pool: s.pool ?? null,
        metric: s.metric,
        labels: s.labels ?? {},
        value: s.value,
        simulated: s.simulated ?? false,
      }));
      await insertRows(t('resources'), ['ts', 'node', 'replica', 'gpu', 'pool', 'metric', 'labels', 'value', 'simulated'], rows);
    },

    async appendFeedback(rows: readonly Feedback[]) {
      const received = Date.now() * 1000;
      const lines = rows.map((f) => ({
        ts: tsMicros(f.ts),
        request_id: f.request_id,
        kind: f.kind,
        value_num: typeof f.value === 'number' ? f.value : typeof f.value === 'boolean' ? (f.value ? 1 : 0) : null,
        value_str: typeof f.value === 'string' ? f.value : null,
        source: f.source ?? null,
        received_at: received,
      }));
      await insertRows(t('feedback'), ['ts', 'request_id', 'kind', 'value_num', 'value_str', 'source', 'received_at'], lines);
    },

    async aggregate(spec: QuerySpec): Promise<QueryRow[]> {
      const { sql, params } = aggregateSql(spec, db);
      return toQueryRows(spec, await read(sql, params));
    },

    async approxAggregate(spec: QuerySpec): Promise<QueryRow[] | null> {
      const level = rollupLevelFor(spec);
      const range = level && rolledUpRange(spec.fromMs, spec.toMs);
      if (!level || !range) return null;
      const { sql, params } = rollupAggregateSql(spec, level, range, db);
      return toQueryRows(spec, await read(sql, params));
    },

    async approxHistogram(spec: HistogramSpec): Promise<HistogramRow[] | null> {
      const level = rollupLevelFor({ fromMs: spec.fromMs, stepMs: spec.stepMs, filters: spec.filters, groupBy: [] });
      const range = level && rolledUpRange(spec.fromMs, spec.toMs);
      const q = level && range && rollupHistogramSql({ ...spec, includeProbes: spec.includeProbes ?? false }, level, range, db);
      if (!q) return null;
      return toHistogramRows(spec, await read(q.sql, q.params));
    },

    // Materialized views roll every row up as it is inserted: nothing is left to do, and every
    // minute before `untilMs` is rolled up.
    maintainRollup(untilMs: number): Promise<RollupProgress> {
      if (closed) return Promise.reject(new InferlensError('unavailable', 'the store is closed'));
      return Promise.resolve({ watermarkMs: floorMinute(untilMs), minutes: 0 });
    },

    async histogram(spec: HistogramSpec): Promise<HistogramRow[]> {
      const p = new Params();
      const col = ident(spec.column);
      const w = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
      const j = `arrayFirstIndex(b -> assumeNotNull(${col}) <= b, [${spec.boundsMs.map((b) => literal(Number(b))).join(', ')}]::Array(Float64))`;
      const rows = await read(
        `SELECT ${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket, if(${j} = 0, ${spec.boundsMs.length}, ${j} - 1) AS idx, count() AS n
         FROM ${t('events')} WHERE ${w} AND ${col} IS NOT NULL GROUP BY bucket, idx ORDER BY bucket`,
        p.values,
      );
      return toHistogramRows(spec, rows);
    },

    async bucketCounts(spec: BucketCountSpec): Promise<BucketCountRow[]> {
      const p = new Params();
      const col = ident(spec.column);
      const dims = spec.groupBy.map(ident);
      const index =
        'perDecade' in spec.buckets
          ? sketchIndexSql(col, spec.buckets.perDecade)
          : `toInt32(floor(toFloat64(assumeNotNull(${col})) / ${p.add(spec.buckets.width)} + ${SKETCH_INDEX_EPSILON}))`;
      const w = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
      const g = dims.map((d) => `, ${d}`).join('');
      // One row per step and slice, its buckets as (index, rows) pairs sorted by index.
      const rows = await read(
        `SELECT bucket${g}, arraySort(groupArray((idx, n))) AS pairs FROM (
           SELECT ${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket${g}, ${index} AS idx, count() AS n
           FROM ${t('events')} WHERE ${w} AND ${col} IS NOT NULL GROUP BY bucket${g}, idx LIMIT ${p.int(spec.limit + 1)})
         GROUP BY bucket${g} ORDER BY bucket`,
        p.values,
      );
      return toBucketCountRows(spec, dims, rows);
    },

    async sliceCounts(spec: SliceCountSpec): Promise<SliceCount[]> {
      const p = new Params();
      let w = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes);
      const dims = spec.dimensions.map(ident);
      let bad: string;
      if ('statuses' in spec.bad) bad = `status IN ${p.add([...spec.bad.statuses], 'Array(String)')}`;
      else bad = `${ident(spec.bad.column)} > ${p.add(spec.bad.aboveMs)}`;
      const sets = sliceGroupingSets(dims, spec.pairs);
      const f = spec.sampleFraction;
      // A sample of rows by a hash of (request_id, ts): the same rows every call.
      if (f !== undefined && f > 0 && f < 1) w += ` AND cityHash64(ifNull(request_id, ''), ts) % 1000000 < ${p.int(f * 1_000_000)}`;
      // Two stages, as on DuckDB: the distinct dimension combinations, then the grouping sets over those.
      const cols = dims.map((d) => `toString(ifNull(${d}, '(none)')) AS ${d}`).join(', ');
      const rows = await read(
        `SELECT ${dims.map((d) => `${d}, grouping(${d}) AS g_${d}`).join(', ')}${dims.length ? ',' : ''} sum(n0) AS n, sum(k0) AS k
         FROM (SELECT ${cols}${dims.length ? ',' : ''} sum(${W}) AS n0, sumIf(${W}, ifNull(${bad}, false)) AS k0 FROM ${t('events')} WHERE ${w}${dims.length ? ` GROUP BY ${dims.join(', ')}` : ''})
         GROUP BY GROUPING SETS (${sets.join(', ')})
         HAVING sum(n0) >= ${p.add(spec.minSupport)} OR ${dims.length ? dims.map((d) => `grouping(${d}) = 1`).join(' AND ') : 'true'}`,
        p.values,
        { force_grouping_standard_compatibility: 1 } as ClickHouseSettings,
      );
      return toSliceCounts(dims, rows);
    },

    async listEvents(spec: ListSpec): Promise<StoredEvent[]> {
      const p = new Params();
      let w = whereClause(p, spec.fromMs, spec.toMs, spec.filters, spec.includeProbes ?? true);
      if (spec.minValue) w += ` AND ${ident(spec.minValue.column)} >= ${p.add(spec.minValue.value)}`;
      const cols = spec.columns ? spec.columns.filter((c) => c !== 'ts').map(columnName) : undefined;
      const order = spec.order === 'sample' ? "cityHash64(ifNull(request_id, ''), ts)" : `ts ${spec.order === 'ts_asc' ? 'ASC' : 'DESC'}`;
      // A stratified read: at most perSlice.limit rows per slice (`LIMIT n BY`), then the limit.
      const perSlice = spec.perSlice ? ` LIMIT ${p.int(spec.perSlice.limit)} BY ${spec.perSlice.by.map(ident).join(', ') || 'tuple()'}` : '';
      const rows = await read(
        `SELECT ${selectEventColumns(cols)} FROM ${t('events')} WHERE ${w} ORDER BY ${order}${perSlice} LIMIT ${p.int(spec.limit)}`,
        p.values,
      );
      return rows.map(toStoredEvent);
    },

    async getEvents(requestId: string): Promise<StoredEvent[]> {
      const rows = await read(`SELECT ${selectEventColumns()} FROM ${t('events')} WHERE request_id = {id:String} ORDER BY ts LIMIT 100`, { id: requestId });
      return rows.map(toStoredEvent);
    },

    async resources(spec: ResourceQuerySpec): Promise<ResourceRow[]> {
      const p = new Params();
      const parts = [`ts >= ${tsParam(p, spec.fromMs)}`, `ts < ${tsParam(p, spec.toMs)}`, `metric IN ${p.add([...spec.metrics], 'Array(String)')}`];
      const list = (v: string | readonly string[]) => p.add(typeof v === 'string' ? [v] : [...v], 'Array(String)');
      for (const [k, v] of Object.entries(spec.filters)) {
        if (v === undefined) continue;
        if (k === 'labels') {
          // A sample's own labels. A Map answers '' for a key it lacks, so presence is tested apart.
          for (const [lk, lv] of Object.entries(v as Record<string, string | readonly string[]>)) {
            const key = p.add(lk);
            parts.push(`mapContains(labels, ${key}) AND labels[${key}] IN ${list(lv)}`);
          }
          continue;
        }
        parts.push(`${resourceColumn(k)} IN ${list(v as string | readonly string[])}`);
      }
      // Group keys: sample fields by name, labels as l0, l1, … (NULL where a sample lacks the label).
      const groups = spec.groupBy.map((g, i) => {
        const label = resourceLabelOf(g);
        if (label === undefined) return { key: g, sql: resourceColumn(g), alias: g };
        const key = p.add(label);
        return { key: g, label, sql: `if(mapContains(labels, ${key}), labels[${key}], NULL)`, alias: `l${i}` };
      });
      const rows = await read(
        `SELECT ${bucketSql(p, spec.fromMs, spec.stepMs)} AS bucket, metric${groups.map((g) => `, ${g.sql} AS ${g.alias}`).join('')},
                avg(value) AS avg, max(value) AS max, sum(value) AS sum, count() AS n, countIf(simulated) > 0 AS simulated
         FROM ${t('resources')} WHERE ${parts.join(' AND ')} GROUP BY bucket, metric${groups.map((g) => `, ${g.alias}`).join('')} ORDER BY bucket LIMIT 100000`,
        p.values,
      );
      return rows.map((r) => {
        const out: ResourceRow = {
          bucketMs: Number(r.bucket),
          metric: r.metric as string,
          avg: Number(r.avg),
          max: Number(r.max),
          sum: Number(r.sum),
          n: Number(r.n),
          simulated: Boolean(r.simulated),
        };
        for (const g of groups) {
          const v = (r[g.alias] as string | null | undefined) ?? null;
          if (g.label === undefined) out[g.key as ResourceField] = v;
          else (out.labels ??= {})[g.label] = v;
        }
        return out;
      });
    },

    async distinctValues(dimension, fromMs, toMs, limit) {
      const p = new Params();
      const col = ident(dimension);
      const w = whereClause(p, fromMs, toMs, {}, true);
      const rows = await read(
        `SELECT toString(${col}) AS v, count() AS n FROM ${t('events')} WHERE ${w} AND ${col} IS NOT NULL GROUP BY v ORDER BY n DESC, v LIMIT ${p.int(limit)}`,
        p.values,
      );
      return rows.map((r) => r.v as string);
    },

    async deleteBefore(cutoffMs) {
      const p = new Params();
      const cutoff = tsParam(p, cutoffMs);
      const [counts] = await read(
        `SELECT (SELECT count() FROM ${t('events')} WHERE ts < ${cutoff}) AS e, (SELECT count() FROM ${t('resources')} WHERE ts < ${cutoff}) AS r, (SELECT count() FROM ${t('feedback')} WHERE ts < ${cutoff}) AS f`,
        p.values,
      );
      const e = Number(counts?.e ?? 0);
      const r = Number(counts?.r ?? 0);
      const f = Number(counts?.f ?? 0);
      // Lightweight deletes mark rows; TTL drops whole days as they expire, so these are small.
      const del = async (name: string, n: number) => {
        if (n > 0) await command(`DELETE FROM ${table(name)}${onCluster} WHERE ts < ${cutoff}`, p.values, mutationSettings);
      };
      await del('events', e);
      await del('resources', r);
      await del('feedback', f);
      const [s] = await read(`SELECT count() AS n FROM ${t('samples')} WHERE ts < ${cutoff}`, p.values);
      await del('samples', Number(s?.n ?? 0));
      // Rollup minutes go with their events; a minute the cutoff splits is rebuilt from what is left.
      const minute = floorMinute(cutoffMs);
      const last = minute < cutoffMs ? minute + ROLLUP_STEP_MS : minute;
      const q = new Params();
      const before = `minute < toDateTime(${q.int(last / 1000)}, 'UTC')`;
      for (const l of ROLLUP_LEVELS) {
        const [has] = await read(`SELECT count() AS n FROM ${t(rollupTable(l))} WHERE ${before}`, q.values);
        if (Number(has?.n ?? 0) > 0) await command(`DELETE FROM ${table(rollupTable(l))}${onCluster} WHERE ${before}`, q.values, mutationSettings);
      }
      if (minute < cutoffMs) {
        // Inserted into the model level; its view adds the all-traffic level.
        const { sql, params } = rollupSelectSql(minute, minute + ROLLUP_STEP_MS, db);
        await command(`INSERT INTO ${t(rollupTable(ROLLUP_LEVELS[0]!))} (${ROLLUP_MODEL_COLUMNS.join(', ')}) ${sql}`, params, insertSettings);
      }
      return { events: e, resources: r, feedback: f };
    },

    async stats(): Promise<StoreStats> {
      const [c] = await read(
        `SELECT (SELECT count() FROM ${t('events')}) AS e, (SELECT count() FROM ${t('resources')}) AS r, (SELECT count() FROM ${t('feedback')}) AS f`,
      );
      // Bytes of this node's parts (on a cluster: this node only, so null).
      let bytes: number | null = null;
      if (!cluster) {
        const [b] = await read('SELECT sum(bytes_on_disk) AS b FROM system.parts WHERE database = {db:String} AND active', { db: layout.database });
        bytes = Number(b?.b ?? 0);
      }
      return { events: Number(c!.e), resources: Number(c!.r), feedback: Number(c!.f), bytes };
    },

    async feedbackStats(spec) {
      const q = feedbackStatsSql(spec, db);
      const o = orphanFeedbackSql(spec.fromMs, spec.toMs, db);
      const [rows, orphans] = await Promise.all([read(q.sql, q.params, { join_use_nulls: 1 } as ClickHouseSettings), read(o.sql, o.params)]);
      return toFeedbackStats(spec, rows, Number(orphans[0]?.n ?? 0));
    },

    async appendSamples(rows: readonly SampleRow[]) {
      const cols = [
        'ts',
        'request_id',
        'model',
        'model_version',
        'tenant',
        'entry',
        'node',
        'replica',
        'route_rule',
        'status',
        'error_type',
        'label',
        'confidence',
        'reasons',
        'risk_tags',
        'sample_weight',
        'input',
        'output',
      ];
      await insertRows(
        t('samples'),
        cols,
        rows.map((r) => ({ ...r, ts: tsMicros(r.ts) })),
      );
    },

    async listSamples(spec: SampleListSpec): Promise<StoredSample[]> {
      const p = new Params();
      const parts = [`ts >= ${tsParam(p, spec.fromMs)}`, `ts < ${tsParam(p, spec.toMs)}`];
      for (const [key, value] of Object.entries(spec.filters)) {
        if (value === undefined) continue;
        if (!(SAMPLE_FILTER_KEYS as readonly string[]).includes(key))
          throw new InferlensError('invalid_argument', `samples cannot be filtered by "${key}": use one of ${SAMPLE_FILTER_KEYS.join(', ')}`);
        parts.push(`${key} IN ${p.add(Array.isArray(value) ? value : [value], 'Array(String)')}`);
      }
      if (spec.reasons?.length) parts.push(`hasAny(reasons, ${p.add([...spec.reasons], 'Array(String)')})`);
      if (spec.tags?.length) parts.push(`hasAny(risk_tags, ${p.add([...spec.tags], 'Array(String)')})`);
      if (spec.requestId !== undefined) parts.push(`request_id = ${p.add(spec.requestId)}`);
      const limit = Math.min(Math.max(Math.trunc(spec.limit), 1), 1000);
      const rows = await read(
        `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, request_id, model, model_version, tenant, entry, node, replica, route_rule, status, error_type, label,
                confidence, reasons, risk_tags, sample_weight, input, output
         FROM ${t('samples')} WHERE ${parts.join(' AND ')} ORDER BY ts DESC LIMIT ${p.int(limit)}`,
        p.values,
      );
      return rows.map(toStoredSample);
    },

    async appendIncidentLog(entries) {
      if (entries.length === 0) return;
      // Idempotent on id: entries already stored are left out (the insert deduplication token holds
      // only within one call's retries; the lookup holds across calls).
      const p = new Params();
      const stored = await read(
        `SELECT id FROM ${t('incident_log')} WHERE id IN ${p.add(
          entries.map((e) => e.id),
          'Array(String)',
        )}`,
        p.values,
      );
      const fresh = newEntries(entries, new Set(stored.map((r) => String(r['id']))));
      await insertRows(
        t('incident_log'),
        ['ts', 'id', 'incident_id', 'kind', 'alertname', 'fingerprint', 'severity', 'tenant', 'labels', 'detail'],
        fresh.map((e) => ({ ...incidentLogRow(e), ts: tsMicros(e.ts) })),
      );
    },

    async listIncidentLog(spec) {
      const p = new Params();
      const where = spec.incidentIds
        ? `incident_id IN ${p.add([...spec.incidentIds], 'Array(String)')}`
        : `ts >= ${tsParam(p, spec.fromMs)} AND ts < ${tsParam(p, spec.toMs)}`;
      const limit = Math.min(Math.max(Math.trunc(spec.limit), 1), MAX_INCIDENT_LOG_ROWS);
      const rows = await read(
        `SELECT toUnixTimestamp64Milli(ts) AS ts_ms, id, incident_id, kind, alertname, fingerprint, severity, tenant, labels, detail
         FROM ${t('incident_log')} WHERE ${where} ORDER BY ts, id LIMIT ${p.int(limit)}`,
        p.values,
      );
      return rows.map(toIncidentLogEntry);
    },

    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inFlight]);
      await client.close();
    },
  };
  return store;
}

function columnName(c: string): string {
  if (!EVENT_COLUMN_SET.has(c)) throw new InferlensError('invalid_argument', `unknown event column "${c}"`);
  return c;
}
function resourceColumn(c: string): string {
  if (c !== 'node' && c !== 'replica' && c !== 'gpu' && c !== 'pool') throw new InferlensError('invalid_argument', `unknown resource label "${c}"`);
  return c;
}

function selectEventColumns(cols?: readonly string[]): string {
  const names = cols ?? EVENT_COLUMN_NAMES.filter((c) => c !== 'ts');
  return ['toUnixTimestamp64Milli(ts) AS ts_ms', ...names].join(', ');
}

/** A stored row as DuckDB returns it: RFC 3339 ts, and an empty map or list read as absent (null). */
function toStoredEvent(r: Row): StoredEvent {
  const out: Record<string, unknown> = {};
  for (const k in r) {
    const v = r[k];
    if (k === 'ts_ms') out.ts = new Date(Number(v)).toISOString();
    else if (MAP_COLUMNS.has(k)) out[k] = v && typeof v === 'object' && Object.keys(v).length > 0 ? v : null;
    else if (ARRAY_COLUMNS.has(k)) out[k] = Array.isArray(v) && v.length > 0 ? v : null;
    else out[k] = v;
  }
  return out as StoredEvent;
}
