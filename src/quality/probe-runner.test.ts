import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDuckDBStore } from '../store/index.ts';
import type { Store } from '../store/index.ts';
import { parseGoldenYaml } from './golden.ts';
import { goldenResults } from './golden-results.ts';
import { ProbeTargetSchema, atPath, createProbeRunner, renderTemplate } from './probe-runner.ts';
import type { ProbeEventSink } from './probe-runner.ts';
import type { QualityReads } from './reads.ts';
import { MIN, T0, iso, readsOver } from './quality.test-support.ts';
import { GoldenResultsRequestSchema, decode } from '../schema/index.ts';

/** The route's path: decode the query string, then answer. */
const results = async (reads: QualityReads, input: unknown) => goldenResults(reads, decode(GoldenResultsRequestSchema, input, 'golden results request'));

/**
 * A model server on 127.0.0.1: /v1 classifies right (spam when the text says "win"), /v2 always
 * answers ham (wrong for g1), /v3 fails with HTTP 500. It records the bodies it got.
 */
function startModelServer(): Promise<{ server: Server; url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(data) as { text: string };
      bodies.push(body);
      if (req.url === '/v3') {
        res.writeHead(500).end('replica down');
        return;
      }
      const label = req.url === '/v1' && body.text.includes('win') ? 'spam' : 'ham';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ label, confidence: 0.9 }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies })),
  );
}

const SETS = parseGoldenYaml(`
- name: spam-basic
  model: spam
  checker: label_equals
  samples:
    - { id: g1, input: "win money now", expected: spam }
    - { id: g2, input: "lunch at noon?", expected: ham }
- name: other-model
  model: translator
  samples: [{ id: t1, input: hi, expected: hallo }]
`);

describe('probe runner', () => {
  let model: Awaited<ReturnType<typeof startModelServer>>;
  let store: Store;
  let reads: QualityReads;
  /** A sink that stores what it gets, as the pipeline would after validation. */
  let sink: ProbeEventSink & { batches: number };
  beforeAll(async () => {
    model = await startModelServer();
  });
  afterAll(() => new Promise<void>((r) => model.server.close(() => r())));
  beforeEach(async () => {
    store = await createDuckDBStore({ path: ':memory:', threads: 2 });
    await store.migrate();
    reads = readsOver(store);
    sink = {
      batches: 0,
      async writeEvents(rows) {
        sink.batches++;
        const r = await store.appendEvents(rows.map((e) => JSON.stringify(e)));
        return { accepted: r.inserted, rejected: [] };
      },
    };
  });
  afterEach(() => store.close());

  const targets = (base: string) =>
    ['v1', 'v2', 'v3'].map((v) =>
      ProbeTargetSchema.parse({ model: 'spam', model_version: v, url: `${base}/${v}`, body: { text: '{{input}}', note: 'probe {{id}} of {{model_version}}' } }),
    );

  it('reports the pass rate per version and the failing samples', async () => {
    let t = T0 + 1000;
    const runner = createProbeRunner({ sets: () => SETS, targets: targets(model.url), sink, intervalMs: 60_000, concurrency: 2, now: () => (t += 1) });
    // 3 versions × 2 samples of the spam set (the translator set is for another model).
    expect(await runner.runOnce()).toEqual({ calls: 6, passed: 3, failed: 3, errors: 2, written: 6, rejected: 0 });
    expect(model.bodies).toContainEqual({ text: 'win money now', note: 'probe g1 of v2' });

    // Probes stay out of user-traffic aggregates.
    const spec = {
      fromMs: T0,
      toMs: T0 + MIN,
      filters: {},
      groupBy: [],
      includeProbes: false,
      limit: 10,
      measures: [{ name: 'count', measure: { kind: 'count' as const } }],
    };
    expect(await reads.aggregate(spec)).toEqual([{ count: 0 }]);
    expect(await reads.aggregate({ ...spec, includeProbes: true })).toEqual([{ count: 6 }]);

    const r = await results(reads, { from: iso(T0), to: iso(T0 + 60 * MIN), step: '1h' });
    // v1 answers both right (2/2); v2 says ham for "win money now" (1/2); v3 errors (0/2).
    expect(r.versions.map((v) => [v.model_version, v.runs, v.passed, v.pass_rate, v.errors])).toEqual([
      ['v1', 2, 2, 1, 0],
      ['v2', 2, 1, 0.5, 0],
      ['v3', 2, 0, 0, 2],
    ]);
    expect(r.versions[1]!.buckets).toEqual([{ bucket: iso(T0), runs: 2, passed: 1, pass_rate: 0.5 }]);
    expect(r.failing.map((f) => [f.golden_id, f.model_version, f.fails, f.reason])).toEqual([
      ['g1', 'v2', 1, 'expected label spam, got ham'],
      ['g1', 'v3', 1, 'HTTP 500'],
      ['g2', 'v3', 1, 'HTTP 500'],
    ]);
    expect(r.truncated).toBe(false);
    expect((await results(reads, { from: iso(T0), to: iso(T0 + 60 * MIN), set: 'nope' })).versions).toEqual([]);
  });

  it('records a refused connection as an error event', async () => {
    const closed = createServer();
    const port = await new Promise<number>((r) => closed.listen(0, '127.0.0.1', () => r((closed.address() as AddressInfo).port)));
    await new Promise<void>((r) => closed.close(() => r()));
    const runner = createProbeRunner({
      sets: () => SETS,
      targets: [ProbeTargetSchema.parse({ model: 'spam', model_version: 'gone', url: `http://127.0.0.1:${port}/`, timeout_ms: 2000 })],
      sink,
      intervalMs: 60_000,
      now: () => T0,
    });
    expect(await runner.runOnce()).toMatchObject({ calls: 2, passed: 0, errors: 2, written: 2 });
    const rows = await reads.events({
      fromMs: T0,
      toMs: T0 + 1,
      filters: { probe: 'true' },
      includeProbes: true,
      columns: ['status', 'error_type', 'attributes'],
      limit: 10,
    });
    expect(rows.map((e) => [e.status, e.error_type, e.attributes?.golden_pass])).toEqual([
      ['error', 'other', 'false'],
      ['error', 'other', 'false'],
    ]);
  });

  it('runs on a schedule, one run at a time, and stops', async () => {
    const runner = createProbeRunner({ sets: () => SETS, targets: targets(model.url).slice(0, 1), sink, intervalMs: 20, now: () => T0 + 5000 + sink.batches });
    runner.start();
    runner.start(); // idempotent
    const deadline = Date.now() + 5000;
    while (sink.batches < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await runner.stop();
    const after = sink.batches;
    expect(after).toBeGreaterThanOrEqual(2);
    await new Promise((r) => setTimeout(r, 60));
    expect(sink.batches).toBe(after);
  });

  it('fills body templates and reads output paths', () => {
    expect(renderTemplate({ a: '{{input}}', b: ['x {{input}} {{model}}'], c: 3 }, { input: { q: 1 }, id: 'i', model: 'm', model_version: 'v' })).toEqual({
      a: { q: 1 },
      b: ['x {"q":1} m'],
      c: 3,
    });
    expect(atPath({ choices: [{ text: 'hi' }] }, 'choices.0.text')).toBe('hi');
    expect(atPath({ a: 1 }, 'a.b')).toBeUndefined();
  });
});
