/**
 * ClickHouse in-process through chdb, for local use and the tests: the same `@clickhouse/client`
 * code talks to it as to a server over HTTP. chdb is a dev dependency (its engine is ~550 MB), so it
 * is loaded only when asked for, with a clear error when it is not installed.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { InferlensError } from '../../schema/index.ts';
import type * as ChdbConnectionModule from 'chdb/connection';
import type { ClickHouseStoreOptions } from './clickhouse-store.ts';

/**
 * A connection to the chdb engine on `path` (a folder, created; ':memory:' for a temporary one).
 * One process can hold one chdb folder at a time; connections to the same folder share the engine.
 */
export async function openChdbConnection(path: string): Promise<NonNullable<ClickHouseStoreOptions['connection']>> {
  let mod: typeof ChdbConnectionModule;
  try {
    mod = await import('chdb/connection');
  } catch (e) {
    throw new InferlensError(
      'unavailable',
      `storage.clickhouse.chdb_path needs the chdb package, which is not installed: run \`npm install chdb\`, or set storage.clickhouse.url to a ClickHouse server`,
      { cause: e },
    );
  }
  const dir = path === ':memory:' ? path : resolve(path);
  if (dir !== ':memory:') mkdirSync(dir, { recursive: true });
  try {
    // chdb types its connection with @clickhouse/client-common's copy of the contract, the client with its own.
    return mod.createChdbConnection({ path: dir }) as unknown as NonNullable<ClickHouseStoreOptions['connection']>;
  } catch (e) {
    throw new InferlensError(
      'unavailable',
      `cannot open the chdb folder ${dir}: ${e instanceof Error ? e.message : String(e)} (one process holds one chdb folder at a time)`,
      { cause: e },
    );
  }
}
