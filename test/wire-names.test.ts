// One naming style on the wire and in config: snake_case. (1) every field the replies declare
// (src/schema/replies/, what the server builds and the web reads) is snake_case; (2) a config
// file written with the previous release's camelCase keys still loads, and the server logs one
// deprecation warning per such key, through its pino logger.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { deprecationMessage, loadConfig } from '../src/config/index.ts';
import { startServer } from '../src/main.ts';

const ROOT = resolve(import.meta.dirname, '..');

describe('wire names', () => {
  it('every reply field declared in src/schema/replies/ is snake_case', () => {
    const dir = join(ROOT, 'src/schema/replies');
    const all = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    // Alertmanager's silences keep Alertmanager's names on purpose (docs/api.md "Naming").
    const text = all.replace(/export interface Alertmanager\w+ \{[\s\S]*?\n\}/g, '');
    // Property declarations: `  name: …`, `  name?: …`, and inline `{ name: …; other: … }` members.
    const names = [...text.matchAll(/(?:^\s+|[{;]\s*)([A-Za-z_][A-Za-z0-9_]*)\??:\s/gm)].map((m) => m[1]!);
    expect(names.length).toBeGreaterThan(150);
    expect(names.filter((n) => /[A-Z]/.test(n))).toEqual([]);
  });

  it('the web reads replies through their types, not by string keys', () => {
    // `field(x, 'key')` and `records(x)` read an untyped reply. The Review view is being reworked
    // with the review report (issue 16) and moves to src/schema/replies/ with it.
    const UNTYPED_YET = new Set(['web/src/views/review.ts']);
    const walk = (d: string): string[] =>
      readdirSync(join(ROOT, d), { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? walk(`${d}/${e.name}`) : e.name.endsWith('.ts') ? [`${d}/${e.name}`] : [],
      );
    const files = walk('web/src').filter((f) => f !== 'web/src/api.ts');
    expect(files.length).toBeGreaterThan(30);
    const untyped = files.filter((f) => !UNTYPED_YET.has(f) && /\b(field|records)\(/.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(untyped).toEqual([]);
  });

  it('renaming a reply field on the server fails the typecheck of the web', () => {
    // A copy of the web and the schema folder with StagesReply.grew_most renamed: the runtime view
    // reads it, so `tsc -p web` must fail there (and passes on the tree as it is: npm run typecheck:web).
    const dir = mkdtempSync(join(tmpdir(), 'wire-rename-'));
    try {
      cpSync(join(ROOT, 'web'), join(dir, 'web'), { recursive: true, filter: (p) => !p.includes(`${join('web', 'dist')}`) });
      cpSync(join(ROOT, 'src/schema'), join(dir, 'src/schema'), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
      const file = join(dir, 'src/schema/replies/runtime.ts');
      const text = readFileSync(file, 'utf8');
      const renamed = text.replace(
        '  /** The stage that grew (significantly, ≥ ×1.1) most in ms; null when none did. */\n  grew_most: string | null;',
        '  grew_most_stage: string | null;',
      );
      expect(renamed).not.toBe(text);
      writeFileSync(file, renamed);
      const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', join(dir, 'web')], { encoding: 'utf8' });
      expect(tsc.status).not.toBe(0);
      expect(tsc.stdout).toMatch(
        /web\/src\/views\/runtime\/stage-shift\.ts\(\d+,\d+\): error TS2339: Property 'grew_most' does not exist on type 'StagesReply'/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it('a config file with camelCase keys loads, and the server logs each deprecated key once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wire-names-'));
    try {
      const file = join(dir, 'inferlens.yaml');
      writeFileSync(file, 'server:\n  port: 0\n  maxBodyBytes: 65536\nstorage:\n  dataDir: ":memory:"\n  retentionDays: 2\nalerting:\n  enabled: false\n');
      const warnings: string[] = [];
      const config = loadConfig({ file, onDeprecated: (d) => warnings.push(deprecationMessage(d)) });
      expect(config.server.maxBodyBytes).toBe(65_536);
      expect(config.storage.retentionDays).toBe(2);
      const lines: { level: number; msg: string; component?: string }[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as { level: number; msg: string });
          done();
        },
      });
      const server = await startServer(config, { logger: pino({ level: 'warn' }, sink), configWarnings: warnings, collectors: false, ui: false });
      await server.stop();
      const deprecations = lines.filter((l) => l.component === 'config');
      expect(deprecations.map((l) => [l.level, l.msg])).toEqual([
        [40, deprecationMessage({ old: 'server.maxBodyBytes', now: 'server.max_body_bytes' })],
        [40, deprecationMessage({ old: 'storage.dataDir', now: 'storage.data_dir' })],
        [40, deprecationMessage({ old: 'storage.retentionDays', now: 'storage.retention_days' })],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
