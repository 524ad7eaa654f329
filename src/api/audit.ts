/**
 * The audit log of every state change made through the API (silences, approvals, golden sets,
 * probe runs, sign-in and sign-out): who (the principal), what (action, route, target), when, from
 * where (remote address, user agent). Appended to `<data>/audit.jsonl` one JSON line at a time
 * and fsynced before the reply, so an acknowledged change has its entry on disk; the file is never
 * rewritten. Ingest is not audited per batch (it is counted in /metrics).
 *
 * `GET /v1/audit` answers from the newest `maxInMemory` entries (loaded from the file at start).
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Principal, ReadScope } from '../schema/index.ts';

export interface AuditEntry {
  ts: string;
  /** What happened, e.g. `silence.create`, `action.approve`, `session.create`. */
  action: string;
  /** The route, e.g. `POST /v1/silences`. */
  route: string;
  principal: Principal;
  /** How the caller proved who it is. */
  via: 'key' | 'session' | 'anonymous';
  /** The id of what changed (a silence, an action, a golden set), when there is one. */
  target: string | null;
  /** The tenants the change concerns; null: fleet-wide. A tenant-scoped reader sees only its own. */
  tenants: string[] | null;
  details?: Record<string, unknown>;
  remote: string | null;
  user_agent: string | null;
  status: number;
}

export interface AuditQuery {
  fromMs?: number | undefined;
  toMs?: number | undefined;
  limit: number;
  action?: string | undefined;
}

export interface AuditLog {
  /** Appends and fsyncs (when a file is set); throws when the file cannot be written. */
  append(entry: AuditEntry): void;
  /** Newest first, within the scope. */
  list(q: AuditQuery, scope: ReadScope): AuditEntry[];
  close(): void;
}

export interface AuditLogOptions {
  /** JSONL file; none: memory only (tests, `:memory:` data). */
  file?: string;
  /** Newest entries kept for `list` (default 10,000). */
  maxInMemory?: number;
}

function visible(e: AuditEntry, scope: ReadScope): boolean {
  if (scope.tenants === null) return true;
  return e.tenants !== null && e.tenants.length > 0 && e.tenants.every((t) => scope.tenants!.includes(t));
}

export function createAuditLog(o: AuditLogOptions = {}): AuditLog {
  const max = o.maxInMemory ?? 10_000;
  let entries: AuditEntry[] = [];
  let fd: number | undefined;
  if (o.file) {
    if (existsSync(o.file)) {
      for (const line of readFileSync(o.file, 'utf8').split('\n')) {
        if (!line) continue;
        try {
          entries.push(JSON.parse(line) as AuditEntry);
        } catch {
          // A torn last line (a crash mid-write) is skipped; the next append starts a new line.
        }
      }
      entries = entries.slice(-max);
    }
    mkdirSync(dirname(o.file), { recursive: true });
    fd = openSync(o.file, 'a', 0o600);
  }
  return {
    append(entry) {
      if (fd !== undefined) {
        writeSync(fd, '\n' + JSON.stringify(entry));
        fsyncSync(fd);
      }
      entries.push(entry);
      if (entries.length > max) entries = entries.slice(-max);
    },
    list(q, scope) {
      const out: AuditEntry[] = [];
      for (let i = entries.length - 1; i >= 0 && out.length < q.limit; i--) {
        const e = entries[i]!;
        const t = Date.parse(e.ts);
        if (q.fromMs !== undefined && t < q.fromMs) continue;
        if (q.toMs !== undefined && t >= q.toMs) continue;
        if (q.action !== undefined && e.action !== q.action) continue;
        if (visible(e, scope)) out.push(e);
      }
      return out;
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}
