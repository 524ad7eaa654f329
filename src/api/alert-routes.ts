/**
 * Alerting routes: alerts, incidents, silences, the action audit trail and approvals, rules.
 * Answers use the `{ status: 'success', data }` envelope; errors go through the app's one table.
 */
import type { Context, Hono } from 'hono';
import type { Alerting } from '../alerting/index.ts';
import { InferlensError } from '../schema/index.ts';
import { readJson } from './json-body.ts';

export interface AlertRoutesDeps {
  alerting: Alerting;
}

/** Alerting request bodies are small JSON objects. */
const jsonBody = (c: Context) => readJson(c, 64 * 1024, { emptyAs: {} });

export function alertRoutes(deps: AlertRoutesDeps): (app: Hono) => void {
  const a = deps.alerting;
  return (app) => {
    app.get('/v1/alerts', (c) => {
      const state = c.req.query('state');
      const severity = c.req.query('severity');
      const alertname = c.req.query('alertname');
      if (state && !['pending', 'firing', 'resolved'].includes(state)) throw new InferlensError('invalid_argument', 'state must be pending, firing or resolved');
      const data = a
        .alerts({ includeResolved: state === 'resolved' })
        .filter((x) => (!state || x.state === state) && (!severity || x.severity === severity) && (!alertname || x.alertname === alertname));
      return c.json({ status: 'success', data });
    });
    app.get('/v1/incidents', (c) => c.json({ status: 'success', data: a.incidents() }));
    app.get('/v1/silences', (c) => c.json({ status: 'success', data: a.silences.list() }));
    app.post('/v1/silences', async (c) => c.json({ status: 'success', data: a.silences.create(await jsonBody(c)) }));
    app.delete('/v1/silences/:id', (c) => c.json({ status: 'success', data: a.silences.expire(c.req.param('id')) }));
    app.get('/v1/actions', (c) => c.json({ status: 'success', data: { mode: a.actions.mode(), actions: a.actions.list() } }));
    app.post('/v1/actions/:id/approve', async (c) => {
      const body = (await jsonBody(c)) as { by?: unknown };
      const by = typeof body === 'object' && body !== null && typeof body.by === 'string' && body.by.length > 0 ? body.by.slice(0, 256) : 'api';
      return c.json({ status: 'success', data: a.actions.approve(c.req.param('id'), by) });
    });
    app.post('/v1/actions/:id/reject', async (c) => {
      const body = (await jsonBody(c)) as { by?: unknown; reason?: unknown };
      const ok = typeof body === 'object' && body !== null;
      const by = ok && typeof body.by === 'string' && body.by.length > 0 ? body.by.slice(0, 256) : 'api';
      const reason = ok && typeof body.reason === 'string' && body.reason.length > 0 ? body.reason.slice(0, 1024) : undefined;
      return c.json({ status: 'success', data: a.actions.reject(c.req.param('id'), by, reason) });
    });
    app.get('/v1/rules', (c) => c.json({ status: 'success', data: { groups: a.rules() } }));
  };
}
