// The scraper against real HTTP servers on 127.0.0.1 (port 0): a vLLM and a DCGM fixture, one that
// never answers, one that answers HTML, one that answers 500, and a closed port.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { heldTimers } from '../../../test/held-timers.ts';
import type { ResourceSink } from '../../pipeline/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { InferlensError, ResourceSampleSchema } from '../../schema/index.ts';
import { createScraper } from './scraper.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'prometheus');
const VLLM = readFileSync(join(FIXTURES, 'vllm', 'datadog-vllm-metrics-curated-fixture.txt'), 'utf8');
const DCGM = readFileSync(join(FIXTURES, 'dcgm', 'datadog-dcgm-metrics-fixture.txt'), 'utf8');

const servers: Server[] = [];
let vllmBody = VLLM;
/** Requests the slow server holds open right now (it never answers; the scraper's timeout ends them). */
let slowHeld = 0;

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
}

let urls: { vllm: string; dcgm: string; slow: string; garbage: string; error: string; closed: string; big: string };

beforeAll(async () => {
  const text = (body: () => string) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(body());
  };
  const closedUrl = await serve(() => {});
  await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
  urls = {
    vllm: await serve(text(() => vllmBody)),
    dcgm: await serve(text(() => DCGM)),
    // Never answers: only the scraper's timeout ends its requests.
    slow: await serve((_req, res) => {
      slowHeld++;
      res.on('close', () => slowHeld--);
    }),
    garbage: await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>\n<body><h1>502 Bad Gateway</h1></body>\n</html>\n');
    }),
    error: await serve((_req, res) => {
      res.writeHead(500);
      res.end('boom');
    }),
    big: await serve(text(() => 'x 1\n'.repeat(1000))),
    closed: closedUrl,
  };
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

function memorySink(): ResourceSink & { samples: ResourceSample[]; writes: number } {
  const sink = {
    samples: [] as ResourceSample[],
    writes: 0,
    async writeResources(batch: readonly ResourceSample[]) {
      sink.writes++;
      for (const s of batch) ResourceSampleSchema.parse(s); // every sample meets the schema
      sink.samples.push(...batch);
      return { accepted: batch.length, rejected: [] };
    },
  };
  return sink;
}

// Generous timeouts for the healthy servers (the machine may be busy); only the slow one is meant to time out.
const target = (url: string, extra: Record<string, unknown> = {}) => ({
  url,
  intervalMs: 5000,
  timeoutMs: url === urls.slow ? 300 : 3000,
  labels: { node: 'gpu-node-1', replica: 'r1', pool: 'a100', rack: 'r7' },
  ...extra,
});

describe('createScraper', () => {
  it('scrapes, maps, and turns counters into rates on the second scrape', async () => {
    vllmBody = VLLM;
    const sink = memorySink();
    let t = 1_700_000_000_000;
    const scraper = createScraper({ targets: [target(urls.vllm)], sink, now: () => t });
    await scraper.scrapeOnce();
    const q = sink.samples.find((s) => s.metric === 'queue_length')!;
    expect(q).toMatchObject({ ts: t, node: 'gpu-node-1', replica: 'r1', pool: 'a100', gpu: null, value: 0 });
    expect(q.labels).toEqual({ rack: 'r7', engine: 'vllm', model: 'facebook/opt-125m' });
    expect(sink.samples.some((s) => s.metric.endsWith('_per_second'))).toBe(false);

    vllmBody = VLLM.replace(
      'vllm:generation_tokens_total{model_name="facebook/opt-125m"} 7.0',
      'vllm:generation_tokens_total{model_name="facebook/opt-125m"} 307.0',
    );
    t += 15_000;
    sink.samples.length = 0;
    await scraper.scrapeOnce();
    // 300 tokens in 15 s = 20 tokens per second.
    expect(sink.samples.find((s) => s.metric === 'generation_tokens_per_second')!.value).toBe(20);
    const st = scraper.stats()[0]!;
    expect(st).toMatchObject({ url: urls.vllm, engine: 'vllm', scrapes: 2, failures: 0, lastSuccessMs: t, lastError: null, lastParseWarnings: 0 });
    expect(st.lastSamples).toBe(sink.samples.length);
    expect(st.lastDurationMs).toBeGreaterThanOrEqual(0);
    await scraper.stop();
  });

  it('a slow, a garbage, a 500 and a closed target fail with reasons and do not stall the good ones', async () => {
    const sink = memorySink();
    // The scrape timeouts run when the test fires them: the slow target stays in flight until then.
    const timers = heldTimers();
    const scraper = createScraper({
      targets: [target(urls.slow), target(urls.garbage), target(urls.error), target(urls.closed), target(urls.dcgm)],
      sink,
      timers,
    });
    let roundDone = false;
    const round = scraper.scrapeOnce().then(() => (roundDone = true));
    // Every other target settles while the slow one's request is still open.
    const othersSettled = () => {
      const [, garbage, error, closed, dcgm] = scraper.stats();
      return [garbage, error, closed].every((s) => s!.failures === 1) && dcgm!.lastSuccessMs !== null && slowHeld === 1;
    };
    await vi.waitUntil(othersSettled, { timeout: 30_000, interval: 5 });
    expect(scraper.stats()[0]).toMatchObject({ scrapes: 1, failures: 0, lastError: null, lastSuccessMs: null });
    expect(roundDone).toBe(false);
    // Only the slow target's 300 ms timeout is left; the others cleared theirs when they settled.
    expect(timers.pending()).toEqual([300]);
    timers.fire(300);
    await round;
    await vi.waitUntil(() => slowHeld === 0, { timeout: 30_000, interval: 5 }); // the scraper closed it
    const [slow, garbage, error, closed, dcgm] = scraper.stats();
    expect(slow!.lastError).toMatchObject({ reason: 'timeout', message: expect.stringContaining('300 ms') });
    expect(garbage!.lastError).toMatchObject({ reason: 'unparseable', message: expect.stringContaining('line 1') });
    expect(error!.lastError).toMatchObject({ reason: 'http_status', message: expect.stringContaining('500') });
    expect(closed!.lastError!.reason).toBe('connection');
    for (const s of [slow, garbage, error, closed]) expect(s).toMatchObject({ failures: 1, lastSuccessMs: null });
    expect(dcgm).toMatchObject({ failures: 0, engine: 'dcgm', lastError: null });
    // DCGM_FI_DEV_GPU_UTIL 0 % on GPU 0; the gpu field is the index, the UUID stays a label.
    const util = sink.samples.find((s) => s.metric === 'gpu_utilization_ratio')!;
    expect(util).toMatchObject({ gpu: '0', value: 0 });
    expect(util.labels!.gpu_uuid).toBe('GPU-20c56d28-0da5-6d26-a36a-e7af1ce2586e');
    expect(sink.samples.find((s) => s.metric === 'gpu_memory_free_bytes')!.value).toBe(15109 * 1048576);
    await scraper.stop();
  });

  it('runs each target on its own interval; stop() is idempotent and ends the loops', async () => {
    const sink = memorySink();
    const scraper = createScraper({
      targets: [target(urls.dcgm, { intervalMs: 100, timeoutMs: 100 }), target(urls.slow, { intervalMs: 100, timeoutMs: 50 })],
      sink,
    });
    scraper.start();
    scraper.start(); // a second start is a no-op
    await expect.poll(() => scraper.stats()[0]!.scrapes, { timeout: 5000, interval: 20 }).toBeGreaterThanOrEqual(3);
    // The slow target kept failing meanwhile, on its own loop.
    expect(scraper.stats()[1]!.failures).toBeGreaterThanOrEqual(1);
    const p1 = scraper.stop();
    const p2 = scraper.stop();
    expect(p1).toBe(p2);
    await p1;
    const after = scraper.stats()[0]!.scrapes;
    await new Promise((r) => setTimeout(r, 250));
    expect(scraper.stats()[0]!.scrapes).toBe(after);
  });

  it('records a sink failure and a too-large body as failed scrapes', async () => {
    const failing: ResourceSink = {
      writeResources: () => Promise.reject(new InferlensError('unavailable', 'store is down', { retryAfterS: 5 })),
    };
    const s1 = createScraper({ targets: [target(urls.dcgm)], sink: failing });
    await s1.scrapeOnce();
    expect(s1.stats()[0]!.lastError).toMatchObject({ reason: 'sink', message: 'store is down' });
    const s2 = createScraper({ targets: [target(urls.big)], sink: memorySink(), maxBodyBytes: 1000 });
    await s2.scrapeOnce();
    expect(s2.stats()[0]!.lastError!.reason).toBe('body_too_large');
  });

  it('bounds the per-target series state and counts what it drops', async () => {
    const sink = memorySink();
    let t = 1000;
    const scraper = createScraper({ targets: [target(urls.vllm)], sink, now: () => t, maxSeriesPerTarget: 5 });
    vllmBody = VLLM;
    await scraper.scrapeOnce();
    t += 1000;
    await scraper.scrapeOnce();
    expect(scraper.stats()[0]!.droppedSeries).toBeGreaterThan(0);
  });

  it('rejects bad config up front, listing every problem', () => {
    const sink = memorySink();
    const bad = () =>
      createScraper({
        sink,
        targets: [
          { url: 'ftp://x', labels: { node: 'n' } },
          { url: 'http://127.0.0.1:1/metrics', intervalMs: 1000, timeoutMs: 5000, labels: { node: '' } },
        ],
      });
    expect(bad).toThrow(InferlensError);
    try {
      bad();
    } catch (e) {
      const err = e as InferlensError;
      expect(err.code).toBe('invalid_argument');
      expect(err.issues.map((i) => i.path).sort()).toEqual(['targets.0.url', 'targets.1.labels.node', 'targets.1.timeoutMs']);
    }
  });
});
