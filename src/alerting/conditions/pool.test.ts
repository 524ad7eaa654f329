// A thin version's past pooled with its model's other versions' past (rate_shift with
// `fallback_peers`) when the two rates agree: a canary's hour of a few hundred requests puts a wide
// bound on its normal rate, and the main version beside it served thousands at the same rate. A
// version whose past differs (a pinned tenant's own inputs) keeps its own reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, observe, packCondition } from '../alerting.test-support.ts';
import { POOL_Z, pooled } from './rate-shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;

let store: Store;

/**
 * `can`: v1 serves a request a second, failing 0.6 %; v2 (a canary) one every 7 s at the same
 * 0.6 %, failing 7 % over the last 25 minutes; v3 (pinned tenants) one every 7 s, failing 3 % all
 * along — its own normal, which the main version's is not.
 */
beforeAll(async () => {
  const rnd = mulberry32(916);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = NOW - 150 * MIN; ts < NOW; ts += 1000) {
    const versions: [string, number][] = [['v1', 0.006]];
    if ((ts / 1000) % 7 === 0) versions.push(['v2', ts >= NOW - 25 * MIN ? 0.07 : 0.006]);
    if ((ts / 1000) % 7 === 3) versions.push(['v3', 0.03]);
    for (const [version, p] of versions) {
      const fail = rnd() < p;
      lines.push(
        JSON.stringify({
          ts,
          request_id: `p${seq++}`,
          model: 'can',
          model_version: version,
          total_ms: 20,
          status: fail ? 'error' : 'ok',
          error_type: fail ? 'internal' : undefined,
        }),
      );
    }
  }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
}, 60_000);

afterAll(async () => {
  await store?.close();
});

const run = (condition: unknown, at = NOW) => observe(typedReads(store), condition, at);

describe('pooled', () => {
  it('pools a thin past with each busier peer whose past a two-proportion z-test cannot tell from it', () => {
    // 4 of 550 beside 50 of 7,800 (z = 0.24) and 15 of 515 (thinner: left out) → 54 of 8,350.
    const p = pooled(4, 550, [
      { k: 50, n: 7_800 },
      { k: 15, n: 515 },
    ]);
    expect(p.nRef).toBe(8_350);
    expect(p.pRef).toBeCloseTo(54 / 8_350, 12);
    // 12 of 550 (2.2 %) beside the same 50 of 7,800: z = 4.07 ≥ 1.96 → its own.
    expect(pooled(12, 550, [{ k: 50, n: 7_800 }])).toEqual({ pRef: 12 / 550, nRef: 550 });
    // Either side of the bound: 7 of 550 (z = 1.74) pooled, 8 of 550 (z = 2.22) not.
    expect(POOL_Z).toBe(1.96);
    expect(pooled(7, 550, [{ k: 50, n: 7_800 }]).nRef).toBe(8_350);
    expect(pooled(8, 550, [{ k: 50, n: 7_800 }]).nRef).toBe(550);
    // The busiest keeps its own; no spread to test (0 of n beside 0 of m): its own.
    expect(pooled(50, 7_800, [{ k: 4, n: 550 }])).toEqual({ pRef: 50 / 7_800, nRef: 7_800 });
    expect(pooled(0, 500, [{ k: 0, n: 5_000 }])).toEqual({ pRef: 0, nRef: 500 });
  });

  it('tells alike from not over the longer past when it is given (seed 1053: a pinned version at ~2 %, pooled with 0.8 % on one hour)', () => {
    // The hour: 7 of 550 beside 50 of 7,800 (z = 1.74): pooled. The six hours before, the same
    // minutes on both sides: 40 of 2,000 (2 %) beside 130 of 25,000 (0.52 %), z = 8.1: its own.
    const peer = { k: 50, n: 7_800 };
    expect(pooled(7, 550, [{ ...peer, past: { k: 130, n: 25_000 } }], { k: 40, n: 2_000 })).toEqual({ pRef: 7 / 550, nRef: 550 });
    // Alike over the six hours too (11 of 2,000 beside 130 of 25,000, z = 0.18): pooled.
    expect(pooled(7, 550, [{ ...peer, past: { k: 130, n: 25_000 } }], { k: 11, n: 2_000 }).nRef).toBe(8_350);
  });
});

describe('CanaryErrorsUp on a thin canary', () => {
  it('raises the canary failing 7 % against the pooled 0.6 %, which its own hour alone could not', async () => {
    const rule = packCondition('CanaryErrorsUp') as Record<string, unknown>;
    const obs = await run(rule);
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'can', model_version: 'v2' }]);
    expect(obs[0]!.details!.reference_rate as number).toBeLessThan(0.01);
    // The same rule without peers judges v2 on its own ~500 requests of past: not raised yet.
    const { fallback_peers: _, ...own } = rule;
    expect(await run(own)).toEqual([]);
  });

  it('stays silent at every minute of the hour before, and on the pinned version with a rate of its own', async () => {
    const rule = packCondition('CanaryErrorsUp');
    for (let t = NOW - 60 * MIN; t < NOW - 25 * MIN; t += MIN) expect(await run(rule, t), new Date(t).toISOString()).toEqual([]);
  });
});
