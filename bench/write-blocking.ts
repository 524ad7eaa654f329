/**
 * Event-loop blocking on the write routes: the longest stall of the server's event loop while it
 * handles one large or hostile request, against a small valid batch measured in the same run.
 *
 *   npm run bench:blocking -- [--json]
 *
 * The server runs as a real child process (`inferlens serve` on a temp data dir). Its own
 * `/metrics` reports `nodejs_eventloop_lag_max_seconds` (perf_hooks.monitorEventLoopDelay, reset
 * at each scrape), and while the request runs the bench pings `GET /healthz` one after another.
 * Each case: scrape (reset), send the request with the pings running, wait for the reply, scrape;
 * the stall is the larger of the reported maximum and the slowest ping. Each case runs three
 * times; the median is printed. The machine's other load shows in the baseline.
 * The last line (with --json) is one JSON object.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveProcess, stopProcess } from '../test/serve-process.ts';

const json = process.argv.includes('--json');
const dir = mkdtempSync(join(tmpdir(), 'inferlens-bench-blocking-'));
const server = await serveProcess(['--port', '0', '--data', dir, '--log-level', 'error']);
const NOW = Date.now();

interface Case {
  name: string;
  path: string;
  contentType: string;
  body: () => string;
}

const events = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      ts: NOW - 1000,
      request_id: `${tag}-${i}`,
      model: 'bench',
      model_version: 'v1',
      tenant: `t${i % 40}`,
      queue_ms: 3.25,
      exec_ms: 18.5,
      total_ms: 23.75,
      status: 'ok',
    }),
  ).join('\n');
const zerosLines = (bytes: number) => '0\n'.repeat(bytes / 2);
/** A golden set whose one sample's input is a map of `keys` keys (the 578 KB, 30 k keys). */
const wideYaml = (keys: number) =>
  `name: wide\nsamples:\n  - id: a\n    expected: 1\n    input:\n${Array.from({ length: keys }, (_, i) => `      key_${String(i).padStart(6, '0')}: v${i}\n`).join('')}`;
/** An OTLP/JSON export of `n` GenAI inference spans (~380 bytes each). */
const otlpSpans = (n: number) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'bench' } }] },
        scopeSpans: [
          {
            spans: Array.from({ length: n }, (_, i) => ({
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId: (i + 1).toString(16).padStart(16, '0'),
              name: 'chat m',
              kind: 2,
              startTimeUnixNano: String(BigInt(NOW - 2000) * 1_000_000n),
              endTimeUnixNano: String(BigInt(NOW - 1980) * 1_000_000n),
              attributes: [
                { key: 'gen_ai.request.model', value: { stringValue: 'bench-otlp' } },
                { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
                { key: 'gen_ai.usage.input_tokens', value: { intValue: 12 } },
              ],
            })),
          },
        ],
      },
    ],
  });
const deepJson = (depth: number) =>
  JSON.stringify({ name: 'deep', samples: [{ id: 'a', input: JSON.parse('['.repeat(depth) + ']'.repeat(depth)), expected: 1 }] });

let seq = 0;
const CASES: Case[] = [
  { name: 'baseline: 100 valid events', path: '/v1/events', contentType: 'application/x-ndjson', body: () => events(100, `base${seq++}`) },
  { name: '50,000 valid events (11 MB)', path: '/v1/events', contentType: 'application/x-ndjson', body: () => events(50_000, `big${seq++}`) },
  { name: '/v1/events: 2 MB of "0\\n"', path: '/v1/events', contentType: 'application/x-ndjson', body: () => zerosLines(2_000_000) },
  { name: '/v1/resources: 2 MB of "0\\n"', path: '/v1/resources', contentType: 'application/x-ndjson', body: () => zerosLines(2_000_000) },
  { name: '/v1/feedback: 2 MB of "0\\n"', path: '/v1/feedback', contentType: 'application/x-ndjson', body: () => zerosLines(2_000_000) },
  { name: '/v1/feedback: 2 MB of "0"', path: '/v1/feedback', contentType: 'application/x-ndjson', body: () => '0'.repeat(2_000_000) },
  { name: '/v1/traces: 10,000 spans (OTLP/JSON)', path: '/v1/traces', contentType: 'application/json', body: () => otlpSpans(10_000) },
  { name: 'golden set YAML, 30 k keys', path: '/v1/golden/sets', contentType: 'application/yaml', body: () => wideYaml(30_000) },
  { name: 'golden set JSON, nested 2,000 deep', path: '/v1/golden/sets', contentType: 'application/json', body: () => deepJson(2000) },
];

async function lagMaxS(): Promise<number> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
  return m ? Number(m[1]) : NaN;
}

const results: { name: string; status: number; blockMs: number; ratio: number }[] = [];
let baselineMs = NaN;
try {
  // Warm-up (JIT, the store's first inserts), not measured.
  for (let i = 0; i < 5; i++)
    await (
      await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: events(1000, `warm${i}`) })
    ).text();
  for (const c of CASES) {
    const samples: number[] = [];
    let status = 0;
    for (let run = 0; run < 3; run++) {
      const body = c.body();
      await lagMaxS();
      // Pings /healthz one after another while the request runs: the slowest ping is the longest
      // time the server could not answer anything.
      let done = false;
      let pingMaxMs = 0;
      const pings = (async () => {
        while (!done) {
          const t0 = performance.now();
          // A stall longer than the server's keep-alive timeout resets the pooled connection.
          await fetch(`${server.url}/healthz`).then(
            (r) => r.text(),
            () => undefined,
          );
          pingMaxMs = Math.max(pingMaxMs, performance.now() - t0);
        }
      })();
      const res = await fetch(server.url + c.path, { method: 'POST', headers: { 'content-type': c.contentType }, body });
      status = res.status;
      await res.arrayBuffer();
      done = true;
      await pings;
      const lagMs = (await lagMaxS()) * 1000;
      if (process.argv.includes('--verbose')) console.log(c.name, { lagMs, pingMaxMs });
      samples.push(Math.max(lagMs, pingMaxMs));
    }
    samples.sort((a, b) => a - b);
    const blockMs = samples[1]!;
    if (Number.isNaN(baselineMs)) baselineMs = blockMs;
    results.push({ name: c.name, status, blockMs: Math.round(blockMs * 10) / 10, ratio: Math.round((blockMs / baselineMs) * 10) / 10 });
    if (!json)
      console.log(`${c.name.padEnd(40)} HTTP ${status}  longest stall ${blockMs.toFixed(1).padStart(8)} ms  (${(blockMs / baselineMs).toFixed(1)}× baseline)`);
  }
} finally {
  await stopProcess(server.child);
  rmSync(dir, { recursive: true, force: true });
}
if (json) console.log(JSON.stringify({ baseline_ms: Math.round(baselineMs * 10) / 10, cases: results }));
