/**
 * Who is signed in. `GET /v1/session` answers the principal (and, for a cookie session, the CSRF
 * token the page sends as `X-CSRF-Token` with every change), or 401 when the server has API keys
 * and this browser has no session: the shell then shows the sign-in form, which exchanges a key
 * for an HttpOnly session cookie (`POST /v1/session`). The key itself is never stored by the page.
 */
import { ApiError, call, get, post, useCsrfToken } from './api.ts';
import type { SessionReply } from '../../src/schema/replies.ts';

export interface Principal {
  id: string;
  name: string;
  role: string;
  tenants: string[] | null;
}

export interface SessionInfo {
  principal: Principal;
  /** key, session or anonymous (a server without keys). */
  via: string;
  keysRequired: boolean;
}

function asSession(data: SessionReply): SessionInfo {
  return {
    principal: { ...data.principal, tenants: data.principal.tenants ? [...data.principal.tenants] : null },
    via: data.via,
    keysRequired: data.keys_required,
  };
}

let csrfToken: string | null = null;
useCsrfToken(() => csrfToken);

/** The CSRF token of this page's session (sent by `call` with every change). */
export function csrf(): string | null {
  return csrfToken;
}

/** The current session, or null when the server needs a key and this browser has none. */
export async function loadSession(): Promise<SessionInfo | null> {
  try {
    const data = await get<SessionReply>('/v1/session');
    csrfToken = data.csrf_token;
    return asSession(data);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      csrfToken = null;
      return null;
    }
    throw e;
  }
}

export async function signIn(key: string): Promise<SessionInfo> {
  const data = await post<SessionReply>('/v1/session', { key });
  csrfToken = data.csrf_token;
  return asSession(data);
}

export async function signOut(): Promise<void> {
  await call('DELETE', '/v1/session');
  csrfToken = null;
}

/** `name · role · tenants` for the header. */
export function describePrincipal(s: SessionInfo): string {
  const p = s.principal;
  if (s.via === 'anonymous') return 'open server (no API keys)';
  return `${p.name} · ${p.role}${p.tenants ? ` · ${p.tenants.join(', ')}` : ''}`;
}
