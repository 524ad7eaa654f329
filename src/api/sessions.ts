/**
 * Dashboard sessions: `POST /v1/session` exchanges an API key for a random session id in an
 * HttpOnly, SameSite=Strict cookie, plus a CSRF token the page keeps in memory and sends as
 * `X-CSRF-Token` on every state change. Sessions live in memory (a restart signs everyone out),
 * expire after `ttlMs`, end when their key is revoked, and are bounded (the oldest go first).
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../schema/index.ts';

export const SESSION_COOKIE = 'inferlens_session';
export const CSRF_HEADER = 'x-csrf-token';

export interface Session {
  id: string;
  principal: Principal;
  csrfToken: string;
  createdMs: number;
  expiresMs: number;
}

export interface Sessions {
  create(principal: Principal): Session;
  /** The live session with this id, or undefined (unknown, expired). */
  get(id: string): Session | undefined;
  delete(id: string): void;
}

export interface SessionsOptions {
  ttlMs: number;
  /** Most sessions kept (default 10,000); the oldest go first. */
  max?: number;
  now?: () => number;
}

export function createSessions(o: SessionsOptions): Sessions {
  const now = o.now ?? Date.now;
  const max = o.max ?? 10_000;
  // Insertion order is creation order: the first entry is the oldest.
  const items = new Map<string, Session>();
  return {
    create(principal) {
      const t = now();
      while (items.size >= max) items.delete(items.keys().next().value!);
      const s: Session = {
        id: randomBytes(32).toString('base64url'),
        principal,
        csrfToken: randomBytes(32).toString('base64url'),
        createdMs: t,
        expiresMs: t + o.ttlMs,
      };
      items.set(s.id, s);
      return s;
    },
    get(id) {
      const s = items.get(id);
      if (!s) return undefined;
      if (now() >= s.expiresMs) {
        items.delete(id);
        return undefined;
      }
      return s;
    },
    delete(id) {
      items.delete(id);
    },
  };
}
