// Ingest and query benchmark. Prints ratios against baselines measured in the same run:
//   (a) DuckDB's own native NDJSON load of the same events into a fresh file (the baseline),
//   (b) ingest through the public HTTP API of a fresh `inferlens serve` child process, with
//       concurrent clients sending NDJSON batches,
//   (c) the runtime dashboard query (per-minute P50/P95/P99/max of total_ms by model × version
//       over the last hour) through the API, and as hand-written SQL on DuckDB directly.
// Usage: npm run bench -- --json [--events N] [--clients C] [--batch B]
// The last line of output is one JSON object.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EVENT_FIELDS } from '../src/schema/index.ts';
import { serveProcess, stopProcess } from '../test/serve-process.ts';

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const JSON_OUT = args.includes('--json');
const N = arg('events', 1_000_000);
const CLIENTS = arg('clients', 4);
const BATCH = arg('batch', 5000);
const log = (...a: unknown[]) => console.log(...a);

// ---------- realistic events ----------
// Seeded PRNG (mulberry32) so runs are comparable.
let seed = 42;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
const lognormal = (medianMs: number, sigma: number) => medianMs * Math.exp(sigma * gauss());
const r3 = (x: number) => Math.round(x * 1000) / 1000;
// 50 tenants, heavy-tailed (Zipf-like, s = 1.2): a few large, many small.
const tenantWeights = Array.from({ length: 50 }, (_, i) => 1 / Math.pow(i + 1, 1.2));
const tenantCdf = tenantWeights.map(((s) => (w: number) => (s += w))(0)).map((c, _, a) => c / a[a.length - 1]!);
const pickTenant = () => {
  const u = rand();
  return `tenant-${tenantCdf.findIndex((c) => u <= c)}`;
};
const ENTRIES = ['api', 'batch', 'web'];

function generate(n: number, endMs: number): string[] {
  const startMs = endMs - 3_600_000;
  const lines: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    // Time-ordered like real traffic (senders flush recent events).
    const ts = Math.floor(startMs + (i / n) * 3_600_000);
    const m = Math.floor(rand() * 20);
    const v = rand() < 0.7 ? 0 : rand() < 0.66 ? 1 : 2;
    const replica = Math.floor(rand() * 16);
    const ingress = lognormal(0.4, 0.5);
    const queue = lognormal(3, 1.0);
    const batch = lognormal(2, 0.6);
    const exec = lognormal(15 + m, 0.5);
    const post = lognormal(0.6, 0.4);
    const error = rand() < 0.01;
    lines[i] = JSON.stringify({
      ts,
      request_id: (i * 2654435761 + 0x9e3779b9).toString(16).padStart(12, '0'),
      model: `model-${m}`,
      model_version: `v${v + 1}`,
      service_version: '2.3.1',
      route_rule: v === 2 ? 'canary' : 'default',
      tenant: pickTenant(),
      entry: ENTRIES[i % 3],
      node: `node-${replica >> 2}`,
      replica: `replica-${replica}`,
      service_tier: i % 5 === 0 ? 'premium' : 'standard',
      ingress_ms: r3(ingress),
      queue_ms: r3(queue),
      batch_ms: r3(batch),
      exec_ms: r3(exec),
      post_ms: r3(post),
      total_ms: r3(ingress + queue + batch + exec + post),
      batch_size: 1 + Math.floor(rand() * 16),
      status: error ? 'error' : 'ok',
      ...(error ? { error_type: rand() < 0.5 ? 'dependency_timeout' : 'internal' } : {}),
      input_tokens: 50 + Math.floor(rand() * 400),
      output_tokens: 1 + Math.floor(rand() * 200),
    });
  }
  return lines;
}

// ---------- helpers ----------
const dir = mkdtempSync(join(tmpdir(), 'inferlens-bench-'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const DASHBOARD_MEASURES = ['p50(total_ms)', 'p95(total_ms)', 'p99(total_ms)', 'max(total_ms)', 'n'];

function dashboardSql(fromMs: number, toMs: number): string {
  // The same result as the API's query, written by hand.
  return `SELECT epoch_ms(time_bucket(INTERVAL 1 minute, ts)) AS bucket, model, model_version,
            quantile_cont(total_ms, 0.5), quantile_cont(total_ms, 0.95), quantile_cont(total_ms, 0.99), max(total_ms), count(*)
          FROM events WHERE ts >= make_timestamp(${fromMs * 1000}) AND ts < make_timestamp(${toMs * 1000})
          GROUP BY ALL ORDER BY ALL`;
}

async function startServer(dataDir: string): Promise<{ url: string; pid: number; stop: () => Promise<unknown> }> {
  const p = await serveProcess(['--port', '0', '--data', dataDir, '--log-level', 'warn']);
  return { url: p.url, pid: p.child.pid!, stop: () => stopProcess(p.child) };
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

// ---------- run ----------
const endMs = Date.now() - 60_000;
log(`generating ${N} events…`);
const lines = generate(N, endMs);
const ndjsonFile = join(dir, 'events.ndjson');
writeFileSync(ndjsonFile, lines.join('\n'));
log(`  ${(statSync(ndjsonFile).size / N).toFixed(0)} bytes/event as NDJSON`);

// (a) baseline: DuckDB's native NDJSON load into a fresh file, same table, explicit columns.
const { DUCKDB_MIGRATIONS } = await import('../src/store/duckdb/migrations.ts');
const { duckdbType } = await import('../src/store/duckdb/ddl.ts');
const nativeDb = join(dir, 'native.duckdb');
let nativeMs = 0;
{
  const inst = await DuckDBInstance.create(nativeDb);
  const conn = await inst.connect();
  for (const stmt of DUCKDB_MIGRATIONS.flat()) await conn.run(stmt);
  const cols = EVENT_FIELDS.map((f) => `${f.name}: '${f.kind === 'ts' ? 'BIGINT' : duckdbType(f.kind)}'`).join(', ');
  const select = EVENT_FIELDS.map((f) => (f.kind === 'ts' ? 'make_timestamp(ts * 1000) AS ts' : f.name)).join(', ');
  const t0 = performance.now();
  await conn.run(`INSERT INTO events (${EVENT_FIELDS.map((f) => f.name).join(', ')}) SELECT ${select} FROM read_ndjson('${ndjsonFile}', columns={${cols}}, format='newline_delimited')`);
  nativeMs = performance.now() - t0;
  conn.closeSync();
  inst.closeSync();
}
const nativeEps = N / (nativeMs / 1000);
const nativeBytes = statSync(nativeDb).size;
log(`(a) native NDJSON load: ${Math.round(nativeEps)} events/s, ${(nativeBytes / N).toFixed(1)} bytes/event`);

// (b) API ingest into a fresh server.
const dataDir = join(dir, 'api');
const server = await startServer(dataDir);
const bodies: string[] = [];
for (let i = 0; i < N; i += BATCH) bodies.push(lines.slice(i, i + BATCH).join('\n'));
let next = 0;
let retries = 0;
const t1 = performance.now();
await Promise.all(
  Array.from({ length: CLIENTS }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      for (;;) {
        const res = await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
        const reply = (await res.json()) as { accepted?: number };
        if (res.status === 429 || res.status === 503) {
          retries++;
          await new Promise((r) => setTimeout(r, 50));
          continue;
        }
        if (res.status !== 200 || reply.accepted !== body.split('\n').length) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
        break;
      }
    }
  }),
);
const apiMs = performance.now() - t1;
const apiEps = N / (apiMs / 1000);
log(`(b) API ingest: ${Math.round(apiEps)} events/s with ${CLIENTS} clients × ${BATCH} rows (${retries} retries after 429/503)`);

// (c) the dashboard query through the API (median of 5 after a warm-up).
const qFrom = endMs - 3_600_000;
const qTo = endMs + 1;
const apiQueryMs: number[] = [];
let apiRows = 0;
for (let i = 0; i < 6; i++) {
  const t = performance.now();
  const res = await fetch(`${server.url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: new Date(qFrom).toISOString(), to: new Date(qTo).toISOString(), group_by: ['model', 'model_version'], step: '1m', measures: DASHBOARD_MEASURES }),
  });
  const body = (await res.json()) as { data: { rows: unknown[] } };
  apiRows = body.data.rows.length;
  if (i > 0) apiQueryMs.push(performance.now() - t);
}
const rss = peakRssMb(server.pid);
await server.stop();
const apiFile = join(dataDir, 'inferlens.duckdb');
const apiBytes = statSync(apiFile).size;

// The same query as hand-written SQL on DuckDB directly, on the same file.
const sqlQueryMs: number[] = [];
let sqlRows = 0;
{
  const inst = await DuckDBInstance.create(apiFile);
  const conn = await inst.connect();
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const r = await conn.runAndReadAll(dashboardSql(qFrom, qTo));
    sqlRows = r.getRowObjectsJS().length;
    if (i > 0) sqlQueryMs.push(performance.now() - t);
  }
  conn.closeSync();
  inst.closeSync();
}
const queryApiMs = median(apiQueryMs);
const querySqlMs = median(sqlQueryMs);
log(`(c) dashboard query: API ${queryApiMs.toFixed(1)} ms (${apiRows} rows), SQL ${querySqlMs.toFixed(1)} ms (${sqlRows} rows)`);
log(`server peak RSS ${rss} MB; stored ${(apiBytes / N).toFixed(1)} bytes/event`);

const result = {
  events: N,
  clients: CLIENTS,
  batch_rows: BATCH,
  native_ndjson_eps: Math.round(nativeEps),
  api_ingest_eps: Math.round(apiEps),
  ingest_ratio: +(apiEps / nativeEps).toFixed(3),
  query_api_ms: +queryApiMs.toFixed(1),
  query_sql_ms: +querySqlMs.toFixed(1),
  query_ratio: +(queryApiMs / querySqlMs).toFixed(3),
  bytes_per_event: +(apiBytes / N).toFixed(1),
  native_bytes_per_event: +(nativeBytes / N).toFixed(1),
  peak_rss_mb: rss,
};
rmSync(dir, { recursive: true, force: true });
if (!JSON_OUT) log(result);
console.log(JSON.stringify(result));
