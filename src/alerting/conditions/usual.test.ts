// A slice judged against its peers keeps its usual distance from them: an entry that always queues
// longer than the others (a batch tier) is not a change, however many requests show it; the same
// entry regressing beyond its usual distance still is. For rate_shift and latency_shift with
// `reference: { peers }` (`usualDistance`, shift.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, observe } from '../alerting.test-support.ts';
import { usualDistance } from './shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
const HISTORY_MS = 150 * MIN;

let store: Store;

/**
 * Two models, one version each, three entries sending a request a second each. The `batch` entry
 * queues 1.8× longer than `web` and `api` all along and fails 3 % of its requests against their
 * 0.5 %; on model `steady` that is all, on model `regressed` its queue is 5× the others' and 15 % of
 * its requests fail over the last 10 minutes.
 */
beforeAll(async () => {
  const rnd = mulberry32(29);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 1000)
    for (const model of ['steady', 'regressed'])
      for (const entry of ['web', 'api', 'batch']) {
        const late = model === 'regressed' && ts >= NOW - 10 * MIN;
        const factor = entry !== 'batch' ? 1 : late ? 5 : 1.8;
        const failed = rnd() < (entry !== 'batch' ? 0.005 : late ? 0.15 : 0.03);
        lines.push(
          JSON.stringify({
            ts,
            request_id: `u${seq++}`,
            model,
            model_version: 'v1',
            entry,
            queue_ms: lognormal(rnd, 100, 0.5) * factor,
            total_ms: 200,
            status: failed ? 'error' : 'ok',
            ...(failed && { error_type: 'internal' }),
          }),
        );
      }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
}, 60_000);

afterAll(async () => {
  await store?.close();
});

/** The model/entry slices a condition raises at NOW (by model × version × entry, against the other entries). */
async function raised(condition: object): Promise<string[]> {
  const obs = await observe(typedReads(store), { by: ['model', 'model_version', 'entry'], ...condition }, NOW);
  return obs.map((o) => `${o.labels.model}/${o.labels.entry}`).sort();
}

const latency = { kind: 'latency_shift', field: 'queue_ms', quantile: 0.95, min_slowdown: 1.5 };
const errors = { kind: 'rate_shift', signal: 'errors' };

describe("a slice's usual distance from its peers", () => {
  it('is the ratio of its past rate to theirs, known as well as its own past, when improbable for theirs', () => {
    // 240 of 3,200 (7.5 %) against their 3.5 % then (binomial tail 4.6e−27): their 3.5 % now × 2.14.
    expect(usualDistance({ pRef: 0.035, nRef: 600 }, { n: 3200, k: 240 }, 0.035)).toEqual({ pRef: 0.075, nRef: 3200 });
    expect(usualDistance({ pRef: 0.02, nRef: 600 }, { n: 3200, k: 240 }, 0.035).pRef).toBeCloseTo(0.04286, 5);
    // 5 of 100 against 3.5 % is not improbable (tail 0.28): the peers' as they are.
    expect(usualDistance({ pRef: 0.035, nRef: 600 }, { n: 100, k: 5 }, 0.035)).toEqual({ pRef: 0.035, nRef: 600 });
    // Below them: as they are (a faster entry is judged against the others).
    expect(usualDistance({ pRef: 0.035, nRef: 600 }, { n: 3200, k: 20 }, 0.035)).toEqual({ pRef: 0.035, nRef: 600 });
    // Peers with nothing above then: the larger of theirs now and its own past.
    expect(usualDistance({ pRef: 0.01, nRef: 600 }, { n: 3200, k: 240 }, 0)).toEqual({ pRef: 0.075, nRef: 3200 });
  });

  it('an entry that always queued longer is not a change; one that regressed beyond that is', async () => {
    expect(await raised({ ...latency, reference: { peers: 'entry' } })).toEqual(['regressed/batch']);
    // Without its usual distance (window 0m) the always-slower entry is raised too, on both models.
    expect(await raised({ ...latency, reference: { peers: 'entry', window: '0m' } })).toEqual(['regressed/batch', 'steady/batch']);
  });

  it('the same for error rates', async () => {
    expect(await raised({ ...errors, reference: { peers: 'entry' } })).toEqual(['regressed/batch']);
    expect(await raised({ ...errors, reference: { peers: 'entry', window: '0m' } })).toEqual(['regressed/batch', 'steady/batch']);
  });
});
