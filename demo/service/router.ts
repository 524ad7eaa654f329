/**
 * The routing rule table: the first rule that matches a request decides its model version, and
 * the rule's name travels with the request (`route_rule`). A rule matches when the tenant and the
 * entry are in its lists (an absent list matches all) and the request falls in its `percent`.
 *
 * The percent draw hashes the request id with the rule name, so a retried request id lands on
 * the same version and two rules draw independently. Example: percent 10 sends request ids whose
 * hash mod 10,000 is below 1,000 to the rule; over 1,000 requests that is 100 ± 19 (95 %).
 */
import type { ModelVersion } from '../model/index.ts';
import { fnv1a } from '../model/index.ts';

export interface RouteRule {
  name: string;
  version: ModelVersion;
  tenants?: string[];
  entries?: string[];
  /** Share of matching requests taken, 0–100; 100 when absent. */
  percent?: number;
  /** A paused rule matches nothing (the `pause_canary` action). */
  paused?: boolean;
}

export const DEFAULT_ROUTES: RouteRule[] = [
  { name: 'canary', version: 'v2', tenants: ['acme', 'globex'], percent: 10 },
  { name: 'default', version: 'v1' },
];

export interface RouteInput {
  tenant: string;
  entry: string;
  requestId: string;
}

export interface Router {
  route(input: RouteInput): { rule: string; version: ModelVersion };
  setPercent(rule: string, percent: number): void;
  setPaused(rule: string, paused: boolean): void;
  rules(): RouteRule[];
}

/** Every problem with a rule table; empty when it is usable. */
export function routeProblems(rules: readonly RouteRule[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  rules.forEach((r, i) => {
    if (!r.name) problems.push(`routes[${i}]: name is empty`);
    if (names.has(r.name)) problems.push(`routes[${i}]: name ${r.name} is used twice`);
    names.add(r.name);
    if (r.version !== 'v1' && r.version !== 'v2') problems.push(`routes[${i}]: version must be v1 or v2`);
    if (r.percent !== undefined && !(r.percent >= 0 && r.percent <= 100)) problems.push(`routes[${i}]: percent must be 0–100`);
  });
  const last = rules[rules.length - 1];
  if (!last || last.tenants || last.entries || (last.percent ?? 100) !== 100) {
    problems.push('the last route must be a catch-all (no tenants, no entries, percent 100) so every request has a version');
  }
  return problems;
}

export function createRouter(initial: readonly RouteRule[]): Router {
  const problems = routeProblems(initial);
  if (problems.length > 0) throw new Error(`bad routes:\n  ${problems.join('\n  ')}`);
  const rules = initial.map((r) => ({ ...r }));
  const get = (name: string): RouteRule => {
    const r = rules.find((x) => x.name === name);
    if (!r) throw new Error(`no route rule ${name}: expected one of ${rules.map((x) => x.name).join(', ')}`);
    return r;
  };
  const fallback = rules[rules.length - 1] as RouteRule;
  return {
    route({ tenant, entry, requestId }) {
      for (const r of rules) {
        if (r.paused) continue;
        if (r.tenants && !r.tenants.includes(tenant)) continue;
        if (r.entries && !r.entries.includes(entry)) continue;
        const percent = r.percent ?? 100;
        if (percent < 100 && fnv1a(`${r.name}\u0000${requestId}`) % 10_000 >= percent * 100) continue;
        return { rule: r.name, version: r.version };
      }
      // Only reached when the catch-all itself is paused.
      return { rule: fallback.name, version: fallback.version };
    },
    setPercent(name, percent) {
      if (!(percent >= 0 && percent <= 100)) throw new Error(`percent must be 0–100, got ${percent}`);
      get(name).percent = percent;
    },
    setPaused(name, paused) {
      get(name).paused = paused;
    },
    rules: () => rules.map((r) => ({ ...r })),
  };
}
