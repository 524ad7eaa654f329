// Ingest and query benchmark. Prints ratios against baselines measured in the same run:
//   (a) the store's own native NDJSON load of the same events into a fresh store (the baseline):
//       DuckDB's read_ndjson, or ClickHouse's JSONEachRow reader into the same tables and views,
//   (b) ingest through the public HTTP API of a fresh `inferlens serve` child process, with
//       concurrent clients sending NDJSON batches, started once the server's rule evaluator has
//       ticked (its first tick reads every series from scratch; see firstEvaluation),
//   (c) the runtime dashboard query (per-minute P50/P95/P99/max of total_ms by model × version
//       over the last hour) through the API, and as hand-written SQL on the store directly.
// Usage: npm run bench -- --json [--store duckdb|clickhouse] [--events N] [--clients C] [--batch B] [--client http|fetch] [--profile DIR]
// --profile DIR writes a CPU profile of the server process (node --cpu-prof) into DIR.
// ClickHouse runs in-process through chdb (the server's `storage.clickhouse.chdbPath`).
// The last line of output is one JSON object.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { EVENT_FIELDS } from '../src/schema/index.ts';
import { serveProcess, stopProcess } from '../test/serve-process.ts';
import { generate } from './ingest-events.ts';

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const JSON_OUT = args.includes('--json');
const STORE = args.includes('--store') ? args[args.indexOf('--store') + 1] : 'duckdb';
if (STORE !== 'duckdb' && STORE !== 'clickhouse') throw new Error(`--store must be duckdb or clickhouse, not ${STORE}`);
const N = arg('events', 1_000_000);
const CLIENTS = arg('clients', 4);
const BATCH = arg('batch', 5000);
const PROFILE = args.includes('--profile') ? args[args.indexOf('--profile') + 1] : undefined;
const CLIENT = args.includes('--client') ? args[args.indexOf('--client') + 1] : 'http';
if (CLIENT !== 'http' && CLIENT !== 'fetch') throw new Error(`--client must be http or fetch, not ${CLIENT}`);
const log = (...a: unknown[]) => console.log(...a);

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

async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => Promise<unknown> }> {
  const p = await serveProcess(['--port', '0', '--data', dataDir, '--log-level', 'warn'], env, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : []);
  return { url: p.url, pid: p.child.pid!, stop: () => stopProcess(p.child) };
}

/** CPU seconds (user + system) a process has used so far: all its threads, and its main (JavaScript) thread. */
function cpuSeconds(pid: number): { all: number; main: number } {
  const used = (stat: string) => {
    const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  return { all: used(`/proc/${pid}/stat`), main: used(`/proc/${pid}/task/${pid}/stat`) };
}

function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  return m ? Math.round(Number(m[1]) / 1024) : NaN;
}

// ---------- the API side, the same for both stores ----------

/**
 * One POST of an NDJSON body. `--client http` (the default): node:http on kept-alive sockets with
 * the body encoded once before the clock starts; `--client fetch`: the global fetch with the string
 * body (what the benchmark used before issue 17's third pass: 3.2–3.5 CPU-µs an event in this
 * process, on the two cores the server has, against ~1 for http — ARCHITECTURE.md).
 */
const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS });
function post(url: string, body: Buffer | string): Promise<{ status: number; reply: { accepted?: number } }> {
  if (CLIENT === 'fetch') {
    return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: body as string }).then(async (res) => ({
      status: res.status,
      reply: (await res.json()) as { accepted?: number },
    }));
  }
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/x-ndjson', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, reply: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { accepted?: number } }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends every event through POST /v1/events: CLIENTS concurrent senders of BATCH-row bodies. */
async function apiIngest(url: string, texts: string[]): Promise<{ ms: number; retries: number; clientCpuS: number }> {
  let next = 0;
  let retries = 0;
  // Rows per body, and the bodies as bytes, before the clock starts: the client shares the two cores with the server.
  const rows = texts.map((b) => b.split('\n').length);
  const bodies = CLIENT === 'fetch' ? texts : texts.map((b) => Buffer.from(b));
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) {
        const i = next++;
        const body = bodies[i]!;
        for (;;) {
          const res = await post(`${url}/v1/events`, body);
          const reply = res.reply;
          if (res.status === 429 || res.status === 503) {
            retries++;
            await new Promise((r) => setTimeout(r, 50));
            continue;
          }
          if (res.status !== 200 || reply.accepted !== rows[i]) throw new Error(`ingest failed: ${res.status} ${JSON.stringify(reply).slice(0, 300)}`);
          break;
        }
      }
    }),
  );
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, retries, clientCpuS: (c.user + c.system) / 1e6 };
}

/**
 * Waits (≤ 70 s) for the rule evaluator's first tick, at the first whole minute after the server
 * started. That tick reads every rule's series from scratch over the last hours; on the still-empty
 * store it costs nothing, but landing inside the ingest it read the hour being loaded and took
 * 40 % of the server's CPU in that run (27–28 against 45–54 CPU-µs an event, alternate runs with
 * alerting off and on: ARCHITECTURE.md, issue 17). Later ticks read only the minutes since the
 * last, so the ingest is measured with the evaluator running, as a server runs, minus the cold start
 * of a server that opens a full store (a one-off, not a cost per event).
 */
async function firstEvaluation(url: string): Promise<void> {
  const t0 = performance.now();
  while (performance.now() - t0 < 70_000) {
    if (metricValue(await metricsText(url), 'inferlens_alerting_group_evaluations_total') > 0) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  // Not seen (alerting off in the server's configuration): the ingest starts anyway.
  log(`    waited ${((performance.now() - t0) / 1000).toFixed(1)} s for the rule evaluator's first tick`);
}

const metricsText = async (url: string) => (await fetch(`${url}/metrics`)).text();

/** An unlabelled sample's value in a /metrics text (NaN when absent). */
const metricValue = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

/** The store writer's transactions so far, from the server's /metrics: count, rows and seconds in them. */
async function storeWrites(url: string): Promise<{ count: number; rows: number; seconds: number }> {
  const text = await metricsText(url);
  const value = (name: string) => metricValue(text, name);
  return {
    count: value('inferlens_store_write_duration_seconds_count'),
    seconds: value('inferlens_store_write_duration_seconds_sum'),
    rows: value('inferlens_store_write_batch_rows_sum'),
  };
}

/** The dashboard query through the API: median of 5 after a warm-up. */
async function apiQuery(url: string, qFrom: number, qTo: number): Promise<{ ms: number; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    const res = await fetch(`${url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: new Date(qFrom).toISOString(),
        to: new Date(qTo).toISOString(),
        group_by: ['model', 'model_version'],
        step: '1m',
        measures: DASHBOARD_MEASURES,
      }),
    });
    const body = (await res.json()) as { data: { rows: unknown[] } };
    rows = body.data.rows.length;
    if (i > 0) times.push(performance.now() - t);
  }
  return { ms: median(times), rows };
}

/** One approximate read of the whole range (what the dashboard's KPIs ask); its duration in ms. */
async function approxRead(url: string, qFrom: number, qTo: number): Promise<number> {
  const t = performance.now();
  const res = await fetch(`${url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ from: new Date(qFrom).toISOString(), to: new Date(qTo).toISOString(), measures: ['count', 'p99(total_ms)'], approx: true }),
  });
  const body = (await res.json()) as { data: { approx: unknown } };
  if (!body.data.approx) throw new Error('the approximate read was answered exactly: the rollup did not answer');
  return performance.now() - t;
}

/** Median of 5 runs after a warm-up of a hand-written query. */
async function timed(run: () => Promise<number>): Promise<{ ms: number; rows: number }> {
  const times: number[] = [];
  let rows = 0;
  for (let i = 0; i < 6; i++) {
    const t = performance.now();
    rows = await run();
    if (i > 0) times.push(performance.now() - t);
  }
  return { ms: median(times), rows };
}

// ---------- run ----------
const endMs = Date.now() - 60_000;
log(`generating ${N} events…`);
const lines = generate(N, endMs);
const ndjsonFile = join(dir, 'events.ndjson');
writeFileSync(ndjsonFile, lines.join('\n'));
log(`  ${(statSync(ndjsonFile).size / N).toFixed(0)} bytes/event as NDJSON`);
const bodies: string[] = [];
for (let i = 0; i < N; i += BATCH) bodies.push(lines.slice(i, i + BATCH).join('\n'));
const qFrom = endMs - 3_600_000;
const qTo = endMs + 1;

const result = STORE === 'duckdb' ? await benchDuckDB() : await benchClickHouse();
agent.destroy();
rmSync(dir, { recursive: true, force: true });
if (!JSON_OUT) log(result);
console.log(JSON.stringify(result));

async function benchDuckDB(): Promise<Record<string, unknown>> {
  // (a) baseline: DuckDB's native NDJSON load into a fresh file, same table, explicit columns.
  const { DUCKDB_MIGRATIONS } = await import('../src/store/duckdb/migrations.ts');
  const { duckdbType } = await import('../src/store/duckdb/ddl.ts');
  const nativeDb = join(dir, 'native.duckdb');
  let nativeMs = 0;
  let nativeCpuS = 0;
  {
    const inst = await DuckDBInstance.create(nativeDb);
    const conn = await inst.connect();
    for (const stmt of DUCKDB_MIGRATIONS.flat()) await conn.run(stmt);
    const cols = EVENT_FIELDS.map((f) => `${f.name}: '${f.kind === 'ts' ? 'BIGINT' : duckdbType(f.kind)}'`).join(', ');
    const select = EVENT_FIELDS.map((f) => (f.kind === 'ts' ? 'make_timestamp(ts * 1000) AS ts' : f.name)).join(', ');
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await conn.run(
      `INSERT INTO events (${EVENT_FIELDS.map((f) => f.name).join(', ')}) SELECT ${select} FROM read_ndjson('${ndjsonFile}', columns={${cols}}, format='newline_delimited')`,
    );
    nativeMs = performance.now() - t0;
    const c = process.cpuUsage(c0);
    nativeCpuS = (c.user + c.system) / 1e6;
    conn.closeSync();
    inst.closeSync();
  }
  const nativeEps = N / (nativeMs / 1000);
  const nativeBytes = statSync(nativeDb).size;
  log(`(a) native NDJSON load: ${Math.round(nativeEps)} events/s, ${(nativeBytes / N).toFixed(1)} bytes/event`);

  // (b) API ingest into a fresh server.
  const dataDir = join(dir, 'api');
  const server = await startServer(dataDir);
  await firstEvaluation(server.url);
  const cpu0 = cpuSeconds(server.pid);
  const ingest = await apiIngest(server.url, bodies);
  const apiEps = N / (ingest.ms / 1000);
  const cpu1 = cpuSeconds(server.pid);
  const serverCpuS = cpu1.all - cpu0.all;
  const mainCpuS = cpu1.main - cpu0.main;
  const writes = await storeWrites(server.url);
  log(`(b) API ingest: ${Math.round(apiEps)} events/s with ${CLIENTS} clients × ${BATCH} rows (${ingest.retries} retries after 429/503)`);
  log(
    `    ${writes.count} store transactions of ${Math.round(writes.rows / writes.count)} rows on average, busy ${((100 * writes.seconds * 1000) / ingest.ms).toFixed(0)} % of the time`,
  );
  // (c) the dashboard query through the API, then as hand-written SQL on the same file.
  const api = await apiQuery(server.url, qFrom, qTo);
  // (d) the first approximate read after the backfill waits for the rollup to catch up on the hour,
  // so the bytes below are those of a store with its rollup (as one that took the hour live).
  const catchUpMs = await approxRead(server.url, qFrom, qTo);
  const rss = peakRssMb(server.pid);
  await server.stop();
  const apiFile = join(dataDir, 'inferlens.duckdb');
  const apiBytes = statSync(apiFile).size;
  const inst = await DuckDBInstance.create(apiFile);
  const conn = await inst.connect();
  const sql = await timed(async () => (await conn.runAndReadAll(dashboardSql(qFrom, qTo))).getRowObjectsJS().length);
  conn.closeSync();
  inst.closeSync();
  log(`(c) dashboard query: API ${api.ms.toFixed(1)} ms (${api.rows} rows), SQL ${sql.ms.toFixed(1)} ms (${sql.rows} rows)`);
  log(`(d) first approximate read (the rollup catches up on the hour first): ${catchUpMs.toFixed(0)} ms`);
  log(`server peak RSS ${rss} MB; stored ${(apiBytes / N).toFixed(1)} bytes/event`);
  return {
    store: 'duckdb',
    events: N,
    clients: CLIENTS,
    batch_rows: BATCH,
    native_ndjson_eps: Math.round(nativeEps),
    api_ingest_eps: Math.round(apiEps),
    ingest_ratio: +(apiEps / nativeEps).toFixed(3),
    // CPU time per event (all threads), which a busy machine changes less than wall time: the
    // native load (this process: DuckDB's threads) and the server process during API ingest.
    native_cpu_us_per_event: +((nativeCpuS * 1e6) / N).toFixed(1),
    api_server_cpu_us_per_event: +((serverCpuS * 1e6) / N).toFixed(1),
    // Of which the server's main thread (JavaScript: HTTP, parse, validate, staging); the rest is DuckDB's threads.
    api_server_main_cpu_us_per_event: +((mainCpuS * 1e6) / N).toFixed(1),
    // The benchmark's own HTTP clients (this process), on the same two cores.
    api_client_cpu_us_per_event: +((ingest.clientCpuS * 1e6) / N).toFixed(1),
    retries: ingest.retries,
    // The share of the ingest's wall time the single store writer was inside a transaction.
    store_write_busy: +((writes.seconds * 1000) / ingest.ms).toFixed(2),
    store_write_rows: Math.round(writes.rows / writes.count),
    query_api_ms: +api.ms.toFixed(1),
    query_sql_ms: +sql.ms.toFixed(1),
    query_ratio: +(api.ms / sql.ms).toFixed(3),
    rollup_catch_up_ms: Math.round(catchUpMs),
    bytes_per_event: +(apiBytes / N).toFixed(1),
    native_bytes_per_event: +(nativeBytes / N).toFixed(1),
    peak_rss_mb: rss,
  };
}

async function benchClickHouse(): Promise<Record<string, unknown>> {
  const { createClient } = await import('@clickhouse/client');
  const { createClickHouseStore, openChdbConnection } = await import('../src/store/index.ts');
  const { clickhouseType } = await import('../src/store/clickhouse/ddl.ts');
  const open = async (path: string) =>
    createClient({ connection: await openChdbConnection(path), clickhouse_settings: { output_format_json_quote_64bit_integers: 0 } });
  const rows = async (c: Awaited<ReturnType<typeof open>>, query: string) => (await c.query({ query, format: 'JSONEachRow' })).json<Record<string, number>>();
  /** Bytes on disk of a database's active parts (after merging them), and of its events table. */
  async function bytes(c: Awaited<ReturnType<typeof open>>, db: string): Promise<{ all: number; events: number }> {
    for (const t of ['events', 'rollup_1m_model', 'rollup_1m_all']) await c.command({ query: `OPTIMIZE TABLE ${db}.${t} FINAL` });
    const [r] = await rows(
      c,
      `SELECT sum(bytes_on_disk) AS all, sumIf(bytes_on_disk, table = 'events') AS events FROM system.parts WHERE database = '${db}' AND active`,
    );
    return { all: Number(r!.all), events: Number(r!.events) };
  }

  // (a) baseline: ClickHouse's own JSONEachRow reader loads the same file into the same tables and
  // rollup views (only ts is converted: the file has epoch ms).
  const nativePath = join(dir, 'native-chdb');
  const store = createClickHouseStore({ connection: await openChdbConnection(nativePath), database: 'native' });
  await store.migrate();
  await store.close();
  const native = await open(nativePath);
  const structure = EVENT_FIELDS.map((f) => `${f.name} ${f.kind === 'ts' ? 'Int64' : clickhouseType(f.kind)}`).join(', ');
  const select = EVENT_FIELDS.map((f) => (f.kind === 'ts' ? "fromUnixTimestamp64Milli(ts, 'UTC') AS ts" : f.name)).join(', ');
  const t0 = performance.now();
  await native.command({
    query: `INSERT INTO native.events (${EVENT_FIELDS.map((f) => f.name).join(', ')}) SELECT ${select} FROM file('${ndjsonFile}', 'JSONEachRow', '${structure}')`,
  });
  const nativeEps = N / ((performance.now() - t0) / 1000);
  const nativeBytes = await bytes(native, 'native');
  await native.close();
  log(
    `(a) native JSONEachRow load: ${Math.round(nativeEps)} events/s, ${(nativeBytes.all / N).toFixed(1)} bytes/event (events alone ${(nativeBytes.events / N).toFixed(1)})`,
  );

  // (b) API ingest into a fresh server on its own chdb folder.
  const apiPath = join(dir, 'api-chdb');
  const server = await startServer(join(dir, 'api'), { INFERLENS_STORAGE_BACKEND: 'clickhouse', INFERLENS_CLICKHOUSE_CHDB_PATH: apiPath });
  await firstEvaluation(server.url);
  const ingest = await apiIngest(server.url, bodies);
  const apiEps = N / (ingest.ms / 1000);
  log(`(b) API ingest: ${Math.round(apiEps)} events/s with ${CLIENTS} clients × ${BATCH} rows (${ingest.retries} retries after 429/503)`);
  // Re-sending the first 10 % (every row already stored): what the duplicate check costs.
  const resend = await apiIngest(server.url, bodies.slice(0, Math.max(1, Math.round(bodies.length / 10))));
  const resendEps = Math.min(N, Math.max(1, Math.round(bodies.length / 10)) * BATCH) / (resend.ms / 1000);
  log(`    re-sending 10 % (all duplicates, dropped): ${Math.round(resendEps)} events/s`);
  const rss = peakRssMb(server.pid);
  await server.stop();
  // (c) the dashboard query as hand-written SQL, then through the API, on the same merged parts
  // (the server's folder is opened here while the server is down, then the server is restarted).
  const c = await open(apiPath);
  const [{ n: stored } = { n: 0 }] = await rows(c, 'SELECT count() AS n FROM inferlens.events');
  if (stored !== N) throw new Error(`stored ${stored} events, expected ${N}: a re-send was stored twice`);
  const apiBytes = await bytes(c, 'inferlens');
  // Buckets aligned to the range's start, as the API's.
  const hand = (table: string, final = '') => `SELECT ${qFrom} + intDiv(toUnixTimestamp64Milli(ts) - ${qFrom}, 60000) * 60000 AS bucket, model, model_version,
      quantilesExactInclusive(0.5, 0.95, 0.99)(toFloat64(total_ms)) AS q, max(total_ms), count()
    FROM ${table} ${final} WHERE ts >= fromUnixTimestamp64Milli(${qFrom}, 'UTC') AND ts < fromUnixTimestamp64Milli(${qTo}, 'UTC')
    GROUP BY bucket, model, model_version ORDER BY bucket, model, model_version`;
  const sql = await timed(async () => (await rows(c, hand('inferlens.events'))).length);
  // The other idempotency design, measured on the same rows: a ReplacingMergeTree keyed by
  // (model, ts, request_id), exact only when read with FINAL. Written as live ingest writes it (a
  // part per BATCH rows of time-ordered events) and read before merges catch up (merges stopped),
  // where FINAL has to merge at read time.
  await c.command({
    query:
      'CREATE TABLE inferlens.events_rmt AS inferlens.events ENGINE = ReplacingMergeTree PARTITION BY toDate(ts) ORDER BY (model, ts, assumeNotNull(request_id)) SETTINGS allow_nullable_key = 1',
  });
  await c.command({ query: 'SYSTEM STOP MERGES inferlens.events_rmt' });
  const chunkMs = Math.ceil((3_600_000 * BATCH) / N);
  for (let t = endMs - 3_600_000; t <= endMs; t += chunkMs) {
    await c.command({
      query: `INSERT INTO inferlens.events_rmt SELECT * FROM inferlens.events WHERE ts >= fromUnixTimestamp64Milli(${t}, 'UTC') AND ts < fromUnixTimestamp64Milli(${t + chunkMs}, 'UTC')`,
    });
  }
  const [{ parts: rmtParts } = { parts: 0 }] = await rows(
    c,
    "SELECT count() AS parts FROM system.parts WHERE database = 'inferlens' AND table = 'events_rmt' AND active",
  );
  const plainRmt = await timed(async () => (await rows(c, hand('inferlens.events_rmt'))).length);
  const finalRmt = await timed(async () => (await rows(c, hand('inferlens.events_rmt', 'FINAL'))).length);
  await c.command({ query: 'DROP TABLE inferlens.events_rmt' });
  await c.close();
  // A query instance (`--role query`): on ClickHouse the reads are served apart from ingest and alerting.
  const again = await startServer(join(dir, 'api'), {
    INFERLENS_STORAGE_BACKEND: 'clickhouse',
    INFERLENS_CLICKHOUSE_CHDB_PATH: apiPath,
    INFERLENS_ROLE: 'query',
  });
  const api = await apiQuery(again.url, qFrom, qTo);
  await again.stop();
  log(
    `(c) dashboard query: API ${api.ms.toFixed(1)} ms (${api.rows} rows), SQL ${sql.ms.toFixed(1)} ms (${sql.rows} rows); ReplacingMergeTree (${rmtParts} parts) ${plainRmt.ms.toFixed(1)} ms, with FINAL ${finalRmt.ms.toFixed(1)} ms`,
  );
  log(`server peak RSS ${rss} MB; stored ${(apiBytes.all / N).toFixed(1)} bytes/event (events alone ${(apiBytes.events / N).toFixed(1)})`);
  return {
    store: 'clickhouse',
    events: N,
    clients: CLIENTS,
    batch_rows: BATCH,
    native_ndjson_eps: Math.round(nativeEps),
    api_ingest_eps: Math.round(apiEps),
    ingest_ratio: +(apiEps / nativeEps).toFixed(3),
    resend_eps: Math.round(resendEps),
    query_api_ms: +api.ms.toFixed(1),
    query_sql_ms: +sql.ms.toFixed(1),
    query_ratio: +(api.ms / sql.ms).toFixed(3),
    replacing_query_ms: +plainRmt.ms.toFixed(1),
    replacing_final_query_ms: +finalRmt.ms.toFixed(1),
    replacing_parts: rmtParts,
    bytes_per_event: +(apiBytes.all / N).toFixed(1),
    events_bytes_per_event: +(apiBytes.events / N).toFixed(1),
    native_bytes_per_event: +(nativeBytes.all / N).toFixed(1),
    peak_rss_mb: rss,
  };
}
