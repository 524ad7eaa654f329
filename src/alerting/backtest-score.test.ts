import { describe, expect, it } from 'vitest';
import type { Episode } from './backtest.ts';
import { consistent, parseTruth, scoreBacktest } from './backtest-score.ts';

const T = Date.parse('2026-06-01T10:00:00Z');
const at = (min: number) => new Date(T + min * 60_000).toISOString();
const ep = (alertname: string, labels: Record<string, string>, pending: number, extra: Partial<Episode> = {}): Episode => ({
  alertname,
  group: 'g',
  severity: 'warning',
  labels,
  pending_at: at(pending),
  firing_at: null,
  resolved_at: null,
  peak_value: 1,
  details: {},
  interval_ms: 60_000,
  ...extra,
});

describe('consistent', () => {
  it('needs one shared label and no disagreement', () => {
    expect(consistent({ model: 'm', model_version: 'v2' }, { model: 'm', replica: 'r3' })).toBe(true);
    expect(consistent({ model: 'other' }, { model: 'm', replica: 'r3' })).toBe(false);
    expect(consistent({ node: 'n2', gpu: '1' }, { model: 'm' })).toBe(false);
    expect(consistent({ model: 'm', replica: 'r1' }, { model: 'm', replica: 'r3' })).toBe(false);
  });
});

describe('scoreBacktest', () => {
  const truth = parseTruth([
    { id: 'a', kind: 'slow_replica', slice: { model: 'm', replica: 'r3' }, start: at(10), end: at(30) },
    { id: 'b', kind: 'tenant_errors', slice: { model: 'm', tenant: 't7' }, start: at(60), end: at(80) },
    { id: 'c', kind: 'tenant_errors', slice: { model: 'x', tenant: 't1' }, start: at(100), end: at(110) },
  ]);
  const episodes = [
    // a: first a model-wide alert at 11.5 min (consistent, not top-1), then the replica at 12.
    ep('LatencyUp', { model: 'm', model_version: 'v1' }, 11.5, { firing_at: at(13) }),
    ep('ReplicaSlow', { model: 'm', model_version: 'v1', replica: 'r3' }, 12),
    // b: the tenant at 61, within 1 interval.
    ep('ErrorsUp', { model: 'm', model_version: 'v2', tenant: 't7' }, 61),
    // raised 5 min after b ended: inside the 10-minute grace, still b's.
    ep('ErrorsUp', { model: 'm', model_version: 'v1', tenant: 't7' }, 85),
    // false: another model, and one before any incident.
    ep('ErrorsUp', { model: 'z' }, 65),
    ep('GpuMemory', { node: 'n1', gpu: '0' }, 2),
  ];
  const s = scoreBacktest(episodes, truth, { fromMs: T, toMs: T + 180 * 60_000 });

  it('counts detections, top-1 and delays per incident', () => {
    expect(s.incidents).toBe(3);
    expect(s.detected).toBe(2);
    expect(s.recall).toBeCloseTo(2 / 3, 12);
    expect(s.per_incident.map((i) => [i.id, i.detected, i.top1, i.delay_intervals])).toEqual([
      ['a', true, false, 1.5],
      ['b', true, true, 1],
      ['c', false, false, null],
    ]);
    expect(s.per_incident[0]!.firing_delay_s).toBe(180);
    expect(s.top1).toBe(0.5);
    // delays 1 and 1.5 → median 1.25; p90 = 1 + 0.9·0.5 = 1.45
    expect(s.median_delay_intervals).toBeCloseTo(1.25, 12);
    expect(s.p90_delay_intervals).toBeCloseTo(1.45, 12);
  });

  it('counts false episodes per clean hour outside the incident windows', () => {
    expect(s.true_episodes).toBe(4);
    expect(s.false_episodes).toBe(2);
    expect(s.precision).toBeCloseTo(4 / 6, 12);
    // windows with 10 min grace: 10–40, 60–90, 100–120 → 80 min covered of 180 → 100 min = 5/3 h clean
    expect(s.clean_hours).toBeCloseTo(100 / 60, 12);
    expect(s.false_per_clean_hour).toBeCloseTo(2 / (100 / 60), 12);
    expect(s.per_kind.tenant_errors).toEqual({ incidents: 2, detected: 1, recall: 0.5, top1: 1, median_delay_intervals: 1 });
  });

  it('a clean run: every episode is false, per hour of the range', () => {
    const clean = scoreBacktest([ep('ErrorsUp', { model: 'z' }, 65)], [], { fromMs: T, toMs: T + 180 * 60_000 });
    expect(clean.recall).toBeNull();
    expect(clean.false_episodes).toBe(1);
    expect(clean.false_per_clean_hour).toBeCloseTo(1 / 3, 12);
  });
});

describe('parseTruth', () => {
  it('lists every problem with its path', () => {
    expect(() =>
      parseTruth([
        { id: 'x', slice: {}, start: 'yesterday', end: at(1) },
        { id: 'y', slice: { model: 'm' }, start: at(5), end: at(1), extra: 1 },
      ]),
    ).toThrow(/truth\.0\.slice: name at least one label; truth\.0\.start: expected an RFC 3339 timestamp; truth\.1: .*extra/);
    expect(() => parseTruth([{ id: 'y', slice: { model: 'm' }, start: at(5), end: at(1) }])).toThrow(/truth\.0\.end: end must be after start/);
    expect(() =>
      parseTruth([
        { id: 'y', slice: { model: 'm' }, start: at(0), end: at(1) },
        { id: 'y', slice: { model: 'm' }, start: at(0), end: at(1) },
      ]),
    ).toThrow(/truth\.1\.id: "y" appears twice/);
    expect(() => parseTruth({ not: 'a list' })).toThrow(/expected array/);
    expect(() => parseTruth([{ id: 'y', slice: { model: 'm' }, start: at(0), end: at(1), detail: { nested: { no: 1 } } }])).toThrow(/truth\.0\.detail\.nested/);
  });

  it("takes an incident's detail along (the fleet simulator's truth.json is a truth file)", () => {
    const [i] = parseTruth([
      { id: 'z', kind: 'error_slice', slice: { model: 'm', tenant: 't' }, start: at(0), end: at(1), detail: { error_rate: 0.3, error_type: 'internal' } },
    ]);
    expect(i!.detail).toEqual({ error_rate: 0.3, error_type: 'internal' });
  });
});
