/**
 * Renders the frozen ClickHouse migration templates (migrations.ts) for one deployment: a single
 * server, or a cluster (ON CLUSTER, Replicated*MergeTree, Distributed tables), in one database.
 * Also the statements that are settings rather than schema: retention TTLs.
 */
import { InferlensError } from '../../schema/index.ts';
import type { FieldKind } from '../../schema/index.ts';
import { CLICKHOUSE_MIGRATIONS } from './migrations.ts';

export interface ClickHouseLayout {
  /** Database that holds the tables (created if missing). */
  database: string;
  /** Cluster name from the servers' `remote_servers`: replicated tables plus Distributed ones. */
  cluster?: string;
}

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const CLUSTER_RE = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

/** Checks the names that are written into DDL (they cannot be bound parameters). */
export function checkLayout(l: ClickHouseLayout): void {
  if (!NAME_RE.test(l.database))
    throw new InferlensError('invalid_argument', `storage.clickhouse.database "${l.database}": expected letters, digits and _ (not starting with a digit)`);
  if (l.cluster !== undefined && !CLUSTER_RE.test(l.cluster))
    throw new InferlensError('invalid_argument', `storage.clickhouse.cluster "${l.cluster}": expected letters, digits, _ . and -`);
}

const quote = (name: string) => `\`${name}\``;

/** One template rendered for the layout; null when it is a cluster-only statement on a single server. */
export function renderDdl(template: string, l: ClickHouseLayout): string | null {
  checkLayout(l);
  const cluster = l.cluster !== undefined;
  let t = template;
  if (t.startsWith('{cluster_only}')) {
    if (!cluster) return null;
    t = t.slice('{cluster_only}'.length);
  }
  return t
    .replaceAll('{db}', quote(l.database))
    .replaceAll('{db_name}', `'${l.database}'`)
    .replaceAll('{cluster}', cluster ? `'${l.cluster}'` : '')
    .replaceAll(' {on_cluster}', cluster ? ` ON CLUSTER ${quote(l.cluster!)}` : '')
    .replaceAll('{replicated}', cluster ? 'Replicated' : '')
    .replaceAll('{local}', cluster ? '_local' : '');
}

/** Migration N's statements for this layout (`clickhouseMigrations(l)[N - 1]`). */
export function clickhouseMigrations(l: ClickHouseLayout): string[][] {
  return CLICKHOUSE_MIGRATIONS.map((m) => m.map((t) => renderDdl(t, l)).filter((s): s is string => s !== null));
}

/**
 * The database and the table that records applied migrations. On a cluster it is replicated to every
 * node of every shard (one ZooKeeper/Keeper path for the whole cluster), so any node answers it.
 */
export function bootstrapDdl(l: ClickHouseLayout): string[] {
  const engine = l.cluster !== undefined ? `ReplicatedMergeTree('/clickhouse/tables/inferlens/${l.database}/schema_migrations', '{replica}')` : 'MergeTree';
  return [
    renderDdl('CREATE DATABASE IF NOT EXISTS {db} {on_cluster}', l)!,
    renderDdl(
      `CREATE TABLE IF NOT EXISTS {db}.schema_migrations {on_cluster} (version UInt32, applied_at DateTime64(3, 'UTC') DEFAULT now64(3)) ENGINE = ${engine} ORDER BY version`,
      l,
    )!,
  ];
}

/** Tables whose rows expire after the retention window, and their time column. */
export const TTL_TABLES: readonly { table: string; expr: string }[] = [
  { table: 'events', expr: 'toDateTime(ts)' },
  { table: 'resources', expr: 'toDateTime(ts)' },
  { table: 'feedback', expr: 'toDateTime(ts)' },
  { table: 'samples', expr: 'toDateTime(ts)' },
  { table: 'rollup_1m_model', expr: 'minute' },
  { table: 'rollup_1m_all', expr: 'minute' },
];

/** The retention TTL of a table (whole days are dropped as their partition expires). */
export function retentionTtlSql(l: ClickHouseLayout, table: string, expr: string, retentionDays: number): string {
  const seconds = Math.round(retentionDays * 86_400);
  if (!Number.isSafeInteger(seconds) || seconds <= 0)
    throw new InferlensError('invalid_argument', `retention must be a positive number of days, got ${retentionDays}`);
  return renderDdl(`ALTER TABLE {db}.${table}{local} {on_cluster} MODIFY TTL ${expr} + INTERVAL ${seconds} SECOND`, l)!;
}

/**
 * The ClickHouse type each event field kind is stored as: what the migrations must have created (a
 * test checks the migrated events table against EVENT_FIELDS) and how a JSONEachRow reader reads it.
 */
export function clickhouseType(kind: FieldKind): string {
  switch (kind) {
    case 'ts':
      return "DateTime64(6, 'UTC')";
    case 'id':
    case 'text':
      return 'Nullable(String)';
    case 'dim':
    case 'string':
    case 'status':
    case 'error_type':
      return 'LowCardinality(Nullable(String))';
    case 'ms':
      // Rounded to µs on the way in: exact, and 2 bytes a value where a Float64 takes 3.6.
      return 'Nullable(Decimal(18, 3))';
    case 'unit':
    case 'number':
    case 'positive':
      return 'Nullable(Float64)';
    case 'count':
      return 'Nullable(UInt32)';
    case 'http_status':
      return 'Nullable(UInt16)';
    case 'bool':
      return 'Nullable(Bool)';
    case 'attributes':
      return 'Map(LowCardinality(String), String)';
    case 'features':
      return 'Map(LowCardinality(String), Float64)';
    case 'tags':
      return 'Array(LowCardinality(String))';
  }
}
