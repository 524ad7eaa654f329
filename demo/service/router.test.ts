import { describe, expect, it } from 'vitest';
import { createRouter, routeProblems } from './router.ts';

const rules = () => [
  { name: 'canary', version: 'v2' as const, tenants: ['acme'], percent: 10 },
  { name: 'default', version: 'v1' as const },
];

describe('router', () => {
  it('sends about percent of the matching tenant to the canary, and nobody else', () => {
    const router = createRouter(rules());
    const acme = Array.from({ length: 2000 }, (_, i) => router.route({ tenant: 'acme', entry: 'api', requestId: `r${i}` }));
    const canary = acme.filter((r) => r.rule === 'canary').length;
    // 10 % of 2,000 = 200; binomial sd √(2000 × 0.1 × 0.9) ≈ 13.4, so ± 4 sd is 146–254
    expect(canary).toBeGreaterThan(146);
    expect(canary).toBeLessThan(254);
    expect(acme.every((r) => (r.rule === 'canary' ? r.version === 'v2' : r.version === 'v1'))).toBe(true);
    const other = Array.from({ length: 200 }, (_, i) => router.route({ tenant: 'initech', entry: 'api', requestId: `r${i}` }));
    expect(other.every((r) => r.rule === 'default')).toBe(true);
  });

  it('routes a request id the same way every time', () => {
    const router = createRouter(rules());
    const first = router.route({ tenant: 'acme', entry: 'api', requestId: 'fixed' });
    for (let i = 0; i < 10; i++) expect(router.route({ tenant: 'acme', entry: 'api', requestId: 'fixed' })).toEqual(first);
  });

  it('pauses, resumes and re-weights the canary', () => {
    const router = createRouter(rules());
    const share = () =>
      Array.from({ length: 500 }, (_, i) => router.route({ tenant: 'acme', entry: 'api', requestId: `q${i}` })).filter((r) => r.rule === 'canary').length;
    router.setPercent('canary', 100);
    expect(share()).toBe(500);
    router.setPaused('canary', true);
    expect(share()).toBe(0);
    router.setPaused('canary', false);
    router.setPercent('canary', 0);
    expect(share()).toBe(0);
    expect(() => router.setPercent('nope', 5)).toThrow(/no route rule nope/);
  });

  it('lists every problem of a bad table', () => {
    const problems = routeProblems([
      { name: 'a', version: 'v2', percent: 120 },
      { name: 'a', version: 'v1', tenants: ['x'] },
    ]);
    expect(problems).toEqual([
      'routes[0]: percent must be 0–100',
      'routes[1]: name a is used twice',
      'the last route must be a catch-all (no tenants, no entries, percent 100) so every request has a version',
    ]);
    expect(() => createRouter([])).toThrow(/catch-all/);
  });
});
