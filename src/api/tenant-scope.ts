/**
 * Tenant scope on what does not come from the store: alerts, incidents, actions and silences
 * (held by the alerting component), and writes (a tenant-scoped ingest key writes only its
 * tenants' rows). Reads from the store are scoped in one place, the Store decorator main.ts wires
 * in (src/store/scoped-store.ts).
 *
 * An alert belongs to the tenant in its `tenant` label; alerts without one (fleet-wide) are outside
 * every tenant scope. A silence belongs to the tenant its `tenant="…"` equality matcher names.
 */
import { parseMatcher } from '../alerting/index.ts';
import type { ActionRecord, AlertView, IncidentHistoryReply, IncidentView, Matcher, RuleGroupView } from '../alerting/index.ts';
import type { Sink, WriteOptions } from '../pipeline/index.ts';
import { InferlensError, tenantAllowed } from '../schema/index.ts';
import type { IngestReply, ReadScope, RowIssue } from '../schema/index.ts';

export const alertInScope = (scope: ReadScope, labels: Readonly<Record<string, string>>): boolean => tenantAllowed(scope, labels.tenant);

export function scopeAlerts<T extends Pick<AlertView, 'labels'>>(scope: ReadScope, alerts: readonly T[]): T[] {
  return scope.tenants === null ? [...alerts] : alerts.filter((a) => alertInScope(scope, a.labels));
}

/** Incidents with only the scope's alerts; an incident with none left is dropped. */
export function scopeIncidents(scope: ReadScope, incidents: readonly IncidentView[]): IncidentView[] {
  if (scope.tenants === null) return [...incidents];
  return incidents.flatMap((i) => {
    const alerts = i.alerts.filter((a) => alertInScope(scope, a.labels));
    return alerts.length > 0 ? [{ ...i, alerts }] : [];
  });
}

/** Incident steps that name no alert or tenant: what a tenant may see of an incident its alerts are in. */
const INCIDENT_LEVEL_KINDS: ReadonlySet<string> = new Set(['opened', 'notified', 'acknowledged', 'resolved']);

/**
 * The incident log narrowed like the live incidents: an incident is kept when one of its alerts is
 * the scope's, with only those alerts, their actions and the timeline steps of its tenants (plus
 * the incident's own opened / notified / acknowledged / resolved); silences whose logged tenant is the scope's.
 */
export function scopeHistory(scope: ReadScope, h: IncidentHistoryReply): IncidentHistoryReply {
  if (scope.tenants === null) return h;
  const mine = (tenant: string | null) => tenant !== null && tenantAllowed(scope, tenant);
  return {
    incidents: h.incidents.flatMap((i) => {
      const alerts = i.alerts.filter((a) => alertInScope(scope, a.labels));
      if (alerts.length === 0) return [];
      const names = new Set(alerts.map((a) => a.alertname));
      const timeline = i.timeline.filter((t) => mine(t.tenant) || (t.tenant === null && INCIDENT_LEVEL_KINDS.has(t.kind)));
      const actions = i.actions.filter((a) => a.alertname !== null && names.has(a.alertname) && timeline.some((t) => t.detail['action_id'] === a.id));
      return [{ ...i, alerts, actions, timeline }];
    }),
    silences: h.silences.filter((s) => mine(s.tenant)),
  };
}

export function scopeActions(scope: ReadScope, actions: readonly ActionRecord[]): ActionRecord[] {
  return scope.tenants === null ? [...actions] : actions.filter((a) => alertInScope(scope, a.alert.labels));
}

/** Rules with their pending/firing counts recomputed from the alerts the scope sees. */
export function scopeRules(
  scope: ReadScope,
  groups: readonly RuleGroupView[],
  visible: readonly Pick<AlertView, 'group' | 'alertname' | 'state'>[],
): RuleGroupView[] {
  if (scope.tenants === null) return [...groups];
  const count = (group: string, alert: string, state: string) => visible.filter((a) => a.group === group && a.alertname === alert && a.state === state).length;
  return groups.map((g) => ({
    ...g,
    rules: g.rules.map((r) => ({ ...r, alerts: { pending: count(g.name, r.alert, 'pending'), firing: count(g.name, r.alert, 'firing') } })),
  }));
}

/** The tenants a silence names with `tenant="…"` equality matchers. */
export function silenceTenants(matchers: readonly Matcher[]): string[] {
  return matchers.filter((m) => m.name === 'tenant' && m.isEqual && !m.isRegex).map((m) => m.value);
}

export function silenceInScope(scope: ReadScope, s: { readonly matchers: readonly Matcher[] }): boolean {
  if (scope.tenants === null) return true;
  const t = silenceTenants(s.matchers);
  return t.length > 0 && t.every((x) => tenantAllowed(scope, x));
}

/** Matchers of a silence request, parsed (string or Alertmanager object form). */
export function parseMatchers(input: readonly (string | Matcher)[]): Matcher[] {
  return input.map((m) => (typeof m === 'string' ? parseMatcher(m) : m));
}

/** A tenant-scoped key may silence only its tenants: the silence must name one with `tenant="…"`. */
export function checkSilenceScope(scope: ReadScope, matchers: readonly Matcher[]): void {
  if (silenceInScope(scope, { matchers })) return;
  throw new InferlensError(
    'permission_denied',
    `this key may silence only its tenants (${scope.tenants!.join(', ')}): add a matcher tenant="${scope.tenants![0]}"`,
    {
      issues: [{ path: 'matchers', message: `needs tenant="…" naming one of ${scope.tenants!.join(', ')}` }],
    },
  );
}

/** Maps the indexes of a sub-batch's issues back to the batch. */
const remap = (issues: readonly RowIssue[] | undefined, positions: readonly number[]): RowIssue[] =>
  (issues ?? []).map((r) => ({ ...r, index: positions[r.index] ?? r.index }));

/**
 * A sink for a tenant-scoped writer: event rows must carry one of its tenants (others are
 * per-row rejects naming `tenant`); resource samples and feedback carry no tenant, so such a
 * writer cannot send them (each row is rejected, saying to use an unscoped key). The original
 * NDJSON text is not passed on: with duplicate keys (`{"tenant":"a","tenant":"b"}`) the text and
 * the parsed row could disagree on the tenant, so the checked, parsed row is what gets stored.
 */
export function scopedSink(sink: Sink, tenants: readonly string[] | null): Sink {
  if (tenants === null) return sink;
  const list = tenants.join(', ');
  const refuseAll = (n: number, what: string): RowIssue[] =>
    Array.from({ length: n }, (_, index) => ({
      index,
      path: '',
      message: `${what} carry no tenant: this key may write only tenants ${list}; send them with an unscoped ingest key`,
    }));
  return {
    admit: () => sink.admit(),
    async writeEvents(rows: readonly unknown[], _options?: WriteOptions): Promise<IngestReply> {
      const keep: unknown[] = [];
      const positions: number[] = [];
      const refused: RowIssue[] = [];
      rows.forEach((row, i) => {
        const tenant = typeof row === 'object' && row !== null ? (row as Record<string, unknown>).tenant : undefined;
        if (typeof tenant === 'string' && tenants.includes(tenant)) {
          keep.push(row);
          positions.push(i);
        } else
          refused.push({
            index: i,
            path: 'tenant',
            message: `this key may write only tenants ${list}${typeof tenant === 'string' ? `, not "${tenant.slice(0, 64)}"` : ': set tenant on every row'}`,
          });
      });
      const reply = keep.length > 0 ? await sink.writeEvents(keep) : { accepted: 0, rejected: [] };
      const out: IngestReply = { accepted: reply.accepted, rejected: [...refused, ...remap(reply.rejected, positions)].sort((a, b) => a.index - b.index) };
      if (reply.warnings) out.warnings = remap(reply.warnings, positions);
      return out;
    },
    async writeResources(samples) {
      return { accepted: 0, rejected: refuseAll(samples.length, 'resource samples') };
    },
    async writeFeedback(rows) {
      return { accepted: 0, rejected: refuseAll(rows.length, 'feedback rows') };
    },
  };
}
