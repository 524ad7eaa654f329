// A child slice's thin past is shrunk toward its parent's with pseudo-requests, but never with more
// than its siblings sent: the parent's past already holds the child's own requests. A version served
// by one route (a canary) or one replica has a child that is all of it, and that child must be judged
// as the version is — the same reference, the same evidence — not on 100 requests it never sent (a
// clean canary's time per token was raised on its route at a tail quantile its own hour could not
// place, seed 801 of the fleet, while the version, the same traffic, was not).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, observe } from '../alerting.test-support.ts';
import { SHRINK_REQUESTS, shrinkWeight } from './shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;

let store: Store;

/**
 * `solo` v1, all of it on route rt-a and replica r1: a request every 10 s, 1 % failing, execution
 * around 20 ms; over the last 10 minutes a fifth fail and a third execute 3× slower.
 */
beforeAll(async () => {
  const rnd = mulberry32(5);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = NOW - 150 * MIN; ts < NOW; ts += 10_000) {
    const recent = ts >= NOW - 10 * MIN;
    const fail = rnd() < (recent ? 0.2 : 0.01);
    const slow = recent && seq % 3 === 0 ? 3 : 1;
    lines.push(
      JSON.stringify({
        ts,
        request_id: `s${seq++}`,
        model: 'solo',
        model_version: 'v1',
        route_rule: 'rt-a',
        replica: 'r1',
        exec_ms: lognormal(rnd, 20, 0.2) * slow,
        status: fail ? 'error' : 'ok',
        error_type: fail ? 'internal' : undefined,
      }),
    );
  }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
}, 60_000);

afterAll(async () => {
  await store?.close();
});

const run = (condition: unknown) => observe(typedReads(store), condition, NOW);

describe('a child that is all of its parent', () => {
  it('shrinkWeight: no more pseudo-requests than the siblings sent', () => {
    expect(shrinkWeight(5_000, 120)).toBe(SHRINK_REQUESTS);
    expect(shrinkWeight(150, 120)).toBe(30);
    expect(shrinkWeight(360, 360)).toBe(0);
  });

  for (const [kind, extra, compared] of [
    ['rate_shift', { signal: 'error' }, ['reference_rate', 'requests', 'bad', 'window_minutes', 'p_value']],
    ['latency_shift', { field: 'exec_ms', quantile: 0.99 }, ['reference_share', 'quantile', 'requests', 'above', 'window_minutes', 'p_value']],
  ] as const)
    it(`${kind}: its route and its replica are judged as the version is`, async () => {
      const rule = { kind, ...extra, by: ['model', 'model_version'], reference: { window: '60m', min_count: 30 } };
      const [version] = await run(rule);
      expect(version?.labels).toEqual({ model: 'solo', model_version: 'v1' });
      for (const dim of ['route_rule', 'replica']) {
        const obs = await run({ ...rule, localize: [dim] });
        // The child carries all of the version's excess, so it is the one named.
        expect(obs.map((o) => o.labels)).toEqual([{ model: 'solo', model_version: 'v1', [dim]: dim === 'route_rule' ? 'rt-a' : 'r1' }]);
        for (const key of compared) expect(obs[0]!.details![key], `${dim} ${key}`).toEqual(version!.details![key]);
      }
    });
});
