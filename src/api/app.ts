/**
 * The public HTTP API. Every route is declared with who may call it (routes.ts); requests pass
 * the Host check, then the route's guard (authentication, CSRF rules for state changes, the
 * role's permission, the caller's read scope, the audit entry). Handlers decode the request into
 * a typed spec (src/schema/requests.ts), call a receiver or a read service of the caller's scope,
 * and wrap the answer in the envelope; errors become statuses only here (errors.ts).
 */
import { Hono } from 'hono';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Histogram } from 'prom-client';
import {
  AuditRequestSchema,
  CapacityRequestSchema,
  ErrorSlicesRequestSchema,
  EventSearchRequestSchema,
  HistogramRequestSchema,
  InferlensError,
  LabelsRequestSchema,
  QueryRequestSchema,
  RequestIdSchema,
  ResourceQueryRequestSchema,
  ResourceQuantilesRequestSchema,
  SaturationRequestSchema,
  SessionRequestSchema,
  StagesRequestSchema,
  decode,
} from '../schema/index.ts';
import type { IngestReply, ReadScope, SessionReply } from '../schema/index.ts';
import { handleOtlp, ingestEvents, ingestFeedback, ingestResources, readBody, registerOtlpMetrics, targetsPage } from '../ingest/index.ts';
import type { TargetStats } from '../ingest/index.ts';
import type { Sink } from '../pipeline/index.ts';
import type { z } from 'zod';
import { createAuditLog } from './audit.ts';
import type { AuditLog } from './audit.ts';
import { toErrorResponse } from './errors.ts';
import { readJson } from './json-body.ts';
import type { Keyring } from './keys.ts';
import { ROW_TYPES, guard } from './routes.ts';
import type { ApiContext, ApiEnv, Reads, Route } from './routes.ts';
import { SESSION_COOKIE, createSessions } from './sessions.ts';
import type { Sessions } from './sessions.ts';
import { scopedSink } from './tenant-scope.ts';
import { uiRoute } from './ui.ts';

export interface ApiOptions {
  sink: Sink;
  /** The read services over the store scoped to a caller's tenants (main.ts builds them). */
  reads: (scope: ReadScope) => Reads;
  keyring: Keyring;
  logger: Logger;
  registry: Registry;
  /** Largest accepted body, before and after decompression. */
  maxBodyBytes: number;
  /** Whether the server is ready to take traffic (store open, pipeline started). */
  ready: () => boolean;
  /** Why the server cannot take writes now (e.g. the disk is full), or undefined: `/readyz` answers 503 with it. */
  notReadyReason?: () => Promise<string | undefined>;
  /** Host names the server answers to (the DNS-rebinding fence); undefined: any. */
  allowedHost?: (hostname: string) => boolean;
  /** Dashboard sessions (default: in memory, 12 h). */
  sessions?: Sessions;
  /** Where state changes are recorded (default: memory only). */
  audit?: AuditLog;
  now?: () => number;
  /**
   * Which core routes this process serves (its role, main.ts): `ingest` the write routes, `reads`
   * the queries, analyses, session and audit; health, readiness and metrics always. Default: both.
   */
  core?: { ingest: boolean; reads: boolean };
  /** Route groups mounted after the core routes (quality, release, samples, alerting). */
  routes?: readonly (readonly Route[])[];
  /** Raw mounts (tests): every route they add must also be declared in `routes` or createApi throws. */
  mounts?: ((app: Hono<ApiEnv>) => void)[];
  /** The built dashboard folder; served last, so API routes match first. */
  uiDir?: string;
  /** The scrape targets' stats (`GET /v1/scrape/targets`); none when the server scrapes nothing. */
  scrapeTargets?: () => readonly TargetStats[];
}

/** Sends an ingest reply: 200 when any row was stored, 400 (same body plus the envelope) when none. */
function ingestReply(c: Context, reply: IngestReply, what: string) {
  if (reply.accepted > 0) return c.json(reply, 200);
  return c.json(
    { status: 'error', error_type: 'invalid_argument', error: `no valid ${what} in the batch: every row was rejected (see rejected)`, ...reply },
    400,
  );
}

const ok = (c: Context, data: unknown) => c.json({ status: 'success', data });

/** The hostname of a Host header: `127.0.0.1:7070` → `127.0.0.1`, `[::1]:7070` → `::1`. */
export function hostnameOf(host: string): string {
  const h = host.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/** Loopback names: what a server bound to loopback answers to (a rebinding DNS name is not one). */
export function isLoopbackName(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** The core routes: health, metrics, ingest, request lookup, labels, queries and analyses, session, audit. */
function coreRoutes(o: ApiOptions, sessions: Sessions, audit: AuditLog, now: () => number): Route[] {
  const body = (c: Context) => readBody(c.req.raw.body, c.req.header('content-encoding'), o.maxBodyBytes);
  // Write routes: refused before the body is read when the write queue is behind (cheap shedding).
  const writeBody = (c: Context) => {
    o.sink.admit();
    return body(c);
  };
  const jsonBody = (c: Context) => readJson(c, o.maxBodyBytes);
  const sink = (c: ApiContext) => scopedSink(o.sink, c.var.principal.tenants);
  /** A read-only POST: decode the body, answer from the caller's scoped reads. */
  const readPost = <S extends z.ZodType>(path: string, schema: S, what: string, run: (req: z.output<S>, r: Reads) => Promise<unknown>): Route => ({
    method: 'POST',
    path,
    access: 'read',
    handler: async (c) => ok(c, await run(decode(schema, await jsonBody(c), what), c.var.reads)),
  });
  const sessionTtlMs = 12 * 3_600_000;
  const otlpMetrics = registerOtlpMetrics(o.registry);

  return [
    { method: 'GET', path: '/healthz', access: 'public', handler: (c) => c.text('ok') },
    {
      method: 'GET',
      path: '/readyz',
      access: 'public',
      handler: async (c) => {
        if (!o.ready()) return c.text('not ready', 503);
        const why = await o.notReadyReason?.();
        return why === undefined ? c.text('ready') : c.text(`not ready: ${why}`, 503);
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      access: 'metrics',
      handler: async (c) => c.body(await o.registry.metrics(), 200, { 'Content-Type': o.registry.contentType }),
    },

    {
      method: 'POST',
      path: '/v1/events',
      access: 'ingest',
      accepts: ROW_TYPES,
      handler: async (c) => ingestReply(c, await ingestEvents(await writeBody(c), c.req.header('content-type'), sink(c)), 'event'),
    },
    {
      method: 'POST',
      path: '/v1/feedback',
      access: 'ingest',
      accepts: ROW_TYPES,
      handler: async (c) => ingestReply(c, await ingestFeedback(await writeBody(c), c.req.header('content-type'), sink(c)), 'feedback'),
    },
    {
      method: 'POST',
      path: '/v1/resources',
      access: 'ingest',
      accepts: ROW_TYPES,
      handler: async (c) => ingestReply(c, await ingestResources(await writeBody(c), c.req.header('content-type'), sink(c)), 'resource sample'),
    },
    // OTLP/HTTP: the reply is the OTLP partial-success message in the request's encoding.
    ...(['traces', 'metrics'] as const).map((signal): Route => ({
      method: 'POST',
      path: `/v1/${signal}`,
      access: 'ingest',
      accepts: ['application/json', 'application/x-protobuf', 'application/protobuf'],
      handler: async (c) => {
        const reply = await handleOtlp(signal, await writeBody(c), c.req.header('content-type') ?? '', sink(c), otlpMetrics);
        return c.body(reply.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': reply.contentType });
      },
    })),

    {
      method: 'GET',
      path: '/v1/requests/:id',
      access: 'read',
      handler: async (c) => ok(c, await c.var.reads.queries.request(decode(RequestIdSchema, c.req.param('id'), 'request id'))),
    },
    {
      method: 'GET',
      path: '/v1/labels/:dimension',
      access: 'read',
      handler: async (c) => {
        const q = decode(LabelsRequestSchema, { ...c.req.query(), dimension: c.req.param('dimension') }, 'labels request');
        const toMs = q.to ?? now();
        const fromMs = q.from ?? toMs - 86_400_000;
        if (!(toMs > fromMs))
          throw new InferlensError('invalid_argument', 'to: must be after from', { issues: [{ path: 'to', message: 'must be after from' }] });
        return ok(c, await c.var.reads.queries.labels(q.dimension, fromMs, toMs, q.limit));
      },
    },
    readPost('/v1/query', QueryRequestSchema, 'query', (q, r) => r.queries.query(q)),
    readPost('/v1/events/search', EventSearchRequestSchema, 'event search', (q, r) => r.queries.searchEvents(q)),
    readPost('/v1/histogram', HistogramRequestSchema, 'histogram request', (q, r) => r.queries.histogram(q)),
    readPost('/v1/analysis/errors', ErrorSlicesRequestSchema, 'error localisation request', (q, r) => r.queries.errorSlices(q)),
    readPost('/v1/analysis/stages', StagesRequestSchema, 'stage attribution request', (q, r) => r.queries.stageAttribution(q)),
    readPost('/v1/analysis/saturation', SaturationRequestSchema, 'saturation request', (q, r) => r.queries.saturation(q)),
    readPost('/v1/resources/query', ResourceQueryRequestSchema, 'resource query', (q, r) => r.queries.resources(q)),
    readPost('/v1/resources/quantiles', ResourceQuantilesRequestSchema, 'resource quantiles request', (q, r) => r.queries.resourceQuantiles(q)),
    readPost('/v1/analysis/capacity', CapacityRequestSchema, 'capacity request', (q, r) => r.queries.capacity(q)),
    // Scrape targets are infrastructure, like resource samples: a tenant-scoped reader sees none.
    {
      method: 'GET',
      path: '/v1/scrape/targets',
      access: 'read',
      handler: (c) => ok(c, { targets: c.var.scope.tenants === null ? targetsPage(o.scrapeTargets?.() ?? []) : [] }),
    },

    // The dashboard's session: who is signed in (401 when nobody is and keys are required).
    {
      method: 'GET',
      path: '/v1/session',
      access: 'public',
      handler: (c) => {
        const p = c.get('principal');
        if (!p) throw new InferlensError('unauthenticated', 'not signed in: POST /v1/session with {"key": "<API key>"}');
        const s = c.get('session');
        const reply: SessionReply = {
          principal: p,
          via: c.get('via') ?? 'anonymous',
          keys_required: o.keyring.enabled(),
          csrf_token: s?.csrfToken ?? null,
          expires_at: s ? new Date(s.expiresMs).toISOString() : null,
        };
        return ok(c, reply);
      },
    },
    {
      method: 'POST',
      path: '/v1/session',
      access: 'public',
      audit: 'session.create',
      handler: async (c) => {
        const { key } = decode(SessionRequestSchema, await readJson(c, 4096), 'sign-in');
        const p = o.keyring.authenticate(key);
        if (!p) throw new InferlensError('unauthenticated', 'wrong or revoked API key');
        const s = sessions.create(p);
        c.set('principal', p);
        c.set('via', 'session');
        c.set('audit', { target: p.id });
        setCookie(c, SESSION_COOKIE, s.id, {
          httpOnly: true,
          sameSite: 'Strict',
          path: '/',
          maxAge: Math.floor(sessionTtlMs / 1000),
          secure: new URL(c.req.url).protocol === 'https:',
        });
        const reply: SessionReply = {
          principal: p,
          via: 'session',
          keys_required: true,
          csrf_token: s.csrfToken,
          expires_at: new Date(s.expiresMs).toISOString(),
        };
        return ok(c, reply);
      },
    },
    {
      method: 'DELETE',
      path: '/v1/session',
      access: 'public',
      audit: 'session.delete',
      handler: (c) => {
        const s = c.get('session');
        if (s) sessions.delete(s.id);
        deleteCookie(c, SESSION_COOKIE, { path: '/' });
        c.set('audit', { target: c.get('principal')?.id ?? null });
        return ok(c, { signed_out: s !== undefined });
      },
    },
    {
      method: 'GET',
      path: '/v1/audit',
      access: 'read',
      handler: (c) => {
        const q = decode(AuditRequestSchema, c.req.query(), 'audit request');
        return ok(c, { entries: audit.list({ fromMs: q.from, toMs: q.to, limit: q.limit, action: q.action }, c.var.scope) });
      },
    },
  ];
}

export interface Api {
  app: Hono<ApiEnv>;
  /** Every declared route (the route × role × tenant test iterates these). */
  routes: readonly Route[];
}

export function createApi(o: ApiOptions): Api {
  const app = new Hono<ApiEnv>();
  const now = o.now ?? Date.now;
  const sessions = o.sessions ?? createSessions({ ttlMs: 12 * 3_600_000, now });
  const audit = o.audit ?? createAuditLog();
  const duration = new Histogram({
    name: 'inferlens_http_request_duration_seconds',
    help: 'HTTP request duration by route and status.',
    labelNames: ['route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [o.registry],
  });

  app.onError((e, c) => {
    const { status, body, headers } = toErrorResponse(e);
    if (status >= 500 && status !== 503) o.logger.error({ err: e, path: c.req.path }, 'request failed');
    return c.json(body, status as 400, headers);
  });
  app.notFound((c) => c.json({ status: 'error', error_type: 'not_found', error: `no route ${c.req.method} ${c.req.path}` }, 404));

  const middleware = new Set<MiddlewareHandler<ApiEnv>>();
  const use = (m: MiddlewareHandler<ApiEnv>) => {
    middleware.add(m);
    app.use('*', m);
  };
  use(async (c, next) => {
    const t0 = performance.now();
    await next();
    const route = c.req.routePath || 'unmatched';
    duration.observe({ route, status: String(c.res.status) }, (performance.now() - t0) / 1000);
  });
  if (o.allowedHost) {
    const allowed = o.allowedHost;
    use(async (c, next) => {
      const host = c.req.header('host') ?? new URL(c.req.url).host;
      if (!allowed(hostnameOf(host))) {
        throw new InferlensError(
          'permission_denied',
          `this server does not answer to Host "${host.slice(0, 100)}": open it by its own address (server.allowed_hosts lists more names)`,
        );
      }
      await next();
    });
  }

  const deps = { keyring: o.keyring, sessions, audit, reads: o.reads, logger: o.logger, now };
  // A route of another role is not registered at all: it answers 404.
  const core = o.core ?? { ingest: true, reads: true };
  const served = (r: Route) =>
    r.access === 'ingest' ? core.ingest : r.access === 'public' || r.access === 'metrics' ? !r.path.startsWith('/v1/') || core.reads : core.reads;
  const routes: Route[] = [...coreRoutes(o, sessions, audit, now).filter(served), ...(o.routes ?? []).flat()];
  if (o.uiDir) routes.push(uiRoute(o.uiDir));
  const seen = new Set<string>();
  // Hono lists `*` as `/*`.
  const keyOf = (method: string, p: string) => `${method} ${p === '*' ? '/*' : p}`;
  const register = (r: Route) => {
    const key = keyOf(r.method, r.path);
    if (seen.has(key)) throw new InferlensError('internal', `route ${key} is declared twice`);
    seen.add(key);
    app.on(r.method, r.path, guard(r, deps), r.handler);
  };
  // The dashboard's catch-all GET goes last so the API routes match first.
  for (const r of routes.filter((x) => x.path !== '*')) register(r);
  for (const mount of o.mounts ?? []) mount(app);
  for (const r of routes.filter((x) => x.path === '*')) register(r);

  const undeclared = app.routes.filter(
    (r) => !(r.method === 'ALL' && middleware.has(r.handler as MiddlewareHandler<ApiEnv>)) && !seen.has(keyOf(r.method, r.path)),
  );
  if (undeclared.length > 0) {
    throw new InferlensError(
      'internal',
      `routes without a declared access (add them to a route table in src/api with access public/ingest/read/operate/admin/metrics): ${[...new Set(undeclared.map((r) => `${r.method} ${r.path}`))].join(', ')}`,
    );
  }
  return { app, routes };
}
