/** Replies of the alerting routes: alerts, incidents, silences (Alertmanager's shape), actions, rules. */

// ---------- GET /v1/alerts, /v1/incidents, /v1/actions, /v1/rules ----------

export type AlertLabels = Record<string, string>;

export interface AlertReply {
  alertname: string;
  group: string;
  fingerprint: string;
  state: 'pending' | 'firing' | 'resolved';
  severity: string;
  labels: AlertLabels;
  annotations: Record<string, string>;
  value: number;
  /** The numbers behind the verdict (rate, reference, window, p-value) where the rule gives them. */
  details: Record<string, number | string>;
  /** When this state began: active_at for pending, when it fired for firing, when it resolved for resolved. */
  since: string;
  active_at: string;
  /** Ids of the silences that mute it. */
  silenced_by: string[];
  /** The alert that inhibits it, or null. */
  inhibited_by: string | null;
  incident: string | null;
  /** The rule's action, as the rule file writes it. */
  action: Record<string, unknown> | null;
}

/** A live incident: alerts grouped for notification in this process. */
export interface IncidentReply {
  id: string;
  group_key: string;
  group_labels: AlertLabels;
  status: 'open' | 'resolved';
  tier: 'page' | 'ticket';
  opened_at: string;
  resolved_at: string | null;
  last_notified_at: string | null;
  notifications: number;
  alerts: { fingerprint: string; alertname: string; labels: AlertLabels; severity: string; state: string; value: number; since: string }[];
}

/** A silence in Alertmanager's shape (its field names are Alertmanager's, on purpose: docs/api.md "Naming"). */
export interface AlertmanagerSilence {
  id: string;
  matchers: { name: string; value: string; isRegex: boolean; isEqual: boolean }[];
  startsAt: string;
  endsAt: string;
  createdBy: string;
  comment: string;
  createdAt: string;
  state?: 'pending' | 'active' | 'expired';
}

/** A silence created or expired in a window of the incident log (Alertmanager's names, with when it ended). */
export interface AlertmanagerSilenceLogged {
  id: string;
  createdAt: string | null;
  expiredAt: string | null;
  createdBy: string | null;
  comment: string | null;
  matchers: unknown;
  startsAt: string | null;
  endsAt: string | null;
  tenant: string | null;
}

/** An incident read back from the incident log, with its timeline. */
export interface IncidentHistoryItem {
  id: string;
  group_labels: AlertLabels;
  /** resolved; open (still open in this process); unfinished (the process stopped before it resolved). */
  status: 'open' | 'resolved' | 'unfinished';
  tier: 'page' | 'ticket';
  opened_at: string | null;
  resolved_at: string | null;
  notifications: number;
  /** The first acknowledgement: when, and who (null until one). */
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  alerts: {
    alertname: string;
    fingerprint: string;
    severity: string | null;
    labels: AlertLabels;
    first_firing_at: string | null;
    resolved_at: string | null;
    value: number | null;
  }[];
  actions: { id: string; action: string; state: string; alertname: string | null; proposed_at: string; last_step_at: string; by: string | null }[];
  timeline: { ts: string; kind: string; alertname: string | null; tenant: string | null; detail: Record<string, unknown> }[];
}

/** `GET /v1/incidents?from&to`. */
export interface IncidentHistoryReply {
  incidents: IncidentHistoryItem[];
  silences: AlertmanagerSilenceLogged[];
}

export interface ActionReply {
  id: string;
  action: string;
  params: Record<string, string | number | boolean>;
  alert: { alertname: string; fingerprint: string; labels: AlertLabels; value: number; severity: string };
  incident: string | null;
  state: 'dry_run' | 'awaiting_approval' | 'approved' | 'sent' | 'answered' | 'failed' | 'no_endpoint' | 'rejected';
  proposed_at: string;
  approved_at: string | null;
  approved_by: string | null;
  /** Set when a person rejected (dismissed) the proposal: when, who, why. */
  rejected_at?: string | null;
  rejected_by?: string | null;
  reject_reason?: string | null;
  sent_at: string | null;
  answered_at: string | null;
  url: string | null;
  answer: { status: number; body_excerpt: string } | null;
  error: string | null;
}

/** `GET /v1/actions`. */
export interface ActionsReply {
  mode: 'dry_run' | 'approval' | 'auto';
  actions: ActionReply[];
}

export interface RuleReply {
  alert: string;
  severity: string;
  for: string;
  /** The rule's condition as the rule file writes it. */
  condition: Record<string, unknown>;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  action: Record<string, unknown> | null;
  /** Where the rule is written. */
  source: { file: string; line?: number };
  health: 'unknown' | 'ok' | 'err';
  last_error: string | null;
  last_evaluation: string | null;
  evaluation_time_ms: number | null;
  alerts: { pending: number; firing: number };
  /** What the last evaluation could judge: slices judged, slices without enough history yet. */
  coverage: { judged: number; without_reference: number } | null;
}

/** `GET /v1/rules`. */
export interface RulesReply {
  groups: { name: string; file: string; interval_ms: number; last_evaluation: string | null; evaluation_time_ms: number | null; rules: RuleReply[] }[];
}

/** An alert episode of a backtest: when it became pending, fired and stopped holding. */
export interface BacktestEpisodeReply {
  alertname: string;
  group: string;
  severity: string;
  labels: AlertLabels;
  pending_at: string;
  firing_at: string | null;
  resolved_at: string | null;
  peak_value: number;
  details: Record<string, number | string>;
  interval_ms: number;
}

/** `POST /v1/rules/backtest` (the CLI's `inferlens rules backtest --json` writes the same). */
export interface BacktestReply {
  from: string;
  to: string;
  evaluations: number;
  episodes: BacktestEpisodeReply[];
  rules: {
    alert: string;
    group: string;
    interval_ms: number;
    episodes: number;
    errors: number;
    last_error: string | null;
    coverage: { judged: number; without_reference: number } | null;
    mean_eval_ms: number;
  }[];
  stats: { seconds: number; queries: number; peak_series_cells: number };
  /** The score against the known incidents sent with the request; null without them. */
  score: {
    incidents: number;
    detected: number;
    recall: number | null;
    episodes: number;
    true_episodes: number;
    false_episodes: number;
    precision: number | null;
    /** Of the detected incidents, the share whose first alert named the whole slice. */
    top1: number | null;
    median_delay_intervals: number | null;
    p90_delay_intervals: number | null;
    clean_hours: number;
    false_per_clean_hour: number | null;
    grace_ms: number;
    per_kind: Record<string, { incidents: number; detected: number; recall: number; top1: number | null; median_delay_intervals: number | null }>;
    per_incident: {
      id: string;
      kind: string | null;
      detected: boolean;
      /** The first consistent episode. */
      alert: { alertname: string; labels: AlertLabels; pending_at: string; firing_at: string | null } | null;
      top1: boolean;
      delay_intervals: number | null;
      delay_s: number | null;
      firing_delay_s: number | null;
    }[];
  } | null;
}
