// The CLI as a user runs it: `npx inferlens serve --port --data`, then import and query.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, serveProcess, waitExit } from './serve-process.ts';
import type { ServeProcess } from './serve-process.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'inferlens-cli-'));
let server: ServeProcess;

beforeAll(async () => {
  server = await serveProcess(['--port', '0', '--data', join(dir, 'data'), '--log-level', 'warn']);
});
afterAll(async () => {
  server.child.kill('SIGTERM');
  const code = await waitExit(server.child);
  expect(code).toBe(0); // SIGTERM stops cleanly
  rmSync(dir, { recursive: true, force: true });
});

describe('inferlens CLI', () => {
  it('serve listens on 127.0.0.1 and answers health checks', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  });

  it('import sends an NDJSON.gz file and query prints a table', async () => {
    const now = Date.now();
    const lines = Array.from({ length: 1200 }, (_, i) => JSON.stringify({ ts: now - 60_000 + i, request_id: `cli-${i}`, model: 'cli-m', model_version: i % 2 ? 'v2' : 'v1', total_ms: i % 100, status: 'ok' }));
    lines.splice(5, 0, '{"broken":');
    const file = join(dir, 'events.ndjson.gz');
    writeFileSync(file, gzipSync(lines.join('\n')));
    const imp = await run(process.execPath, [BIN, 'import', file, '--url', server.url, '--batch', '500']);
    expect(imp.stdout).toMatch(/imported 1200 events in 3 requests; 1 rejected/);
    const q = await run(process.execPath, [BIN, 'query', '--url', server.url, '--from', '-1h', '-f', 'model=cli-m', '-g', 'model_version', '-m', 'count;max(total_ms)']);
    expect(q.stdout.split('\n')).toEqual(['model_version  count  max(total_ms)', '-------------  -----  -------------', 'v1             600    98', 'v2             600    99', '']);
  });

  it('works as `npx inferlens` from the checkout', async () => {
    const { stdout } = await run('npx', ['--no-install', 'inferlens', '--help'], { cwd: ROOT });
    expect(stdout).toMatch(/serve/);
    expect(stdout).toMatch(/import/);
  });

  it('refuses bad configuration at start-up, listing every problem', async () => {
    const cfg = join(dir, 'bad.yaml');
    writeFileSync(cfg, 'server:\n  port: -1\n  colour: blue\nstorage:\n  retentionDays: 0\n');
    const err = await run(process.execPath, [BIN, 'serve', '--config', cfg], { env: { ...process.env, INFERLENS_LOG_LEVEL: 'loud' } }).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).toBe(2);
    const stderr = (err as { stderr: string }).stderr;
    expect(stderr).toMatch(/server.port/);
    expect(stderr).toMatch(/colour/);
    expect(stderr).toMatch(/storage.retentionDays/);
    expect(stderr).toMatch(/log.level/);
  });
});
