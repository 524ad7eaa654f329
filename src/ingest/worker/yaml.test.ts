import { describe, expect, it } from 'vitest';
import { parseYamlBounded } from './yaml.ts';

const LIMITS = { maxDepth: 8, maxEntries: 10, maxNodes: 100 };
const bad = (text: string, why: RegExp) =>
  expect(() => parseYamlBounded(text, LIMITS)).toThrow(expect.objectContaining({ code: 'invalid_argument', message: expect.stringMatching(why) }));

describe('parseYamlBounded', () => {
  it('reads a document within the limits into plain values', () => {
    expect(parseYamlBounded('a: 1\nb: [x, {c: true}]\n', LIMITS)).toEqual({ a: 1, b: ['x', { c: true }] });
    expect(parseYamlBounded('', LIMITS)).toBeNull();
  });

  it('refuses a map or list with too many entries before composing it', () => {
    bad(Array.from({ length: 11 }, (_, i) => `k${i}: v`).join('\n'), /more than 10 entries/);
    bad(`[${Array.from({ length: 11 }, (_, i) => i).join(', ')}]`, /more than 10 entries/);
  });

  it('refuses deep nesting, block or flow, without recursion', () => {
    bad(`a: ${'['.repeat(9)}${']'.repeat(9)}`, /deeper than 8/);
    bad(Array.from({ length: 9 }, (_, i) => `${' '.repeat(i * 2)}k:`).join('\n') + ' 1', /deeper than 8/);
    bad(`${'['.repeat(100_000)}${']'.repeat(100_000)}`, /deeper than 8/);
  });

  it('refuses too many values in all, aliases that expand, several documents, duplicate keys', () => {
    bad(Array.from({ length: 10 }, (_, i) => `k${i}: [1, 2, 3, 4, 5, 6, 7, 8, 9]`).join('\n'), /more than 100 values/);
    bad('a: &a [x, x, x]\nb: &b [*a, *a, *a]\nc: &c [*b, *b, *b]\nd: &d [*c, *c, *c]\ne: [*d, *d, *d, *d, *d, *d, *d, *d, *d]', /alias/i);
    bad('a: 1\n---\nb: 2\n', /one document/);
    bad('a: 1\na: 2\n', /unique/);
    bad('a: [1, 2\n', /not valid YAML/);
  });
});
