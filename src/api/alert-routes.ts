/**
 * Alerting routes: alerts, incidents, silences, the action audit trail and approvals, rules.
 * What they answer is narrowed to the caller's tenants (tenant-scope.ts); the silencer and the
 * approver are the caller, never a body field. Answers use the `{ status: 'success', data }`
 * envelope; errors go through the app's one table.
 */
import type { Context } from 'hono';
import type { Alerting } from '../alerting/index.ts';
import {
  AckRequestSchema,
  AlertsRequestSchema,
  ApproveRequestSchema,
  IncidentsRequestSchema,
  InferlensError,
  PathIdSchema,
  RejectRequestSchema,
  SilenceRequestSchema,
  decode,
} from '../schema/index.ts';
import type { Principal } from '../schema/index.ts';
import { actionReply, alertReply, historyReply, incidentReply, rulesReply } from './alert-replies.ts';
import { readJson } from './json-body.ts';
import type { Route } from './routes.ts';
import {
  checkSilenceScope,
  parseMatchers,
  scopeActions,
  scopeAlerts,
  scopeHistory,
  scopeIncidents,
  scopeRules,
  silenceInScope,
  silenceTenants,
} from './tenant-scope.ts';

export interface AlertRoutesDeps {
  alerting: Alerting;
}

/** Alerting request bodies are small JSON objects. */
const jsonBody = (c: Context) => readJson(c, 64 * 1024, { emptyAs: {} });
const ok = (c: Context, data: unknown) => c.json({ status: 'success', data });

/** How a principal is written where alerting records who acted: `name (key id)`. */
export const actorOf = (p: Principal): string => (p.id === 'anonymous' ? 'anonymous' : `${p.name} (${p.id})`);

export function alertRoutes(deps: AlertRoutesDeps): Route[] {
  const a = deps.alerting;
  return [
    {
      method: 'GET',
      path: '/v1/alerts',
      access: 'read',
      handler: (c) => {
        const q = decode(AlertsRequestSchema, c.req.query(), 'alerts request');
        const data = scopeAlerts(c.var.scope, a.alerts({ includeResolved: q.state === 'resolved' })).filter(
          (x) => (!q.state || x.state === q.state) && (!q.severity || x.severity === q.severity) && (!q.alertname || x.alertname === q.alertname),
        );
        return ok(c, data.map(alertReply));
      },
    },
    {
      method: 'GET',
      path: '/v1/incidents',
      access: 'read',
      handler: async (c) => {
        const q = decode(IncidentsRequestSchema, c.req.query(), 'incidents request');
        if (q.from === undefined || q.to === undefined) return ok(c, scopeIncidents(c.var.scope, a.incidents()).map(incidentReply));
        return ok(c, historyReply(scopeHistory(c.var.scope, await a.history(q.from, q.to))));
      },
    },
    {
      method: 'POST',
      path: '/v1/incidents/:id/ack',
      access: 'operate',
      audit: 'incident.ack',
      handler: async (c) => {
        const id = decode(PathIdSchema, c.req.param('id'), 'incident id');
        const { comment } = decode(AckRequestSchema, await jsonBody(c), 'acknowledgement');
        const only = (i: Awaited<ReturnType<typeof a.incident>>) => (i ? scopeHistory(c.var.scope, { incidents: [i], silences: [] }).incidents[0] : undefined);
        // A scoped caller acknowledges only an incident one of its alerts is in.
        if (!only(await a.incident(id))) throw new InferlensError('not_found', `no incident ${id} in the incident log: GET /v1/incidents?from&to lists them`);
        const acked = await a.acknowledge(id, actorOf(c.var.principal), comment);
        c.set('audit', {
          target: id,
          tenants: c.var.scope.tenants,
          details: { acknowledged_at: acked.acknowledged_at, acknowledged_by: acked.acknowledged_by, ...(comment && { comment }) },
        });
        return ok(c, only(acked));
      },
    },
    {
      method: 'GET',
      path: '/v1/silences',
      access: 'read',
      handler: (c) =>
        ok(
          c,
          a.silences.list().filter((s) => silenceInScope(c.var.scope, s)),
        ),
    },
    {
      method: 'POST',
      path: '/v1/silences',
      access: 'operate',
      audit: 'silence.create',
      handler: async (c) => {
        const req = decode(SilenceRequestSchema, await jsonBody(c), 'silence');
        const matchers = parseMatchers(req.matchers);
        checkSilenceScope(c.var.scope, matchers);
        const silence = a.silences.create({
          matchers,
          ...(req.startsAt !== undefined ? { startsAt: new Date(req.startsAt).toISOString() } : {}),
          ...(req.endsAt !== undefined ? { endsAt: new Date(req.endsAt).toISOString() } : {}),
          ...(req.duration_s !== undefined ? { duration_s: req.duration_s } : {}),
          comment: req.comment,
          createdBy: actorOf(c.var.principal),
        });
        const tenants = silenceTenants(silence.matchers);
        c.set('audit', {
          target: silence.id,
          tenants: tenants.length ? tenants : null,
          details: { matchers: silence.matchers, startsAt: silence.startsAt, endsAt: silence.endsAt, comment: silence.comment },
        });
        return ok(c, silence);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/silences/:id',
      access: 'operate',
      audit: 'silence.expire',
      handler: (c) => {
        const id = decode(PathIdSchema, c.req.param('id'), 'silence id');
        const current = a.silences.list().find((s) => s.id === id);
        if (!current || !silenceInScope(c.var.scope, current)) throw new InferlensError('not_found', `no silence ${id}: GET /v1/silences lists them`);
        const silence = a.silences.expire(id);
        const tenants = silenceTenants(silence.matchers);
        c.set('audit', { target: id, tenants: tenants.length ? tenants : null });
        return ok(c, silence);
      },
    },
    {
      method: 'GET',
      path: '/v1/actions',
      access: 'read',
      handler: (c) => ok(c, { mode: a.actions.mode(), actions: scopeActions(c.var.scope, a.actions.list()).map(actionReply) }),
    },
    ...(['approve', 'reject'] as const).map((verb): Route => ({
      method: 'POST',
      path: `/v1/actions/:id/${verb}`,
      access: 'operate',
      audit: `action.${verb}`,
      handler: async (c) => {
        const id = decode(PathIdSchema, c.req.param('id'), 'action id');
        const body = await jsonBody(c);
        const reason = verb === 'reject' ? decode(RejectRequestSchema, body, 'rejection').reason : (decode(ApproveRequestSchema, body, 'approval'), undefined);
        const action = scopeActions(c.var.scope, a.actions.list()).find((r) => r.id === id);
        if (!action) throw new InferlensError('not_found', `no action ${id}: GET /v1/actions lists them`);
        const decided = verb === 'approve' ? a.actions.approve(id, actorOf(c.var.principal)) : a.actions.reject(id, actorOf(c.var.principal), reason);
        const tenant = decided.alert.labels.tenant;
        const details = {
          action: decided.action,
          ...(verb === 'approve' && { params: decided.params }),
          alert: decided.alert.alertname,
          state: decided.state,
          ...(reason ? { reason } : {}),
        };
        c.set('audit', { target: id, tenants: tenant ? [tenant] : null, details });
        return ok(c, actionReply(decided));
      },
    })),
    {
      method: 'GET',
      path: '/v1/rules',
      access: 'read',
      handler: (c) => ok(c, rulesReply(scopeRules(c.var.scope, a.rules(), scopeAlerts(c.var.scope, a.alerts())))),
    },
  ];
}
