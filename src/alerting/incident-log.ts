/**
 * The incident log: every step of an incident (opened, each alert firing / resolving / leaving,
 * each notification, a person's acknowledgement, resolved), of its actions (proposed, approved, rejected, sent, answered,
 * failed) and of silences (created, expired), written to the store so incidents survive restarts,
 * and read back as incidents with their timeline (`GET /v1/incidents?from&to`).
 *
 * Writing never blocks evaluation: `record` queues the entry and one write runs at a time. A
 * failed write keeps its entries queued for the next one (the store is idempotent on entry id, so
 * a write that failed after storing them stores nothing twice); past `maxQueue` the oldest are
 * dropped and counted.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { IncidentLogEntry, IncidentLogSpec } from '../query/index.ts';
import type { AlertmanagerSilenceLogged } from '../schema/index.ts';
import type { Clock } from './clock.ts';
import type { Labels } from './labels.ts';

/** What the log needs from the store. */
export interface IncidentLogStore {
  appendIncidentLog(entries: readonly IncidentLogEntry[]): Promise<void>;
  listIncidentLog(spec: IncidentLogSpec): Promise<IncidentLogEntry[]>;
}

/** An entry as the alerting component records it (time and id are the log's). */
export type IncidentLogInput = Omit<IncidentLogEntry, 'ts' | 'id' | 'alertname' | 'fingerprint' | 'severity' | 'tenant' | 'labels'> & {
  alertname?: string | null;
  fingerprint?: string | null;
  severity?: string | null;
  tenant?: string | null;
  labels?: Labels;
};

/** An incident read back from the log, with its timeline. */
export interface IncidentHistory {
  id: string;
  groupLabels: Labels;
  /** resolved; open (still open in this process); unfinished (the process stopped before it resolved). */
  status: 'open' | 'resolved' | 'unfinished';
  /** page when a critical alert fired in it, else ticket. */
  tier: 'page' | 'ticket';
  openedAt: string | null;
  resolvedAt: string | null;
  notifications: number;
  alerts: {
    alertname: string;
    fingerprint: string;
    severity: string | null;
    labels: Labels;
    firstFiringAt: string | null;
    resolvedAt: string | null;
    value: number | null;
  }[];
  actions: { id: string; action: string; state: string; alertname: string | null; proposedAt: string; lastStepAt: string; by: string | null }[];
  timeline: { ts: string; kind: string; alertname: string | null; tenant: string | null; detail: Record<string, unknown> }[];
  /** When a person first acknowledged it (`POST /v1/incidents/:id/ack`), and who; null until then. */
  acknowledged_at: string | null;
  acknowledged_by: string | null;
}

export interface IncidentHistoryReply {
  incidents: IncidentHistory[];
  /** Silences created or expired in the window. */
  silences: AlertmanagerSilenceLogged[];
}

export interface IncidentLog {
  record(e: IncidentLogInput): void;
  /** Resolves when every queued entry was written (or the write failed). */
  flush(): Promise<void>;
  /** Incidents with any step in [fromMs, toMs), each with its whole timeline; newest first. `isOpen` says which are open in this process. */
  history(fromMs: number, toMs: number, isOpen: (id: string) => boolean): Promise<IncidentHistoryReply>;
  /** One incident with its whole timeline (any time up to now), or null when the log has none by that id. */
  incident(id: string, isOpen: (id: string) => boolean): Promise<IncidentHistory | null>;
  stats(): { writtenTotal: number; failedWritesTotal: number; droppedTotal: number; queued: number };
}

/** Most incidents one history read returns (newest first). */
export const MAX_HISTORY_INCIDENTS = 500;
const MAX_ENTRIES = 50_000;

const iso = (ms: number) => new Date(ms).toISOString();

export function createIncidentLog(o: { store?: IncidentLogStore; clock: Clock; logger?: Logger; maxQueue?: number }): IncidentLog {
  const maxQueue = o.maxQueue ?? 10_000;
  // Ids unique across restarts and across an HA pair: a random prefix per process, then a sequence.
  const prefix = randomUUID().slice(0, 8);
  let seq = 0;
  let queue: IncidentLogEntry[] = [];
  let writing: Promise<void> | null = null;
  let writtenTotal = 0;
  let failedWritesTotal = 0;
  let droppedTotal = 0;

  async function drain(): Promise<void> {
    const store = o.store;
    while (store && queue.length > 0) {
      const batch = queue.slice(0, 1000);
      try {
        await store.appendIncidentLog(batch);
      } catch (e) {
        if (failedWritesTotal++ === 0)
          o.logger?.warn({ err: (e as Error).message }, 'cannot write the incident log; entries stay queued and further failures are only counted');
        return;
      }
      // Entries recorded meanwhile were appended after the batch.
      queue = queue.slice(batch.length);
      writtenTotal += batch.length;
    }
  }

  const write = (): Promise<void> => {
    if (!writing) {
      writing = drain().finally(() => {
        writing = null;
      });
    }
    return writing;
  };

  return {
    record(e) {
      if (!o.store) return;
      const ts = o.clock.now();
      queue.push({
        ts,
        id: `${prefix}-${ts.toString(36)}-${(++seq).toString(36).padStart(8, '0')}`,
        incident_id: e.incident_id,
        kind: e.kind,
        alertname: e.alertname ?? null,
        fingerprint: e.fingerprint ?? null,
        severity: e.severity ?? null,
        tenant: e.tenant ?? e.labels?.['tenant'] ?? null,
        labels: e.labels ?? {},
        detail: e.detail,
      });
      if (queue.length > maxQueue) {
        droppedTotal += queue.length - maxQueue;
        queue = queue.slice(queue.length - maxQueue);
      }
      void write();
    },
    async flush() {
      // A write that is running may have taken only part of the queue: run until it is empty or a write fails.
      for (let last = -1; queue.length > 0 && queue.length !== last;) {
        last = queue.length;
        await write();
      }
      await writing;
    },
    async history(fromMs, toMs, isOpen) {
      if (!o.store) return { incidents: [], silences: [] };
      await this.flush();
      const inWindow = await o.store.listIncidentLog({ fromMs, toMs, limit: MAX_ENTRIES });
      const ids = [...new Set(inWindow.map((e) => e.incident_id).filter((x): x is string => x !== null))].slice(-MAX_HISTORY_INCIDENTS);
      const entries = ids.length ? await o.store.listIncidentLog({ fromMs, toMs, incidentIds: ids, limit: MAX_ENTRIES }) : [];
      return { incidents: incidentsFrom(entries, isOpen), silences: silencesFrom(inWindow) };
    },
    async incident(id, isOpen) {
      if (!o.store) return null;
      await this.flush();
      const entries = await o.store.listIncidentLog({ fromMs: 0, toMs: o.clock.now() + 1, incidentIds: [id], limit: MAX_ENTRIES });
      return incidentsFrom(entries, isOpen)[0] ?? null;
    },
    stats: () => ({ writtenTotal, failedWritesTotal, droppedTotal, queued: queue.length }),
  };
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const str = (v: unknown) => (typeof v === 'string' ? v : null);

/** Groups log entries (oldest first) into incidents with their timelines, newest incident first. */
export function incidentsFrom(entries: readonly IncidentLogEntry[], isOpen: (id: string) => boolean): IncidentHistory[] {
  const byId = new Map<string, IncidentLogEntry[]>();
  for (const e of entries) {
    if (e.incident_id === null) continue;
    const list = byId.get(e.incident_id);
    if (list) list.push(e);
    else byId.set(e.incident_id, [e]);
  }
  const out: IncidentHistory[] = [];
  for (const [id, list] of byId) {
    const opened = list.find((e) => e.kind === 'opened');
    const resolved = list.find((e) => e.kind === 'resolved');
    const alerts = new Map<string, IncidentHistory['alerts'][number]>();
    const actions = new Map<string, IncidentHistory['actions'][number]>();
    for (const e of list) {
      if (e.fingerprint && e.kind.startsWith('alert_')) {
        const a = alerts.get(e.fingerprint) ?? {
          alertname: e.alertname ?? '',
          fingerprint: e.fingerprint,
          severity: e.severity,
          labels: e.labels,
          firstFiringAt: null,
          resolvedAt: null,
          value: null,
        };
        if (e.kind === 'alert_firing') {
          a.firstFiringAt ??= iso(e.ts);
          a.resolvedAt = null;
        }
        if (e.kind === 'alert_resolved') a.resolvedAt = iso(e.ts);
        a.value = num(e.detail['value']) ?? a.value;
        alerts.set(e.fingerprint, a);
      }
      const actionId = str(e.detail['action_id']);
      if (actionId && e.kind.startsWith('action_')) {
        const a = actions.get(actionId) ?? {
          id: actionId,
          action: str(e.detail['action']) ?? '',
          state: '',
          alertname: e.alertname,
          proposedAt: iso(e.ts),
          lastStepAt: iso(e.ts),
          by: null,
        };
        a.state = str(e.detail['state']) ?? e.kind.slice('action_'.length);
        a.lastStepAt = iso(e.ts);
        a.by = str(e.detail['by']) ?? a.by;
        actions.set(actionId, a);
      }
    }
    const critical = list.some((e) => e.kind === 'alert_firing' && e.severity === 'critical');
    const ack = list.find((e) => e.kind === 'acknowledged');
    out.push({
      id,
      groupLabels: opened?.labels ?? {},
      status: resolved ? 'resolved' : isOpen(id) ? 'open' : 'unfinished',
      tier: critical ? 'page' : 'ticket',
      openedAt: opened ? iso(opened.ts) : null,
      resolvedAt: resolved ? iso(resolved.ts) : null,
      notifications: list.filter((e) => e.kind === 'notified').length,
      alerts: [...alerts.values()],
      actions: [...actions.values()],
      timeline: list.map((e) => ({ ts: iso(e.ts), kind: e.kind, alertname: e.alertname, tenant: e.tenant, detail: e.detail })),
      acknowledged_at: ack ? iso(ack.ts) : null,
      acknowledged_by: ack ? str(ack.detail['by']) : null,
    });
  }
  const start = (i: IncidentHistory) => Date.parse(i.openedAt ?? i.timeline[0]?.ts ?? '') || 0;
  return out.sort((a, b) => start(b) - start(a));
}

function silencesFrom(entries: readonly IncidentLogEntry[]): IncidentHistoryReply['silences'] {
  const byId = new Map<string, IncidentHistoryReply['silences'][number]>();
  for (const e of entries) {
    if (!e.kind.startsWith('silence_')) continue;
    const id = str(e.detail['silence_id']);
    if (!id) continue;
    const s = byId.get(id) ?? {
      id,
      createdAt: null,
      expiredAt: null,
      createdBy: null,
      comment: null,
      matchers: null,
      startsAt: null,
      endsAt: null,
      tenant: e.tenant,
    };
    if (e.kind === 'silence_created')
      Object.assign(s, {
        createdAt: iso(e.ts),
        createdBy: str(e.detail['createdBy']),
        comment: str(e.detail['comment']),
        matchers: e.detail['matchers'] ?? null,
        startsAt: str(e.detail['startsAt']),
        endsAt: str(e.detail['endsAt']),
      });
    if (e.kind === 'silence_expired') s.expiredAt = iso(e.ts);
    byId.set(id, s);
  }
  return [...byId.values()];
}
