import { describe, expect, it } from 'vitest';
import type { NotificationBatch, Notifier } from '../notify/index.ts';
import type { QueryRow, QuerySpec } from '../schema/index.ts';
import { createAlerting } from './alerting.ts';
import { createManualClock } from './clock.ts';
import { fakeReads, rulesFrom } from './alerting.test-support.ts';

const T0 = Date.parse('2025-01-01T00:00:00Z');
// Evaluated every 10 s; no `for`, so an alert fires at its first evaluation.
const RULES = `
groups:
  - name: g
    interval: 10s
    rules:
      - alert: SlowReplica
        condition: { kind: threshold, measure: p99(total_ms), window: 5m, by: [model, replica], op: '>', value: 500 }
        severity: warning
        labels: { signal: latency }
        action: { type: switch_route, params: { replica: '{{ $labels.replica }}' } }
      - alert: ReplicaNoData
        condition: { kind: no_data, window: 2m, by: [model, replica] }
        severity: critical
        labels: { signal: availability }
      - alert: QualityNote
        condition: { kind: threshold, measure: empty_rate, window: 5m, by: [model], op: '>', value: 0.1 }
        severity: info
`;

function capture(): Notifier & { batches: NotificationBatch[] } {
  const batches: NotificationBatch[] = [];
  return {
    name: 'capture',
    accepts: 'incident',
    batches,
    send: (b) => void batches.push(b),
    start() {},
    stop: async () => {},
    stats: () => ({ name: 'capture', sentTotal: 0, retriesTotal: 0, failedTotal: 0, droppedTotal: 0, queued: 0 }),
  };
}

interface World {
  slow: { model: string; replica: string }[];
  /** Replicas with data in the reference window but none now. */
  missing: { model: string; replica: string }[];
  empty: number;
}

function setup(extra: Partial<Parameters<typeof createAlerting>[0]> = {}) {
  const clock = createManualClock(T0);
  const world: World = { slow: [], missing: [], empty: 0 };
  const answer = (s: QuerySpec): QueryRow[] => {
    const names = s.measures.map((m) => m.name);
    if (names.includes('p99(total_ms)')) return world.slow.map((x) => ({ ...x, 'p99(total_ms)': 900, n: 100 }));
    if (names.includes('empty_rate')) return [{ model: 'm1', empty_rate: world.empty, n: 100 }];
    // no_data: the reference window ends before the current one starts.
    const current = s.toMs === clock.now();
    return current ? [] : world.missing.map((x) => ({ ...x, n: 50 }));
  };
  const notifier = capture();
  const alerting = createAlerting({
    groups: rulesFrom(RULES),
    reads: fakeReads(answer),
    clock,
    notifiers: [notifier],
    groupWaitMs: 30_000,
    groupIntervalMs: 300_000,
    repeatIntervalMs: 3_600_000,
    ...extra,
  });
  const run = async (ms: number) => {
    for (let t = 0; t < ms; t += 10_000) {
      clock.advance(10_000);
      await alerting.settled();
    }
  };
  alerting.start();
  return { clock, world, alerting, notifier, run };
}

describe('incidents, notifications and timing', () => {
  it('groups alerts of one model into one incident, waits group_wait, then notifies once', async () => {
    const { world, alerting, notifier, run } = setup();
    world.slow = [
      { model: 'm1', replica: 'r1' },
      { model: 'm1', replica: 'r2' },
      { model: 'm2', replica: 'r9' },
    ];
    await run(20_000);
    expect(notifier.batches).toEqual([]); // within group_wait (30 s from the first alert at 10 s)
    await run(30_000);
    const incidents = notifier.batches.filter((b) => b.kind === 'incident');
    expect(incidents).toHaveLength(2);
    const m1 = incidents.find((b) => b.kind === 'incident' && b.groupLabels.model === 'm1');
    expect(m1).toMatchObject({ tier: 'ticket', status: 'firing', reason: 'new', groupLabels: { model: 'm1', pool: '' } });
    expect(m1!.alerts.map((a) => a.labels.replica).sort()).toEqual(['r1', 'r2']);
    expect(alerting.incidents()).toHaveLength(2);
    await alerting.stop(100);
  });

  it('group_interval: a new alert in an open incident goes out at the next flush; repeat_interval re-sends', async () => {
    const { world, alerting, notifier, run } = setup();
    world.slow = [{ model: 'm1', replica: 'r1' }];
    await run(40_000); // first notification at 40 s
    expect(notifier.batches).toHaveLength(1);
    world.slow.push({ model: 'm1', replica: 'r2' });
    await run(60_000);
    expect(notifier.batches).toHaveLength(1); // waits for the group interval (5 min after the last flush)
    await run(240_000);
    expect(notifier.batches).toHaveLength(2);
    expect(notifier.batches[1]).toMatchObject({ reason: 'changed' });
    // Nothing changes: the next flushes stay silent until an hour has passed since the last one.
    await run(3_300_000);
    expect(notifier.batches).toHaveLength(2);
    await run(300_000);
    expect(notifier.batches).toHaveLength(3);
    expect(notifier.batches[2]).toMatchObject({ reason: 'repeat' });
    await alerting.stop(100);
  });

  it('resolution is notified once and closes the incident', async () => {
    const { world, alerting, notifier, run } = setup();
    world.slow = [{ model: 'm1', replica: 'r1' }];
    await run(40_000);
    world.slow = [];
    await run(300_000);
    expect(notifier.batches.map((b) => (b.kind === 'incident' ? b.status : ''))).toEqual(['firing', 'resolved']);
    expect(alerting.incidents()[0]).toMatchObject({ status: 'resolved' });
    await run(600_000);
    expect(notifier.batches).toHaveLength(2);
    await alerting.stop(100);
  });

  it('critical alerts page; info alerts are never notified', async () => {
    const { world, alerting, notifier, run } = setup();
    world.missing = [{ model: 'm1', replica: 'r3' }];
    world.empty = 0.5;
    await run(40_000);
    expect(
      alerting
        .alerts()
        .map((a) => a.alertname)
        .sort(),
    ).toEqual(['QualityNote', 'ReplicaNoData']);
    expect(notifier.batches).toHaveLength(1);
    expect(notifier.batches[0]).toMatchObject({ tier: 'page' });
    expect(notifier.batches[0]!.alerts.map((a) => a.labels.alertname)).toEqual(['ReplicaNoData']);
    await alerting.stop(100);
  });

  it('inhibition: a replica with no data mutes its own latency alert, not other replicas', async () => {
    const { world, alerting, notifier, run } = setup();
    world.slow = [
      { model: 'm1', replica: 'r1' },
      { model: 'm1', replica: 'r2' },
    ];
    world.missing = [{ model: 'm1', replica: 'r1' }];
    await run(40_000);
    const views = alerting.alerts();
    const r1 = views.find((a) => a.alertname === 'SlowReplica' && a.labels.replica === 'r1');
    expect(r1!.inhibitedBy).not.toBeNull();
    expect(views.find((a) => a.alertname === 'SlowReplica' && a.labels.replica === 'r2')!.inhibitedBy).toBeNull();
    const sent = notifier.batches.flatMap((b) => b.alerts.map((a) => `${a.labels.alertname}/${a.labels.replica}`)).sort();
    expect(sent).toEqual(['ReplicaNoData/r1', 'SlowReplica/r2']);
    // The inhibited alert proposes no action; the other does.
    expect(alerting.actions.list().map((a) => a.params.replica)).toEqual(['r2']);
    await alerting.stop(100);
  });

  it('silences: matching alerts are not notified while active; expiring re-enables them', async () => {
    const { world, alerting, notifier, run, clock } = setup();
    const s = alerting.silences.create({ matchers: ['replica=~"r1|r7"', 'model="m1"'], duration_s: 600, createdBy: 'ops', comment: 'maintenance' });
    expect(s.startsAt).toBe(new Date(clock.now()).toISOString());
    world.slow = [
      { model: 'm1', replica: 'r1' },
      { model: 'm1', replica: 'r2' },
    ];
    await run(40_000);
    expect(alerting.alerts().find((a) => a.labels.replica === 'r1')!.silencedBy).toEqual([s.id]);
    expect(notifier.batches.flatMap((b) => b.alerts.map((a) => a.labels.replica))).toEqual(['r2']);
    alerting.silences.expire(s.id);
    expect(alerting.silences.list()[0]!.state).toBe('expired');
    await run(300_000);
    expect(
      notifier.batches
        .at(-1)!
        .alerts.map((a) => a.labels.replica)
        .sort(),
    ).toEqual(['r1', 'r2']);
    await alerting.stop(100);
  });

  it('silence input is validated', () => {
    const { alerting } = setup();
    expect(() => alerting.silences.create({ matchers: ['replica=~"("'], duration_s: 60, createdBy: 'x' })).toThrow(/bad regex/);
    expect(() => alerting.silences.create({ matchers: ['replica="r1"'], createdBy: 'x' })).toThrow(/endsAt or duration_s/);
    expect(() => alerting.silences.create({ matchers: [], duration_s: 60, createdBy: 'x' })).toThrow(/matchers/);
    expect(() => alerting.silences.expire('nope')).toThrow(/no silence/);
  });
});
