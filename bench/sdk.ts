/**
 * SDK overhead per request: startRequest + 5 stage marks + set + end, against the same loop
 * without the SDK, measured in the same run.
 *
 *   npm run bench:sdk -- --json [--requests 1000000]
 *
 * The exporter sends to a local server that accepts everything. Only the synchronous request path
 * is timed: requests run in chunks, and between chunks (untimed) the exporter drains its buffer to
 * the server, so the buffer never overflows and sending is not counted. Baseline and SDK chunks
 * alternate so drift (CPU frequency, GC) hits both alike. The last line (with --json) is one JSON
 * object.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { createClient } from '../src/sdk/index.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const requestsArg = args.indexOf('--requests');
const REQUESTS = requestsArg >= 0 ? Number(args[requestsArg + 1]) : 1_000_000;
const CHUNK = 5_000;
const WARMUP = 100_000;

// A server that accepts every row and does nothing else.
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
    let rows = body.length > 0 ? 1 : 0;
    for (let i = 0; i < body.length; i++) if (body[i] === 10) rows++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ accepted: rows, rejected: [] }));
  });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const { port } = server.address() as AddressInfo;

const client = createClient({
  endpoint: `http://127.0.0.1:${port}`,
  defaults: { model: 'spam-clf', model_version: 'v3', service_version: '1.4.2', node: 'gpu-01', replica: 'r1' },
});

const TENANTS = ['acme', 'globex', 'initech', 'umbrella'] as const;
let sink = 0;

/** The service's own per-request work, shared by both loops so only the SDK differs. */
function serve(i: number): { tenant: string; entry: string; route_rule: string } {
  const req = { tenant: TENANTS[i & 3]!, entry: 'classify', route_rule: 'default' };
  sink += req.tenant.length + (i & 7);
  return req;
}

function baselineChunk(n: number): void {
  for (let i = 0; i < n; i++) serve(i);
}

function sdkChunk(n: number): void {
  for (let i = 0; i < n; i++) {
    const t = client.startRequest(serve(i));
    t.stage('ingress');
    t.stage('queue');
    t.stage('batch');
    t.stage('exec');
    t.stage('post');
    t.set({ batch_size: 8, label: 'spam', confidence: 0.93, output_length: 1 });
    t.end();
  }
}

function timeNs(fn: () => void): number {
  const t0 = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - t0);
}

/** Lets the exporter send everything buffered (untimed). */
async function drain(): Promise<void> {
  await client.flush();
  while (client.stats().buffered + client.stats().inFlight > 0) await client.flush();
}

for (let done = 0; done < WARMUP; done += CHUNK) {
  baselineChunk(CHUNK);
  sdkChunk(CHUNK);
  await drain();
}
const afterWarmup = client.stats().sent;

let baselineNs = 0;
let sdkNs = 0;
for (let done = 0; done < REQUESTS; done += CHUNK) {
  const n = Math.min(CHUNK, REQUESTS - done);
  baselineNs += timeNs(() => baselineChunk(n));
  sdkNs += timeNs(() => sdkChunk(n));
  await drain();
}

const stats = await client.shutdown({ timeoutMs: 10_000 });
await new Promise<void>((resolve) => server.close(() => resolve()));

const baselinePerRequestNs = baselineNs / REQUESTS;
const sdkPerRequestNs = sdkNs / REQUESTS;
const overheadUs = (sdkPerRequestNs - baselinePerRequestNs) / 1000;
const droppedRows = Object.values(stats.dropped).reduce((a, b) => a + b, 0);

console.log(`SDK overhead per request (startRequest + 5 stages + set + end), ${REQUESTS.toLocaleString('en')} requests, node ${process.version}`);
console.log(`  baseline (same loop, no SDK)  ${baselinePerRequestNs.toFixed(1)} ns/request`);
console.log(`  with SDK                      ${sdkPerRequestNs.toFixed(1)} ns/request`);
console.log(`  overhead                      ${overheadUs.toFixed(3)} µs/request (target ≤ 5 µs)`);
console.log(
  `  exporter: ${stats.sent - afterWarmup} of ${REQUESTS} rows sent to the local server, ${droppedRows} dropped, ${stats.retries} retries (sending not timed)`,
);
if (sink === -1) console.log('');
if (json) {
  console.log(
    JSON.stringify({
      overhead_us_per_request: Number(overheadUs.toFixed(4)),
      baseline_ns_per_request: Number(baselinePerRequestNs.toFixed(2)),
      sdk_ns_per_request: Number(sdkPerRequestNs.toFixed(2)),
      requests: REQUESTS,
    }),
  );
}
