// The CLI as a user runs it: `npx inferlens serve --port --data`, then import and query.
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
    const lines = Array.from({ length: 1200 }, (_, i) =>
      JSON.stringify({ ts: now - 60_000 + i, request_id: `cli-${i}`, model: 'cli-m', model_version: i % 2 ? 'v2' : 'v1', total_ms: i % 100, status: 'ok' }),
    );
    // Line 6 is not JSON; line 8 has two problems (a row, counted once); line 10 the first problem again.
    lines.splice(5, 0, '{"broken":');
    lines.splice(7, 0, JSON.stringify({ ts: now, model: 'cli-m', total_ms: 'slow', status: 'fine' }));
    lines.splice(9, 0, JSON.stringify({ ts: now, model: 'cli-m', total_ms: 'slow' }));
    const file = join(dir, 'events.ndjson.gz');
    writeFileSync(file, gzipSync(lines.join('\n')));
    // Rows were rejected: the import fails for a script (exit 1) and says which and why.
    const imp = (await run(process.execPath, [BIN, 'import', file, '--url', server.url, '--batch', '500']).catch(
      (e: { code: number; stdout: string }) => e,
    )) as { code?: number; stdout: string };
    expect(imp.code).toBe(1);
    const out = imp.stdout.split('\n');
    expect(out[0]).toBe('imported 1200 events in 3 requests; 3 rows rejected');
    expect(out.slice(1, 4).join('\n')).toMatch(/^ {2}2 rows {2}line 8 \(first\): total_ms: /m);
    expect(imp.stdout).toMatch(/^ {2}1 row {3}line 6: .*JSON/m);
    expect(imp.stdout).toMatch(/^ {2}1 row {3}line 8: status: /m);
    const q = await run(process.execPath, [
      BIN,
      'query',
      '--url',
      server.url,
      '--from',
      '-1h',
      '-f',
      'model=cli-m',
      '-g',
      'model_version',
      '-m',
      'count;max(total_ms)',
    ]);
    expect(q.stdout.split('\n')).toEqual([
      'model_version  count  max(total_ms)',
      '-------------  -----  -------------',
      'v1             600    98',
      'v2             600    99',
      '',
    ]);
  });

  it('query -s puts buckets on whole steps', async () => {
    const q = await run(process.execPath, [BIN, 'query', '--url', server.url, '--from', '-1h', '-s', '1m', '-f', 'model=cli-m', '-m', 'count', '--json']);
    const rows = (JSON.parse(q.stdout) as { rows: { bucket: string | number; count: number }[] }).rows;
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(new Date(r.bucket).getTime() % 60_000).toBe(0);
  });

  it('query and import without a server say what to do', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const p = (probe.address() as AddressInfo).port;
        probe.close(() => done(p));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const q = (await run(process.execPath, [BIN, 'query', '--url', url]).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(q.code).toBe(2);
    expect(q.stderr).toContain(`no inferlens server answered at ${url} (ECONNREFUSED): start one with \`inferlens serve\``);
    const file = join(dir, 'one.ndjson');
    writeFileSync(file, '{}\n');
    const i = (await run(process.execPath, [BIN, 'import', file, '--url', url]).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(i.code).toBe(2);
    expect(i.stderr).toMatch(/no inferlens server answered/);
  });

  it('--help loads no command: the entry imports only commander, the schema and small helpers', () => {
    // `inferlens --help` took 3–6 s when the entry imported the server, DuckDB, the alert rules and
    // the demo; each command now imports what it needs when it runs.
    const src = readFileSync(join(ROOT, 'src/cli/main.ts'), 'utf8');
    const staticImports = [...src.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gm)].map((m) => m[1]);
    expect(staticImports.sort()).toEqual(['../schema/index.ts', './demo.ts', './keys.ts', './reach.ts', './table.ts', './time.ts', 'commander']);
    const keys = readFileSync(join(ROOT, 'src/cli/keys.ts'), 'utf8');
    expect([...keys.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gm)].map((m) => m[1]).sort()).toEqual(['../schema/index.ts', './table.ts', 'commander']);
    const demo = readFileSync(join(ROOT, 'src/cli/demo.ts'), 'utf8');
    // The demo's scenario folder, through its index (the import-direction check): four small modules, Node's fs and path.
    expect([...demo.matchAll(/^import (?!type )[^;]*? from '([^']+)';/gm)].map((m) => m[1]).sort()).toEqual([
      '../../demo/scenario/index.ts',
      '../schema/index.ts',
      'commander',
    ]);
  });

  it('runs compiled code and loads only what the command needs: --help and query --help load no server, store or TypeScript', async () => {
    for (const argv of [['--help'], ['query', '--help'], ['keys', '--help']]) {
      const trace = join(dir, `trace-${argv.join('-')}.txt`);
      writeFileSync(trace, '');
      await run(process.execPath, ['--import', join(ROOT, 'test', 'load-trace.mjs'), BIN, ...argv], { env: { ...process.env, LOAD_TRACE: trace } });
      const loaded = readFileSync(trace, 'utf8').trim().split('\n');
      expect(loaded, argv.join(' ')).toContain(`file://${ROOT}/dist/src/cli/main.js`);
      const heavy = loaded.filter((u) =>
        /\/(tsx|@duckdb|hono|@hono|pino|prom-client|protobufjs|yaml)\/|\/dist\/src\/(main|store|api|alerting|pipeline|ingest|query)[./]|\.ts$/.test(u),
      );
      expect(heavy, argv.join(' ')).toEqual([]);
    }
  });

  it('works as `npx inferlens` from the checkout', async () => {
    const { stdout } = await run('npx', ['--no-install', 'inferlens', '--help'], { cwd: ROOT });
    expect(stdout).toMatch(/serve/);
    expect(stdout).toMatch(/import/);
  });

  it('refuses bad configuration at start-up, listing every problem', async () => {
    const cfg = join(dir, 'bad.yaml');
    writeFileSync(cfg, 'server:\n  port: -1\n  colour: blue\nstorage:\n  retention_days: 0\n');
    const err = await run(process.execPath, [BIN, 'serve', '--config', cfg], { env: { ...process.env, INFERLENS_LOG_LEVEL: 'loud' } }).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((err as { code: number }).code).toBe(2);
    const stderr = (err as { stderr: string }).stderr;
    expect(stderr).toMatch(/server.port/);
    expect(stderr).toMatch(/colour/);
    expect(stderr).toMatch(/storage.retention_days/);
    expect(stderr).toMatch(/log.level/);
  });
});

describe('inferlens keys and a server that needs them', () => {
  const data = join(dir, 'keyed');
  let keyed: ServeProcess;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    for (const [name, args] of Object.entries({
      reader: ['--role', 'read'],
      ingest: ['--role', 'ingest', '--name', 'loader'],
      acme: ['--role', 'read', '--tenant', 'acme'],
    })) {
      const r = await run(process.execPath, [BIN, 'keys', 'create', '--data', data, ...args]);
      keys[name] = r.stdout.trim();
      expect(r.stderr).toMatch(/created key [0-9a-f]{12} .* it is shown once/);
    }
    keyed = await serveProcess(['--port', '0', '--data', data, '--log-level', 'warn']);
  });
  afterAll(async () => {
    keyed.child.kill('SIGTERM');
    await waitExit(keyed.child);
  });

  it('stores only hashes, prints each key once, lists and revokes', async () => {
    expect(keys.reader).toMatch(/^ilk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}$/);
    const file = readFileSync(join(data, 'keys.json'), 'utf8');
    for (const k of Object.values(keys)) expect(file).not.toContain(k.slice(17));
    expect(statSync(join(data, 'keys.json')).mode & 0o777).toBe(0o600);
    const list = await run(process.execPath, [BIN, 'keys', 'list', '--data', data]);
    expect(list.stdout).toMatch(/loader\s+ingest\s+\*/);
    expect(list.stdout).toMatch(/read-acme\s+read\s+acme/);
  });

  it('query and import send --api-key or INFERLENS_API_KEY; without one the server answers 401', async () => {
    const now = Date.now();
    const file = join(dir, 'keyed.ndjson');
    writeFileSync(
      file,
      [0, 1, 2].map((i) => JSON.stringify({ ts: now - 1000 + i, model: 'k-m', tenant: i ? 'acme' : 'other', total_ms: 10 + i, status: 'ok' })).join('\n'),
    );
    const refused = await run(process.execPath, [BIN, 'import', file, '--url', keyed.url], { env: { ...process.env, INFERLENS_API_KEY: '' } }).catch(
      (e: { stderr: string }) => e,
    );
    expect((refused as { stderr: string }).stderr).toMatch(/401.*API key/);
    const imp = await run(process.execPath, [BIN, 'import', file, '--url', keyed.url], { env: { ...process.env, INFERLENS_API_KEY: keys.ingest } });
    expect(imp.stdout).toMatch(/imported 3 events/);
    const args = ['query', '--url', keyed.url, '--from', '-1h', '-f', 'model=k-m', '-m', 'count'];
    const noKey = await run(process.execPath, [BIN, ...args], { env: { ...process.env, INFERLENS_API_KEY: '' } }).catch((e: { stderr: string }) => e);
    expect((noKey as { stderr: string }).stderr).toMatch(/query failed \(401\)/);
    const all = await run(process.execPath, [BIN, ...args, '--api-key', keys.reader!]);
    expect(all.stdout.split('\n')[2]).toBe('3');
    // The tenant-scoped key counts its tenant's two requests only.
    const mine = await run(process.execPath, [BIN, ...args], { env: { ...process.env, INFERLENS_API_KEY: keys.acme } });
    expect(mine.stdout.split('\n')[2]).toBe('2');
    const wrongRole = await run(process.execPath, [BIN, ...args, '--api-key', keys.ingest!]).catch((e: { stderr: string }) => e);
    expect((wrongRole as { stderr: string }).stderr).toMatch(/query failed \(403\).*role ingest/);
    const id = /^ilk_([0-9a-f]{12})_/.exec(keys.reader!)![1]!;
    expect((await run(process.execPath, [BIN, 'keys', 'revoke', id, '--data', data])).stdout).toMatch(/revoked/);
    // The server re-reads the keys file within a second.
    let status = 200;
    for (let i = 0; i < 50 && status === 200; i++) {
      status = (await fetch(`${keyed.url}/v1/labels/model`, { headers: { authorization: `Bearer ${keys.reader}` } })).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
  });

  it('refuses to listen beyond loopback without keys unless --insecure', async () => {
    const err = await run(process.execPath, [BIN, 'serve', '--host', '0.0.0.0', '--port', '0', '--data', join(dir, 'open')]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect((err as { code: number }).code).toBe(2);
    expect((err as { stderr: string }).stderr).toMatch(/refusing to listen on 0\.0\.0\.0 without API keys.*--insecure/);
  });
});
