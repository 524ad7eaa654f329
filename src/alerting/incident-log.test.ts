import { describe, expect, it } from 'vitest';
import type { IncidentLogEntry, IncidentLogSpec } from '../query/index.ts';
import { createManualClock } from './clock.ts';
import { createIncidentLog, incidentsFrom } from './incident-log.ts';

const T0 = Date.parse('2026-11-30T10:00:00Z');
const entry = (id: string, incident: string, kind: string, ts: number, extra: Partial<IncidentLogEntry> = {}): IncidentLogEntry => ({
  ts,
  id,
  incident_id: incident,
  kind,
  alertname: null,
  fingerprint: null,
  severity: null,
  tenant: null,
  labels: {},
  detail: {},
  ...extra,
});

describe('incidentsFrom', () => {
  it('says resolved, open (in this process) or unfinished (the process stopped first), newest first', () => {
    const list = incidentsFrom(
      [
        entry('1', 'a', 'opened', T0, { labels: { model: 'm' } }),
        entry('2', 'a', 'alert_firing', T0, { alertname: 'X', fingerprint: 'f', severity: 'warning', detail: { value: 3 } }),
        entry('3', 'a', 'resolved', T0 + 60_000),
        entry('4', 'b', 'opened', T0 + 120_000),
        entry('5', 'c', 'opened', T0 + 180_000),
        entry('6', 'c', 'alert_firing', T0 + 180_000, { alertname: 'Y', fingerprint: 'g', severity: 'critical' }),
      ],
      (id) => id === 'c',
    );
    expect(list.map((i) => [i.id, i.status, i.tier])).toEqual([
      ['c', 'open', 'page'],
      ['b', 'unfinished', 'ticket'],
      ['a', 'resolved', 'ticket'],
    ]);
    expect(list[2]!.alerts).toEqual([
      { alertname: 'X', fingerprint: 'f', severity: 'warning', labels: {}, firstFiringAt: new Date(T0).toISOString(), resolvedAt: null, value: 3 },
    ]);
  });
});

describe('createIncidentLog', () => {
  it('keeps entries queued through a failed write and writes each once when the store is back', async () => {
    const clock = createManualClock(T0);
    const stored: IncidentLogEntry[] = [];
    let failing = true;
    const store = {
      appendIncidentLog: async (entries: readonly IncidentLogEntry[]) => {
        if (failing) throw new Error('disk full');
        stored.push(...entries);
      },
      listIncidentLog: async (spec: IncidentLogSpec) =>
        stored.filter((e) => (spec.incidentIds ? spec.incidentIds.includes(e.incident_id ?? '') : e.ts >= spec.fromMs && e.ts < spec.toMs)),
    };
    const log = createIncidentLog({ store, clock, maxQueue: 3 });
    for (const kind of ['opened', 'alert_firing', 'notified', 'resolved']) log.record({ incident_id: 'a', kind, detail: {} });
    await log.flush();
    // Four recorded, three kept (the oldest dropped), none written.
    expect(log.stats()).toMatchObject({ writtenTotal: 0, droppedTotal: 1, queued: 3 });
    expect(log.stats().failedWritesTotal).toBeGreaterThan(0);
    failing = false;
    await log.flush();
    clock.advance(60_000);
    log.record({ incident_id: 'b', kind: 'opened', detail: {} });
    await log.flush();
    expect(stored.map((e) => [e.incident_id, e.kind])).toEqual([
      ['a', 'alert_firing'],
      ['a', 'notified'],
      ['a', 'resolved'],
      ['b', 'opened'],
    ]);
    expect(log.stats()).toMatchObject({ writtenTotal: 4, queued: 0 });
    // Ids sort in the order entries were recorded.
    expect(stored.map((e) => e.id)).toEqual([...stored.map((e) => e.id)].sort());
    const h = await log.history(T0, T0 + 120_000, () => false);
    expect(h.incidents.map((i) => [i.id, i.status])).toEqual([
      ['b', 'unfinished'],
      ['a', 'resolved'],
    ]);
  });
});
