/**
 * YAML uploads parsed within bounds. The `yaml` package composes a block map of n keys in about
 * O(n²) (a 578 KB set with 30,000 keys took 37.7 s) and parses at ~2 MB/s, so an upload is first
 * read into its concrete syntax tree (linear), every collection is counted (entries, depth, nodes
 * in all), and only a document within the limits is composed, with aliases capped. It runs on the
 * decode worker (offload.ts), never on the event loop.
 */
import { Composer, Parser } from 'yaml';
import type { CST } from 'yaml';
import { InferlensError } from '../../schema/index.ts';

export interface YamlLimits {
  /** Deepest nesting of collections (the document's top value is depth 1). */
  maxDepth: number;
  /** Most entries in one map or list. */
  maxEntries: number;
  /** Most nodes (collection entries and scalars) in the document. */
  maxNodes: number;
}

/** Alias expansions allowed while composing ("billion laughs" stops here). */
const MAX_ALIAS_COUNT = 100;

type Item = { key?: CST.Token | null; value?: CST.Token | null };

/** Checks the syntax tree against the limits; throws invalid_argument naming the first one exceeded. */
function checkTree(tokens: readonly CST.Token[], limits: YamlLimits): void {
  let nodes = 0;
  let documents = 0;
  const bad = (why: string) => new InferlensError('invalid_argument', `YAML: ${why}`);
  // An explicit stack: no recursion, whatever the nesting.
  const stack: { token: CST.Token; depth: number }[] = [];
  for (const t of tokens) {
    if (t.type === 'document') {
      if (++documents > 1) throw bad('expected one document');
      if (t.value) stack.push({ token: t.value, depth: 1 });
    }
  }
  while (stack.length > 0) {
    const { token, depth } = stack.pop()!;
    if (++nodes > limits.maxNodes) throw bad(`more than ${limits.maxNodes} values in all`);
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth > limits.maxDepth) throw bad(`nested deeper than ${limits.maxDepth} levels`);
    const items = token.items as readonly Item[];
    if (items.length > limits.maxEntries) throw bad(`a ${token.type === 'block-seq' ? 'list' : 'map or list'} with more than ${limits.maxEntries} entries`);
    for (const item of items) {
      if (item.key) stack.push({ token: item.key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
}

/** The one YAML document of `text` as plain JSON-compatible values, within `limits`; throws invalid_argument. */
export function parseYamlBounded(text: string, limits: YamlLimits): unknown {
  let tokens: CST.Token[];
  try {
    tokens = [...new Parser().parse(text)];
  } catch (e) {
    throw new InferlensError('invalid_argument', `not valid YAML: ${(e as Error).message}`, { cause: e });
  }
  checkTree(tokens, limits);
  const docs = [...new Composer({ uniqueKeys: true }).compose(tokens, true, text.length)];
  const doc = docs[0];
  if (!doc) return null;
  const problem = doc.errors[0];
  if (problem) throw new InferlensError('invalid_argument', `not valid YAML: ${problem.message}`);
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    throw new InferlensError('invalid_argument', `not valid YAML: ${(e as Error).message}`, { cause: e });
  }
}
