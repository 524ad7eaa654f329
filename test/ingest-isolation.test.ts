// One client's poison rows never fail other clients' batches (issue 12): 24 clients send batches
// at the same time through real HTTP into one group-committing pipeline on a DuckDB file; one of
// them puts in every batch the rows that used to turn the whole group commit into a retryable 503
// (a count past 2^31 − 1, lone surrogates, a date not in the calendar, a sample weight of 1e308)
// and a duplicate key that DuckDB's reader refuses but validation accepts. Every reply is 200,
// every valid row is stored, and each bad row is rejected alone with its field path.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const TS = NOW - 30_000;
let dir: string;
let server: InferlensServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'inferlens-isolation-'));
  // Not an overload test: the queue may wait as long as it takes (src/pipeline/pipeline.test.ts tests the bound).
  const config = loadConfig({
    flags: { server: { port: 0 }, storage: { dataDir: dir }, pipeline: { maxQueueWaitMs: 60_000 }, alerting: { enabled: false }, log: { level: 'silent' } },
  });
  server = await startServer(config, { logger: pino({ level: 'silent' }), now: () => NOW, ui: false, collectors: false });
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

const CLIENTS = 24;
const BATCHES = 5;
const ROWS = 100;
const POISONER = 5;

/** The poison lines and the path each must be rejected with (null: valid, stored). */
const poison = (b: number): [string, string | null][] => [
  [JSON.stringify({ ts: TS, request_id: `p${b}-count`, model: 'iso', status: 'ok', batch_size: 3_000_000_000 }), 'batch_size'],
  [`{"ts":${TS},"request_id":"p${b}-sur","model":"iso","tenant":"t\\ud800","status":"ok"}`, 'tenant'],
  [`{"ts":${TS},"request_id":"p${b}-rid\\udc00","model":"iso","status":"ok"}`, 'request_id'],
  [`{"ts":${TS},"request_id":"p${b}-attr","model":"iso","attributes":{"k":"\\ud83d"},"status":"ok"}`, 'attributes.k'],
  [JSON.stringify({ ts: '2026-11-31T11:59:00Z', request_id: `p${b}-cal`, model: 'iso', status: 'ok' }), 'ts'],
  [JSON.stringify({ ts: TS, request_id: `p${b}-w`, model: 'iso', status: 'error', sample_weight: 1e308 }), 'sample_weight'],
  [`{"ts":${TS},"request_id":"p${b}-dup","model":"iso","status":"bogus","status":"ok"}`, null],
];

describe('a poison row under concurrency', () => {
  it("fails only itself: every reply is 200 and every other row of every client's batch is stored", async () => {
    const replies: { client: number; status: number; body: { accepted: number; rejected: { index: number; path: string }[] } }[] = [];
    const client = async (c: number) => {
      for (let b = 0; b < BATCHES; b++) {
        const lines = Array.from({ length: ROWS }, (_, i) =>
          JSON.stringify({ ts: TS, request_id: `c${c}-b${b}-${i}`, model: 'iso', tenant: `c${c}`, total_ms: i, status: 'ok' }),
        );
        // The poison goes in the middle of the batch, between valid rows.
        if (c === POISONER) lines.splice(ROWS / 2, 0, ...poison(b).map(([l]) => l));
        const res = await fetch(`${server.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body: lines.join('\n') });
        replies.push({ client: c, status: res.status, body: (await res.json()) as never });
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));

    expect(replies.map((r) => r.status)).toEqual(Array(CLIENTS * BATCHES).fill(200));
    for (const r of replies.filter((x) => x.client !== POISONER)) expect(r.body).toEqual({ accepted: ROWS, rejected: [] });
    const expected = poison(0)
      .map(([, path], k) => (path === null ? null : { index: ROWS / 2 + k, path }))
      .filter((x) => x !== null);
    for (const r of replies.filter((x) => x.client === POISONER)) {
      expect(r.body.accepted).toBe(ROWS + 1); // the duplicate-key row is valid
      expect(r.body.rejected.map(({ index, path }) => ({ index, path }))).toEqual(expected);
    }

    const q = await fetch(`${server.url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: '2026-11-30T11:00:00Z', to: '2026-11-30T12:05:00Z', filters: { model: 'iso' }, measures: ['n'] }),
    });
    const rows = ((await q.json()) as { data: { rows: { n: number }[] } }).data.rows;
    expect(rows[0]!.n).toBe(CLIENTS * BATCHES * ROWS + BATCHES);
    // The duplicate key was stored with the value that was validated (the last one).
    const dup = (await (await fetch(`${server.url}/v1/requests/p0-dup`)).json()) as { data: { events: { status: string }[] } };
    expect(dup.data.events.map((e) => e.status)).toEqual(['ok']);
  });
});
