// Replays the DuckDB write path outside the server, to see where a group commit's time goes
// (issue 17). Prints CPU µs per row (all threads of this process) and wall rows/s for one variant:
//   store      the store's own appendEvents (staging, anti-join, commit) in --rows-row transactions
//   parse      DuckDB's read of the same staged NDJSON and nothing else (its second parse of each row)
//   json-sql   every column read as JSON and checked in SQL before the insert: a cost model of strict
//              validation in DuckDB (types, ranges, enums; not the whole contract, no per-row reasons)
// (parse and json-sql stage each batch as two files, its halves, as measured in ARCHITECTURE.md)
// Usage: node --import tsx bench/write-replay.ts [--variant store|parse|json-sql] [--events N] [--rows R]
// Run variants alternately: on a shared machine wall time moves by 2× between runs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { FieldKind } from '../src/schema/index.ts';
import { STATUSES } from '../src/schema/index.ts';
import { EVENT_COLUMNS, EVENT_STAGE_COLUMNS, EVENT_STAGE_SELECT } from '../src/store/duckdb/ddl.ts';
import { DUCKDB_MIGRATIONS } from '../src/store/duckdb/migrations.ts';
import { createDuckDBStore } from '../src/store/duckdb/duckdb-store.ts';
import { generate } from './ingest-events.ts';

const args = process.argv.slice(2);
const opt = (name: string, def: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : def);
const VARIANT = opt('variant', 'store');
const N = Number(opt('events', '300000'));
const ROWS = Number(opt('rows', '8500'));
if (!['store', 'parse', 'json-sql'].includes(VARIANT)) throw new Error(`--variant must be store, parse or json-sql, not ${VARIANT}`);

const lines = generate(N, Date.now());
const batches: string[][] = [];
for (let i = 0; i < N; i += ROWS) batches.push(lines.slice(i, i + ROWS));
const dir = mkdtempSync(join(tmpdir(), 'inferlens-replay-'));
const cols = EVENT_COLUMNS.map((c) => c.name).join(', ');
const columns = (json: boolean) => (json ? `{${EVENT_COLUMNS.map((c) => `${c.name}: 'JSON'`).join(', ')}}` : EVENT_STAGE_COLUMNS);
const reader = (files: string[], json: boolean) =>
  `read_ndjson([${files.map((f) => `'${f}'`).join(', ')}], columns=${columns(json)}, format='newline_delimited', maximum_object_size=1048576)`;

/** A strict check of a JSON column in SQL: JSON type, then range, length or set. */
function check(c: string, kind: FieldKind): string {
  const t = `json_type(${c})`;
  const num = `${t} IN ('BIGINT', 'UBIGINT', 'DOUBLE')`;
  const str = (max: number) => `(${t} = 'VARCHAR' AND length((${c} ->> '$')) <= ${max})`;
  switch (kind) {
    case 'ts':
      return `(${num} OR ${str(40)})`;
    case 'status':
      return `(${t} = 'VARCHAR' AND (${c} ->> '$') IN (${STATUSES.map((s) => `'${s}'`).join(', ')}))`;
    case 'id':
    case 'dim':
    case 'string':
    case 'error_type':
      return str(256);
    case 'text':
      return str(65536);
    case 'ms':
    case 'unit':
    case 'number':
    case 'positive':
      return `(${num} AND CAST(${c} AS DOUBLE) BETWEEN 0 AND 86400000)`;
    case 'count':
    case 'http_status':
      return `(${t} IN ('BIGINT', 'UBIGINT') AND CAST(${c} AS BIGINT) BETWEEN 0 AND 2147483647)`;
    case 'bool':
      return `${t} = 'BOOLEAN'`;
    default:
      return `${t} IN ('OBJECT', 'ARRAY')`;
  }
}
function fromJson(c: string, kind: FieldKind, type: string): string {
  if (kind === 'ts') return `make_timestamp(CAST(CAST(ts AS DOUBLE) * 1000 AS BIGINT)) AS ts`;
  if (kind === 'ms') return `round(CAST(${c} AS DOUBLE), 3) AS ${c}`;
  if (type === 'VARCHAR') return `(${c} ->> '$') AS ${c}`;
  return `CAST(${c} AS ${type}) AS ${c}`;
}

const store = VARIANT === 'store' ? await createDuckDBStore({ path: join(dir, 'store.duckdb') }) : undefined;
await store?.migrate();
const inst = store ? undefined : await DuckDBInstance.create(join(dir, 'plain.duckdb'), { checkpoint_threshold: '128MB' });
const conn = await inst?.connect();
if (conn) for (const st of DUCKDB_MIGRATIONS.flat()) await conn.run(st);
let seq = 0;
const c0 = process.cpuUsage();
const t0 = performance.now();
for (const b of batches) {
  const first = (JSON.parse(b[0]!) as { ts: number }).ts;
  const last = (JSON.parse(b[b.length - 1]!) as { ts: number }).ts;
  if (store) {
    await store.appendEvents(b, { minTsMs: first, maxTsMs: last, distinctRequestIds: true });
    continue;
  }
  const half = b.length >> 1;
  const files = [b.slice(0, half), b.slice(half)].map((part) => {
    const f = join(dir, `stage-${++seq}.ndjson`);
    writeFileSync(f, part.join('\n'));
    return f;
  });
  if (VARIANT === 'parse') {
    await conn!.run(`SELECT count(*), sum(total_ms) FROM (SELECT ${EVENT_STAGE_SELECT} FROM ${reader(files, false)})`);
  } else {
    const ok = EVENT_COLUMNS.map((c) => `(${c.name} IS NULL OR ${check(c.name, c.kind)})`).join(' AND ');
    const typed = EVENT_COLUMNS.map((c) => fromJson(c.name, c.kind, c.type)).join(', ');
    await conn!.run(`INSERT INTO events (${cols}) SELECT ${typed} FROM ${reader(files, true)} WHERE ${ok}`);
  }
  for (const f of files) rmSync(f);
}
const cpu = process.cpuUsage(c0);
const ms = performance.now() - t0;
console.log(`${VARIANT}, ${ROWS}-row transactions: ${((cpu.user + cpu.system) / N).toFixed(2)} CPU-µs a row, ${Math.round(N / (ms / 1000))} rows/s wall`);
await store?.close();
conn?.closeSync();
inst?.closeSync();
rmSync(dir, { recursive: true, force: true });
