import { describe, expect, it } from 'vitest';
import { createAlerting } from './alerting.ts';
import { createManualClock } from './clock.ts';
import { fakeReads, rulesFrom } from './alerting.test-support.ts';
import type { QueryRow } from '../schema/index.ts';

const T0 = Date.parse('2025-01-01T00:00:00Z');
const RULES = `
groups:
  - name: latency
    interval: 30s
    rules:
      - alert: SlowReplica
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [replica], op: '>', value: 500, min_count: 10 }
        for: 1m
        severity: warning
        labels: { team: ml }
        annotations: { summary: 'P99 on {{ $labels.replica }} is {{ $value }} ms' }
`;

function setup() {
  const clock = createManualClock(T0);
  let rows: QueryRow[] = [];
  const alerting = createAlerting({ groups: rulesFrom(RULES), reads: fakeReads(() => rows), clock });
  const step = async (ms: number) => {
    clock.advance(ms);
    await alerting.settled();
  };
  return { clock, alerting, step, set: (r: QueryRow[]) => (rows = r) };
}

const slow = (replica: string, p99 = 900, n = 100): QueryRow => ({ replica, 'p99(total_ms)': p99, n });

describe('evaluator state machine (manual clock)', () => {
  it('inactive → pending → firing after `for` → resolved', async () => {
    const { alerting, step, set } = setup();
    alerting.start();
    set([slow('r1')]);
    await step(30_000); // t = 30 s: first evaluation sees it
    let [a] = alerting.alerts();
    expect(a).toMatchObject({ state: 'pending', labels: { alertname: 'SlowReplica', severity: 'warning', team: 'ml', replica: 'r1' }, value: 900 });
    expect(a!.annotations.summary).toBe('P99 on r1 is 900 ms');
    await step(30_000); // 60 s: held 30 s < 1 m
    expect(alerting.alerts()[0]!.state).toBe('pending');
    await step(30_000); // 90 s: held 60 s = for
    a = alerting.alerts()[0];
    expect(a!.state).toBe('firing');
    expect(a!.since).toBe(new Date(T0 + 90_000).toISOString());
    expect(a!.activeAt).toBe(new Date(T0 + 30_000).toISOString());
    set([]);
    await step(30_000);
    expect(alerting.alerts()).toEqual([]);
    const resolved = alerting.alerts({ includeResolved: true });
    expect(resolved).toHaveLength(1);
    expect(resolved[0]!.state).toBe('resolved');
    // Dropped after the 15-minute retention (one interval at a time: evaluations are async).
    for (let i = 0; i < 30; i++) await step(30_000);
    expect(alerting.alerts({ includeResolved: true })).toEqual([]);
    await alerting.stop(100);
  });

  it('below min_count or threshold: no alert', async () => {
    const { alerting, step, set } = setup();
    alerting.start();
    set([slow('r1', 900, 5), slow('r2', 400)]);
    await step(30_000);
    expect(alerting.alerts()).toEqual([]);
    await alerting.stop(100);
  });

  it('flapping: a condition that never holds for `for` never fires, and each return restarts pending', async () => {
    const { alerting, step, set } = setup();
    alerting.start();
    for (let i = 0; i < 6; i++) {
      set(i % 2 === 0 ? [slow('r1')] : []);
      await step(30_000);
      const states = alerting.alerts().map((a) => a.state);
      expect(states).toEqual(i % 2 === 0 ? ['pending'] : []);
    }
    // A firing alert that flaps resolves and starts a new episode (new activeAt) when it returns.
    set([slow('r1')]);
    await step(30_000);
    await step(30_000);
    await step(30_000);
    expect(alerting.alerts()[0]!.state).toBe('firing');
    set([]);
    await step(30_000);
    set([slow('r1')]);
    await step(30_000);
    const [again] = alerting.alerts();
    expect(again!.state).toBe('pending');
    expect(again!.activeAt).toBe(new Date(T0 + 11 * 30_000).toISOString());
    await alerting.stop(100);
  });

  it('one alert per label set, evaluated on the group interval', async () => {
    const { alerting, step, set } = setup();
    alerting.start();
    set([slow('r1'), slow('r2', 700)]);
    await step(29_999);
    expect(alerting.alerts()).toEqual([]);
    await step(1);
    expect(
      alerting
        .alerts()
        .map((a) => a.labels.replica)
        .sort(),
    ).toEqual(['r1', 'r2']);
    expect(alerting.rules()[0]!.rules[0]).toMatchObject({ health: 'ok', alerts: { pending: 2, firing: 0 } });
    await alerting.stop(100);
  });

  it('a failing query marks the rule unhealthy and keeps its alerts', async () => {
    const clock = createManualClock(T0);
    let fail = false;
    const alerting = createAlerting({
      groups: rulesFrom(RULES),
      clock,
      reads: fakeReads(() => {
        if (fail) throw new Error('store unavailable');
        return [slow('r1')];
      }),
    });
    alerting.start();
    clock.advance(30_000);
    await alerting.settled();
    fail = true;
    clock.advance(30_000);
    await alerting.settled();
    expect(alerting.alerts()).toHaveLength(1);
    expect(alerting.rules()[0]!.rules[0]).toMatchObject({ health: 'err', lastError: 'store unavailable' });
    await alerting.stop(100);
  });

  it('stop is idempotent and clears the timers', async () => {
    const { alerting, clock } = setup();
    alerting.start();
    expect(clock.pending()).toBe(1);
    await Promise.all([alerting.stop(100), alerting.stop(100)]);
    expect(clock.pending()).toBe(0);
  });
});
