/**
 * The per-rule alert state machine, as Prometheus runs it: each label set where the condition
 * holds is pending from its first evaluation (activeAt), firing once it has held for `for`,
 * and resolved at the first evaluation where it no longer holds. A pending alert that stops
 * holding goes back to inactive (dropped); a resolved one is kept for `resolvedRetentionMs` so
 * receivers hear about it, and starts a new episode if it holds again.
 */
import type { Labels } from './labels.ts';
import { fingerprint } from './labels.ts';
import type { Rule, Severity } from './rule-schema.ts';
import { expandTemplate } from './template.ts';
import type { Observation } from './conditions/index.ts';

export type AlertState = 'pending' | 'firing' | 'resolved';

export interface Alert {
  alertname: string;
  group: string;
  fingerprint: string;
  /** alertname + severity + rule labels + slice labels. */
  labels: Labels;
  annotations: Record<string, string>;
  severity: Severity;
  state: AlertState;
  value: number;
  /** The numbers behind the last verdict, where the condition gives them. */
  details: Record<string, number | string>;
  /** First evaluation of this episode where the condition held. */
  activeAtMs: number;
  firedAtMs: number | null;
  resolvedAtMs: number | null;
  lastEvalMs: number;
}

/** Prometheus keeps resolved alerts 15 minutes so they are re-sent to receivers. */
export const RESOLVED_RETENTION_MS = 15 * 60_000;

/** The labels of an alert from a rule and a slice; rule labels win over slice labels of the same name. */
export function alertLabels(rule: Rule, slice: Labels): Labels {
  return { ...slice, ...rule.labels, alertname: rule.alert, severity: rule.severity };
}

/**
 * Applies one evaluation's observations to a rule's alerts (mutates `alerts`, keyed by
 * fingerprint). Returns the fingerprints that changed state this evaluation.
 */
export function applyEvaluation(
  rule: Rule,
  alerts: Map<string, Alert>,
  observations: readonly Observation[],
  nowMs: number,
  resolvedRetentionMs = RESOLVED_RETENTION_MS,
): string[] {
  const changed: string[] = [];
  const seen = new Set<string>();
  for (const o of observations) {
    const labels = alertLabels(rule, o.labels);
    const fp = fingerprint(labels);
    if (seen.has(fp)) continue;
    seen.add(fp);
    const annotations: Record<string, string> = {};
    const details = o.details ?? {};
    for (const [k, t] of Object.entries(rule.annotations)) annotations[k] = expandTemplate(t, { labels, value: o.value, details });
    let a = alerts.get(fp);
    if (!a || a.state === 'resolved') {
      a = {
        alertname: rule.alert,
        group: rule.group,
        fingerprint: fp,
        labels,
        annotations,
        severity: rule.severity,
        state: 'pending',
        value: o.value,
        details,
        activeAtMs: nowMs,
        firedAtMs: null,
        resolvedAtMs: null,
        lastEvalMs: nowMs,
      };
      alerts.set(fp, a);
      changed.push(fp);
    }
    a.value = o.value;
    a.details = details;
    a.annotations = annotations;
    a.lastEvalMs = nowMs;
    if (a.state === 'pending' && nowMs - a.activeAtMs >= rule.forMs) {
      a.state = 'firing';
      a.firedAtMs = nowMs;
      if (!changed.includes(fp)) changed.push(fp);
    }
  }
  for (const [fp, a] of alerts) {
    if (seen.has(fp)) continue;
    if (a.state === 'pending') {
      alerts.delete(fp);
      changed.push(fp);
    } else if (a.state === 'firing') {
      a.state = 'resolved';
      a.resolvedAtMs = nowMs;
      a.lastEvalMs = nowMs;
      changed.push(fp);
    } else if (a.resolvedAtMs !== null && nowMs - a.resolvedAtMs >= resolvedRetentionMs) {
      alerts.delete(fp);
    }
  }
  return changed;
}
