import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { databasePath, deprecationMessage, loadConfig } from './config.ts';
import type { KeyDeprecation } from './config-keys.ts';

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
    writeFileSync(file, 'server:\n  port: 8000\n  host: 0.0.0.0\nstorage:\n  retention_days: 30\n  data_dir: /from/yaml\n');
    const c = loadConfig({ file, env: { INFERLENS_PORT: '9000', INFERLENS_DATA: '/from/env', PATH: '/x' }, flags: { storage: { dataDir: '/from/flag' } } });
    expect(c.server.port).toBe(9000);
    expect(c.server.host).toBe('0.0.0.0');
    expect(c.storage.retentionDays).toBe(30);
    expect(c.storage.dataDir).toBe('/from/flag');
  });
  it('lists every problem at once', () => {
    expect(() => loadConfig({ env: { INFERLENS_PORT: 'abc' }, flags: { storage: { retentionDays: -1 }, pipeline: { cardinalityCap: 0 } } })).toThrow(
      /INFERLENS_PORT: expected a number[\s\S]*storage.retention_days[\s\S]*pipeline.cardinality_cap/,
    );
  });
  it('takes ClickHouse from a file and the password only from the environment', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(file, 'role: ingest\nstorage:\n  backend: clickhouse\n  clickhouse:\n    url: http://ch:8123\n    cluster: prod\n');
    const c = loadConfig({ file, env: { INFERLENS_CLICKHOUSE_PASSWORD: 'secret' } });
    expect(c.role).toBe('ingest');
    expect(c.storage.clickhouse).toMatchObject({
      url: 'http://ch:8123',
      cluster: 'prod',
      database: 'inferlens',
      username: 'default',
      password: 'secret',
      insertQuorum: 'auto',
    });
    writeFileSync(file, 'storage:\n  backend: clickhouse\n  clickhouse:\n    url: http://ch:8123\n    password: oops\n    database: "bad name"\n');
    expect(() => loadConfig({ file })).toThrow(/password: set it in the environment[\s\S]*storage.clickhouse.database/);
  });
  it("refuses one backend's settings under the other: they would be read by nothing", () => {
    expect(() => loadConfig({ flags: { storage: { clickhouse: { url: 'http://ch:8123' } } } })).toThrow(
      /storage.clickhouse.url: storage.clickhouse.url is read only with storage.backend clickhouse \(the backend is duckdb\)/,
    );
    expect(() =>
      loadConfig({ env: { INFERLENS_STORAGE_BACKEND: 'duckdb' }, flags: { storage: { clickhouse: { chdbPath: '/tmp/ch', cluster: 'prod' } } } }),
    ).toThrow(/clickhouse.chdb_path[\s\S]*clickhouse.cluster/);
    expect(() => loadConfig({ flags: { storage: { backend: 'clickhouse', threads: 4, clickhouse: { url: 'http://ch:8123' } } } })).toThrow(
      /storage.threads: storage.threads sets DuckDB threads/,
    );
    expect(() => loadConfig({ flags: { storage: { backend: 'sqlite' as 'duckdb' } } })).toThrow(/storage.backend/);
    expect(loadConfig({ flags: { storage: { backend: 'clickhouse', clickhouse: { url: 'http://ch:8123' } } } }).storage.backend).toBe('clickhouse');
  });
  it('reads cost prices from YAML, and names a bad currency or a negative price', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'c.yaml');
    writeFileSync(
      file,
      'cost:\n  currency: EUR\n  gpu_hour:\n    - { pool: a100, price: 3.6 }\n    - { gpu_model: NVIDIA H100 80GB HBM3, price: 7.2 }\n  tokens:\n    gpt-hosted: { input: 2, output: 8 }\n',
    );
    expect(loadConfig({ file }).cost).toEqual({
      currency: 'EUR',
      gpuHour: [
        { pool: 'a100', price: 3.6 },
        { gpuModel: 'NVIDIA H100 80GB HBM3', price: 7.2 },
      ],
      tokens: { 'gpt-hosted': { input: 2, output: 8 } },
    });
    expect(loadConfig().cost).toEqual({ currency: 'USD', gpuHour: [], tokens: {} });
    expect(() => loadConfig({ flags: { cost: { currency: 'euro', gpuHour: [{ price: -1 }] } } })).toThrow(
      /cost.currency: expected an ISO 4217 code[\s\S]*cost.gpu_hour.0.price/,
    );
  });
  it('reads snake_case keys, and the camelCase ones of the last release with one deprecation each', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'c.yaml');
    // Keys inside records are data: a model named camelCase keeps its name.
    writeFileSync(
      file,
      [
        'server: { max_body_bytes: 2048, session_ttl_ms: 120000 }',
        'storage: { retention_days: 3, rollup_interval_ms: 5000 }',
        'pipeline: { max_queue_rows: 5000 }',
        'capture: { risk_tags: [pii], first_per_version: 3 }',
        'alerting: { group_wait_ms: 1000, inhibit_rules: [ { source_matchers: [ \'severity="page"\' ], target_matchers: [ \'severity="ticket"\' ] } ], receivers: [ { type: webhook, name: w, url: "http://127.0.0.1:9/x", timeout_ms: 500 } ] }',
        'quality: { low_confidence: 0.8, model_types: { spamFilter: classifier } }',
        'cost: { gpu_hour: [ { gpu_model: H100, price: 2 } ], tokens: { myModel: { input: 1 } } }',
      ].join('\n'),
    );
    const found: KeyDeprecation[] = [];
    const c = loadConfig({ file, onDeprecated: (d) => found.push(d) });
    expect(found).toEqual([]);
    expect(c.server).toMatchObject({ maxBodyBytes: 2048, sessionTtlMs: 120_000 });
    expect(c.storage).toMatchObject({ retentionDays: 3, rollupIntervalMs: 5000 });
    expect(c.pipeline).toMatchObject({ maxQueueRows: 5000 });
    expect(c.capture).toMatchObject({ riskTags: ['pii'], firstPerVersion: 3 });
    expect(c.alerting).toMatchObject({
      groupWaitMs: 1000,
      inhibitRules: [{ source_matchers: ['severity="page"'], target_matchers: ['severity="ticket"'] }],
      receivers: [{ name: 'w', timeoutMs: 500 }],
    });
    expect(c.quality).toMatchObject({ lowConfidence: 0.8, modelTypes: { spamFilter: 'classifier' } });
    expect(c.cost).toMatchObject({ gpuHour: [{ gpuModel: 'H100', price: 2 }], tokens: { myModel: { input: 1, output: 0 } } });

    // The old spellings still work, each named once; where both are given the snake_case one wins.
    writeFileSync(file, 'storage:\n  retentionDays: 30\n  dataDir: /old\n  data_dir: /new\ncost:\n  gpuHour: [ { gpuModel: A100, price: 1 } ]\n');
    const old: KeyDeprecation[] = [];
    const o = loadConfig({ file, onDeprecated: (d) => old.push(d) });
    expect(o.storage).toMatchObject({ retentionDays: 30, dataDir: '/new' });
    expect(o.cost.gpuHour).toEqual([{ gpuModel: 'A100', price: 1 }]);
    expect(old).toEqual([
      { old: 'storage.retentionDays', now: 'storage.retention_days' },
      { old: 'storage.dataDir', now: 'storage.data_dir' },
      { old: 'cost.gpuHour', now: 'cost.gpu_hour' },
      { old: 'cost.gpu_hour[0].gpuModel', now: 'cost.gpu_hour[0].gpu_model' },
    ]);
    expect(deprecationMessage(old[0]!)).toBe(
      'config key storage.retentionDays is deprecated: write storage.retention_days (config keys are snake_case; the camelCase spelling is read until the next release)',
    );
    // A camelCase key the schema never had (its key is snake_case) is unknown, not deprecated.
    writeFileSync(file, 'alerting:\n  inhibitRules: [ { sourceMatchers: [ a=b ], target_matchers: [ c=d ] } ]\n');
    expect(() => loadConfig({ file })).toThrow(/alerting.inhibit_rules.0: Unrecognized key: "sourceMatchers"/);
  });
});
