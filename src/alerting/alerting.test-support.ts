/** Test helpers: a reads fake whose aggregate answers come from a function the test changes. */
import type { TypedReads } from '../query/index.ts';
import type { QueryRow, QuerySpec } from '../schema/index.ts';
import { parseRuleText } from './rule-file.ts';
import type { RuleGroup } from './rule-schema.ts';

export type AggregateFn = (spec: QuerySpec) => QueryRow[] | Promise<QueryRow[]>;

/** Only `aggregate` answers; any other read throws (the tests that need them use a real DuckDB). */
export function fakeReads(aggregate: AggregateFn): TypedReads {
  const no = () => {
    throw new Error('not in this fake');
  };
  return { aggregate: async (s: QuerySpec) => aggregate(s), bucketCounts: no, events: no, resources: no };
}

/** Parses rule YAML or throws with the problems. */
export function rulesFrom(yaml: string): RuleGroup[] {
  const r = parseRuleText(yaml, 'test.yaml');
  if (r.problems.length > 0) throw new Error(r.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`).join('\n'));
  return r.groups;
}
