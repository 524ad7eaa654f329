// `inferlens migrate [--print]` as a user runs it: prints the DDL of the configured backend without
// touching anything, or applies it and exits.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './serve-process.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'inferlens-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const inferlens = (args: string[], env: Record<string, string> = {}) => run(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });

describe('inferlens migrate', () => {
  it('prints the DuckDB migrations and changes nothing', async () => {
    const { stdout } = await inferlens(['migrate', '--print', '--data', join(dir, 'printed')]);
    expect(stdout).toMatch(/^CREATE TABLE IF NOT EXISTS events \(/);
    expect(stdout).toContain('ALTER TABLE events ADD COLUMN prefill_ms DOUBLE;');
    expect(existsSync(join(dir, 'printed'))).toBe(false);
  });

  it('prints the cluster form of the ClickHouse migrations, with the retention TTL', async () => {
    const { stdout } = await inferlens(['migrate', '--print'], {
      INFERLENS_STORAGE_BACKEND: 'clickhouse',
      INFERLENS_CLICKHOUSE_URL: 'http://127.0.0.1:9',
      INFERLENS_CLICKHOUSE_CLUSTER: 'prod',
      INFERLENS_RETENTION_DAYS: '30',
    });
    expect(stdout).toMatch(/^CREATE DATABASE IF NOT EXISTS `inferlens` ON CLUSTER `prod`;/);
    expect(stdout).toContain("ENGINE = Distributed('prod', 'inferlens', events_local, rand());");
    expect(stdout).toContain('ALTER TABLE `inferlens`.events_local ON CLUSTER `prod` MODIFY TTL toDateTime(ts) + INTERVAL 2592000 SECOND;');
  });

  it('applies them to DuckDB and to ClickHouse in-process', async () => {
    expect((await inferlens(['migrate', '--data', join(dir, 'duck')])).stdout).toBe('migrated the duckdb store\n');
    expect(existsSync(join(dir, 'duck', 'inferlens.duckdb'))).toBe(true);
    const env = { INFERLENS_STORAGE_BACKEND: 'clickhouse', INFERLENS_CLICKHOUSE_CHDB_PATH: join(dir, 'chdb') };
    expect((await inferlens(['migrate'], env)).stdout).toBe('migrated the clickhouse store\n');
    // Again: nothing left to do.
    expect((await inferlens(['migrate'], env)).stdout).toBe('migrated the clickhouse store\n');
  });
});
