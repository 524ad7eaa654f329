// A full disk (issue 12): writes get a 503 that says the disk is full, with Retry-After; /readyz
// says not ready while writes fail; once space is freed, the server is ready and takes writes
// again by itself, and no acknowledged row is lost. The data directory is a real 24 MiB tmpfs,
// filled to the last byte, so this needs root (to mount it); elsewhere it is skipped, saying so.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const mountPoint = mkdtempSync(join(tmpdir(), 'inferlens-disk-full-'));

function mountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', mountPoint], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const mounted = mountTmpfs();
let server: InferlensServer | undefined;

beforeAll(async () => {
  if (!mounted) return;
  const config = loadConfig({
    flags: { server: { port: 0 }, storage: { dataDir: join(mountPoint, 'data') }, alerting: { enabled: false }, log: { level: 'silent' } },
  });
  server = await startServer(config, { logger: pino({ level: 'silent' }), now: () => NOW, ui: false, collectors: false });
});
afterAll(async () => {
  await server?.stop();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

const batch = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify({ ts: NOW - 1000, request_id: `${tag}-${i}`, model: 'disk', tenant: 'x'.repeat(200), status: 'ok', total_ms: i }),
  ).join('\n');
const post = (body: string) => fetch(`${server!.url}/v1/events`, { method: 'POST', headers: { 'content-type': 'application/x-ndjson' }, body });

describe('disk full', () => {
  it.skipIf(!mounted)('says so in the 503 and in /readyz, and recovers by itself once space is freed (needs root to mount a small tmpfs)', async () => {
    expect((await post(batch('before', 100))).status).toBe(200);
    // Fill the disk to the last byte.
    const fillers: string[] = [];
    for (let size = 1 << 20; size >= 512;) {
      const f = join(mountPoint, `filler-${fillers.length}`);
      try {
        writeFileSync(f, Buffer.alloc(size));
        fillers.push(f);
      } catch {
        rmSync(f, { force: true });
        size >>= 1;
      }
    }
    const refused = await post(batch('full', 2000));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(((await refused.json()) as { error: string }).error).toMatch(/disk that holds the inferlens data directory is full/);
    const ready = await fetch(`${server!.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.text()).toMatch(/^not ready: the disk .* is full/);

    for (const f of fillers) rmSync(f, { force: true });
    // The storage probe runs at most once a second: ask until it has run (no duration is asserted).
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await fetch(`${server!.url}/readyz`)).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(200);
    expect((await post(batch('after', 100))).status).toBe(200);
    const q = await fetch(`${server!.url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: '2026-11-30T11:00:00Z', to: '2026-11-30T12:05:00Z', filters: { model: 'disk' }, measures: ['n'] }),
    });
    // The refused batch was not stored; the acknowledged ones were.
    expect(((await q.json()) as { data: { rows: { n: number }[] } }).data.rows[0]!.n).toBe(200);
  });
});
