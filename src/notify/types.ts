/**
 * The Notifier seam: what alerting hands to a receiver. `send` only enqueues (bounded, counted),
 * so a slow or dead receiver never delays rule evaluation.
 */

/** Where a batch goes: `page` (critical) or `ticket` (warning). Info alerts are never notified. */
export type Tier = 'page' | 'ticket';

/** One alert in a notification, in the Alertmanager v2 / webhook shape. */
export interface AlertNotification {
  status: 'firing' | 'resolved';
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** RFC 3339. */
  startsAt: string;
  /** RFC 3339: when it resolved, or for a firing alert when a receiver should consider it gone if not re-sent. */
  endsAt: string;
  generatorURL: string;
  fingerprint: string;
  /** The rule's measured value at the last evaluation. */
  value: number;
}

/**
 * A batch: either one incident's notification (grouped, timed by group_wait / group_interval /
 * repeat_interval) or the full list of active alerts (the Alertmanager stream, re-sent every
 * resend delay as Prometheus does).
 */
export type NotificationBatch =
  | {
      kind: 'incident';
      tier: Tier;
      incidentId: string;
      groupKey: string;
      groupLabels: Record<string, string>;
      status: 'firing' | 'resolved';
      /** Why this notification: first of the incident, its alert set changed, or repeat_interval passed. */
      reason: 'new' | 'changed' | 'repeat';
      alerts: AlertNotification[];
    }
  | { kind: 'alerts'; alerts: AlertNotification[] };

/** Counters of one receiver (all monotonic except `queued`). */
export interface NotifierStats {
  name: string;
  /** Batches delivered (2xx). */
  sentTotal: number;
  /** Delivery attempts that failed and were retried. */
  retriesTotal: number;
  /** Batches given up after the last attempt or on a permanent (4xx) answer. */
  failedTotal: number;
  /** Batches dropped without an attempt: queue full, or still queued at stop. */
  droppedTotal: number;
  /** Batches waiting now. */
  queued: number;
}

export interface Notifier {
  readonly name: string;
  /** Which batches this receiver takes: incident notifications or the active-alert stream. */
  readonly accepts: NotificationBatch['kind'];
  /** Enqueues; never throws, never waits. A full queue drops the oldest batch (counted). */
  send(batch: NotificationBatch): void;
  start(): void;
  /** Stops taking batches, delivers what it can until the deadline, drops (counts) the rest. Idempotent. */
  stop(deadlineMs?: number): Promise<void>;
  stats(): NotifierStats;
}
