/**
 * The route table and the one guard every route passes. A route is declared with who may call it
 * (`access`): `public`, or a permission a role grants (src/schema/auth.ts). The guard, in order:
 *
 * 1. authenticates: `Authorization: Bearer <key>`, else the dashboard session cookie, else — only
 *    when the server has no keys at all — the anonymous admin (such a server listens on loopback
 *    only unless started with --insecure);
 * 2. for a state change (any method but GET on a route that is not a plain read): refuses a
 *    cross-site request (`Sec-Fetch-Site`), an `Origin` whose host is not the request's `Host`, a
 *    content type the route does not take (`text/plain`, forms, none: the bodies a page on another
 *    origin can send without a CORS preflight), and, for a cookie session, a missing or wrong
 *    `X-CSRF-Token`;
 * 3. checks the role's permission (403 names the role and what the route needs);
 * 4. puts the principal and its read scope on the context: route handlers read only through
 *    `c.var.reads`, the query services over the tenant-scoped store, so no route can forget it;
 * 5. appends an audit entry for every successful audited state change.
 *
 * `createApi` checks that every route registered on the app is in the table, so a route added
 * without a declared access stops the server at start (and fails test/route-matrix.test.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Logger } from 'pino';
import { InferlensError, roleAllows, scopeOf } from '../schema/index.ts';
import type { Permission, Principal, ReadScope } from '../schema/index.ts';
import type { Comparer } from '../release/index.ts';
import type { Queries, TypedReads } from '../query/index.ts';
import type { QualityReads } from '../quality/index.ts';
import type { AuditEntry, AuditLog } from './audit.ts';
import type { Keyring } from './keys.ts';
import { CSRF_HEADER, SESSION_COOKIE } from './sessions.ts';
import type { Session, Sessions } from './sessions.ts';

/** Who may call a route. */
export type Access = 'public' | Permission;

/** The reads of one caller: every service over the store scoped to the caller's tenants. */
export interface Reads {
  queries: Queries;
  comparer: Comparer;
  quality: QualityReads;
  /** The narrow typed reads alerting's backtest replays rules on. */
  typed: TypedReads;
}

/** What a handler may add to its audit entry. */
export interface AuditNote {
  target?: string | null;
  tenants?: readonly string[] | null;
  details?: Record<string, unknown>;
}

export interface ApiVariables {
  principal: Principal;
  via: AuditEntry['via'];
  scope: ReadScope;
  reads: Reads;
  session: Session | undefined;
  audit: AuditNote | undefined;
}
export type ApiEnv = { Variables: ApiVariables };
export type ApiContext = Context<ApiEnv>;

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** A Hono path, e.g. `/v1/silences/:id`. */
  path: string;
  access: Access;
  /** The audit action of a state change, e.g. `silence.create`; absent: not audited (reads, ingest). */
  audit?: string;
  /** Content types a state change takes (default: application/json). */
  accepts?: readonly string[];
  handler: (c: ApiContext) => Response | Promise<Response>;
}

export const JSON_TYPES = ['application/json'] as const;
/** Row bodies: a JSON array or object, or NDJSON under any of its names. */
export const ROW_TYPES = [
  'application/json',
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'application/jsonlines',
] as const;

/** A state change: any method but GET, except the read-only POSTs (queries and analyses). */
export function changesState(r: Pick<Route, 'method' | 'access'>): boolean {
  return r.method !== 'GET' && r.access !== 'read';
}

/** The anonymous principal of a server without keys. */
export const ANONYMOUS: Principal = { id: 'anonymous', name: 'anonymous (no API keys configured)', role: 'admin', tenants: null };

export interface GuardDeps {
  keyring: Keyring;
  sessions: Sessions;
  audit: AuditLog;
  reads: (scope: ReadScope) => Reads;
  logger: Logger;
  now: () => number;
}

/** `application/json; charset=utf-8` → `application/json`. */
export function mimeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function remoteOf(c: Context): string | null {
  try {
    return getConnInfo(c).remote.address ?? null;
  } catch {
    return null; // app.request in tests has no socket
  }
}

interface Caller {
  principal: Principal;
  via: AuditEntry['via'];
  session?: Session;
}

/** Who is calling, or undefined (no credentials on a server with keys). A wrong key is a 401 even on public routes' callers that need it. */
function identify(c: Context, d: GuardDeps, strict: boolean): Caller | undefined {
  const auth = c.req.header('authorization');
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S{1,512})$/i.exec(auth.trim());
    const p = m ? d.keyring.authenticate(m[1]!) : undefined;
    if (p) return { principal: p, via: 'key' };
    if (strict)
      throw new InferlensError('unauthenticated', 'wrong or revoked API key: send Authorization: Bearer <key> with a key from `inferlens keys create`');
    return undefined;
  }
  const sid = getCookie(c, SESSION_COOKIE);
  if (sid) {
    const s = d.sessions.get(sid);
    if (s && d.keyring.has(s.principal.id)) return { principal: s.principal, via: 'session', session: s };
  }
  if (!d.keyring.enabled()) return { principal: ANONYMOUS, via: 'anonymous' };
  return undefined;
}

/** Refuses what a page on another origin could send; see the module comment. */
function checkStateChange(c: Context, route: Route, caller: Caller | undefined): void {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new InferlensError(
      'permission_denied',
      `cross-site request refused (Sec-Fetch-Site: ${site}): state changes come from the dashboard's own origin or from API clients`,
    );
  }
  const origin = c.req.header('origin');
  if (origin !== undefined) {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    if (host === null || host !== (c.req.header('host') ?? new URL(c.req.url).host))
      throw new InferlensError('permission_denied', `cross-origin request refused (Origin: ${origin.slice(0, 200)})`);
  }
  const mime = mimeOf(c.req.header('content-type'));
  const hasBody = c.req.method === 'POST' || (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
  const accepts = route.accepts ?? JSON_TYPES;
  if (hasBody && !accepts.includes(mime)) {
    throw new InferlensError(
      'unsupported_media_type',
      `${c.req.method} ${route.path} takes Content-Type ${accepts.join(' or ')}${mime ? `, not ${mime}` : ' (none was sent)'}`,
    );
  }
  if (caller?.via === 'session') {
    const token = c.req.header(CSRF_HEADER) ?? '';
    if (!sameToken(token, caller.session!.csrfToken))
      throw new InferlensError('permission_denied', `missing or wrong ${CSRF_HEADER} header: the dashboard sends the token of its session with every change`);
  }
}

/** The middleware in front of one route. */
export function guard(route: Route, d: GuardDeps): MiddlewareHandler<ApiEnv> {
  const state = changesState(route);
  return async (c, next) => {
    const caller = identify(c, d, route.access !== 'public');
    if (state) checkStateChange(c, route, caller);
    if (route.access !== 'public') {
      if (!caller)
        throw new InferlensError(
          'unauthenticated',
          'this server needs an API key: send Authorization: Bearer <key> (create one with `inferlens keys create`), or sign in on the dashboard',
        );
      if (!roleAllows(caller.principal.role, route.access)) {
        throw new InferlensError(
          'permission_denied',
          `key "${caller.principal.name}" has role ${caller.principal.role}; ${route.method} ${route.path} needs ${route.access}`,
        );
      }
    }
    if (caller) {
      const scope = scopeOf(caller.principal);
      c.set('principal', caller.principal);
      c.set('via', caller.via);
      c.set('scope', scope);
      c.set('session', caller.session);
      if (route.access !== 'public') c.set('reads', d.reads(scope));
    }
    await next();
    // The principal after the handler: signing in sets it.
    const principal = c.get('principal') ?? caller?.principal;
    if (route.audit && principal && c.res.status < 400) {
      const note = c.get('audit');
      const entry: AuditEntry = {
        ts: new Date(d.now()).toISOString(),
        action: route.audit,
        route: `${route.method} ${route.path}`,
        principal,
        via: c.get('via') ?? caller?.via ?? 'anonymous',
        target: note?.target ?? null,
        tenants: note?.tenants !== undefined ? (note.tenants === null ? null : [...note.tenants]) : principal.tenants === null ? null : [...principal.tenants],
        ...(note?.details ? { details: note.details } : {}),
        remote: remoteOf(c),
        user_agent: c.req.header('user-agent')?.slice(0, 256) ?? null,
        status: c.res.status,
      };
      try {
        d.audit.append(entry);
      } catch (e) {
        d.logger.error({ err: e, action: entry.action }, 'the audit log could not be written');
      }
    }
  };
}
