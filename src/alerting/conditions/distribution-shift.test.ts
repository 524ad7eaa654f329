// distribution_shift on thin versions and on the ends of long incidents, in a real in-memory DuckDB:
// a ranker answering two requests a minute is judged once its reference hour may hold 100 answers,
// a version answering one a minute against the two hours that hold them, and a mix that is back
// where it was before an incident is an end, not a change — when the incident outlasted the hour
// before the reference, and when a thin version's 120 answers sit 0.1 apart from the older hour by
// sampling alone.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, packCondition, runCondition } from '../alerting.test-support.ts';
import { ConditionSchema } from '../rule-schema.ts';
import { createSeriesCache } from '../series.ts';
import type { SeriesCache } from '../series.ts';
import { standardisedReference } from './distribution-shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
const HISTORY_MS = 300 * MIN;

let store: Store;
let series: SeriesCache;

beforeAll(async () => {
  const rnd = mulberry32(7);
  const lines: string[] = [];
  let seq = 0;
  const at = (ts: number, from: number, to: number) => ts >= NOW - from * MIN && ts < NOW - to * MIN;
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 10_000) {
    // longend: a classifier answering spam 30 % of the time, 70 % for 90 minutes that ended 95
    // minutes ago: longer than an hour, so the hour before the reference holds it too.
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'longend',
        model_version: 'v1',
        label: rnd() < (at(ts, 185, 95) ? 0.7 : 0.3) ? 'spam' : 'ham',
        status: 'ok',
      }),
    );
    if (ts % 30_000 !== 0) continue;
    // Two answers a minute. ranker: ~20 results a request, half as many over the last 15 minutes.
    // thinend: the same, its results halved from 130 to 100 minutes ago.
    const ranker = Math.max(1, Math.round(lognormal(rnd, at(ts, 15, 0) ? 10 : 20, 0.35)));
    const thinend = Math.max(1, Math.round(lognormal(rnd, at(ts, 130, 100) ? 10 : 20, 0.35)));
    lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'ranker', model_version: 'v1', output_length: ranker, status: 'ok' }));
    lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'thinend', model_version: 'v1', output_length: thinend, status: 'ok' }));
    // sparse: one answer a minute (60 an hour, under the reference's 100), results halved over the last 40 minutes.
    if (ts % 60_000 !== 0) continue;
    const sparse = Math.max(1, Math.round(lognormal(rnd, at(ts, 40, 0) ? 10 : 20, 0.35)));
    lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'sparse', model_version: 'v1', output_length: sparse, status: 'ok' }));
  }
  // mix: tenant a's inputs are answered x 90 % of the time, b's 10 %, a request every 10 s each;
  // over the last 20 minutes a sends three times as many. mixshift: the same burst, and b's answers
  // go to x 90 % over those minutes (the model changed for b's inputs).
  const rm = mulberry32(23);
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 2_500)
    for (const model of ['mix', 'mixshift']) {
      const burst = at(ts, 20, 0);
      const tenant = ts % 10_000 === 0 ? 'b' : 'a';
      if (tenant === 'a' && !burst && ts % 10_000 !== 5_000) continue;
      const px = tenant === 'a' || (model === 'mixshift' && burst) ? 0.9 : 0.1;
      lines.push(JSON.stringify({ ts, request_id: `m${seq++}`, model, model_version: 'v1', tenant, label: rm() < px ? 'x' : 'y', status: 'ok' }));
    }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
  series = createSeriesCache({ reads: typedReads(store) });
}, 60_000);

afterAll(async () => {
  await store?.close();
});

/** ResultCountShift of the default pack, as shipped, on one model. */
const resultCount = (model: string) => ({ ...packCondition('ResultCountShift'), filters: { model } });

const run = (condition: unknown, nowMs = NOW) => runCondition(typedReads(store), series, condition, nowMs);

describe('distribution_shift on a thin version', () => {
  it('a ranker of two requests a minute whose results halved: judged against a reference hour of 100 answers, and raised', async () => {
    const { obs, coverage } = await run(resultCount('ranker'));
    expect(coverage).toEqual({ judged: 1, without_reference: 0 });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'ranker', model_version: 'v1' }]);
    expect(Number(obs[0]!.details!.log_bayes_factor)).toBeGreaterThan(Math.log(1440 / 0.01));
  });

  it('one answer a minute: its reference reaches back two hours for its 100 answers, and it is raised', async () => {
    const { obs, coverage } = await run(resultCount('sparse'));
    expect(coverage).toEqual({ judged: 1, without_reference: 0 });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'sparse', model_version: 'v1' }]);
  });

  it('with a reference of 300 answers, more than two hours hold, it is not judged, and says so', async () => {
    const { obs, coverage } = await run({
      kind: 'distribution_shift',
      field: 'output_length',
      by: ['model', 'model_version'],
      filters: { model: 'ranker' },
      min_count: 30,
      reference: { window: '60m', min_count: 300 },
    });
    expect(coverage).toEqual({ judged: 0, without_reference: 1 });
    expect(obs).toEqual([]);
  });
});

describe('distribution_shift: an end is not a change', () => {
  it('a label mix back where it was two hours ago, after an incident longer than the hour before the reference', async () => {
    const c = { kind: 'distribution_shift', field: 'label', by: ['model', 'model_version'], filters: { model: 'longend' } };
    // Raised while it lasted …
    expect((await run(c, NOW - 150 * MIN)).obs.map((o) => o.labels)).toEqual([{ model: 'longend', model_version: 'v1' }]);
    // … and not once every window ending now is clean (an hour after its end): at 35 minutes ago
    // the 60-minute window is judged against an hour that is all incident, and the hour before that
    // holds half an hour of it, but not the hour before that.
    for (let t = NOW - 35 * MIN; t <= NOW; t += 5 * MIN) expect((await run(c, t)).obs).toEqual([]);
  });

  it("a thin version's results back where they were the hour before the reference, though sampling puts them 0.1 apart", async () => {
    const c = resultCount('thinend');
    expect((await run(c, NOW - 105 * MIN)).obs.map((o) => o.labels)).toEqual([{ model: 'thinend', model_version: 'v1' }]);
    // From an hour after its end, every window is clean, and some are judged against an hour that
    // holds it: the hour before that is where the results are back to.
    for (let t = NOW - 40 * MIN; t <= NOW; t += MIN) expect((await run(c, t)).obs).toEqual([]);
  });
});

describe('distribution_shift within tenants', () => {
  const labels = (model: string, within?: string) => ({
    kind: 'distribution_shift',
    field: 'label',
    by: ['model', 'model_version'],
    filters: { model },
    ...(within && { within }),
  });

  it("standardises the reference to the window's tenants, each tenant's mix shrunk toward the whole", () => {
    // The worked example: A 100 answers (80 x, 20 y), B 100 (20 x, 80 y); a window of A 90, B 10.
    const ref = new Map([
      [
        'A',
        new Map([
          ['x', 80],
          ['y', 20],
        ]),
      ],
      [
        'B',
        new Map([
          ['x', 20],
          ['y', 80],
        ]),
      ],
    ]);
    const cur = new Map([
      ['A', new Map([['x', 90]])],
      ['B', new Map([['y', 10]])],
    ]);
    const got = standardisedReference(ref, cur);
    expect(got.get('x')).toBeCloseTo(140, 10);
    expect(got.get('y')).toBeCloseTo(60, 10);
    // A tenant with no past answers as the whole reference does: 50 / 50.
    const fresh = standardisedReference(ref, new Map([['C', new Map([['x', 5]])]]));
    expect(fresh.get('x')).toBeCloseTo(100, 10);
  });

  it("a tenant whose inputs differ sending more moves the version's mix, but not the mix within tenants", async () => {
    // The version's x share goes from 50 % to 70 % while a bursts.
    expect((await run(labels('mix'))).obs.map((o) => o.labels)).toEqual([{ model: 'mix', model_version: 'v1' }]);
    expect((await run(labels('mix', 'tenant'))).obs).toEqual([]);
    // The pack's rule judges the mix within tenants.
    expect((await run({ ...packCondition('OutputDistributionShift'), filters: { model: 'mix' } })).obs).toEqual([]);
  });

  it("answers that changed for a tenant's inputs are still a change within tenants (90 % x where its tenants' past says 70 %)", async () => {
    const { obs } = await run(labels('mixshift', 'tenant'));
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'mixshift', model_version: 'v1' }]);
    expect((await run({ ...packCondition('OutputDistributionShift'), filters: { model: 'mixshift' } })).obs).toHaveLength(1);
  });

  it('needs a categorical field, and says which field is wrong', () => {
    const r = ConditionSchema.safeParse({ kind: 'distribution_shift', field: 'output_length', within: 'tenant' });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['within', 'within needs a categorical field (label, finish_reason, status, error_type)'],
    ]);
  });
});
