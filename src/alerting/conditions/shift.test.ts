// The sequential detectors on generated traffic in a real in-memory DuckDB: each finds its change on
// the right slice, and stays silent on the same traffic without it, at every minute of an hour.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import { typedReads } from '../../query/index.ts';
import type { ResourceSample } from '../../schema/index.ts';
import { createDuckDBStore } from '../../store/index.ts';
import type { Store } from '../../store/index.ts';
import { fillStore, lognormal, packCondition, runCondition } from '../alerting.test-support.ts';
import { createSeriesCache } from '../series.ts';
import type { SeriesCache } from '../series.ts';
import { baselinePhi, holdFiring } from './shift.ts';
import type { Tested } from './shift.ts';

const NOW = Date.parse('2025-01-02T12:00:00Z');
const MIN = 60_000;
const HISTORY_MS = 150 * MIN;

let store: Store;
let series: SeriesCache;

beforeAll(async () => {
  const rnd = mulberry32(42);
  const lines: string[] = [];
  let seq = 0;
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 1000) {
    const recent = (min: number) => ts >= NOW - min * MIN;
    // err: v1 on three replicas, tenants acme (big) and t7 (every 30 s); 0.5 % errors; t7 fails half its requests in the last 12 minutes.
    for (const model of ['err', 'calm']) {
      const small = ts % 30_000 === 0;
      const tenant = small ? 't7' : 'acme';
      const failing = model === 'err' && small && recent(12) && (ts / 30_000) % 2 === 0;
      lines.push(
        JSON.stringify({
          ts,
          request_id: `q${seq++}`,
          model,
          model_version: 'v1',
          tenant,
          replica: `r${seq % 3}`,
          total_ms: lognormal(rnd, 40, 0.3),
          status: failing || rnd() < 0.005 ? 'error' : 'ok',
          error_type: failing ? 'internal' : undefined,
        }),
      );
    }
    // lat: exec time on three replicas; r2 runs 3× slower in the last 6 minutes.
    const replica = `r${seq % 3}`;
    const slow = replica === 'r2' && recent(6) ? 3 : 1;
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'lat',
        model_version: 'v1',
        replica,
        exec_ms: lognormal(rnd, 12, 0.25) * slow,
        total_ms: 30,
        status: 'ok',
      }),
    );
    // conf: confident answers (0.90–1.00), less so over the last 10 minutes (0.60–0.90).
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'conf',
        model_version: 'v1',
        label: 'a',
        confidence: recent(10) ? 0.6 + 0.3 * rnd() : 0.9 + 0.1 * rnd(),
        total_ms: 5,
        status: 'ok',
      }),
    );
    // dist: a classifier answering spam 30 % of the time, 70 % over the last 15 minutes.
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'dist',
        model_version: 'v1',
        label: rnd() < (recent(15) ? 0.7 : 0.3) ? 'spam' : 'ham',
        confidence: 0.5 + rnd() / 2,
        total_ms: 5,
        status: 'ok',
      }),
    );
    // distend: 30 % spam, 70 % for 25 minutes from 70 minutes ago (an incident that ended 45 minutes ago).
    const during = ts >= NOW - 70 * MIN && ts < NOW - 45 * MIN;
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'distend',
        model_version: 'v1',
        label: rnd() < (during ? 0.7 : 0.3) ? 'spam' : 'ham',
        total_ms: 5,
        status: 'ok',
      }),
    );
    // gen: answers of ~200 tokens; over the last 15 minutes 30 % come back empty (0 tokens) and the rest
    // as long as before: the empty rate's change, not a length shift. gen2: answers halve over the last 15.
    const empty = recent(15) && rnd() < 0.3;
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'gen',
        model_version: 'v1',
        output_tokens: empty ? 0 : Math.round(lognormal(rnd, 200, 0.4)),
        empty,
        status: 'ok',
      }),
    );
    lines.push(
      JSON.stringify({
        ts,
        request_id: `q${seq++}`,
        model: 'gen2',
        model_version: 'v1',
        output_tokens: Math.round(lognormal(rnd, recent(15) ? 100 : 200, 0.4)),
        status: 'ok',
      }),
    );
  }
  // fresh: a version that started 3 minutes ago (no past of its own to speak of) beside v1.
  for (let ts = NOW - 3 * MIN; ts < NOW; ts += 2000)
    lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'calm', model_version: 'v9', tenant: 'acme', total_ms: 40, status: 'ok' }));
  // pace: v1 every 2 s around 40 ms; v2 and v3, thin versions (one request in 3 and in 2.5 minutes,
  // under the reference's 30 an hour): v2 has always been twice as slow, v3 as fast as v1 until it
  // turns three times slower 20 minutes ago. v4 is v3 with an older past: twice as slow as v1 until
  // two hours ago, before the two hours a rule's horizon and reference span.
  const rp = mulberry32(7);
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 2000) {
    lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'pace', model_version: 'v1', total_ms: lognormal(rp, 40, 0.2), status: 'ok' }));
    if (ts % 180_000 === 0)
      lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'pace', model_version: 'v2', total_ms: lognormal(rp, 80, 0.2), status: 'ok' }));
    if (ts % 150_000 === 0) {
      const slow = ts >= NOW - 20 * MIN ? 3 : 1;
      lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'pace', model_version: 'v3', total_ms: lognormal(rp, 40 * slow, 0.2), status: 'ok' }));
    }
    if (ts % 150_000 === 60_000) {
      const slow = ts >= NOW - 20 * MIN ? 3 : ts < NOW - 120 * MIN ? 2 : 1;
      lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model: 'pace', model_version: 'v4', total_ms: lognormal(rp, 40 * slow, 0.2), status: 'ok' }));
    }
  }
  // Queue time per entry, a request a second spread over three entries: every entry of `surge` waits
  // 4× longer over the last 8 minutes (load: the model's queue is shared), only e2 of `stagey` does;
  // `pinned` serves e2 from a version of its own (a tenant pinned to it), and that version's queue
  // is the one that grows (its load, not the entry's).
  // Their execution takes the same time throughout (its own random stream), so `surge`'s end-to-end
  // tail grows with its queue alone.
  const rq = mulberry32(11);
  const rx = mulberry32(12);
  for (let ts = NOW - HISTORY_MS; ts < NOW; ts += 1000)
    for (const model of ['surge', 'stagey', 'pinned']) {
      const entry = `e${(ts / 1000) % 3}`;
      const slower = ts >= NOW - 8 * MIN && (model === 'surge' || entry === 'e2') ? 4 : 1;
      const model_version = model === 'pinned' && entry === 'e2' ? 'v2' : 'v1';
      const queue_ms = lognormal(rq, 20, 0.3) * slower;
      const exec_ms = lognormal(rx, 15, 0.2);
      lines.push(JSON.stringify({ ts, request_id: `q${seq++}`, model, model_version, entry, queue_ms, exec_ms, total_ms: queue_ms + exec_ms, status: 'ok' }));
    }
  store = await createDuckDBStore({ path: ':memory:' });
  await fillStore(store, lines);
  const GiB = 2 ** 30;
  const samples: ResourceSample[] = [];
  for (let ts = NOW - 30 * MIN; ts < NOW; ts += 15_000) {
    const k = (ts - (NOW - 30 * MIN)) / 15_000;
    // GPU 0 creeps from 48 to 76 GiB of 80 (0.7 GiB a minute); GPU 1 wobbles around 40 GiB.
    samples.push({ ts, node: 'n1', gpu: '0', metric: 'gpu_memory_used_bytes', value: (48 + k * 0.2333) * GiB });
    samples.push({ ts, node: 'n1', gpu: '1', metric: 'gpu_memory_used_bytes', value: (40 + Math.sin(k) * 2) * GiB });
    for (const gpu of ['0', '1', '3']) samples.push({ ts, node: 'n1', gpu, metric: 'gpu_memory_total_bytes', value: 80 * GiB });
    // GPU 3's load ramps from 30 % to 90 % over the last 10 minutes and its memory follows (a KV
    // cache: 40 GiB + 40 GiB × load, up to 76 GiB); GPU 0's load stays near 50 % while it creeps.
    const ramp = ts >= NOW - 10 * MIN ? 0.3 + (0.6 * (ts - (NOW - 10 * MIN))) / (10 * MIN) : 0.3 + 0.02 * Math.sin(k);
    samples.push({ ts, node: 'n1', gpu: '3', metric: 'gpu_utilization_ratio', value: ramp });
    samples.push({ ts, node: 'n1', gpu: '3', metric: 'gpu_memory_used_bytes', value: (40 + 40 * ramp) * GiB });
    samples.push({ ts, node: 'n1', gpu: '0', metric: 'gpu_utilization_ratio', value: 0.5 + 0.03 * Math.sin(k * 1.7) });
  }
  await store.appendResources(samples);
  series = createSeriesCache({ reads: typedReads(store) });
}, 60_000);

afterAll(async () => {
  await store?.close();
});

const run = (condition: unknown, nowMs = NOW) => runCondition(typedReads(store), series, condition, nowMs);

describe('rate_shift', () => {
  const rule = { kind: 'rate_shift', signal: 'error', by: ['model', 'model_version'], localize: ['tenant', 'replica'], reference: { window: '60m' } };

  it('names the small tenant whose requests fail, not its model version', async () => {
    const { obs, coverage } = await run({ ...rule, filters: { model: ['err', 'calm'] } });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'err', model_version: 'v1', tenant: 't7' }]);
    // t7 sends 2 requests a minute; 12 of the last 24 failed (the strongest window may reach further
    // back, over requests that did not fail). Its reference: ~0 errors in its own ~120 requests
    // shrunk toward v1's 0.5 % with 100 pseudo-requests.
    const d = obs[0]!.details!;
    expect(d.rate as number).toBeGreaterThanOrEqual(0.25);
    expect(d.reference_rate as number).toBeLessThan(0.01);
    expect(d.p_value as number).toBeLessThan(1e-4);
    // err v1, calm v1 judged; calm v9 has at most 60 requests of past, under the reference's 100.
    expect(coverage).toEqual({ judged: 2, without_reference: 1 });
  });

  it('stays silent on the same traffic an hour earlier, at every minute', async () => {
    for (let t = NOW - 60 * MIN; t < NOW - 15 * MIN; t += MIN) expect((await run(rule, t)).obs, new Date(t).toISOString()).toEqual([]);
  });

  it('judges a version without a past against its peers when told to', async () => {
    const { coverage } = await run({ ...rule, localize: [], filters: { model: 'calm' }, fallback_peers: 'model_version' });
    expect(coverage).toEqual({ judged: 2, without_reference: 0 });
  });
});

describe('latency_shift', () => {
  const canary = {
    kind: 'latency_shift',
    field: 'total_ms',
    quantile: 0.99,
    by: ['model', 'model_version'],
    // 60: the thin versions below send 20–24 requests an hour, under it over the three hours their
    // past may reach back (REFERENCE_GROWTH), so they are judged against their peers.
    reference: { window: '60m', min_count: 60 },
    fallback_peers: 'model_version',
  };

  it('judges a version new in the window, or thin and like its peers, against them; not one with a speed of its own', async () => {
    // calm v9 began 3 minutes ago: judged against v1 (and as fast). pace v2 has served all along,
    // ~20 requests an hour at twice v1's time: its own past is too thin, and v1's tail is not its
    // reference (against v1, every one of its requests would lie above v1's P99). pace v3 is as
    // thin, but its past looked like v1's: judged against v1, and raised once it slows down. v4 slows
    // down as v3 does, but its past beyond the last two hours was twice as slow as v1's: its speed
    // is its own, read from all the history the rule holds (LIKENESS_HISTORY_MS), not two hours.
    const pace = { ...canary, filters: { model: 'pace', model_version: ['v1', 'v2', 'v3'] } };
    expect(await run({ ...canary, filters: { model: 'calm' } })).toEqual({ obs: [], coverage: { judged: 2, without_reference: 0 } });
    for (let t = NOW - 40 * MIN; t <= NOW - 25 * MIN; t += 5 * MIN)
      expect(await run(pace, t), new Date(t).toISOString()).toEqual({
        obs: [],
        coverage: { judged: 2, without_reference: 1 },
      });
    const { obs, coverage } = await run(pace);
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'pace', model_version: 'v3' }]);
    expect(obs[0]!.value).toBeGreaterThan(2);
    expect(coverage).toEqual({ judged: 2, without_reference: 1 });
    const older = { ...canary, filters: { model: 'pace', model_version: ['v1', 'v4'] } };
    expect(await run(older)).toEqual({ obs: [], coverage: { judged: 1, without_reference: 1 } });
  });

  it("a thin version's own past reaches back up to three reference windows for its min_count", async () => {
    // With 30, the ~45 requests v2 and v4 sent since the history began are their reference where
    // their peers' is not (their speed is their own): judged, and v2 at its own speed is not
    // raised. v3 is like its peers, whose thousands of requests fix their P99: judged against them,
    // and raised. Without peers to fall back on, every version is judged against its own past.
    const thin = { ...canary, reference: { window: '60m', min_count: 30 }, filters: { model: 'pace' } };
    const { obs, coverage } = await run(thin);
    expect(coverage).toEqual({ judged: 4, without_reference: 0 });
    expect(obs.map((o) => o.labels.model_version)).toEqual(['v3']);
    expect((await run({ ...thin, fallback_peers: undefined })).coverage).toEqual({ judged: 4, without_reference: 0 });
    expect((await run({ ...thin, reference: { window: '60m', min_count: 60 }, fallback_peers: undefined })).coverage).toEqual({
      judged: 1,
      without_reference: 3,
    });
  });

  it('a replica executing 3× slower than its peers, not the peers', async () => {
    const { obs } = await run({
      kind: 'latency_shift',
      field: 'exec_ms',
      quantile: 0.95,
      by: ['model', 'model_version', 'replica'],
      reference: { peers: 'replica' },
    });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'lat', model_version: 'v1', replica: 'r2' }]);
    // The P95 of r2 sits ~3× its peers' (bucket bounds 12 % apart).
    expect(obs[0]!.value).toBeGreaterThan(2.2);
    expect(obs[0]!.value).toBeLessThan(4);
  });

  it("one entry's queue against the other entries of its model version (the default pack's EntryStageSlow): not a load that slows every entry", async () => {
    const rule = packCondition('EntryStageSlow');
    const { obs } = await run(rule);
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'stagey', model_version: 'v1', entry: 'e2', field: 'queue_ms' }]);
    // 4× its peers' P95, read on bucket bounds 12 % apart.
    expect(obs[0]!.value).toBeGreaterThan(3);
    expect(obs[0]!.value).toBeLessThan(5.5);
    // The surge's own past says its queue quadrupled: the rule is about one entry, not load.
    const own = await run({ ...rule, reference: { window: '60m' }, filters: { model: 'surge' } });
    expect(own.obs.map((o) => o.labels.entry).sort()).toEqual(['e0', 'e1', 'e2']);
    // An entry served by another version is not judged against this version's entries: its queue is
    // that version's load. Pooled across versions, the pinned version's entry reads as a regression.
    expect((await run({ ...rule, filters: { model: 'pinned' } })).obs).toEqual([]);
    const pooled = await run({ ...rule, by: ['model', 'entry'], filters: { model: 'pinned' } });
    expect(pooled.obs.map((o) => o.labels)).toEqual([{ model: 'pinned', entry: 'e2', field: 'queue_ms' }]);
  });

  it("the same slowdown seen against the model version's own past, localised to the replica", async () => {
    const { obs } = await run({
      kind: 'latency_shift',
      field: ['exec_ms', 'total_ms'],
      quantile: 0.99,
      by: ['model', 'model_version'],
      localize: ['replica'],
      filters: { model: 'lat' },
    });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'lat', model_version: 'v1', replica: 'r2', field: 'exec_ms' }]);
  });

  it("the default pack's LatencyTailUp: a replica's slower execution, named; a queue that grows with the load, not", async () => {
    const rule = packCondition('LatencyTailUp');
    expect((await run({ ...rule, filters: { model: 'lat' } })).obs.map((o) => o.labels)).toEqual([
      { model: 'lat', model_version: 'v1', replica: 'r2', field: 'exec_ms' },
    ]);
    // surge's requests all wait 4× longer in its queue over the last 8 minutes: its end-to-end P99
    // moved, its execution did not (that queue is QueueBacklog's and EntryStageSlow's).
    expect((await run({ ...rule, filters: { model: 'surge' } })).obs).toEqual([]);
    const total = await run({ ...rule, field: 'total_ms', filters: { model: 'surge' } });
    expect(total.obs.map((o) => o.labels)).toEqual([{ model: 'surge', model_version: 'v1' }]);
  });

  it('stays silent before the slowdown, at every minute', async () => {
    const rule = { kind: 'latency_shift', field: 'exec_ms', quantile: 0.95, by: ['model', 'model_version', 'replica'], reference: { peers: 'replica' } };
    for (let t = NOW - 60 * MIN; t < NOW - 7 * MIN; t += MIN) expect((await run(rule, t)).obs, new Date(t).toISOString()).toEqual([]);
  });
});

describe('distribution_shift', () => {
  it('the label mix that moved from 30 % to 70 % spam', async () => {
    const { obs } = await run({ kind: 'distribution_shift', field: 'label', by: ['model', 'model_version'] });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'dist', model_version: 'v1' }]);
    // JS distance of (0.3, 0.7) vs (0.7, 0.3), base 2: m = (½, ½), KL = 0.3·log2 0.6 + 0.7·log2 1.4
    // = 0.1187 each way → √0.1187 = 0.3446; the drawn shares wobble around it.
    expect(obs[0]!.value).toBeGreaterThan(0.28);
    expect(obs[0]!.value).toBeLessThan(0.4);
  });

  it('an incident that ended is not a shift once it fills the reference hour: the mix is back where it was the hour before', async () => {
    const c = { kind: 'distribution_shift', field: 'label', by: ['model', 'model_version'], filters: { model: 'distend' } };
    expect((await run(c, NOW - 55 * MIN)).obs.map((o) => o.labels)).toEqual([{ model: 'distend', model_version: 'v1' }]);
    // 45 minutes after its end the shorter windows are clean and judged against an hour that holds
    // it (without the older hour they read the end as a shift of distance 0.2); the 60-minute window
    // holds a quarter of it against an hour that holds a sixth.
    for (const t of [NOW - 2 * MIN, NOW - MIN, NOW]) expect((await run(c, t)).obs).toEqual([]);
  });

  it('a confidence distribution that did not move, binned, is not a shift; before the change neither is the label', async () => {
    expect((await run({ kind: 'distribution_shift', field: 'confidence', by: ['model'], filters: { model: 'dist' } })).obs).toEqual([]);
    for (let t = NOW - 60 * MIN; t < NOW - 16 * MIN; t += 5 * MIN)
      expect((await run({ kind: 'distribution_shift', field: 'label', by: ['model', 'model_version'], filters: { model: 'dist' } }, t)).obs).toEqual([]);
  });
});

describe('distribution_shift of a log-binned field', () => {
  it("answers that halved are a length shift; answers that came back empty are not (zero is the empty rate's)", async () => {
    const { obs } = await run({ kind: 'distribution_shift', field: 'output_tokens', by: ['model', 'model_version'] });
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'gen2', model_version: 'v1' }]);
    // Halving moves a 10-a-decade log histogram by 3 bins of a lognormal with σ 0.4 (≈ 1.7 bins):
    // far apart, but overlapping.
    expect(obs[0]!.value).toBeGreaterThan(0.4);
  });
});

describe('latency_shift down (a confidence that drops)', () => {
  const rule = {
    kind: 'latency_shift',
    field: 'confidence',
    direction: 'down',
    quantile: 0.9,
    bins: { width: 0.02 },
    by: ['model', 'model_version'],
    min_slowdown: 1.05,
    filters: { model: ['conf', 'dist'] },
  };
  it('more answers below the usual lowest tenth of confidence, on the model that changed', async () => {
    const { obs } = await run(rule);
    expect(obs.map((o) => o.labels)).toEqual([{ model: 'conf', model_version: 'v1' }]);
    // Before: uniform on 0.90–1.00, its 10th percentile in the bucket [0.90, 0.92); after: every answer
    // below 0.9 (the strongest window may reach a few minutes before the drop).
    expect(obs[0]!.details!.share_above as number).toBeGreaterThan(0.7);
    expect(obs[0]!.details!.reference_share as number).toBeLessThan(0.12);
  });
  it('stays silent before the drop, at every minute', async () => {
    for (let t = NOW - 60 * MIN; t < NOW - 11 * MIN; t += MIN) expect((await run(rule, t)).obs, new Date(t).toISOString()).toEqual([]);
  });
});

describe('resource time_to_limit', () => {
  it('a GPU whose memory follows its load up is no leak once the load is taken out', async () => {
    const rule = {
      kind: 'resource',
      metric: 'gpu_memory_used_bytes',
      divide_by: 'gpu_memory_total_bytes',
      window: '15m',
      agg: 'time_to_limit',
      step: '30s',
      by: ['node', 'gpu'],
      op: '<',
      value: 60,
    };
    expect((await run(rule)).obs.map((o) => o.labels)).toEqual([
      { node: 'n1', gpu: '0' },
      { node: 'n1', gpu: '3' },
    ]);
    expect((await run({ ...rule, control: 'gpu_utilization_ratio' })).obs.map((o) => o.labels)).toEqual([{ node: 'n1', gpu: '0' }]);
  });

  it('minutes until a creeping GPU is full; a wobbling one has no trend', async () => {
    const { obs } = await run({
      kind: 'resource',
      metric: 'gpu_memory_used_bytes',
      divide_by: 'gpu_memory_total_bytes',
      window: '15m',
      agg: 'time_to_limit',
      step: '30s',
      by: ['node', 'gpu'],
      filters: { gpu: ['0', '1'] },
      op: '<',
      value: 60,
    });
    expect(obs.map((o) => o.labels)).toEqual([{ node: 'n1', gpu: '0' }]);
    // 0.2333 GiB every 15 s = 0.9333 GiB/min of 80 → 0.01167 of the card a minute. The last 30 s step
    // averages k = 118, 119 → 48 + 118.5·0.2333 = 75.65 GiB = 0.9456 → (1 − 0.9456) / 0.01167 = 4.7 min.
    expect(obs[0]!.value).toBeCloseTo((1 - (48 + 118.5 * 0.2333) / 80) / ((0.2333 * 4) / 80), 1);
  });
});

describe('baselinePhi', () => {
  // Sixty baseline minutes of 7 requests with no bad one: too little to measure a dispersion.
  const quiet = () => ({ n: 7, k: 0 });
  it("a child too thin to measure its own inherits its parent's excess in proportion to its requests", () => {
    expect(baselinePhi(quiet, 0, 60)).toBe(1);
    // 420 of the parent's 3,500 baseline requests (12 %): 1 + (3 − 1) × 0.12.
    expect(baselinePhi(quiet, 0, 60, { phi: 3, n: 3500 })).toBeCloseTo(1.24, 12);
    // A child as large as its parent takes all of it.
    expect(baselinePhi(quiet, 0, 60, { phi: 3, n: 420 })).toBe(3);
  });
  it('a slice that can measure its own keeps the larger', () => {
    // Minutes of 100 with 1,1,1,1,6,… bad (the worked example of `dispersion`): 22.5 / 1.4775 / 9 = 1.692.
    const bursty = (j: number) => ({ n: 100, k: j % 10 === 4 ? 6 : 1 });
    expect(baselinePhi(bursty, 0, 10)).toBeCloseTo(22.5 / 1.4775 / 9, 12);
    expect(baselinePhi(bursty, 0, 10, { phi: 1.2, n: 2000 })).toBeCloseTo(22.5 / 1.4775 / 9, 12);
  });
  it("with the baseline's sums at hand, the same number, and a slice with fewer than 10 bad requests in it is not read minute by minute", () => {
    const random = mulberry32(21);
    let skipped = 0;
    let measured = 0;
    for (let c = 0; c < 400; c++) {
      // Bad requests as a rate × requests product, as the series store them (whole numbers up to rounding).
      const p = [0, 0.001, 0.01, 0.05, 0.3][c % 5]!;
      const minutes = Array.from({ length: 90 }, () => {
        const n = Math.floor(random() * (c % 3 === 0 ? 4 : 80));
        const bad = Array.from({ length: n }, () => random() < p * (random() < 0.1 ? 8 : 1)).filter(Boolean).length;
        return { n, k: n > 0 ? (bad / n) * n : 0 };
      });
      let read = 0;
      const minute = (j: number) => (read++, minutes[j]!);
      const range = (a: number, b: number) => minutes.slice(a, b).reduce((t, m) => ({ n: t.n + m.n, k: t.k + m.k }), { n: 0, k: 0 });
      const parent = c % 2 ? { phi: 1 + random() * 4, n: 5000 } : undefined;
      const from = Math.floor(random() * 30) - 10;
      const want = baselinePhi(minute, from, 90, parent);
      read = 0;
      expect(baselinePhi(minute, from, 90, parent, range)).toBe(want);
      if (read === 0) skipped++;
      else if (want !== Math.max(1, parent ? 1 + (parent.phi - 1) * Math.min(1, range(Math.max(0, from), 90).n / parent.n) : 1)) measured++;
    }
    expect(skipped).toBeGreaterThan(100);
    expect(measured).toBeGreaterThan(50);
  });
});

describe('holdFiring', () => {
  const slice = (tenant: string, pValue: number) => ({ level: 1, labels: { model: 'm', tenant }, parent: 'm', pValue }) as unknown as Tested;
  it('keeps a firing slice that still shows its change though its evidence no longer clears the bar, and adds nothing else', () => {
    const raised = slice('a', 1e-6);
    const weak = slice('b', 0.015);
    const quiet = slice('c', 0.2);
    const firing = (l: Record<string, string>) => l.tenant === 'a' || l.tenant === 'b';
    expect(holdFiring([raised], [raised, weak, quiet], firing).map((t) => t.labels.tenant)).toEqual(['a', 'b']);
    // Not firing (pending, or no alert): it must clear the bar again.
    expect(holdFiring([raised], [raised, weak, quiet], () => false).map((t) => t.labels.tenant)).toEqual(['a']);
    expect(holdFiring([raised], [raised, weak, quiet]).map((t) => t.labels.tenant)).toEqual(['a']);
  });
});
