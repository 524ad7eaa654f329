// The shift detectors' `hold`: each of the last minutes must show the change on its own before it
// is raised, so that one minute's spike of a slice whose rate wanders is not a change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { lognormal } from '../alerting.test-support.ts';
import { DEFAULT_RULE_PACK, loadRuleFiles } from '../rule-file.ts';
import { ConditionSchema } from '../rule-schema.ts';
import { createSeriesCache } from '../series.ts';
import { evaluateCondition } from './index.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
const HISTORY_MS = 150 * MIN;

let store: Store;

/**
 * Two requests a second per model, 1 % failing and total time around 40 ms. `spike`: over the last
 * minute only, a fifth of the requests fail and a fifth are 4× slower, spread over the minute (not
 * a burst of seconds: the spread check keeps it). `lasting`: the same over the last 3 minutes.
 */
beforeAll(async () => {
  store = await createDuckDBStore({ path: ':memory:' });
  await store.migrate();
  const rnd = mulberry32(11);
  const lines: string[] = [];
  let seq = 0;
  const changed: Record<string, number> = { spike: 1, lasting: 3 };
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 500)
    for (const model of ['spike', 'lasting']) {
      const on = ts >= NOW - changed[model]! * MIN;
      const failed = rnd() < (on ? 0.2 : 0.01);
      const slower = on && rnd() < 0.2 ? 4 : 1;
      lines.push(
        JSON.stringify({
          ts,
          request_id: `h${seq++}`,
          model,
          model_version: 'v1',
          total_ms: lognormal(rnd, 40, 0.2) * slower,
          status: failed ? 'error' : 'ok',
          ...(failed && { error_type: 'internal' }),
        }),
      );
    }
  for (let i = 0; i < lines.length; i += 50_000) await store.appendEvents(lines.slice(i, i + 50_000));
}, 60_000);

afterAll(async () => {
  await store?.close();
});

async function raised(condition: object, nowMs = NOW, active?: (labels: Record<string, string>) => boolean): Promise<string[]> {
  const c = ConditionSchema.parse({ by: ['model', 'model_version'], ...condition });
  const series = createSeriesCache({ reads: typedReads(store) });
  const obs = await evaluateCondition(c, 'critical', { reads: typedReads(store), series, nowMs, maxSlices: 1000, ...(active ? { active } : {}) });
  return obs.map((o) => o.labels.model!).sort();
}

const errors = { kind: 'rate_shift', signal: 'errors', min_ratio: 10, min_delta: 0.1, fdr: 0.001 };
const latency = { kind: 'latency_shift', field: 'total_ms', quantile: 0.99 };

describe.each([
  ['rate_shift', errors],
  ['latency_shift', latency],
])('%s hold', (_, condition) => {
  it('without it, one minute of change is raised like a change that lasts', async () => {
    expect(await raised(condition)).toEqual(['lasting', 'spike']);
  });

  it('with it, one minute is not a change; a change that lasts is, once it has held that long', async () => {
    expect(await raised({ ...condition, hold: '2m' })).toEqual(['lasting']);
    // One minute into `lasting`'s change it looks like `spike` now; two minutes in, it has held.
    expect(await raised({ ...condition, hold: '2m', filters: { model: ['lasting'] } }, NOW - 2 * MIN)).toEqual([]);
    expect(await raised({ ...condition, hold: '2m', filters: { model: ['lasting'] } }, NOW - MIN)).toEqual(['lasting']);
    expect(await raised({ ...condition, filters: { model: ['lasting'] } }, NOW - 2 * MIN)).toEqual(['lasting']);
  });

  it('an alert already pending (or firing) for the slice is not held again', async () => {
    expect(await raised({ ...condition, hold: '2m' }, NOW, (l) => l.model === 'spike')).toEqual(['lasting', 'spike']);
  });
});

describe("the default pack's ErrorsHigh", () => {
  it('pages a version failing a fifth of its requests for two minutes, not for one', async () => {
    const rule = loadRuleFiles([DEFAULT_RULE_PACK])
      .groups.flatMap((g) => g.rules)
      .find((r) => r.alert === 'ErrorsHigh')!;
    expect(await raised(rule.condition)).toEqual(['lasting']);
    expect(await raised({ ...rule.condition, filters: { model: ['lasting'] } }, NOW - 2 * MIN)).toEqual([]);
  });
});
