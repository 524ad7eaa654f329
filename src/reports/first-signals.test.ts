// When a signal moved: the modified z-score of a level and the proportion test of a rate, on
// hand-computed minutes.
import { describe, expect, it } from 'vitest';
import { firstLevelMove, firstRateMove, modifiedZ } from './first-signals.ts';
import { leadsOf, suggestedRule } from './missing-signal.ts';
import { groupsFromText } from '../alerting/index.ts';

const minutes = (values: number[], n = 10, from = 0) => values.map((value, i) => ({ ms: from + i * 60_000, value, n }));

describe('modifiedZ', () => {
  it('is 0.6745 · (x − median) / MAD: baseline 10, 11, 12, 11, 10 → median 11, MAD 1', () => {
    const z = modifiedZ([10, 11, 12, 11, 10])!;
    expect(z(15)).toBeCloseTo(0.6745 * 4, 12); // 2.698: not beyond 3.5
    expect(z(17)).toBeCloseTo(0.6745 * 6, 12); // 4.047: beyond
  });
  it('falls back to 1.253314 · mean absolute deviation when the MAD is 0, and to null without spread', () => {
    // 5, 5, 5, 5, 9: median 5, MAD 0, mean |x − 5| = 0.8 → z(7) = 2 / (1.253314 · 0.8) = 1.9947.
    expect(modifiedZ([5, 5, 5, 5, 9])!(7)).toBeCloseTo(2 / (1.253314 * 0.8), 12);
    expect(modifiedZ([4, 4, 4])).toBeNull();
  });
});

describe('firstLevelMove', () => {
  const baseline = minutes([10, 11, 12, 11, 10, 10, 11, 12, 11, 10]);
  it('moves at the first of two consecutive minutes beyond 3.5 in its direction', () => {
    // 15 (z 2.7) is not a move; 17, 18 are (z 4.0, 4.7, +55 %): the move starts at the 17.
    const watched = minutes([11, 15, 11, 17, 18, 12], 10, 600_000);
    expect(firstLevelMove(baseline, watched, 'up')).toEqual({ judged: true, at: watched[3], baseline: 11 });
    // One outlier minute alone is not a move.
    expect(firstLevelMove(baseline, minutes([11, 30, 11, 12], 10, 600_000), 'up').at).toBeNull();
    // Down is not up.
    expect(firstLevelMove(baseline, minutes([2, 2, 2], 10, 600_000), 'up').at).toBeNull();
    expect(firstLevelMove(baseline, minutes([2, 2, 2], 10, 600_000), 'down').at?.value).toBe(2);
  });
  it('counts only a fresh move: one under way before the window starts counts once it settled and moved again', () => {
    const before = { ms: 540_000, value: 20, n: 10 };
    const watched = minutes([20, 20, 11, 19, 19], 10, 600_000);
    expect(firstLevelMove(baseline, watched, 'up', before).at).toBe(watched[3]);
    expect(firstLevelMove(baseline, watched, 'up').at).toBe(watched[0]);
  });
  it('needs a move of at least 10 % even when the baseline hardly varies', () => {
    // Baseline 100.0/100.1 alternating: median 100.05, MAD 0.05; 100.5 is z = 6.1 but +0.45 %: not a move; 115 is.
    const steady = minutes([100, 100.1, 100, 100.1, 100, 100.1, 100, 100.1, 100, 100.1]);
    expect(firstLevelMove(steady, minutes([100.5, 100.5, 100.5], 10, 600_000), 'up').at).toBeNull();
    expect(firstLevelMove(steady, minutes([115, 115], 10, 600_000), 'up').at?.value).toBe(115);
  });
  it('does not judge with fewer than 10 baseline minutes', () => {
    expect(firstLevelMove(baseline.slice(0, 9), minutes([50, 50]), 'up')).toMatchObject({ judged: false, at: null });
  });
});

describe('firstRateMove', () => {
  it('moves when two consecutive minutes are above the pooled baseline rate at p < 0.001', () => {
    // Baseline 0 of 300 (10 minutes of 30). 3 of 3: Fisher p = 1 / C(303, 3) ≈ 2.2e-7 — twice in a row.
    const baseline = minutes(Array(10).fill(0), 30);
    const watched = [
      { ms: 600_000, value: 1 / 3, n: 3 }, // 1 of 3: p = 3 / 303 ≈ 0.0099, not a move
      { ms: 660_000, value: 1, n: 3 },
      { ms: 720_000, value: 1, n: 3 },
    ];
    expect(firstRateMove(baseline, watched, 'up')).toEqual({ judged: true, at: watched[1], baseline: 0 });
    expect(firstRateMove(baseline, watched.slice(0, 2), 'up').at).toBeNull();
  });
});

describe('suggestedRule', () => {
  it("aims the catalogue's detector for the signal at the slice, a rule file the backtest takes", () => {
    const r = suggestedRule({ signal: 'p95(exec_ms)', family: 'latency' }, { model: 'spam-filter', replica: 'replica-1', gpu: '2' })!;
    expect(r.alert).toBe('SuggestedExecShift');
    const [g] = groupsFromText([{ file: 's.yaml', text: r.yaml }]);
    expect(g!.rules[0]!.condition).toMatchObject({ kind: 'latency_shift', field: 'exec_ms', quantile: 0.95, by: ['model', 'replica'] });
    expect(g!.rules[0]!.forMs).toBe(0);
    const e = suggestedRule({ signal: 'error_rate', family: 'errors' }, { model: 'm', tenant: 't' })!;
    expect(groupsFromText([{ file: 's.yaml', text: e.yaml }])[0]!.rules[0]!.condition).toMatchObject({
      kind: 'rate_shift',
      signal: 'errors',
      by: ['model', 'tenant'],
    });
    const g2 = suggestedRule({ signal: 'gpu_memory_used_bytes', family: 'resources' }, { node: 'n', gpu: '2' })!;
    expect(groupsFromText([{ file: 's.yaml', text: g2.yaml }])[0]!.rules[0]!.condition).toMatchObject({ kind: 'resource', agg: 'trend', by: ['node', 'gpu'] });
    // A GPU signal on a slice that names no node or GPU has no rule to suggest.
    expect(suggestedRule({ signal: 'gpu_memory_used_bytes', family: 'resources' }, { model: 'm' })).toBeNull();
  });
});

describe('leadsOf', () => {
  it('reviews each place an incident reached by its first alert; a second rule within 5 minutes on a place containing or contained in it is the same problem', () => {
    const alert = (alertname: string, labels: Record<string, string>, at: string) => ({
      alertname,
      fingerprint: alertname,
      severity: 'warning',
      labels: { alertname, ...labels },
      firstFiringAt: `2026-11-29T${at}:00.000Z`,
      resolvedAt: null,
      value: 1,
    });
    const inc = {
      id: 'inc-1',
      groupLabels: { model: 'm' },
      status: 'resolved' as const,
      tier: 'ticket' as const,
      openedAt: '2026-11-29T14:06:00.000Z',
      resolvedAt: null,
      notifications: 1,
      actions: [],
      timeline: [],
      acknowledged_at: null,
      acknowledged_by: null,
      alerts: [
        alert('CanaryErrorsUp', { model: 'm', model_version: 'v2', tenant: 'w' }, '14:10'),
        alert('ReplicaSlow', { model: 'm', model_version: 'v1', replica: 'r1' }, '14:06'),
        // 2 minutes after ReplicaSlow, on m v1 (consistent with m v1 r1): the same problem.
        alert('LatencyTailUp', { model: 'm', model_version: 'v1' }, '14:08'),
        // 6 minutes after CanaryErrorsUp on a place containing its: a new problem.
        alert('ConfidenceDrop', { model: 'm', model_version: 'v2' }, '14:16'),
        // 2 minutes after ConfidenceDrop, on m v2's canary route: contained in m v2, the same problem.
        alert('CanaryLatencyUp', { model: 'm', model_version: 'v2', route_rule: 'canary' }, '14:18'),
        // 2 minutes after ReplicaSlow, on m v1 × tenant t: consistent with m v1 r1, but neither contains the other: a new one.
        alert('TenantErrors', { model: 'm', model_version: 'v1', tenant: 't' }, '14:08'),
        // The same rule on another tenant a minute later: the rule fanning out, the same problem.
        alert('TenantErrors', { model: 'm', model_version: 'v1', tenant: 'u' }, '14:09'),
        { ...alert('Pending', { model: 'm' }, '14:20'), firstFiringAt: null },
      ],
    };
    expect(leadsOf(inc).map((l) => [l.alert.alertname, l.slice])).toEqual([
      ['ReplicaSlow', { model: 'm', model_version: 'v1', replica: 'r1' }],
      ['TenantErrors', { model: 'm', model_version: 'v1', tenant: 't' }],
      ['CanaryErrorsUp', { model: 'm', model_version: 'v2', tenant: 'w' }],
      ['ConfidenceDrop', { model: 'm', model_version: 'v2' }],
    ]);
  });
});
