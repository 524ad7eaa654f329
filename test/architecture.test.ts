// The import-direction check of DESIGN.md, run inside `npm test`, over the whole tree: src/, web/,
// demo/, bench/, e2e/ and the test support in test/. A unit is a folder under src/ or demo/ (their
// top-level files are the unit `src/.` / `demo/.`), or web, bench, e2e, test as a whole.
// Three rules: (1) production code (src, web, demo) imports a folder unit only through its index.ts; (2) imports
// follow the data flow: each unit may import only the units listed for it below; (3) the units'
// import graph has no circle.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const AREAS = ['src', 'web', 'demo', 'bench', 'e2e', 'test'] as const;
/** The files the dashboard imports from the server's source, dependency-free: the vocabularies and the replies' types. */
const VOCABULARY = 'src/schema/vocabulary.ts';
const REPLIES = 'src/schema/replies.ts';
const SHARED_WITH_WEB = [VOCABULARY, REPLIES];
/** The shared files and what they import (the replies, one file per area). */
const isShared = (file: string): boolean => SHARED_WITH_WEB.includes(file) || file.startsWith('src/schema/replies/');
const SRC_ALL = 'src/*';
const DEMO_ALL = 'demo/*';

/** Which units each unit may import (besides itself). The order is the data flow. */
export const ALLOWED: Record<string, readonly string[]> = {
  'src/schema': [],
  // Config composes the config schemas that components export; it sits on top like main.
  'src/config': ['src/schema', 'src/ingest', 'src/pipeline', 'src/quality', 'src/alerting'],
  'src/analysis': ['src/schema'],
  'src/store': ['src/schema'],
  'src/pipeline': ['src/schema', 'src/store'],
  'src/ingest': ['src/schema', 'src/pipeline'],
  'src/query': ['src/schema', 'src/store', 'src/analysis'],
  'src/quality': ['src/schema', 'src/query', 'src/analysis'],
  'src/release': ['src/schema', 'src/query', 'src/analysis', 'src/quality'],
  'src/notify': ['src/schema'],
  'src/alerting': ['src/schema', 'src/query', 'src/analysis', 'src/quality', 'src/release', 'src/notify'],
  'src/reports': ['src/schema', 'src/query', 'src/analysis', 'src/quality', 'src/release', 'src/alerting'],
  'src/api': [
    'src/schema',
    'src/ingest',
    'src/pipeline',
    'src/query',
    'src/analysis',
    'src/quality',
    'src/release',
    'src/alerting',
    'src/reports',
    'src/notify',
  ],
  'src/sdk': ['src/schema'],
  // The composition root wires anything in src/; the CLI too, and `inferlens demo` loads the demo.
  'src/.': [SRC_ALL],
  'src/cli': [SRC_ALL, 'demo/.', 'demo/scenario'],
  // The dashboard: only the vocabularies and the replies' types (both import nothing else).
  web: SHARED_WITH_WEB,
  // The demo, bottom to top: model ← service ← golden; ingest ← resources ← scenario; feedback; traffic; main.
  'demo/model': ['src/analysis'],
  'demo/service': ['demo/model', 'src/schema', 'src/ingest'],
  'demo/golden': ['demo/model', 'demo/service', 'src/quality'],
  'demo/ingest': [],
  'demo/resources': ['demo/model', 'demo/ingest'],
  'demo/feedback': ['demo/model', 'src/schema', 'src/sdk'],
  'demo/scenario': ['demo/service', 'demo/resources'],
  'demo/traffic': ['demo/model', 'demo/service', 'demo/ingest', 'demo/resources', 'demo/feedback', 'demo/scenario', 'src/schema'],
  'demo/.': [DEMO_ALL, 'src/.', 'src/config', 'src/schema', 'src/sdk'],
  // Benchmarks, browser journeys and the test support sit on top of everything but each other's.
  bench: [SRC_ALL, DEMO_ALL, 'test'],
  e2e: [SRC_ALL, DEMO_ALL, 'test'],
  test: [SRC_ALL, DEMO_ALL, 'web'],
};

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/**
 * Test support beside the code it serves (fakes, fixtures, the Store conformance suite) is named
 * `*.test-support.ts`: `npm run build` leaves it out of dist/, and only tests, other test support,
 * benchmarks and browser journeys may import it. Test code is a `*.test.ts`, a `*.test-support.ts`, or
 * lives in test/, e2e/ or bench/; nothing else imports vitest.
 */
export const TEST_SUPPORT = /\.test-support\.ts$/;
const isTestCode = (file: string) => file.endsWith('.test.ts') || TEST_SUPPORT.test(file) || /^(test|e2e|bench)\//.test(file);

/** Production files that import vitest or test support, or carry a test-support name of another style. */
export function testSupportViolations(files: readonly { file: string; text: string }[], edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const { file, text } of files) {
    if (!isTestCode(file) && /from\s+['"]vitest['"]/.test(text)) out.push(`${file} imports vitest: name it *.test-support.ts (test support) or *.test.ts`);
    if (!isTestCode(file) && /(^|\/)(testing|test-[\w-]+|[\w-]+-test-helpers?|scripted-[\w-]+|synthetic-[\w-]+)\.ts$/.test(file))
      out.push(`${file}: test support is named *.test-support.ts`);
  }
  for (const { file, spec, target } of edges)
    if (TEST_SUPPORT.test(target) && !isTestCode(file)) out.push(`${file} imports ${spec}: production code may not use test support`);
  return out;
}

/** The unit a file (path relative to the root) belongs to. */
export function unitOf(rel: string): string {
  const parts = rel.split(/[\\/]/);
  if (parts[0] === 'src' || parts[0] === 'demo') return parts.length === 2 ? `${parts[0]}/.` : `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

function allows(allowed: readonly string[], to: string, toFile: string): boolean {
  return allowed.some((a) => a === to || a === toFile || (a === SRC_ALL && to.startsWith('src/')) || (a === DEMO_ALL && to.startsWith('demo/')));
}

export interface ImportEdge {
  /** Files relative to the root. */
  file: string;
  spec: string;
  target: string;
}

/** Every relative import between files of the tree. */
export function importEdges(): ImportEdge[] {
  const out: ImportEdge[] = [];
  for (const area of AREAS) {
    for (const abs of walk(join(ROOT, area))) {
      const text = readFileSync(abs, 'utf8');
      for (const m of text.matchAll(IMPORT_RE)) {
        const spec = m[1] ?? m[2]!;
        if (!spec.startsWith('.')) continue;
        let target = resolve(dirname(abs), spec);
        if (!/\.(ts|js|mjs|json|yaml|css)$/.test(target)) target += '.ts';
        out.push({ file: relative(ROOT, abs).split(sep).join('/'), spec, target: relative(ROOT, target).split(sep).join('/') });
      }
    }
  }
  return out;
}

export function violations(edges: readonly ImportEdge[]): string[] {
  const out: string[] = [];
  for (const { file, spec, target } of edges) {
    const from = unitOf(file);
    const to = unitOf(target);
    if (from === to) continue;
    const where = `${file} imports ${spec}`;
    // Tests may also use a real store, the pure statistics (a seeded PRNG, reference values) and the test support.
    const isTest = file.endsWith('.test.ts');
    // Production code goes through a folder's index.ts; benchmarks, browser journeys and the test
    // support may reach a module under test (or its test helpers) directly.
    const folderUnit = (to.startsWith('src/') || to.startsWith('demo/')) && !to.endsWith('/.');
    const production = from.startsWith('src/') || from.startsWith('demo/') || from === 'web';
    if (production && folderUnit && target !== `${to}/index.ts` && !isShared(target)) out.push(`${where}: import ${to}/ only through its index.ts`);
    const allowed = ALLOWED[from];
    if (!allowed) out.push(`${where}: ${from} is not in the dependency map of test/architecture.test.ts`);
    else if (!allows(allowed, to, target) && !(isTest && (to === 'src/store' || to === 'src/analysis' || to === 'test')))
      out.push(`${where}: ${from} may not depend on ${to} (it may import ${allowed.join(', ') || 'nothing'})`);
  }
  return out;
}

/** Circles in the graph of units (non-test imports): each as `a → b → … → a`. */
export function circles(edges: readonly ImportEdge[]): string[] {
  const graph = new Map<string, Set<string>>();
  for (const { file, target } of edges) {
    if (file.endsWith('.test.ts')) continue;
    const a = unitOf(file);
    const b = unitOf(target);
    if (a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
  }
  const out: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (u: string): void => {
    state.set(u, 'open');
    path.push(u);
    for (const v of graph.get(u) ?? []) {
      if (state.get(v) === 'open') out.push([...path.slice(path.indexOf(v)), v].join(' → '));
      else if (!state.has(v)) visit(v);
    }
    path.pop();
    state.set(u, 'done');
  };
  for (const u of [...graph.keys()].sort()) if (!state.has(u)) visit(u);
  return out;
}

describe('architecture', () => {
  const edges = importEdges();
  it('imports follow the data flow and go through index.ts, in src, web, demo, bench, e2e and test', () => {
    expect(edges.length).toBeGreaterThan(1000);
    expect(violations(edges)).toEqual([]);
  });
  it('the files the web shares with the server import nothing but each other (no zod in the bundle)', () => {
    expect(edges.filter((e) => isShared(e.file) && !isShared(e.target)).map((e) => `${e.file} imports ${e.spec}`)).toEqual([]);
    // No package either (an `import type` of zod would pull zod into the web's typecheck).
    const shared = [...SHARED_WITH_WEB, ...readdirSync(join(ROOT, 'src/schema/replies')).map((f) => `src/schema/replies/${f}`)];
    expect(shared.length).toBeGreaterThan(3);
    for (const f of shared)
      expect(
        [...readFileSync(join(ROOT, f), 'utf8').matchAll(/from\s+'([^']+)'/g)]
          .map((m) => m[1])
          .filter((spec) => !spec!.startsWith('./') && spec !== '../vocabulary.ts'),
        f,
      ).toEqual([]);
  });
  it('test support is named *.test-support.ts and stays out of production code', () => {
    const files = AREAS.flatMap((area) =>
      walk(join(ROOT, area)).map((abs) => ({ file: relative(ROOT, abs).split(sep).join('/'), text: readFileSync(abs, 'utf8') })),
    );
    expect(files.filter((f) => TEST_SUPPORT.test(f.file)).length).toBeGreaterThanOrEqual(8);
    expect(testSupportViolations(files, edges)).toEqual([]);
    const e = (file: string, target: string): ImportEdge => ({ file, spec: target, target });
    expect(
      testSupportViolations(
        [
          { file: 'src/store/conformance.ts', text: "import { it } from 'vitest';" },
          { file: 'src/sdk/testing.ts', text: '' },
          { file: 'src/store/conformance.test-support.ts', text: "import { it } from 'vitest';" },
        ],
        [e('src/store/index.ts', 'src/store/conformance.test-support.ts'), e('src/store/duckdb/duckdb-store.test.ts', 'src/store/conformance.test-support.ts')],
      ),
    ).toEqual([
      'src/store/conformance.ts imports vitest: name it *.test-support.ts (test support) or *.test.ts',
      'src/sdk/testing.ts: test support is named *.test-support.ts',
      'src/store/index.ts imports src/store/conformance.test-support.ts: production code may not use test support',
    ]);
  });
  it('a file over 400 lines says why in ARCHITECTURE.md', () => {
    const doc = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Files over 400 lines'), doc.indexOf('\n## ', doc.indexOf('## Files over 400 lines') + 1));
    expect(table.length).toBeGreaterThan(100);
    const long = AREAS.flatMap((area) => walk(join(ROOT, area)))
      .map((abs) => relative(ROOT, abs).split(sep).join('/'))
      .filter((f) => readFileSync(join(ROOT, f), 'utf8').split('\n').length > 401);
    expect(long.length).toBeGreaterThan(0);
    expect(long.filter((f) => !table.includes(`| \`${f}\` |`))).toEqual([]);
  });
  it('the units import each other in no circle', () => {
    expect(circles(edges)).toEqual([]);
  });
  it('the checks find a back-edge, a reach past index.ts, a circle and an unknown folder', () => {
    const e = (file: string, target: string): ImportEdge => ({ file, spec: target, target });
    expect(
      violations([
        e('src/schema/x.ts', 'src/store/index.ts'),
        e('web/src/a.ts', 'src/schema/index.ts'),
        e('demo/traffic/a.ts', 'demo/model/random.ts'),
        e('src/unmapped/a.ts', 'src/schema/index.ts'),
      ]),
    ).toEqual([
      'src/schema/x.ts imports src/store/index.ts: src/schema may not depend on src/store (it may import nothing)',
      'web/src/a.ts imports src/schema/index.ts: web may not depend on src/schema (it may import src/schema/vocabulary.ts, src/schema/replies.ts)',
      'demo/traffic/a.ts imports demo/model/random.ts: import demo/model/ only through its index.ts',
      'src/unmapped/a.ts imports src/schema/index.ts: src/unmapped is not in the dependency map of test/architecture.test.ts',
    ]);
    expect(
      circles([
        e('src/cli/demo.ts', 'demo/main.ts'),
        e('demo/main.ts', 'src/cli/demo.ts'),
        e('demo/a/x.ts', 'demo/b/index.ts'),
        e('demo/b/y.ts', 'demo/a/index.ts'),
      ]),
    ).toEqual(['demo/. → src/cli → demo/.', 'demo/a → demo/b → demo/a']);
  });
  it('every folder under src/ and demo/ has an index.ts, and every unit is in the map', () => {
    const folders = ['src', 'demo'].flatMap((area) =>
      readdirSync(join(ROOT, area))
        // demo/rules holds only the demo's alert rule file.
        .filter((d) => statSync(join(ROOT, area, d)).isDirectory() && `${area}/${d}` !== 'demo/rules')
        .map((d) => `${area}/${d}`),
    );
    const noIndex = folders.filter((d) => {
      try {
        statSync(join(ROOT, d, 'index.ts'));
        return false;
      } catch {
        return true;
      }
    });
    expect(noIndex).toEqual([]);
    expect(folders.filter((d) => !(d in ALLOWED))).toEqual([]);
    expect(Object.keys(ALLOWED).filter((u) => !u.endsWith('/.') && !folders.includes(u) && !AREAS.includes(u as (typeof AREAS)[number]))).toEqual([]);
  });
});
