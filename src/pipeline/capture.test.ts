import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../analysis/index.ts';
import type { EventInput } from '../schema/index.ts';
import { CapturePolicySchema, createCapturePolicy, withoutPayload } from './capture.ts';
import type { CapturePolicyInput } from './capture.ts';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const HOUR = 3_600_000;

function policy(config: CapturePolicyInput, o: { rng?: () => number; clock?: { t: number }; lowConfidence?: number } = {}) {
  const registry = new Registry();
  const clock = o.clock ?? { t: T0 };
  const p = createCapturePolicy({
    config,
    registry,
    rng: o.rng ?? (() => 0.999),
    now: () => clock.t,
    ...(o.lowConfidence !== undefined ? { lowConfidence: o.lowConfidence } : {}),
  });
  const metric = async (name: string) =>
    Object.fromEntries((await registry.getSingleMetric(name)!.get()).values.map((v) => [String(v.labels.reason ?? v.labels.kind), v.value]));
  return { p, registry, clock, metric };
}

const ev = (o: Partial<EventInput> = {}): EventInput => ({
  ts: T0,
  model: 'm',
  model_version: 'v1',
  tenant: 'big',
  status: 'ok',
  confidence: 0.9,
  input: 'x'.repeat(100),
  output: 'ok',
  ...o,
});

describe('capture policy', () => {
  it('keeps what it promises under a scripted stream, with the reasons why', () => {
    const { p } = policy(
      { firstPerVersion: 3, edgeInputs: { minSeen: 50 }, longTail: { share: 0.05, minRequests: 100 }, baselineRate: 0.01 },
      { lowConfidence: 0.5 },
    );
    const reasons = (e: EventInput) => p.sample(e)?.reasons ?? null;
    // Warm-up: 200 ordinary requests (input 90–110 characters) of one tenant. The first 3 of m/v1 are kept.
    const warm = Array.from({ length: 200 }, (_, i) => reasons(ev({ input: 'x'.repeat(90 + (i % 21)) })));
    expect(warm.slice(0, 4)).toEqual([['new_version'], ['new_version'], ['new_version'], null]);
    // By definition ~1 % of inputs lie above the running P99 and ~1 % below the P1: a few of the
    // rest are kept as edge inputs, nothing else is.
    const rest = warm.slice(3).filter((r) => r !== null);
    expect(rest.every((r) => r!.length === 1 && (r![0] === 'edge_input_long' || r![0] === 'edge_input_short'))).toBe(true);
    expect(rest.length).toBeLessThanOrEqual(10);

    expect(reasons(ev({ status: 'error', error_type: 'internal' }))).toEqual(['error']);
    expect(reasons(ev({ status: 'timeout' }))).toEqual(['error']);
    expect(reasons(ev({ confidence: 0.2 }))).toEqual(['low_confidence']);
    expect(reasons(ev({ refused: true }))).toEqual(['refused']);
    expect(reasons(ev({ empty: true, output: '' }))).toEqual(['empty']);
    expect(reasons(ev({ format_ok: false }))).toEqual(['malformed']);
    expect(reasons(ev({ risk_tags: ['self_harm'] }))).toEqual(['risk_tag']);
    expect(reasons(ev({ input: 'x'.repeat(5000) }))).toEqual(['edge_input_long']);
    expect(reasons(ev({ input: 'x' }))).toEqual(['edge_input_short']);
    // A new version: its first 3 requests are kept, the 4th is not.
    expect([1, 2, 3, 4].map(() => reasons(ev({ model_version: 'v2' })))).toEqual([['new_version'], ['new_version'], ['new_version'], null]);
    // A rare tenant: 1 of ~214 requests in the window, below 5 %.
    expect(reasons(ev({ tenant: 'tiny' }))).toEqual(['long_tail_tenant']);
    // Several rules at once, in priority order.
    expect(reasons(ev({ status: 'error', confidence: 0.1, risk_tags: ['pii'], tenant: 'tiny' }))).toEqual([
      'error',
      'low_confidence',
      'risk_tag',
      'long_tail_tenant',
    ]);
    // Outside every rule: not kept. No payload: nothing to keep, even for an error. Probes: never.
    expect(reasons(ev())).toBeNull();
    expect(reasons(ev({ status: 'error', input: null, output: null }))).toBeNull();
    expect(reasons(ev({ status: 'error', probe: true }))).toBeNull();
  });

  it('keeps only the configured risk tags when a list is set', () => {
    const { p } = policy({ firstPerVersion: 0, riskTags: ['pii', 'jailbreak'] });
    expect(p.sample(ev({ risk_tags: ['toxicity'] }))).toBeNull();
    expect(p.sample(ev({ risk_tags: ['toxicity', 'jailbreak'] }))?.reasons).toEqual(['risk_tag']);
  });

  it('redacts, cuts long text, maps dimensions and records weight 1 for rule hits', () => {
    const { p } = policy({ firstPerVersion: 0, maxTextChars: 64 });
    const s = p.sample(
      ev({
        request_id: 'r1',
        tenant: 't9',
        status: 'error',
        error_type: 'internal',
        input: 'mail jane@example.com please',
        output: 'y'.repeat(100),
        risk_tags: ['pii'],
      }),
      (d, v) => (d === 'tenant' ? '__other__' : v),
    );
    expect(s).toEqual({
      ts: T0,
      request_id: 'r1',
      model: 'm',
      model_version: 'v1',
      tenant: '__other__',
      entry: null,
      node: null,
      replica: null,
      route_rule: null,
      status: 'error',
      error_type: 'internal',
      label: null,
      confidence: 0.9,
      reasons: ['error', 'risk_tag'],
      risk_tags: ['pii'],
      sample_weight: 1,
      input: 'mail [EMAIL] please',
      output: `${'y'.repeat(64)}…[36 more characters]`,
    });
    const plain = policy({ firstPerVersion: 0, redact: false }).p.sample(ev({ status: 'error', input: 'jane@example.com' }));
    expect(plain?.input).toBe('jane@example.com');
  });

  it('never exceeds its quotas under a flood, counts the drops, and refills in the next window', async () => {
    const { p, clock, metric } = policy({ firstPerVersion: 0, quota: { perSlice: 50, maxPerWindow: 120 } });
    let kept = 0;
    for (let i = 0; i < 10_000; i++) if (p.sample(ev({ status: 'error' }))) kept++;
    expect(kept).toBe(50);
    expect(await metric('inferlens_capture_dropped_total')).toEqual({ error: 9950 });
    expect(await metric('inferlens_capture_kept_total')).toEqual({ error: 50 });
    // Many slices (20 models): the window cap of 120 holds across them.
    for (let i = 0; i < 10_000; i++) if (p.sample(ev({ model: `m${i % 20}`, status: 'error' }))) kept++;
    expect(kept).toBe(120);
    // An hour later the quotas are fresh.
    clock.t += HOUR;
    let next = 0;
    for (let i = 0; i < 1000; i++) if (p.sample(ev({ status: 'error' }))) next++;
    expect(next).toBe(50);
  });

  it('charges a sample with several reasons to any slice with room (a full error slice does not hide a new version)', () => {
    const { p } = policy({ firstPerVersion: 5, quota: { perSlice: 2 } });
    // v1: the first 5 requests are new_version, all errors: error slice fills after 2, new_version keeps the other 3.
    const kept = Array.from({ length: 8 }, () => p.sample(ev({ status: 'error' }))?.reasons ?? null);
    expect(kept).toEqual([['error', 'new_version'], ['error', 'new_version'], null, null, null, null, null, null]);
  });

  it('weights baseline samples by 1/p: Σ weights over 10 000 events ≈ 10 000', () => {
    // 10 000 payload events, 3 % errors (kept, weight 1), the rest only by a 1 % baseline (weight 100).
    // Baseline part: 9 700 Bernoulli(0.01) draws × 100: sd = 100·√(9 700·0.01·0.99) = 980.
    const errorEvent = ev({ status: 'error' });
    const okEvent = ev();
    const sumWeights = (seed: number) => {
      const rng = mulberry32(seed);
      const { p } = policy({ firstPerVersion: 0, baselineRate: 0.01, quota: { perSlice: 1_000_000, maxPerWindow: 1_000_000 } }, { rng });
      let sum = 0;
      let baseline = 0;
      for (let i = 0; i < 10_000; i++) {
        const s = p.sample(i % 100 < 3 ? errorEvent : okEvent);
        if (!s) continue;
        sum += s.sample_weight;
        if (s.reasons.length === 1 && s.reasons[0] === 'baseline') {
          baseline++;
          expect(s.sample_weight).toBe(100);
        } else expect(s.sample_weight).toBe(1);
      }
      return { sum, baseline };
    };
    const one = sumWeights(42);
    // Fixed seed: within 2 sd (± 1 960) of 10 000.
    expect(Math.abs(one.sum - 10_000)).toBeLessThan(1960);
    expect(one.baseline).toBeGreaterThan(60);
    // Unbiased: the mean over 40 seeds has sd 980/√40 = 155; within 3 sd (± 465).
    let total = 0;
    for (let seed = 1; seed <= 40; seed++) total += sumWeights(seed).sum;
    expect(Math.abs(total / 40 - 10_000)).toBeLessThan(465);
  });

  it("multiplies by the event's own sample_weight", () => {
    const { p } = policy({ firstPerVersion: 0, baselineRate: 0.5 }, { rng: () => 0.1 });
    expect(p.sample(ev({ sample_weight: 4 }))?.sample_weight).toBe(8);
    expect(p.sample(ev({ sample_weight: 4, status: 'error' }))?.sample_weight).toBe(4);
  });

  it('judges long-tail shares over the current and previous window only', () => {
    const { p, clock } = policy({ firstPerVersion: 0, longTail: { share: 0.1, minRequests: 10, windowMs: HOUR } });
    for (let i = 0; i < 100; i++) p.sample(ev({ tenant: 'big' }));
    expect(p.sample(ev({ tenant: 'small' }))?.reasons).toEqual(['long_tail_tenant']);
    // Two windows later the old traffic no longer counts: 'small' alone is 100 % of a fresh window.
    clock.t += 2 * HOUR;
    for (let i = 0; i < 20; i++) p.sample(ev({ tenant: 'small' }));
    expect(p.sample(ev({ tenant: 'small' }))).toBeNull();
  });

  it('is off when disabled; strips payloads from the stored event', () => {
    const { p } = policy({ enabled: false });
    expect(p.sample(ev({ status: 'error' }))).toBeNull();
    const e = ev({ risk_tags: ['pii'] });
    const stored = withoutPayload(e);
    expect(stored).not.toHaveProperty('input');
    expect(stored).not.toHaveProperty('output');
    expect(stored).not.toHaveProperty('risk_tags');
    expect(e.input).toBeDefined();
    const bare = { ts: T0, model: 'm', status: 'ok' as const };
    expect(withoutPayload(bare)).toBe(bare);
  });

  it('has safe defaults and rejects bad config with the path', () => {
    const d = CapturePolicySchema.parse({});
    expect(d).toMatchObject({
      enabled: true,
      redact: true,
      baselineRate: 0.01,
      firstPerVersion: 20,
      quota: { perSlice: 50, maxPerWindow: 1000, windowMs: HOUR },
    });
    const r = CapturePolicySchema.safeParse({ baselineRate: 2, quota: { perSlice: 0 } });
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['baselineRate', 'quota.perSlice']);
  });

  it('uses the one low-confidence cut-off, 0.6 unless set', () => {
    // 0.55 is low confidence for the quality table (below_rate(confidence, 0.6)); it is kept too.
    expect(policy({ firstPerVersion: 0 }).p.sample(ev({ confidence: 0.55 }))?.reasons).toEqual(['low_confidence']);
    expect(policy({ firstPerVersion: 0 }).p.sample(ev({ confidence: 0.65 }))).toBeNull();
    expect(policy({ firstPerVersion: 0 }, { lowConfidence: 0.9 }).p.sample(ev({ confidence: 0.85 }))?.reasons).toEqual(['low_confidence']);
  });
});
