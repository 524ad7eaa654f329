/** Test helpers: a reads fake whose aggregate answers come from a function the test changes; a real in-memory store and a condition run over it. */
import type { TypedReads } from '../query/index.ts';
import type { QueryRow, QuerySpec } from '../schema/index.ts';
import { evaluateCondition } from './conditions/index.ts';
import type { Coverage, Observation } from './conditions/context.ts';
import { DEFAULT_RULE_PACK, loadRuleFiles, parseRuleText } from './rule-file.ts';
import { ConditionSchema } from './rule-schema.ts';
import type { RuleGroup } from './rule-schema.ts';
import type { SeriesCache } from './series.ts';
import { createSeriesCache } from './series.ts';

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

/** Migrates a store a test created (a real in-memory DuckDB) and loads these NDJSON events into it. */
export async function fillStore(
  store: { migrate(): Promise<unknown>; appendEvents(lines: string[]): Promise<unknown> },
  lines: readonly string[],
): Promise<void> {
  await store.migrate();
  for (let i = 0; i < lines.length; i += 50_000) await store.appendEvents(lines.slice(i, i + 50_000));
}

/** The condition of one rule of the default pack, as shipped. */
export function packCondition(alert: string): RuleGroup['rules'][number]['condition'] {
  const rule = loadRuleFiles([DEFAULT_RULE_PACK])
    .groups.flatMap((g) => g.rules)
    .find((r) => r.alert === alert);
  if (!rule) throw new Error(`no ${alert} in the default pack`);
  return rule.condition;
}

/** A condition (as a rule file states it) evaluated at nowMs through these reads: what it raised, and the coverage it noted. */
export async function runCondition(
  reads: TypedReads,
  series: SeriesCache,
  condition: unknown,
  nowMs: number,
): Promise<{ obs: Observation[]; coverage: Coverage | null }> {
  const c = ConditionSchema.parse(condition);
  let coverage: Coverage | null = null;
  const obs = await evaluateCondition(c, 'warning', { reads, series, nowMs, maxSlices: 1000, note: (x) => (coverage = x) });
  return { obs, coverage };
}

/** What a condition raised at nowMs through these reads, with a series cache of its own (nothing carried from an earlier call). */
export async function observe(reads: TypedReads, condition: unknown, nowMs: number): Promise<Observation[]> {
  return (await runCondition(reads, createSeriesCache({ reads }), condition, nowMs)).obs;
}
