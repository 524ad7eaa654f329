import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('has safe defaults', () => {
    const c = loadConfig();
    expect(c.server).toEqual({ host: '127.0.0.1', port: 7070, maxBodyBytes: 16 * 1024 * 1024, keys: [], insecure: false, sessionTtlMs: 12 * 3_600_000 });
    expect(c.storage.retentionDays).toBe(7);
    expect(databasePath(c)).toMatch(/data\/inferlens\.duckdb$/);
  });
  it('layers defaults < YAML < env < flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'server:\n  port: 8000\n  host: 0.0.0.0\nstorage:\n  retentionDays: 30\n  dataDir: /from/yaml\n');
    const c = loadConfig({ file, env: { INFERLENS_PORT: '9000', INFERLENS_DATA: '/from/env', PATH: '/x' }, flags: { storage: { dataDir: '/from/flag' } } });
    expect(c.server.port).toBe(9000);
    expect(c.server.host).toBe('0.0.0.0');
    expect(c.storage.retentionDays).toBe(30);
    expect(c.storage.dataDir).toBe('/from/flag');
  });
  it('lists every problem at once', () => {
    expect(() => loadConfig({ env: { INFERLENS_PORT: 'abc' }, flags: { storage: { retentionDays: -1 }, pipeline: { cardinalityCap: 0 } } })).toThrow(
      /INFERLENS_PORT: expected a number[\s\S]*storage.retentionDays[\s\S]*pipeline.cardinalityCap/,
    );
  });
  it('takes ClickHouse from a file and the password only from the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'role: ingest\nstorage:\n  backend: clickhouse\n  clickhouse:\n    url: http://ch:8123\n    cluster: prod\n');
    const c = loadConfig({ file, env: { INFERLENS_CLICKHOUSE_PASSWORD: 'secret' } });
    expect(c.role).toBe('ingest');
    expect(c.storage.clickhouse).toMatchObject({ url: 'http://ch:8123', cluster: 'prod', database: 'inferlens', username: 'default', password: 'secret', insertQuorum: 'auto' });
    writeFileSync(file, 'storage:\n  backend: clickhouse\n  clickhouse:\n    url: http://ch:8123\n    password: oops\n    database: "bad name"\n');
    expect(() => loadConfig({ file })).toThrow(/password: set it in the environment[\s\S]*storage.clickhouse.database/);
  });
  it("refuses one backend's settings under the other: they would be read by nothing", () => {
    expect(() => loadConfig({ flags: { storage: { clickhouse: { url: 'http://ch:8123' } } } })).toThrow(/storage.clickhouse.url: storage.clickhouse.url is read only with storage.backend clickhouse \(the backend is duckdb\)/);
    expect(() => loadConfig({ env: { INFERLENS_STORAGE_BACKEND: 'duckdb' }, flags: { storage: { clickhouse: { chdbPath: '/tmp/ch', cluster: 'prod' } } } })).toThrow(/clickhouse.chdbPath[\s\S]*clickhouse.cluster/);
    expect(() => loadConfig({ flags: { storage: { backend: 'clickhouse', threads: 4, clickhouse: { url: 'http://ch:8123' } } } })).toThrow(/storage.threads: storage.threads sets DuckDB threads/);
    expect(() => loadConfig({ flags: { storage: { backend: 'sqlite' as 'duckdb' } } })).toThrow(/storage.backend/);
    expect(loadConfig({ flags: { storage: { backend: 'clickhouse', clickhouse: { url: 'http://ch:8123' } } } }).storage.backend).toBe('clickhouse');
  });
  it('reads cost prices from YAML, and names a bad currency or a negative price', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'cost:\n  currency: EUR\n  gpuHour:\n    - { pool: a100, price: 3.6 }\n    - { gpuModel: NVIDIA H100 80GB HBM3, price: 7.2 }\n  tokens:\n    gpt-hosted: { input: 2, output: 8 }\n');
    expect(loadConfig({ file }).cost).toEqual({ currency: 'EUR', gpuHour: [{ pool: 'a100', price: 3.6 }, { gpuModel: 'NVIDIA H100 80GB HBM3', price: 7.2 }], tokens: { 'gpt-hosted': { input: 2, output: 8 } } });
    expect(loadConfig().cost).toEqual({ currency: 'USD', gpuHour: [], tokens: {} });
    expect(() => loadConfig({ flags: { cost: { currency: 'euro', gpuHour: [{ price: -1 }] } } })).toThrow(/cost.currency: expected an ISO 4217 code[\s\S]*cost.gpuHour.0.price/);
  });
});
