/**
 * Opens the configured backend: the embedded DuckDB file, or ClickHouse over HTTP or in-process
 * (chdb). Also the DDL a backend would run, for `inferlens migrate --print`.
 */
import { InferlensError } from '../schema/index.ts';
import type { Store } from './store.ts';
import { createDuckDBStore } from './duckdb/duckdb-store.ts';
import { DUCKDB_MIGRATIONS } from './duckdb/migrations.ts';
import { createClickHouseStore } from './clickhouse/clickhouse-store.ts';
import { openChdbConnection } from './clickhouse/chdb.ts';
import { bootstrapDdl, clickhouseMigrations, retentionTtlSql, TTL_TABLES } from './clickhouse/ddl.ts';

export type StoreOptions =
  | { backend: 'duckdb'; path: string; memoryLimit?: string; threads?: number }
  | {
      backend: 'clickhouse';
      /** HTTP(S) URL of a server or load balancer; or chdbPath for the in-process engine. */
      url?: string;
      chdbPath?: string;
      database: string;
      username?: string;
      password?: string;
      cluster?: string;
      retentionDays?: number;
      insertQuorum?: 'auto' | number;
      requestTimeoutMs?: number;
    };

/** Opens the store (DuckDB: the file now; ClickHouse: the client, which connects on first use). */
export async function openStore(o: StoreOptions): Promise<Store> {
  if (o.backend === 'duckdb')
    return createDuckDBStore({ path: o.path, ...(o.memoryLimit ? { memoryLimit: o.memoryLimit } : {}), ...(o.threads ? { threads: o.threads } : {}) });
  if ((o.url === undefined) === (o.chdbPath === undefined))
    throw new InferlensError('invalid_argument', 'ClickHouse needs exactly one of a URL or a chdb path');
  const { chdbPath, backend: _, ...rest } = o;
  return createClickHouseStore({ ...rest, ...(chdbPath !== undefined ? { connection: await openChdbConnection(chdbPath) } : {}) });
}

/** Every statement `migrate()` would run on an empty store, in order (DuckDB also records versions). */
export function migrationDdl(o: StoreOptions): string[] {
  if (o.backend === 'duckdb') return DUCKDB_MIGRATIONS.flat();
  const layout = { database: o.database, ...(o.cluster ? { cluster: o.cluster } : {}) };
  const ttl = o.retentionDays === undefined ? [] : TTL_TABLES.map((t) => retentionTtlSql(layout, t.table, t.expr, o.retentionDays!));
  return [...bootstrapDdl(layout), ...clickhouseMigrations(layout).flat(), ...ttl];
}
