// The exporter against a real HTTP server on 127.0.0.1, scripted per test.
import { afterEach, describe, expect, it } from 'vitest';
import { heldTimers } from '../../test/held-timers.ts';
import type { HeldTimers } from '../../test/held-timers.ts';
import { createClient } from './client.ts';
import type { InferlensClient } from './client.ts';
import type { ClientOptions } from './options.ts';
import { acceptAll, startScriptedServer, waitFor } from './scripted-server.test-support.ts';
import type { Script, ScriptedServer } from './scripted-server.test-support.ts';
import type { ClientStats } from './exporter.ts';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanup.length > 0) await cleanup.pop()!();
});

async function serve(script?: Script): Promise<ScriptedServer> {
  const server = await startScriptedServer(script);
  cleanup.push(() => server.close());
  return server;
}

function client(endpoint: string, options: Partial<ClientOptions> = {}) {
  const warnings: string[] = [];
  const c = createClient({
    endpoint,
    defaults: { model: 'clf', model_version: 'v1' },
    flushIntervalMs: 60_000,
    initialBackoffMs: 1,
    maxBackoffMs: 5,
    logger: { warn: (msg) => void warnings.push(msg) },
    ...options,
  });
  cleanup.push(async () => {
    const done = c.shutdown({ timeoutMs: 0 });
    // Held timers run only when fired: run this shutdown's deadline (a no-op once the test has shut down).
    if (options.timers && 'fire' in options.timers) (options.timers as HeldTimers).fire(0);
    await done;
  });
  return { c, warnings };
}

function record(c: InferlensClient, n: number, extra: Record<string, unknown> = {}): void {
  for (let i = 0; i < n; i++) c.record({ total_ms: i, request_id: `r${i}`, ...extra });
}

/** Every row pushed is accounted for exactly once. */
function total(s: ClientStats): number {
  return s.sent + Object.values(s.dropped).reduce((a, b) => a + b, 0) + s.inFlight + s.buffered;
}

const ids = (rows: unknown[]) => rows.map((r) => (r as { request_id: string }).request_id);

/** The per-request timeout the tests with held timers use; every other timer is a back-off wait or the shutdown deadline. */
const REQUEST_TIMEOUT_MS = 10_000;

/** Waits until the exporter sets a back-off timer (any held timer but a request timeout), runs it, and returns its delay. */
async function runNextBackoff(timers: HeldTimers): Promise<number> {
  await waitFor(() => timers.pending().some((ms) => ms !== REQUEST_TIMEOUT_MS));
  const ms = timers.pending().find((d) => d !== REQUEST_TIMEOUT_MS)!;
  timers.fire(ms);
  return ms;
}

describe('exporter: batching', () => {
  it('sends a full batch at once, NDJSON with the API key, and the rest on flush', async () => {
    const server = await serve();
    const { c } = client(server.url, { maxBatchSize: 10, apiKey: 'k-123' });
    record(c, 25);
    await waitFor(() => server.requests.length >= 2);
    expect(server.requests.map((r) => r.rows.length)).toEqual([10, 10]);
    const first = server.requests[0]!;
    expect(first.path).toBe('/v1/events');
    expect(first.headers['content-type']).toBe('application/x-ndjson');
    expect(first.headers.authorization).toBe('Bearer k-123');
    expect(first.headers['content-encoding']).toBeUndefined();
    expect(first.rows[0]).toMatchObject({ model: 'clf', model_version: 'v1', request_id: 'r0', total_ms: 0 });
    await c.flush();
    expect(ids(server.acceptedRows())).toEqual(Array.from({ length: 25 }, (_, i) => `r${i}`));
    expect(c.stats()).toMatchObject({ sent: 25, retries: 0, inFlight: 0, buffered: 0 });
  });

  it('sends on the interval without a flush', async () => {
    const server = await serve();
    const { c } = client(server.url, { flushIntervalMs: 30 });
    const t = c.startRequest({ tenant: 'acme' });
    t.stage('exec').end();
    await waitFor(() => server.requests.length === 1, 2000);
    expect(server.requests[0]!.rows[0]).toMatchObject({ tenant: 'acme', request_id: t.requestId, status: 'ok' });
  });

  it('gzips a batch over 8 KiB', async () => {
    const server = await serve();
    const { c } = client(server.url);
    record(c, 20, { input: 'lorem ipsum '.repeat(100) });
    await c.flush();
    expect(server.requests[0]!.headers['content-encoding']).toBe('gzip');
    expect(server.requests[0]!.rows).toHaveLength(20);
    expect(c.stats().sent).toBe(20);
  });

  it('keeps the newest rows when the buffer is full, and counts the rest', async () => {
    const server = await serve();
    const { c, warnings } = client(server.url, { maxBufferSize: 5, maxBatchSize: 100 });
    record(c, 12);
    expect(c.stats()).toMatchObject({ buffered: 5, dropped: { buffer_full: 7 } });
    await c.flush();
    expect(ids(server.acceptedRows())).toEqual(['r7', 'r8', 'r9', 'r10', 'r11']);
    expect(warnings.filter((w) => w.includes('buffer is full'))).toHaveLength(1);
    expect(total(c.stats())).toBe(12);
  });

  it('sends feedback as a JSON array; invalid feedback is counted, not sent', async () => {
    const server = await serve();
    const { c, warnings } = client(server.url);
    c.feedback({ request_id: 'r1', kind: 'thumbs', value: true });
    c.feedback({ request_id: 'r2', kind: 'rating', value: 4, ts: 1_700_000_000_000, source: 'app' });
    c.feedback({ request_id: 'r3', kind: 'stars', value: 5 } as never);
    c.feedback(null as never);
    await c.flush();
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.path).toBe('/v1/feedback');
    expect(server.requests[0]!.headers['content-type']).toBe('application/json');
    expect(server.requests[0]!.rows).toMatchObject([
      { request_id: 'r1', kind: 'thumbs', value: true },
      { request_id: 'r2', kind: 'rating', value: 4, ts: 1_700_000_000_000, source: 'app' },
    ]);
    expect(typeof (server.requests[0]!.rows[0] as { ts: unknown }).ts).toBe('number');
    expect(c.stats()).toMatchObject({ sent: 2, dropped: { rejected: 2 } });
    expect(warnings.some((w) => w.includes('kind'))).toBe(true);
  });
});

describe('exporter: failures', () => {
  it('honours Retry-After on 429: the retry waits exactly what the server asked', async () => {
    const server = await serve((req, n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : acceptAll(req, n)));
    const timers = heldTimers();
    const { c } = client(server.url, { initialBackoffMs: 1, maxBackoffMs: 2, timeoutMs: REQUEST_TIMEOUT_MS, timers });
    record(c, 3);
    const flushed = c.flush();
    // Its own back-off would be under 2 ms; the server's Retry-After: 1 makes it 1000 ms.
    expect(await runNextBackoff(timers)).toBe(1000);
    await flushed;
    expect(server.requests).toHaveLength(2);
    // Request timeout, the Retry-After wait, request timeout: no other wait was asked for.
    expect(timers.requested()).toEqual([REQUEST_TIMEOUT_MS, 1000, REQUEST_TIMEOUT_MS]);
    expect(c.stats()).toMatchObject({ sent: 3, retries: 1 });
  });

  it('backs off with full jitter on 503 and gives up after maxRetries', async () => {
    const server = await serve(() => ({ status: 503 }));
    const timers = heldTimers();
    const { c, warnings } = client(server.url, { maxRetries: 3, initialBackoffMs: 20, maxBackoffMs: 40, timeoutMs: REQUEST_TIMEOUT_MS, timers });
    record(c, 4);
    const flushed = c.flush();
    const waits: number[] = [];
    for (let retry = 0; retry < 3; retry++) {
      waits.push(await runNextBackoff(timers));
      // Nothing is sent while it waits: one request per attempt so far.
      expect(server.requests).toHaveLength(retry + 1);
    }
    await flushed;
    // 1 attempt + 3 retries; the waits are uniform in [0, cap) with caps min(40, 20·2ⁿ) = 20, 40, 40.
    expect(server.requests).toHaveLength(4);
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(0);
      expect(w).toBeLessThan([20, 40, 40][i]!);
    });
    expect(timers.pending()).toEqual([]);
    expect(c.stats()).toMatchObject({ sent: 0, retries: 3, dropped: { retries_exhausted: 4 }, inFlight: 0 });
    expect(warnings.filter((w) => w.includes('failed 4 times'))).toHaveLength(1);
  });

  it('retries after 503s, resets and timeouts, then succeeds', async () => {
    const replies = [{ status: 503 }, { reset: true as const }, { status: 200, delayMs: 1000 }];
    const server = await serve((req, n) => replies[n] ?? acceptAll(req, n));
    const { c } = client(server.url, { timeoutMs: 150 });
    record(c, 5);
    await c.flush();
    expect(server.requests).toHaveLength(4);
    expect(c.stats()).toMatchObject({ sent: 5, retries: 3, dropped: { retries_exhausted: 0 } });
  });

  it('counts rejected rows and does not retry them', async () => {
    const server = await serve((req) => ({
      status: 200,
      body: {
        accepted: req.rows.length - 2,
        rejected: [
          { index: 1, path: 'queue_ms', message: 'expected ≥ 0' },
          { index: 3, path: 'queue_ms', message: 'expected ≥ 0' },
        ],
      },
    }));
    const { c, warnings } = client(server.url);
    record(c, 5);
    await c.flush();
    expect(server.requests).toHaveLength(1);
    expect(c.stats()).toMatchObject({ sent: 3, retries: 0, dropped: { rejected: 2 } });
    expect(warnings.filter((w) => w.includes('queue_ms'))).toHaveLength(1);
  });

  it('drops a batch answered 400 (or 401) without retrying', async () => {
    const server = await serve((_req, n) => ({ status: n === 0 ? 400 : 401, body: { status: 'error' } }));
    const { c } = client(server.url);
    record(c, 3);
    await c.flush();
    record(c, 2);
    await c.flush();
    expect(server.requests).toHaveLength(2);
    expect(c.stats()).toMatchObject({ sent: 0, retries: 0, dropped: { rejected: 5 } });
  });

  it('splits a batch on 413 and drops a single row that is too large', async () => {
    const server = await serve((req, n) =>
      req.rows.length > 2 || req.rows.some((r) => (r as { label?: string }).label === 'huge') ? { status: 413 } : acceptAll(req, n),
    );
    const { c, warnings } = client(server.url);
    record(c, 4);
    c.record({ total_ms: 1, request_id: 'big', label: 'huge' });
    await c.flush();
    // 5 → 413; 2 ok; 3 → 413; 1 ok; 2 (one huge) → 413; 1 ok; 1 huge → 413, dropped.
    expect(server.requests.map((r) => r.rows.length)).toEqual([5, 2, 3, 1, 2, 1, 1]);
    expect(ids(server.acceptedRows())).toEqual(['r0', 'r1', 'r2', 'r3']);
    expect(c.stats()).toMatchObject({ sent: 4, retries: 0, dropped: { too_large: 1 } });
    expect(warnings.filter((w) => w.includes('413'))).toHaveLength(1);
  });

  it('never throws when the server answers garbage', async () => {
    const server = await serve((_req, n) => (n === 0 ? { status: 200, body: 'not json {' } : { status: 500, body: '<html>oops</html>' }));
    const { c, warnings } = client(server.url);
    record(c, 2);
    await c.flush();
    record(c, 3);
    await c.flush();
    expect(c.stats()).toMatchObject({ sent: 2, dropped: { rejected: 3 } });
    expect(warnings.some((w) => w.includes('not { accepted, rejected }'))).toBe(true);
    expect(warnings.some((w) => w.includes('HTTP 500'))).toBe(true);
  });

  it('never throws when the server is down', async () => {
    const server = await serve();
    const url = server.url;
    await server.close();
    const { c } = client(url, { maxRetries: 2 });
    record(c, 3);
    await expect(c.flush()).resolves.toBeUndefined();
    expect(c.stats()).toMatchObject({ sent: 0, retries: 2, dropped: { retries_exhausted: 3 } });
  });

  it('never throws into the host: unserialisable rows, bad input, a throwing logger', async () => {
    const server = await serve();
    const c = createClient({
      endpoint: server.url,
      defaults: { model: 'm' },
      logger: {
        warn: () => {
          throw new Error('logger down');
        },
      },
    });
    cleanup.push(() => c.shutdown({ timeoutMs: 0 }));
    const cyclic: Record<string, unknown> = { total_ms: 1 };
    cyclic.self = cyclic;
    expect(() => {
      c.record(cyclic as never);
      c.record({ total_ms: 1, score: 10n } as never);
      c.record(null as never);
      c.record({ total_ms: 2 });
      c.startRequest({ tenant: 5 } as never)
        .set(null as never)
        .capture(null as never)
        .end();
    }).not.toThrow();
    await c.flush();
    // Sent: { total_ms: 2 } and the timer's event; rejected: the cycle, the BigInt, the null.
    expect(c.stats()).toMatchObject({ sent: 2, dropped: { rejected: 3 } });
  });
});

describe('exporter: shutdown', () => {
  it('flushes everything before the deadline, then refuses new rows', async () => {
    const server = await serve((req, n) => ({ ...acceptAll(req, n), delayMs: 20 }));
    // Held timers: the deadline can only pass if the test fires it, and it never does here.
    const timers = heldTimers();
    const { c } = client(server.url, { maxBatchSize: 10, timeoutMs: REQUEST_TIMEOUT_MS, timers });
    for (let i = 0; i < 35; i++)
      c.startRequest({ request_id: `q${i}` })
        .stage('exec')
        .end();
    const s = await c.shutdown({ timeoutMs: 2000 });
    expect(timers.requested()).toContain(2000);
    expect(timers.pending()).toEqual([]); // the deadline was cleared, not run
    expect(server.acceptedRows()).toHaveLength(35);
    expect(s).toMatchObject({ sent: 35, buffered: 0, inFlight: 0, dropped: { shutdown: 0 } });
    c.record({ total_ms: 1 });
    c.startRequest().end();
    expect(c.stats().dropped.shutdown).toBe(2);
    expect(await c.shutdown()).toMatchObject({ sent: 35 });
  });

  it('stops at the deadline when the server hangs, counting what is left', async () => {
    const server = await serve(() => ({ hang: true }));
    const timers = heldTimers();
    const { c, warnings } = client(server.url, { maxBatchSize: 10, timeoutMs: REQUEST_TIMEOUT_MS, timers });
    record(c, 25);
    await waitFor(() => server.requests.length === 1);
    let done = false;
    const shutdown = c.shutdown({ timeoutMs: 200 }).then((s) => {
      done = true;
      return s;
    });
    // Before the deadline it waits for the hanging request: nothing is dropped yet.
    expect(timers.pending()).toEqual([REQUEST_TIMEOUT_MS, 200]);
    for (let i = 0; i < 10; i++) await new Promise((ok) => setImmediate(ok));
    expect(done).toBe(false);
    expect(c.stats()).toMatchObject({ inFlight: 10, buffered: 15, dropped: { shutdown: 0 } });
    timers.fire(200);
    const s = await shutdown;
    expect(s).toMatchObject({ sent: 0, inFlight: 0, buffered: 0, dropped: { shutdown: 25 } });
    expect(server.requests).toHaveLength(1);
    expect(timers.pending()).toEqual([]);
    expect(warnings.some((w) => w.includes('shutdown deadline'))).toBe(true);
  });

  it('a back-off wait does not outlive the deadline', async () => {
    const server = await serve(() => ({ status: 503, headers: { 'retry-after': '30' } }));
    const timers = heldTimers();
    const { c } = client(server.url, { timeoutMs: REQUEST_TIMEOUT_MS, timers });
    record(c, 3);
    void c.flush();
    await waitFor(() => timers.pending().includes(30_000));
    const s = c.shutdown({ timeoutMs: 100 });
    timers.fire(100);
    expect(await s).toMatchObject({ sent: 0, retries: 1, dropped: { shutdown: 3 } });
    // The 30 s wait ended with the deadline: cleared, never run.
    expect(timers.pending()).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('its timers never keep the process alive, except the shutdown deadline', async () => {
    const server = await serve(() => ({ status: 503, headers: { 'retry-after': '30' } }));
    // The real timers, with each handle kept to look at.
    const set: { ms: number; handle: NodeJS.Timeout }[] = [];
    const timers = {
      setTimeout: (fn: () => void, ms: number) => {
        const handle = setTimeout(fn, ms);
        set.push({ ms, handle });
        return handle;
      },
      clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout),
    };
    const { c } = client(server.url, { timeoutMs: REQUEST_TIMEOUT_MS, timers });
    record(c, 1);
    void c.flush();
    await waitFor(() => set.some((t) => t.ms === 30_000));
    const s = c.shutdown({ timeoutMs: 50 });
    const refs = set.map((t) => [t.ms, t.handle.hasRef()]);
    expect(refs).toEqual([
      [REQUEST_TIMEOUT_MS, false],
      [30_000, false],
      [50, true],
    ]);
    expect(await s).toMatchObject({ dropped: { shutdown: 1 } });
  });
});
