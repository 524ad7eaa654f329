// The import-direction check of DESIGN.md, run inside `npm test`.
// Two rules: (1) a folder under src/ is imported by other folders only through its index.ts;
// (2) imports follow the data flow: each folder may import only the folders listed for it below.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '..', 'src');

/** Which folders each folder may import (besides itself). The order is the data flow. */
export const ALLOWED: Record<string, readonly string[]> = {
  schema: [],
  // Config composes the config schemas that components export; it sits on top like main.
  config: ['schema', 'ingest', 'pipeline', 'quality', 'alerting'],
  analysis: ['schema'],
  store: ['schema'],
  pipeline: ['schema', 'store'],
  ingest: ['schema', 'pipeline'],
  query: ['schema', 'store', 'analysis'],
  quality: ['schema', 'query', 'analysis'],
  release: ['schema', 'query', 'analysis', 'quality'],
  notify: ['schema'],
  alerting: ['schema', 'query', 'analysis', 'quality', 'release', 'notify'],
  reports: ['schema', 'query', 'analysis', 'quality', 'release', 'alerting'],
  api: ['schema', 'ingest', 'pipeline', 'query', 'analysis', 'quality', 'release', 'alerting', 'reports', 'notify'],
  sdk: ['schema'],
  // The CLI and the composition root sit on top: they may wire anything.
  cli: ['*'],
  '.': ['*'],
};

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function folderOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  return rel.length === 1 ? '.' : rel[0]!;
}

export function violations(): string[] {
  const out: string[] = [];
  for (const file of walk(SRC)) {
    const from = folderOf(file);
    // Tests may also use a real store and the pure statistics (a seeded PRNG, reference values).
    const isTest = file.endsWith('.test.ts');
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT_RE)) {
      const spec = m[1] ?? m[2]!;
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      if (!target.startsWith(SRC)) continue;
      const to = folderOf(target.endsWith('.js') || target.endsWith('.ts') ? target : target + '.ts');
      if (to === from) continue;
      const where = `${relative(SRC, file)} imports ${spec}`;
      const rel = relative(join(SRC, to), target).replace(/\.(js|ts)$/, '');
      if (to !== '.' && rel !== 'index') out.push(`${where}: import ${to}/ only through its index.ts`);
      const allowed = ALLOWED[from];
      if (!allowed) out.push(`${where}: folder src/${from} is not in the dependency map of test/architecture.test.ts`);
      else if (!allowed.includes('*') && !allowed.includes(to) && !(isTest && (to === 'store' || to === 'analysis')))
        out.push(`${where}: ${from}/ may not depend on ${to}/ (data flows ${from} ← ${allowed.join(', ') || 'nothing'})`);
    }
  }
  return out;
}

describe('architecture', () => {
  it('imports follow the data flow and go through index.ts', () => {
    expect(violations()).toEqual([]);
  });
  it('every folder under src/ has an index.ts', () => {
    const missing = readdirSync(SRC)
      .filter((d) => statSync(join(SRC, d)).isDirectory())
      .filter((d) => {
        try {
          statSync(join(SRC, d, 'index.ts'));
          return false;
        } catch {
          return true;
        }
      });
    expect(missing).toEqual([]);
  });
});
