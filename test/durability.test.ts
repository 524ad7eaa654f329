// A reply of success means the rows are durable: kill -9 the real server mid-stream, restart it,
// and find every acknowledged row. On both stores: the DuckDB file, and ClickHouse (in-process
// through chdb, the server's own folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveProcess, waitExit } from './serve-process.ts';

const dir = mkdtempSync(join(tmpdir(), 'inferlens-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BACKENDS: { name: string; env: Record<string, string> }[] = [
  { name: 'duckdb', env: {} },
  { name: 'clickhouse', env: { INFERLENS_STORAGE_BACKEND: 'clickhouse', INFERLENS_CLICKHOUSE_CHDB_PATH: join(dir, 'chdb') } },
];

describe.each(BACKENDS)('durability on $name', ({ name, env }) => {
  it('keeps every acknowledged row across kill -9', async () => {
    const args = ['--port', '0', '--data', join(dir, name), '--log-level', 'warn'];
    const first = await serveProcess(args, env);
    const now = Date.now();
    const acked: string[] = [];
    let killed = false;
    const BATCH = 500;
    // 4 concurrent senders, each sending batches until the server dies.
    const sender = async (s: number) => {
      for (let b = 0; b < 200 && !killed; b++) {
        const tenant = `s${s}-b${b}`;
        const body = Array.from({ length: BATCH }, (_, i) =>
          JSON.stringify({ ts: now - 1000, request_id: `${tenant}-${i}`, model: 'dur', tenant, total_ms: i, status: 'ok' }),
        ).join('\n');
        try {
          const res = await fetch(`${first.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });
          if (res.status === 200) {
            const reply = (await res.json()) as { accepted: number };
            if (reply.accepted === BATCH) acked.push(tenant);
          }
        } catch {
          return; // connection refused / reset after the kill
        }
        if (acked.length >= 12 && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map(sender));
    await waitExit(first.child);
    expect(killed).toBe(true);
    expect(acked.length).toBeGreaterThanOrEqual(12);

    const second = await serveProcess(args, env);
    try {
      const res = await fetch(`${second.url}/v1/query`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          from: new Date(now - 3_600_000).toISOString(),
          to: new Date(now + 60_000).toISOString(),
          filters: { model: 'dur' },
          group_by: ['tenant'],
          measures: ['count'],
        }),
      });
      const rows = ((await res.json()) as { data: { rows: { tenant: string; count: number }[] } }).data.rows;
      const counts = new Map(rows.map((r) => [r.tenant, r.count]));
      const missing = acked.filter((t) => counts.get(t) !== BATCH);
      expect(missing).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await waitExit(second.child);
    }
  });
});
