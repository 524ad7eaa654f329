/**
 * Inhibition, as Alertmanager's inhibit_rules: a target alert is muted while a firing source alert
 * matches source_matchers, the target matches target_matchers, and both have the same values for
 * every label in `equal` (missing on both counts as equal). An alert never inhibits itself.
 */
import type { Alert } from './alert-state.ts';
import { compileMatchers, parseMatcher } from './labels.ts';

export interface InhibitRule {
  source_matchers: string[];
  target_matchers: string[];
  equal: string[];
}

/**
 * Defaults: a replica that sends no data (or is down) mutes its own latency / error alerts; a
 * critical alert mutes the warning of the same alert name and model.
 */
export const DEFAULT_INHIBIT_RULES: InhibitRule[] = [
  { source_matchers: ['alertname=~"ReplicaNoData|ReplicaDown"'], target_matchers: ['signal=~"latency|errors"'], equal: ['model', 'replica'] },
  { source_matchers: ['severity="critical"'], target_matchers: ['severity="warning"'], equal: ['alertname', 'model'] },
];

export type Inhibitor = (alerts: readonly Alert[]) => Map<string, string>;

/** Validates the rules (throws invalid_argument on a bad matcher) and returns a function from alerts to inhibited fingerprint → source fingerprint. */
export function createInhibitor(rules: readonly InhibitRule[]): Inhibitor {
  const compiled = rules.map((r) => ({
    source: compileMatchers(r.source_matchers.map(parseMatcher)),
    target: compileMatchers(r.target_matchers.map(parseMatcher)),
    equal: r.equal,
  }));
  return (alerts) => {
    const out = new Map<string, string>();
    const firing = alerts.filter((a) => a.state === 'firing');
    for (const rule of compiled) {
      const sources = firing.filter((a) => rule.source(a.labels));
      if (sources.length === 0) continue;
      for (const t of alerts) {
        if (t.state === 'resolved' || out.has(t.fingerprint) || !rule.target(t.labels)) continue;
        const src = sources.find((s) => s.fingerprint !== t.fingerprint && rule.equal.every((l) => (s.labels[l] ?? '') === (t.labels[l] ?? '')));
        if (src) out.set(t.fingerprint, src.fingerprint);
      }
    }
    return out;
  };
}
