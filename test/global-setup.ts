// Before any test file runs: the compiled package (dist/) must match the sources, since the CLI
// and packaging tests run `bin/inferlens.js`, which runs dist/. Rebuilds (incrementally) only when
// a source under src/ or demo/, or a tsconfig, is newer than the last build.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');

function newest(dir: string): number {
  let max = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) max = Math.max(max, newest(p));
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')) max = Math.max(max, statSync(p).mtimeMs);
  }
  return max;
}

export default function setup(): void {
  let built = 0;
  try {
    built = statSync(join(ROOT, 'dist', '.built')).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = Math.max(
    newest(join(ROOT, 'src')),
    newest(join(ROOT, 'demo')),
    ...['tsconfig.json', 'tsconfig.build.json', 'tsconfig.cjs.json'].map((f) => statSync(join(ROOT, f)).mtimeMs),
  );
  if (sources > built) execFileSync(process.execPath, [join(ROOT, 'scripts', 'build.js')], { stdio: 'inherit', cwd: ROOT });
}
