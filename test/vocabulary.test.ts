// One fact in one place: the vocabularies live in src/schema/vocabulary.ts and nowhere else.
// (1) the module imports nothing, so the web and the SDK can take it as values; (2) no other file
// holds a copy (or a near copy) of a list; (3) every member reaches the dashboard's runtime view,
// and a member added to the vocabulary reaches it with no other edit.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as vocabulary from '../src/schema/vocabulary.ts';
import { BUCKET_MEASURES, NOT_SERVED_STATUSES } from '../web/src/views/runtime/measures.ts';

const ROOT = resolve(import.meta.dirname, '..');
const VOCAB_FILE = 'src/schema/vocabulary.ts';
const LISTS: Record<string, readonly string[]> = {
  STATUSES: vocabulary.STATUSES,
  ERROR_TYPES: vocabulary.ERROR_TYPES,
  DIMENSIONS: vocabulary.DIMENSIONS,
  STAGES: vocabulary.STAGES,
  LATENCY_FIELDS: vocabulary.LATENCY_FIELDS,
  NUMERIC_FIELDS: vocabulary.NUMERIC_FIELDS,
  SAMPLE_REASONS: vocabulary.SAMPLE_REASONS,
  SAMPLE_FILTER_KEYS: vocabulary.SAMPLE_FILTER_KEYS,
};
/** The most a query may ask for at once (src/schema/requests.ts). */
const MAX_MEASURES = 40;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist') return [];
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/**
 * String-list literals (`['a', 'b', …]`) made of a vocabulary's members (one other item at most)
 * that hold all of it, or all but one of a list of six or more: a copy, or a copy gone stale. A
 * deliberate selection (the filter bar's dimensions, every stage but exec) is not a copy.
 */
export function copiedLists(files: { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    for (const m of text.matchAll(/\[([^[\]]*)\]/g)) {
      const body = m[1]!;
      const items = [...body.matchAll(/'([^'\n]*)'|"([^"\n]*)"/g)].map((x) => x[1] ?? x[2]!);
      if (items.length < 3 || body.replace(/'[^'\n]*'|"[^"\n]*"/g, '').replace(/as const|[\s,]/g, '') !== '') continue;
      const set = new Set(items);
      for (const [name, list] of Object.entries(LISTS)) {
        const held = list.filter((x) => set.has(x)).length;
        const copy = held === list.length || (list.length >= 6 && held === list.length - 1);
        if (copy && held >= set.size - 1) out.push(`${path}: a copy of ${name} (${held} of ${list.length}): import it from ${VOCAB_FILE}`);
      }
    }
  }
  return out;
}

describe('vocabulary', () => {
  it('imports nothing, so the web and the SDK take it as values', () => {
    const text = readFileSync(join(ROOT, VOCAB_FILE), 'utf8');
    expect(text.match(/^\s*(import|export .* from)\b.*$/gm) ?? []).toEqual([]);
  });

  it('is not copied anywhere in src, web, demo, bench or e2e', () => {
    const files = ['src', 'web/src', 'demo', 'bench', 'e2e']
      .flatMap((d) => walk(join(ROOT, d)))
      .map((p) => ({ path: relative(ROOT, p), text: readFileSync(p, 'utf8') }))
      .filter((f) => f.path !== VOCAB_FILE);
    expect(copiedLists(files)).toEqual([]);
  });

  it('the copy check finds a copied or incomplete list', () => {
    const stale = `const STAGES = ['ingress_ms', 'queue_ms', 'batch_ms', 'exec_ms', 'post_ms'] as const;`;
    const chosen = `pick(r, ['ingress_ms', 'queue_ms', 'batch_ms', 'post_ms']);`;
    const types = `const T = ['model_load', 'bad_input', 'resource_exhausted', 'dependency_timeout', 'replica_fault', 'internal', 'other'];`;
    const subset = `const CHOSEN = ['model', 'tenant', 'replica'];`;
    const columns = `const cols = ['ts', 'request_id', 'model', 'model_version', 'tenant', 'entry', 'node', 'replica', 'route_rule', 'status', 'error_type', 'label', 'input'];`;
    const files = Object.entries({ stale, types, subset, chosen, columns }).map(([path, text]) => ({ path, text }));
    expect(copiedLists(files)).toEqual([
      `stale: a copy of STAGES (5 of 5): import it from ${VOCAB_FILE}`,
      `types: a copy of ERROR_TYPES (7 of 8): import it from ${VOCAB_FILE}`,
    ]);
  });

  it('every status, error type and stage is asked for by the runtime view, within one query', () => {
    for (const s of vocabulary.STATUSES) expect(BUCKET_MEASURES).toContain(`${s}_rate`);
    for (const e of vocabulary.ERROR_TYPES) expect(BUCKET_MEASURES).toContain(`error_rate(${e})`);
    for (const s of vocabulary.STAGES) expect(BUCKET_MEASURES).toContain(`mean(${s})`);
    for (const m of BUCKET_MEASURES) expect(vocabulary.parseMeasure(m), m).not.toBeTypeOf('string');
    expect(BUCKET_MEASURES.length).toBeLessThanOrEqual(MAX_MEASURES);
    expect(NOT_SERVED_STATUSES).toEqual(['rejected', 'rate_limited', 'timeout', 'aborted', 'cancelled']);
  });

  describe('a member added to the vocabulary', () => {
    afterEach(() => {
      vi.doUnmock('../src/schema/vocabulary.ts');
      vi.resetModules();
    });
    it('reaches the runtime view and the measure parser with no other edit', async () => {
      vi.resetModules();
      vi.doMock('../src/schema/vocabulary.ts', async (original) => {
        const v = await original<typeof vocabulary>();
        return { ...v, STAGES: [...v.STAGES, 'tokenize_ms'], STATUSES: [...v.STATUSES, 'shed_early'], ERROR_TYPES: [...v.ERROR_TYPES, 'quota'] };
      });
      const view = await import('../web/src/views/runtime/measures.ts');
      expect(view.BUCKET_MEASURES).toContain('mean(tokenize_ms)');
      expect(view.BUCKET_MEASURES).toContain('shed_early_rate');
      expect(view.BUCKET_MEASURES).toContain('error_rate(quota)');
      expect(view.NOT_SERVED_STATUSES).toContain('shed_early');
    });
  });
});
