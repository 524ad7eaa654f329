// The package as a user installs it: `npm pack` of this checkout, installed with npm into a scratch
// plain-JavaScript project, whose CommonJS and ES-module scripts report requests with
// `inferlens/sdk` to a real server; its .d.ts type-check a TypeScript caller of either kind, and its
// `inferlens` command runs the compiled code. npm resolves the dependencies against the registry
// (its cache first), as any install does.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';
import type { InferlensServer } from '../src/main.ts';

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const dir = mkdtempSync(join(tmpdir(), 'inferlens-pack-'));
const app = join(dir, 'app');
let tarball = '';
let files: string[] = [];
let server: InferlensServer;

beforeAll(async () => {
  // dist/ is current (test/global-setup.ts): pack without running `prepare` again.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  const info = (JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[])[0]!;
  tarball = join(dir, info.filename);
  files = info.files.map((f) => f.path);
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'scratch-service', version: '1.0.0', private: true }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball], { cwd: app, maxBuffer: 64 * 1024 * 1024 });
  server = await startServer(loadConfig({ flags: { server: { port: 0 }, storage: { dataDir: ':memory:' } } }), {
    logger: pino({ level: 'silent' }),
    ui: false,
  });
}, 300_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A request the way a service reports it: a timer with stages, tenant, a failure for every third. */
const SERVICE = (load: string) => `${load}
const client = createClient({ endpoint: process.env.INFERLENS_URL, defaults: { model: process.env.MODEL, model_version: 'v1', node: 'n1' }, flushIntervalMs: 50 });
async function main() {
  for (let i = 0; i < 6; i++) {
    const t = client.startRequest({ tenant: 'acme' });
    t.stage('queue');
    t.stage('exec');
    if (i % 3 === 2) t.fail('internal', { http_status: 500 });
    t.end();
  }
  await client.shutdown({ timeoutMs: 5000 });
  const s = client.stats();
  console.log(JSON.stringify({ sent: s.sent, dropped: s.dropped }));
}
main().catch((e) => { console.error(e); process.exit(1); });
`;

async function stored(model: string): Promise<{ count: number; error_rate: number }> {
  const now = Date.now();
  const res = await fetch(`${server.url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      from: new Date(now - 600_000).toISOString(),
      to: new Date(now + 60_000).toISOString(),
      filters: { model },
      measures: ['count', 'error_rate'],
    }),
  });
  return ((await res.json()) as { data: { rows: { count: number; error_rate: number }[] } }).data.rows[0]!;
}

describe('the packed package in a plain JavaScript project', () => {
  it('ships compiled JavaScript with types, not the TypeScript sources', () => {
    expect(files).toContain('bin/inferlens.js');
    expect(files).toContain('dist/src/cli/main.js');
    expect(files).toContain('dist/src/sdk/index.js');
    expect(files).toContain('dist/src/sdk/index.d.ts');
    expect(files).toContain('dist/cjs/src/sdk/index.js');
    expect(files).toContain('dist/cjs/package.json');
    expect(files).toContain('rules/default.yaml');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.includes('.test.'))).toEqual([]);
    const installed = JSON.parse(readFileSync(join(app, 'node_modules', 'inferlens', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(installed.dependencies)).not.toContain('tsx');
  });

  it('require("inferlens/sdk") reports requests from a CommonJS service', async () => {
    writeFileSync(join(app, 'service.cjs'), SERVICE("const { createClient } = require('inferlens/sdk');"));
    const out = await run(process.execPath, ['service.cjs'], { cwd: app, env: { ...process.env, INFERLENS_URL: server.url, MODEL: 'pkg-cjs' } });
    expect(JSON.parse(out.stdout)).toMatchObject({ sent: 6 });
    expect(await stored('pkg-cjs')).toEqual({ count: 6, error_rate: 2 / 6 });
  });

  it('import from "inferlens/sdk" reports requests from an ES-module service', async () => {
    writeFileSync(join(app, 'service.mjs'), SERVICE("import { createClient } from 'inferlens/sdk';"));
    const out = await run(process.execPath, ['service.mjs'], { cwd: app, env: { ...process.env, INFERLENS_URL: server.url, MODEL: 'pkg-esm' } });
    expect(JSON.parse(out.stdout)).toMatchObject({ sent: 6 });
    expect(await stored('pkg-esm')).toEqual({ count: 6, error_rate: 2 / 6 });
  });

  it('its .d.ts type-check TypeScript callers of both kinds (node16 resolution), and catch a wrong status', async () => {
    writeFileSync(
      join(app, 'check.mts'),
      [
        "import { createClient } from 'inferlens/sdk';",
        "import type { EventInput } from 'inferlens/schema';",
        "const e: EventInput = { ts: 1, model: 'm', total_ms: 3 };",
        "const c = createClient({ endpoint: 'http://127.0.0.1:9' });",
        'c.record(e);',
        '// @ts-expect-error: not a status',
        "c.record({ ts: 1, model: 'm', status: 'fine' });",
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'check.cts'),
      [
        "import sdk = require('inferlens/sdk');",
        "const t = sdk.createClient({ endpoint: 'http://127.0.0.1:9' }).startRequest({ tenant: 'acme' });",
        't.end();',
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', types: [], lib: ['es2023', 'dom'] },
        files: ['check.mts', 'check.cts'],
      }),
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const ok = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).then(
      () => '',
      (e: { stdout: string }) => e.stdout,
    );
    expect(ok).toBe('');
  });

  it('the installed `inferlens` command runs', async () => {
    const { stdout } = await run(join(app, 'node_modules', '.bin', 'inferlens'), ['--help'], { cwd: app });
    expect(stdout).toMatch(/serve/);
    expect(stdout).toMatch(/query/);
  });
});
