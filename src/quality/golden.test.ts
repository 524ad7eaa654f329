import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkGoldenBounds, compileGoldenSet, createGoldenRegistry, parseGoldenYaml } from './golden.ts';

/** Compiles a one-sample set and returns its check function. */
function checker(checker: unknown, expected: unknown) {
  return compileGoldenSet({ name: 's', checker, samples: [{ id: 'x', input: 'in', expected }] }).samples[0]!.check;
}

describe('golden checkers', () => {
  it('exact: deep equality', () => {
    const check = checker('exact', { label: 'spam', tags: [1, 2] });
    expect(check({ label: 'spam', tags: [1, 2] })).toEqual({ pass: true });
    expect(check({ label: 'spam', tags: [2, 1] }).pass).toBe(false);
    expect(checker('exact', '42')(42).pass).toBe(false);
  });

  it('label_equals: the output itself or its label field', () => {
    const check = checker('label_equals', 'spam');
    expect(check('spam').pass).toBe(true);
    expect(check({ label: 'spam', confidence: 0.9 }).pass).toBe(true);
    expect(check({ label: 'ham' })).toEqual({ pass: false, reason: 'expected label spam, got ham' });
    expect(check({ other: 1 }).pass).toBe(false);
    expect(checker({ kind: 'label_equals', field: 'class' }, 3)({ class: 3 }).pass).toBe(true);
  });

  it('contains, with and without case', () => {
    expect(checker('contains', 'Paris')('The capital is Paris.').pass).toBe(true);
    expect(checker('contains', 'Paris')('the capital is paris.').pass).toBe(false);
    expect(checker({ kind: 'contains', ignore_case: true }, 'Paris')('the capital is paris.').pass).toBe(true);
  });

  it('regex, with flags; a bad pattern is a field error', () => {
    expect(checker('regex', '^\\d{3}-\\d{4}$')('555-1234').pass).toBe(true);
    expect(checker('regex', '^\\d{3}-\\d{4}$')('555-12345').pass).toBe(false);
    expect(checker({ kind: 'regex', flags: 'i' }, '^yes')('YES, sure').pass).toBe(true);
    expect(() => checker('regex', '(')).toThrow(
      expect.objectContaining({ code: 'invalid_argument', issues: [expect.objectContaining({ path: 'samples.0.expected' })] }),
    );
  });

  it('json_schema (ajv): objects and JSON strings; a bad schema is a field error', () => {
    const schema = { type: 'object', required: ['answer'], properties: { answer: { type: 'integer', minimum: 0 } } };
    const check = checker('json_schema', schema);
    expect(check({ answer: 4 }).pass).toBe(true);
    expect(check('{"answer": 4}').pass).toBe(true);
    expect(check({ answer: -1 })).toEqual({ pass: false, reason: 'schema: /answer must be >= 0' });
    expect(check('not json')).toEqual({ pass: false, reason: 'output is not valid JSON' });
    expect(() => checker('json_schema', { type: 'nonsense' })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('numeric_tolerance: max(abs, rel·|expected|)', () => {
    // expected 10, abs 0.5, rel 0.1 → tolerance max(0.5, 1) = 1
    const check = checker({ kind: 'numeric_tolerance', abs: 0.5, rel: 0.1 }, 10);
    expect(check(10.9).pass).toBe(true);
    expect(check('9.0').pass).toBe(true);
    expect(check(11.2)).toEqual({ pass: false, reason: '|11.2 − 10| > 1' });
    expect(check('ten').pass).toBe(false);
    expect(checker('numeric_tolerance', 3)(3).pass).toBe(true);
  });

  it('rejects bad sets with field paths', () => {
    expect(() => compileGoldenSet({ name: 'bad name!', samples: [] })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() =>
      compileGoldenSet({
        name: 's',
        samples: [
          { id: 'a', input: 1, expected: 1 },
          { id: 'a', input: 2, expected: 2 },
        ],
      }),
    ).toThrow(/samples\.1\.id: duplicate id "a"/);
    expect(() => compileGoldenSet({ name: 's', checker: 'fuzzy', samples: [{ id: 'a', input: 1, expected: 1 }] })).toThrow(/checker/);
  });
});

describe('golden sets in YAML and the registry', () => {
  const yaml = `
sets:
  - name: spam-basic
    model: spam
    checker: label_equals
    samples:
      - { id: g1, input: "win money now", expected: spam }
      - { id: g2, input: "lunch at noon?", expected: ham }
      - id: g3
        input: "reply in JSON"
        expected: { type: object, required: [label] }
        checker: json_schema
`;

  it('parses sets with per-sample checkers', () => {
    const [set] = parseGoldenYaml(yaml);
    expect(set!.name).toBe('spam-basic');
    expect(set!.model).toBe('spam');
    expect(set!.samples.map((s) => [s.id, s.checker.kind])).toEqual([
      ['g1', 'label_equals'],
      ['g2', 'label_equals'],
      ['g3', 'json_schema'],
    ]);
    expect(set!.samples[2]!.check({ label: 'x' }).pass).toBe(true);
    expect(parseGoldenYaml('')).toEqual([]);
    expect(() => parseGoldenYaml('sets: [')).toThrow(/not valid YAML/);
  });

  it('persists registered sets to its file and loads them back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-golden-'));
    const file = join(dir, 'sub', 'golden-sets.yaml');
    try {
      const [fromConfig] = parseGoldenYaml(yaml);
      const a = createGoldenRegistry({ sets: [fromConfig!], file });
      a.register({ name: 'math', checker: { kind: 'numeric_tolerance', abs: 0.01 }, samples: [{ id: 'm1', input: '2+2', expected: 4 }] });
      a.register({ name: 'math', samples: [{ id: 'm2', input: '3+3', expected: 6 }] }); // replaces
      expect(a.list().map((s) => s.name)).toEqual(['math', 'spam-basic']);
      expect(readFileSync(file, 'utf8')).toContain('m2');
      const b = createGoldenRegistry({ file });
      // Only runtime registrations are persisted; config sets come from config on every start.
      expect(b.list().map((s) => [s.name, s.samples.map((x) => x.id)])).toEqual([['math', ['m2']]]);
      expect(b.get('math')!.samples[0]!.check(6).pass).toBe(true);
      expect(() => b.register({ name: 'x', samples: [{ id: 'r', input: '', expected: '(', checker: 'regex' }] })).toThrow(/invalid regular expression/);
      expect(b.get('x')).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('golden set uploads are bounded and all-or-none', () => {
  const set = (name: string, input: unknown = 'in') => ({ name, samples: [{ id: 'a', input, expected: 1 }] });

  it('refuses deep nesting and wide maps with the path, before anything is kept', () => {
    expect(() => compileGoldenSet(set('deep', JSON.parse('['.repeat(2000) + ']'.repeat(2000))))).toThrow(
      expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(/samples\.0\.input(\.0)+: nested deeper than 32/) }),
    );
    expect(() => compileGoldenSet(set('wide', Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]))))).toThrow(
      /samples\.0\.input: more than 1000 entries/,
    );
    expect(() => checkGoldenBounds(Array.from({ length: 900 }, () => Array.from({ length: 120 }, () => 1)))).toThrow(/more than 100000 values/);
  });

  it('registers a batch of sets only if every one is valid, and keeps the file as it was otherwise', () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-golden-atomic-'));
    try {
      const file = join(dir, 'golden-sets.yaml');
      const reg = createGoldenRegistry({ file });
      reg.register(set('first'));
      const before = readFileSync(file, 'utf8');
      expect(() => reg.registerAll([set('second'), { name: 'broken' }])).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
      expect(reg.list().map((s) => s.name)).toEqual(['first']);
      expect(readFileSync(file, 'utf8')).toBe(before);
      // A later registration works, and a restart sees exactly what was registered.
      reg.register(set('third'));
      expect(
        createGoldenRegistry({ file })
          .list()
          .map((s) => s.name),
      ).toEqual(['first', 'third']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('loads the YAML file an earlier version wrote, and skips (and reports) a bad saved set instead of failing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'inferlens-golden-legacy-'));
    try {
      const file = join(dir, 'golden-sets.yaml');
      writeFileSync(file, 'sets:\n  - name: old\n    samples:\n      - id: a\n        input: hi\n        expected: 1\n  - name: bad\n    samples: []\n');
      const reg = createGoldenRegistry({ file });
      expect(reg.list().map((s) => s.name)).toEqual(['old']);
      expect(reg.problems).toEqual([expect.stringMatching(/set 1: /)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
