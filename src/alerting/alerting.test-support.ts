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

/** A lognormal draw around `median` with spread sigma (Box–Muller), rounded to the microsecond. */
export function lognormal(rnd: () => number, median: number, sigma: number): number {
  const z = Math.sqrt(-2 * Math.log(Math.max(rnd(), 1e-12))) * Math.cos(2 * Math.PI * rnd());
  return Math.round(median * Math.exp(sigma * z) * 1000) / 1000;
}

/** Parses rule YAML or throws with the problems. */
export function rulesFrom(yaml: string): RuleGroup[] {
  const r = parseRuleText(yaml, 'test.yaml');
  if (r.problems.length > 0) throw new Error(r.problems.map((p) => `${p.line}: ${p.path}: ${p.message}`).join('\n'));
  return r.groups;
}
