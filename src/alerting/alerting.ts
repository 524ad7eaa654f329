/**
 * The alerting component: rule evaluation → muting (silences, inhibition) → incidents and their
 * notifications → actions, plus the Alertmanager stream. Notifiers only enqueue, so nothing here
 * waits on a receiver.
 */
import type { Logger } from 'pino';
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { AlertNotification, Notifier } from '../notify/index.ts';
import type { TypedReads } from '../query/index.ts';
import { InferlensError } from '../schema/index.ts';
import { createActions } from './actions.ts';
import type { ActionEndpoint, ActionMode, ActionRecord, Actions } from './actions.ts';
import type { Alert } from './alert-state.ts';
import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';
import { createEvaluator } from './evaluator.ts';
import type { Evaluator, RuleHealth } from './evaluator.ts';
import type { Coverage } from './conditions/index.ts';
import { createIncidentLog } from './incident-log.ts';
import type { IncidentHistory, IncidentHistoryReply, IncidentLog, IncidentLogStore } from './incident-log.ts';
import { createIncidents } from './incidents.ts';
import type { IncidentView, Incidents } from './incidents.ts';
import { DEFAULT_INHIBIT_RULES, createInhibitor } from './inhibit.ts';
import type { InhibitRule } from './inhibit.ts';
import type { Labels } from './labels.ts';
import type { ActionType, Condition, Rule, RuleAction, RuleGroup, Severity } from './rule-schema.ts';
import { createSilences } from './silences.ts';
import type { Silence, Silences } from './silences.ts';
import { formatMatcher } from './labels.ts';

export interface AlertingOptions {
  groups: readonly RuleGroup[];
  /** The typed reads the rules evaluate through. */
  reads: TypedReads;
  /** Most cells the detectors' per-minute series may hold. */
  maxSeriesCells?: number;
  clock?: Clock;
  logger?: Logger;
  registry?: Registry;
  notifiers?: readonly Notifier[];
  /** Labels that make an incident (default model, pool). */
  groupBy?: readonly string[];
  groupWaitMs?: number;
  groupIntervalMs?: number;
  repeatIntervalMs?: number;
  /** How often active alerts are re-sent to Alertmanager receivers (Prometheus: 1m). */
  resendDelayMs?: number;
  inhibitRules?: readonly InhibitRule[];
  /** Base URL of this server for generatorURL links. */
  externalUrl?: string;
  silencesFile?: string;
  /** Where incidents, alerts, actions and silences are logged so they survive restarts (the store); none: memory only. */
  incidentLog?: IncidentLogStore;
  actions?: {
    mode?: ActionMode;
    url?: string;
    endpoints?: Partial<Record<ActionType, ActionEndpoint>>;
    timeoutMs?: number;
    auditFile?: string;
  };
}

/** An alert as the API shows it. */
export interface AlertView {
  alertname: string;
  group: string;
  fingerprint: string;
  state: Alert['state'];
  severity: Severity;
  labels: Labels;
  annotations: Record<string, string>;
  value: number;
  /** The numbers behind the verdict (rate, reference, window, p-value) where the rule gives them. */
  details: Record<string, number | string>;
  /** When this state began: activeAt for pending, firedAt for firing, resolvedAt for resolved. */
  since: string;
  activeAt: string;
  silencedBy: string[];
  inhibitedBy: string | null;
  incident: string | null;
  action: RuleAction | null;
}

export interface RuleView {
  alert: string;
  severity: Severity;
  for: string;
  condition: Condition;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  action: RuleAction | null;
  source: Rule['source'];
  health: RuleHealth;
  lastError: string | null;
  lastEvaluation: string | null;
  evaluationTimeMs: number | null;
  alerts: { pending: number; firing: number };
  /** What the last evaluation could judge: slices judged, slices without enough history yet. */
  coverage: Coverage | null;
}

export interface RuleGroupView {
  name: string;
  file: string;
  intervalMs: number;
  lastEvaluation: string | null;
  evaluationTimeMs: number | null;
  rules: RuleView[];
}

export interface Alerting {
  start(): void;
  stop(deadlineMs?: number): Promise<void>;
  /**
   * Evaluates every group at one time and waits (tests, `rules test`). With `onlyDue`, only the
   * groups whose interval divides `atMs`, as the scheduler ticks them.
   */
  evaluateAt(atMs: number, o?: { onlyDue?: boolean }): Promise<void>;
  /** Resolves when no evaluation runs. */
  settled(): Promise<void>;
  /** Pending and firing alerts (and resolved ones with includeResolved), info included. */
  alerts(o?: { includeResolved?: boolean }): AlertView[];
  incidents(): IncidentView[];
  /** Incidents with any step in [fromMs, toMs), from the incident log, with their timelines; and the window's silences. */
  history(fromMs: number, toMs: number): Promise<IncidentHistoryReply>;
  /** One incident from the incident log, or null. */
  incident(id: string): Promise<IncidentHistory | null>;
  /**
   * A person acknowledges an incident: written to the incident log (kind `acknowledged`, detail
   * by and comment), so it survives restarts; a second acknowledgement changes nothing. not_found
   * when the log has no such incident.
   */
  acknowledge(id: string, by: string, comment?: string): Promise<IncidentHistory>;
  silences: Pick<Silences, 'create' | 'expire' | 'list'>;
  actions: Pick<Actions, 'approve' | 'reject' | 'list' | 'mode' | 'idle'>;
  rules(): RuleGroupView[];
  /** The loaded rule groups (what a backtest runs by default). */
  groups(): readonly RuleGroup[];
}

const iso = (ms: number) => new Date(ms).toISOString();
const fmtDuration = (ms: number) => (ms % 3_600_000 === 0 && ms > 0 ? `${ms / 3_600_000}h` : ms % 60_000 === 0 && ms > 0 ? `${ms / 60_000}m` : `${ms / 1000}s`);

export function createAlerting(o: AlertingOptions): Alerting {
  /** Which incidents are open in this process, now. */
  const isOpen = () => {
    const open = new Set(
      incidents
        .list()
        .filter((i) => i.status === 'open')
        .map((i) => i.id),
    );
    return (id: string) => open.has(id);
  };
  const clock = o.clock ?? systemClock;
  const notifiers = o.notifiers ?? [];
  const resendDelayMs = o.resendDelayMs ?? 60_000;
  const externalUrl = (o.externalUrl ?? 'http://127.0.0.1:7070').replace(/\/+$/, '');
  const maxIntervalMs = Math.max(30_000, ...o.groups.map((g) => g.intervalMs));
  const inhibitor = createInhibitor(o.inhibitRules ?? DEFAULT_INHIBIT_RULES);
  const silences = createSilences({ clock, ...(o.silencesFile && { file: o.silencesFile }) });
  const incidentLog = createIncidentLog({
    clock,
    ...(o.incidentLog && { store: o.incidentLog }),
    ...(o.logger && { logger: o.logger.child({ component: 'incident-log' }) }),
  });
  const actions = createActions({
    clock,
    ...o.actions,
    ...(o.logger && { logger: o.logger.child({ component: 'actions' }) }),
    onStep: (step, r, extra) =>
      incidentLog.record({
        incident_id: r.incident,
        kind: `action_${step}`,
        alertname: r.alert.alertname,
        fingerprint: r.alert.fingerprint,
        severity: r.alert.severity,
        labels: r.alert.labels,
        detail: { action_id: r.id, action: r.action, state: r.state, params: r.params, ...extra },
      }),
  });
  /** The tenant a silence names with `tenant="…"`, for the log's tenant scoping. */
  const silenceTenant = (s: Silence) => s.matchers.find((m) => m.name === 'tenant' && m.isEqual && !m.isRegex)?.value ?? null;
  const logSilence = (kind: 'silence_created' | 'silence_expired', s: Silence) =>
    incidentLog.record({
      incident_id: null,
      kind,
      tenant: silenceTenant(s),
      detail: { silence_id: s.id, matchers: s.matchers.map(formatMatcher), createdBy: s.createdBy, comment: s.comment, startsAt: s.startsAt, endsAt: s.endsAt },
    });
  const muted = new Map<string, { silencedBy: string[]; inhibitedBy: string | null }>();
  let lastStreamMs = -Infinity;
  let lastStreamHash = '';

  const toNotification = (a: Alert): AlertNotification => ({
    status: a.state === 'resolved' ? 'resolved' : 'firing',
    labels: a.labels,
    annotations: a.annotations,
    startsAt: iso(a.firedAtMs ?? a.activeAtMs),
    // Firing: valid until 4 resend periods pass without a re-send (as Prometheus sets it).
    endsAt: iso(a.resolvedAtMs ?? clock.now() + 4 * Math.max(resendDelayMs, maxIntervalMs)),
    generatorURL: `${externalUrl}/v1/alerts?alertname=${encodeURIComponent(a.alertname)}`,
    fingerprint: a.fingerprint,
    value: a.value,
  });

  const incidents: Incidents = createIncidents({
    clock,
    groupBy: o.groupBy ?? ['model', 'pool'],
    groupWaitMs: o.groupWaitMs ?? 30_000,
    groupIntervalMs: o.groupIntervalMs ?? 300_000,
    repeatIntervalMs: o.repeatIntervalMs ?? 4 * 3_600_000,
    toNotification,
    notify: (batch) => {
      for (const n of notifiers) if (n.accepts === 'incident') n.send(batch);
    },
    log: (e) => incidentLog.record(e),
  });

  /** The rule behind each alert, rebuilt after every evaluation. */
  const ruleFor = new Map<Alert, Rule>();
  const ruleOf = (a: Alert): Rule | undefined => ruleFor.get(a);

  function afterEvaluation() {
    const nowMs = clock.now();
    ruleFor.clear();
    for (const g of evaluator.groups()) for (const r of g.rules) for (const a of r.alerts.values()) ruleFor.set(a, r.rule);
    const all = [...ruleFor.keys()];
    const inhibited = inhibitor(all);
    muted.clear();
    const notifiable: Alert[] = [];
    for (const a of all) {
      const silencedBy = silences.matching(a.labels, nowMs);
      const inhibitedBy = inhibited.get(a.fingerprint) ?? null;
      muted.set(a.fingerprint, { silencedBy, inhibitedBy });
      if (a.severity !== 'info' && a.state !== 'pending' && silencedBy.length === 0 && inhibitedBy === null) notifiable.push(a);
    }
    incidents.update(notifiable);
    for (const a of notifiable) {
      if (a.state !== 'firing') continue;
      const rule = ruleOf(a);
      if (rule?.action) actions.propose(a, rule.action, incidents.incidentOf(a.fingerprint));
    }
    // The Alertmanager stream: every active alert on change, and at least every resend delay.
    const hash = notifiable
      .map((a) => `${a.fingerprint}:${a.state}`)
      .sort()
      .join('|');
    if (notifiable.length > 0 && (hash !== lastStreamHash || nowMs - lastStreamMs >= resendDelayMs)) {
      const batch = { kind: 'alerts' as const, alerts: notifiable.map(toNotification) };
      for (const n of notifiers) if (n.accepts === 'alerts') n.send(batch);
      lastStreamMs = nowMs;
    }
    lastStreamHash = hash;
  }

  const evaluator: Evaluator = createEvaluator({
    groups: o.groups,
    reads: o.reads,
    ...(o.maxSeriesCells !== undefined && { maxSeriesCells: o.maxSeriesCells }),
    clock,
    ...(o.logger && { logger: o.logger.child({ component: 'alerting' }) }),
    onEvaluated: afterEvaluation,
  });

  if (o.registry) registerMetrics(o.registry, evaluator, notifiers, actions, incidentLog);

  const view = (a: Alert): AlertView => {
    const m = muted.get(a.fingerprint);
    const rule = ruleOf(a);
    return {
      alertname: a.alertname,
      group: a.group,
      fingerprint: a.fingerprint,
      state: a.state,
      severity: a.severity,
      labels: a.labels,
      annotations: a.annotations,
      value: a.value,
      details: a.details,
      since: iso(a.state === 'pending' ? a.activeAtMs : a.state === 'firing' ? (a.firedAtMs ?? a.activeAtMs) : (a.resolvedAtMs ?? a.activeAtMs)),
      activeAt: iso(a.activeAtMs),
      silencedBy: m?.silencedBy ?? [],
      inhibitedBy: m?.inhibitedBy ?? null,
      incident: incidents.incidentOf(a.fingerprint) ?? null,
      action: rule?.action ?? null,
    };
  };

  let stopping: Promise<void> | undefined;
  return {
    start() {
      for (const n of notifiers) n.start();
      evaluator.start();
      o.logger?.info(
        { groups: o.groups.length, rules: o.groups.reduce((a, g) => a + g.rules.length, 0), notifiers: notifiers.map((n) => n.name), actions: actions.mode() },
        'alerting started',
      );
    },
    stop(deadlineMs = 10_000) {
      stopping ??= (async () => {
        evaluator.stop();
        incidents.stop();
        let timer: unknown;
        await Promise.race([evaluator.settled(), new Promise<void>((r) => (timer = setTimeout(r, deadlineMs).unref()))]);
        clearTimeout(timer as NodeJS.Timeout);
        await Promise.all([...notifiers.map((n) => n.stop(deadlineMs)), actions.stop(deadlineMs)]);
        await incidentLog.flush();
      })();
      return stopping;
    },
    async evaluateAt(atMs, opts = {}) {
      for (const g of evaluator.groups()) if (!opts.onlyDue || atMs % g.group.intervalMs === 0) await evaluator.evaluateGroup(g.group.name, atMs);
    },
    settled: () => evaluator.settled(),
    alerts(opts = {}) {
      return evaluator
        .alerts()
        .filter((a) => opts.includeResolved || a.state !== 'resolved')
        .map(view);
    },
    incidents: () => incidents.list(),
    history: (fromMs, toMs) => incidentLog.history(fromMs, toMs, isOpen()),
    incident: (id) => incidentLog.incident(id, isOpen()),
    async acknowledge(id, by, comment) {
      const inc = await incidentLog.incident(id, isOpen());
      if (!inc) throw new InferlensError('not_found', `no incident ${id} in the incident log: GET /v1/incidents?from&to lists them`);
      if (inc.acknowledged_at) return inc;
      incidentLog.record({ incident_id: id, kind: 'acknowledged', labels: inc.groupLabels, detail: { by, ...(comment && { comment }) } });
      return (await incidentLog.incident(id, isOpen()))!;
    },
    silences: {
      create: (input) => {
        const s = silences.create(input);
        logSilence('silence_created', s);
        afterEvaluation();
        return s;
      },
      expire: (id) => {
        const s = silences.expire(id);
        logSilence('silence_expired', s);
        afterEvaluation();
        return s;
      },
      list: () => silences.list(),
    },
    actions: {
      approve: (id: string, by: string): ActionRecord => actions.approve(id, by),
      reject: (id: string, by: string, reason?: string): ActionRecord => actions.reject(id, by, reason),
      list: () => actions.list(),
      mode: () => actions.mode(),
      idle: () => actions.idle(),
    },
    groups: () => o.groups,
    rules() {
      return evaluator.groups().map((g) => ({
        name: g.group.name,
        file: g.group.file,
        intervalMs: g.group.intervalMs,
        lastEvaluation: g.lastEvalMs === null ? null : iso(g.lastEvalMs),
        evaluationTimeMs: g.lastDurationMs,
        rules: g.rules.map((r) => {
          const states = [...r.alerts.values()];
          return {
            alert: r.rule.alert,
            severity: r.rule.severity,
            for: fmtDuration(r.rule.forMs),
            condition: r.rule.condition,
            labels: r.rule.labels,
            annotations: r.rule.annotations,
            action: r.rule.action ?? null,
            source: r.rule.source,
            health: r.health,
            lastError: r.lastError,
            lastEvaluation: r.lastEvalMs === null ? null : iso(r.lastEvalMs),
            evaluationTimeMs: r.lastDurationMs,
            alerts: { pending: states.filter((a) => a.state === 'pending').length, firing: states.filter((a) => a.state === 'firing').length },
            coverage: r.coverage,
          };
        }),
      }));
    },
  };
}

/** Prometheus metrics read from the components' counters at scrape time. */
function registerMetrics(registry: Registry, evaluator: Evaluator, notifiers: readonly Notifier[], actions: Actions, incidentLog: IncidentLog) {
  const counter = (name: string, help: string, read: () => number) => {
    let last = 0;
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const v = read();
        if (v > last) this.inc(v - last);
        last = v;
      },
    });
  };
  counter('inferlens_alerting_group_evaluations_total', 'Rule group evaluations.', () => evaluator.stats().evaluationsTotal);
  counter('inferlens_alerting_rule_failures_total', 'Rule evaluations that failed.', () => evaluator.stats().ruleErrorsTotal);
  counter(
    'inferlens_alerting_evaluations_skipped_total',
    'Group ticks skipped because the previous evaluation still ran.',
    () => evaluator.stats().skippedTotal,
  );
  counter('inferlens_alerting_actions_proposed_total', 'Actions proposed by firing alerts.', () => actions.stats().proposedTotal);
  counter('inferlens_alerting_incident_log_written_total', 'Incident log entries written to the store.', () => incidentLog.stats().writtenTotal);
  counter(
    'inferlens_alerting_incident_log_write_failures_total',
    'Incident log writes that failed (their entries stay queued).',
    () => incidentLog.stats().failedWritesTotal,
  );
  counter('inferlens_alerting_incident_log_dropped_total', 'Incident log entries dropped because the queue was full.', () => incidentLog.stats().droppedTotal);
  new Gauge({
    name: 'inferlens_alerting_alerts',
    help: 'Alerts by state.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const all = evaluator.alerts();
      for (const s of ['pending', 'firing', 'resolved'] as const) this.set({ state: s }, all.filter((a) => a.state === s).length);
    },
  });
  const perReceiver = (name: string, help: string, key: 'sentTotal' | 'failedTotal' | 'droppedTotal' | 'retriesTotal') => {
    const last = new Map<string, number>();
    new Counter({
      name,
      help,
      labelNames: ['receiver'],
      registers: [registry],
      collect() {
        for (const n of notifiers) {
          const v = n.stats()[key];
          const prev = last.get(n.name) ?? 0;
          if (v > prev) this.inc({ receiver: n.name }, v - prev);
          last.set(n.name, v);
        }
      },
    });
  };
  perReceiver('inferlens_notify_sent_total', 'Notification batches delivered.', 'sentTotal');
  perReceiver('inferlens_notify_failed_total', 'Notification batches given up after retries or a permanent error.', 'failedTotal');
  perReceiver('inferlens_notify_dropped_total', 'Notification batches dropped (queue full or left at stop).', 'droppedTotal');
  perReceiver('inferlens_notify_retries_total', 'Notification delivery retries.', 'retriesTotal');
}
