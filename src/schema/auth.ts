/**
 * Who calls: principals, their roles, what each role may do, and the read scope a principal
 * carries. `src/api` authenticates a request into a `Principal`; every read is then scoped by
 * `scopeOf(principal)` in one place (the Store decorator main.ts wires in), and every state change
 * is attributed to the principal, never to a body field.
 */
import { z } from 'zod';

/**
 * - `ingest`: write events, feedback, resource samples, OTLP;
 * - `read`: every query, analysis, alert, incident, audit and dashboard read;
 * - `operate`: `read` plus silences, approvals, golden sets and probe runs, backtests;
 * - `admin`: everything;
 * - `metrics`: only `GET /metrics` (a Prometheus scrape key).
 */
export const ROLES = ['ingest', 'read', 'operate', 'admin', 'metrics'] as const;
export type Role = (typeof ROLES)[number];

/** What a route needs from its caller. */
export const PERMISSIONS = ['ingest', 'read', 'operate', 'admin', 'metrics'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The permissions of each role. */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  ingest: ['ingest'],
  read: ['read'],
  operate: ['read', 'operate'],
  admin: ['ingest', 'read', 'operate', 'admin', 'metrics'],
  metrics: ['metrics'],
};

export function roleAllows(role: Role, permission: Permission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}

export interface Principal {
  /** The key id (`k_…`), or `anonymous` when the server has no keys (loopback only). */
  id: string;
  /** The key's human name, given at `inferlens keys create --name`. */
  name: string;
  role: Role;
  /** The tenants this principal may read and write; null: every tenant. */
  tenants: readonly string[] | null;
}

/**
 * Which tenants a read may see; null: all. A scoped read sees only rows whose `tenant` is in the
 * list: events, samples, feedback joined to them, alerts and incidents labelled with the tenant,
 * verdicts computed from them. Rows without a tenant (resource samples, fleet-wide alerts) are
 * outside every scope.
 */
export interface ReadScope {
  tenants: readonly string[] | null;
}

export const unscoped: ReadScope = { tenants: null };

export function scopeOf(p: Principal): ReadScope {
  return p.tenants === null ? unscoped : { tenants: p.tenants };
}

/** Whether a row (or alert) with this tenant is inside the scope. */
export function tenantAllowed(scope: ReadScope, tenant: unknown): boolean {
  return scope.tenants === null || (typeof tenant === 'string' && scope.tenants.includes(tenant));
}

/** One stored API key (the keys file, `server.keys`): its hash, never the key itself. */
export const KeyRecordSchema = z
  .object({
    /** 12 hex digits: the `<id>` of `ilk_<id>_<secret>`. */
    id: z.string().regex(/^[0-9a-f]{12}$/),
    name: z.string().min(1).max(128),
    role: z.enum(ROLES),
    /** The tenants this key may read and write; absent or null: every tenant. */
    tenants: z.array(z.string().min(1).max(256)).min(1).max(1000).nullable().default(null),
    /** SHA-256 of the whole key, hex. */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    created_at: z.string().max(64).optional(),
  })
  .strict();
export type KeyRecord = z.output<typeof KeyRecordSchema>;
