/**
 * Incidents: notifiable alerts grouped by `groupBy` labels (model / pool by default), notified with
 * Alertmanager's timing. A new incident waits `groupWaitMs` (30 s) so alerts that start together
 * go out together; after that it is flushed every `groupIntervalMs` (5 min): a notification goes
 * out when its alert set or states changed, or when `repeatIntervalMs` (4 h) passed since the last
 * one while something still fires. Resolved alerts are notified once, then the incident closes when
 * nothing fires. Critical alerts make the incident page; warning-only incidents open tickets.
 */
import type { AlertNotification, NotificationBatch, Tier } from '../notify/index.ts';
import type { Alert } from './alert-state.ts';
import type { Clock } from './clock.ts';
import type { IncidentLogInput } from './incident-log.ts';
import type { Labels } from './labels.ts';
import { fingerprint } from './labels.ts';

export interface IncidentOptions {
  clock: Clock;
  groupBy: readonly string[];
  groupWaitMs: number;
  groupIntervalMs: number;
  repeatIntervalMs: number;
  /** Builds the notification form of an alert (times, generatorURL). */
  toNotification(a: Alert): AlertNotification;
  notify(batch: NotificationBatch): void;
  /** Closed incidents kept for the API. */
  maxClosed?: number;
  /** Records each step in the incident log (opened, alert firing / resolved / left, notified, resolved). */
  log?: (e: IncidentLogInput) => void;
}

export interface IncidentView {
  id: string;
  groupKey: string;
  groupLabels: Labels;
  status: 'open' | 'resolved';
  tier: Tier;
  openedAt: string;
  resolvedAt: string | null;
  lastNotifiedAt: string | null;
  notifications: number;
  alerts: { fingerprint: string; alertname: string; labels: Labels; severity: string; state: string; value: number; since: string }[];
}

interface Incident {
  id: string;
  key: string;
  groupLabels: Labels;
  openedAtMs: number;
  resolvedAtMs: number | null;
  alerts: Map<string, Alert>;
  /** Resolved alerts already notified (not sent again). */
  resolvedSent: Set<string>;
  lastNotifiedAtMs: number | null;
  lastHash: string;
  notifications: number;
  timer: unknown;
  /** The state of each alert as last written to the log. */
  logged: Map<string, string>;
}

export interface Incidents {
  /** Takes the current notifiable alerts (firing or resolved; not pending, not muted). */
  update(alerts: readonly Alert[]): void;
  /** The incident an alert belongs to now, if any. */
  incidentOf(fingerprint: string): string | undefined;
  list(): IncidentView[];
  stop(): void;
}

export function createIncidents(o: IncidentOptions): Incidents {
  const open = new Map<string, Incident>();
  const closed: Incident[] = [];
  const maxClosed = o.maxClosed ?? 200;
  let seq = 0;

  const groupLabels = (a: Alert): Labels => Object.fromEntries(o.groupBy.map((k) => [k, a.labels[k] ?? '']));
  const log = o.log ?? (() => undefined);
  const logAlert = (inc: Incident, a: Alert, kind: 'alert_firing' | 'alert_resolved' | 'alert_left') =>
    log({
      incident_id: inc.id,
      kind,
      alertname: a.alertname,
      fingerprint: a.fingerprint,
      severity: a.severity,
      labels: a.labels,
      detail: { value: a.value, since: new Date(a.firedAtMs ?? a.activeAtMs).toISOString() },
    });
  const tierOf = (inc: Incident): Tier => ([...inc.alerts.values()].some((a) => a.state === 'firing' && a.severity === 'critical') ? 'page' : 'ticket');

  function flush(inc: Incident) {
    inc.timer = undefined;
    const nowMs = o.clock.now();
    const toSend = [...inc.alerts.values()].filter((a) => a.state === 'firing' || !inc.resolvedSent.has(a.fingerprint));
    const firing = toSend.some((a) => a.state === 'firing');
    const hash = toSend
      .map((a) => `${a.fingerprint}:${a.state}`)
      .sort()
      .join('|');
    let reason: 'new' | 'changed' | 'repeat' | undefined;
    if (toSend.length > 0 && hash !== inc.lastHash) reason = inc.lastNotifiedAtMs === null ? 'new' : 'changed';
    else if (firing && inc.lastNotifiedAtMs !== null && nowMs - inc.lastNotifiedAtMs >= o.repeatIntervalMs) reason = 'repeat';
    if (reason) {
      o.notify({
        kind: 'incident',
        tier: tierOf(inc),
        incidentId: inc.id,
        groupKey: inc.key,
        groupLabels: inc.groupLabels,
        status: firing ? 'firing' : 'resolved',
        reason,
        alerts: toSend.map(o.toNotification),
      });
      log({ incident_id: inc.id, kind: 'notified', labels: inc.groupLabels, detail: { reason, tier: tierOf(inc), status: firing ? 'firing' : 'resolved' } });
      inc.lastNotifiedAtMs = nowMs;
      inc.lastHash = hash;
      inc.notifications++;
      for (const a of toSend) if (a.state === 'resolved') inc.resolvedSent.add(a.fingerprint);
    }
    if (!firing && [...inc.alerts.values()].every((a) => a.state !== 'firing')) {
      inc.resolvedAtMs = nowMs;
      log({ incident_id: inc.id, kind: 'resolved', labels: inc.groupLabels, detail: { notifications: inc.notifications } });
      open.delete(inc.key);
      closed.push(inc);
      if (closed.length > maxClosed) closed.shift();
      return;
    }
    inc.timer = o.clock.setTimeout(() => flush(inc), o.groupIntervalMs);
  }

  return {
    update(alerts) {
      const nowMs = o.clock.now();
      const current = new Map<string, Alert[]>();
      for (const a of alerts) {
        if (a.state === 'pending') continue;
        const gl = groupLabels(a);
        const key = fingerprint(gl);
        let list = current.get(key);
        if (!list) current.set(key, (list = []));
        list.push(a);
        let inc = open.get(key);
        if (!inc) {
          // A resolved alert alone does not open an incident.
          if (a.state !== 'firing') continue;
          inc = {
            id: `inc-${nowMs.toString(36)}-${(++seq).toString(36)}`,
            key,
            groupLabels: gl,
            openedAtMs: nowMs,
            resolvedAtMs: null,
            alerts: new Map(),
            resolvedSent: new Set(),
            lastNotifiedAtMs: null,
            lastHash: '',
            notifications: 0,
            timer: undefined,
            logged: new Map(),
          };
          open.set(key, inc);
          log({ incident_id: inc.id, kind: 'opened', labels: gl, detail: { group_key: key } });
          inc.timer = o.clock.setTimeout(() => flush(inc!), o.groupWaitMs);
        }
        if (a.state === 'firing') inc.resolvedSent.delete(a.fingerprint);
        inc.alerts.set(a.fingerprint, a);
        if (inc.logged.get(a.fingerprint) !== a.state) {
          inc.logged.set(a.fingerprint, a.state);
          logAlert(inc, a, a.state === 'firing' ? 'alert_firing' : 'alert_resolved');
        }
      }
      // Alerts that left (muted, or dropped after retention) leave their incident.
      for (const inc of open.values()) {
        const now = new Set((current.get(inc.key) ?? []).map((a) => a.fingerprint));
        for (const [fp, a] of inc.alerts) {
          if (now.has(fp)) continue;
          inc.alerts.delete(fp);
          inc.logged.delete(fp);
          logAlert(inc, a, 'alert_left');
        }
      }
    },
    incidentOf(fp) {
      for (const inc of open.values()) if (inc.alerts.has(fp)) return inc.id;
      return undefined;
    },
    list() {
      const view = (inc: Incident): IncidentView => ({
        id: inc.id,
        groupKey: inc.key,
        groupLabels: inc.groupLabels,
        status: inc.resolvedAtMs === null ? 'open' : 'resolved',
        tier: tierOf(inc),
        openedAt: new Date(inc.openedAtMs).toISOString(),
        resolvedAt: inc.resolvedAtMs === null ? null : new Date(inc.resolvedAtMs).toISOString(),
        lastNotifiedAt: inc.lastNotifiedAtMs === null ? null : new Date(inc.lastNotifiedAtMs).toISOString(),
        notifications: inc.notifications,
        alerts: [...inc.alerts.values()].map((a) => ({
          fingerprint: a.fingerprint,
          alertname: a.alertname,
          labels: a.labels,
          severity: a.severity,
          state: a.state,
          value: a.value,
          since: new Date(a.firedAtMs ?? a.activeAtMs).toISOString(),
        })),
      });
      return [...[...open.values()].map(view), ...closed.map(view).reverse()];
    },
    stop() {
      for (const inc of open.values()) if (inc.timer !== undefined) o.clock.clearTimeout(inc.timer);
    },
  };
}
