/**
 * Actions: a firing alert whose rule names an action proposes it once per firing episode. The
 * mode decides what happens next: `dry_run` (default) only records the proposal; `approval`
 * waits for `POST /v1/actions/:id/approve`; `auto` sends at once. Sending is an HTTP POST of
 * `{ action, params, alert, incident }` (or just the params, for endpoints such as the demo's
 * `POST /admin/<action>`) through a bounded queue, without retries (actions need not be idempotent).
 * Every step (proposed, approved, rejected, sent, answered, failed) is kept in a bounded audit trail
 * and appended to a JSONL file. An action without an endpoint is recorded as `no_endpoint` when
 * proposed, never put up for approval; a proposal awaiting approval can be rejected (dismissed).
 */
import { appendFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import { BODY_EXCERPT_CHARS, createDeliveryQueue, expectSuccess, postJson } from '../notify/index.ts';
import type { DeliveryQueueStats, HttpReply } from '../notify/index.ts';
import { InferlensError } from '../schema/index.ts';
import type { Alert } from './alert-state.ts';
import type { Clock } from './clock.ts';
import type { Labels } from './labels.ts';
import type { ActionType, RuleAction } from './rule-schema.ts';
import { expandParams } from './template.ts';

export type ActionMode = 'dry_run' | 'approval' | 'auto';
export type ActionState = 'dry_run' | 'awaiting_approval' | 'approved' | 'sent' | 'answered' | 'failed' | 'no_endpoint' | 'rejected';

export interface ActionEndpoint {
  url: string;
  /** `envelope` (default): `{ action, params, alert, incident }`; `params`: the params object alone. */
  body?: 'envelope' | 'params';
  headers?: Record<string, string>;
  /** Fixed params merged under the rule's (e.g. `{ percent: 0 }` when rollback maps to the demo's set_canary). */
  params?: Record<string, string | number | boolean>;
}

export interface ActionsOptions {
  clock: Clock;
  mode?: ActionMode;
  /** Where actions go unless `endpoints` names one for that action. */
  url?: string;
  endpoints?: Partial<Record<ActionType, ActionEndpoint>>;
  timeoutMs?: number;
  /** JSONL audit file (one line per step); none: memory only. */
  auditFile?: string;
  /** Most action records kept in memory (oldest go first). */
  maxRecords?: number;
  /** Called with every audited step (proposed, approved, rejected, sent, answered, failed): the incident log. */
  onStep?: (step: string, r: ActionRecord, extra: Record<string, unknown>) => void;
  maxQueue?: number;
  logger?: Logger;
}

export interface ActionRecord {
  id: string;
  action: ActionType;
  params: Record<string, string | number | boolean>;
  alert: { alertname: string; fingerprint: string; labels: Labels; value: number; severity: string };
  incident: string | null;
  state: ActionState;
  proposedAt: string;
  approvedAt: string | null;
  approvedBy: string | null;
  /** Set when a person rejected (dismissed) the proposal: when, who, why. */
  rejectedAt?: string | null;
  rejectedBy?: string | null;
  rejectReason?: string | null;
  sentAt: string | null;
  answeredAt: string | null;
  url: string | null;
  answer: { status: number; bodyExcerpt: string } | null;
  error: string | null;
}

export interface ActionStats extends DeliveryQueueStats {
  proposedTotal: number;
  auditWriteErrorsTotal: number;
}

export interface Actions {
  /** Proposes the rule's action for a firing alert, once per episode. */
  propose(alert: Alert, action: RuleAction, incident: string | undefined): void;
  approve(id: string, by: string): ActionRecord;
  /** Dismisses a proposal awaiting approval (say, its alert resolved): never sent, kept in the audit. */
  reject(id: string, by: string, reason?: string): ActionRecord;
  list(): ActionRecord[];
  mode(): ActionMode;
  stats(): ActionStats;
  /** Resolves when queued sends and audit writes are done (tests). */
  idle(): Promise<void>;
  stop(deadlineMs: number): Promise<void>;
}

export function createActions(o: ActionsOptions): Actions {
  const mode = o.mode ?? 'dry_run';
  const maxRecords = o.maxRecords ?? 1000;
  const records = new Map<string, ActionRecord>();
  const episodes = new Set<string>();
  let seq = 0;
  let proposedTotal = 0;
  let auditWriteErrorsTotal = 0;
  let auditChain: Promise<void> = Promise.resolve();
  const iso = () => new Date(o.clock.now()).toISOString();

  const audit = (step: string, r: ActionRecord, extra: Record<string, unknown> = {}) => {
    o.onStep?.(step, r, extra);
    if (!o.auditFile) return;
    const line =
      JSON.stringify({ ts: iso(), step, id: r.id, action: r.action, state: r.state, params: r.params, alert: r.alert, incident: r.incident, ...extra }) + '\n';
    const file = o.auditFile;
    auditChain = auditChain.then(() =>
      appendFile(file, line).catch((e: unknown) => {
        if (auditWriteErrorsTotal++ === 0)
          o.logger?.warn({ err: (e as Error).message, file }, 'cannot append to the action audit file; further failures are only counted');
      }),
    );
  };

  const endpointFor = (a: ActionType): ActionEndpoint | undefined => o.endpoints?.[a] ?? (o.url ? { url: o.url } : undefined);

  const queue = createDeliveryQueue<ActionRecord>({
    maxAttempts: 1,
    maxQueue: o.maxQueue ?? 100,
    deliver: async (r, signal) => {
      const ep = endpointFor(r.action)!;
      const params = { ...ep.params, ...r.params };
      const body = ep.body === 'params' ? params : { action: r.action, params, alert: r.alert, incident: r.incident };
      r.state = 'sent';
      r.sentAt = iso();
      r.url = ep.url;
      audit('sent', r, { url: ep.url });
      let reply: HttpReply;
      try {
        reply = await postJson(ep.url, JSON.stringify(body), { timeoutMs: o.timeoutMs ?? 10_000, signal, ...(ep.headers && { headers: ep.headers }) });
      } catch (e) {
        r.state = 'failed';
        r.error = (e as Error).message.slice(0, BODY_EXCERPT_CHARS);
        audit('failed', r, { error: r.error });
        throw e;
      }
      r.answeredAt = iso();
      r.answer = reply;
      r.state = reply.status >= 200 && reply.status < 300 ? 'answered' : 'failed';
      if (r.state === 'failed') r.error = `endpoint answered ${reply.status}`;
      audit(r.state === 'answered' ? 'answered' : 'failed', r, { status: reply.status, bodyExcerpt: reply.bodyExcerpt });
      expectSuccess(ep.url, reply);
    },
  });

  const send = (r: ActionRecord) => {
    if (!endpointFor(r.action)) {
      r.state = 'no_endpoint';
      r.error = `no endpoint for ${r.action}: set alerting.actions.url or alerting.actions.endpoints.${r.action}`;
      audit('failed', r, { error: r.error });
      return;
    }
    queue.push(r);
  };

  return {
    propose(alert, action, incident) {
      const episode = `${alert.fingerprint}@${alert.firedAtMs ?? alert.activeAtMs}`;
      if (episodes.has(episode)) return;
      episodes.add(episode);
      if (episodes.size > maxRecords * 2) episodes.delete(episodes.values().next().value as string);
      proposedTotal++;
      const r: ActionRecord = {
        id: `act-${o.clock.now().toString(36)}-${(++seq).toString(36)}`,
        action: action.type,
        params: expandParams(action.params, { labels: alert.labels, value: alert.value }),
        alert: { alertname: alert.alertname, fingerprint: alert.fingerprint, labels: alert.labels, value: alert.value, severity: alert.severity },
        incident: incident ?? null,
        // An action nobody can execute is never put up for approval: it is recorded as such.
        state: mode === 'dry_run' ? 'dry_run' : !endpointFor(action.type) ? 'no_endpoint' : mode === 'approval' ? 'awaiting_approval' : 'approved',
        proposedAt: iso(),
        approvedAt: mode === 'auto' ? iso() : null,
        approvedBy: mode === 'auto' ? 'auto' : null,
        sentAt: null,
        answeredAt: null,
        url: null,
        answer: null,
        error: null,
      };
      if (r.state === 'no_endpoint') r.error = `no endpoint for ${r.action}: set alerting.actions.url or alerting.actions.endpoints.${r.action}`;
      records.set(r.id, r);
      if (records.size > maxRecords) records.delete(records.keys().next().value as string);
      audit('proposed', r, { mode, ...(r.error ? { error: r.error } : {}) });
      if (r.state === 'no_endpoint') return;
      if (mode === 'auto') {
        audit('approved', r, { by: 'auto' });
        send(r);
      }
    },
    approve(id, by) {
      const r = records.get(id);
      if (!r) throw new InferlensError('not_found', `no action ${id}: GET /v1/actions lists them`);
      if (mode === 'dry_run')
        throw new InferlensError('invalid_argument', 'actions run in dry-run mode: set alerting.actions.mode to approval (or auto) to send them');
      if (r.state !== 'awaiting_approval') throw new InferlensError('invalid_argument', `action ${id} is ${r.state}, not awaiting approval`);
      r.state = 'approved';
      r.approvedAt = iso();
      r.approvedBy = by;
      audit('approved', r, { by });
      send(r);
      return r;
    },
    reject(id, by, reason) {
      const r = records.get(id);
      if (!r) throw new InferlensError('not_found', `no action ${id}: GET /v1/actions lists them`);
      if (r.state !== 'awaiting_approval') throw new InferlensError('invalid_argument', `action ${id} is ${r.state}, not awaiting approval`);
      r.state = 'rejected';
      r.rejectedAt = iso();
      r.rejectedBy = by;
      r.rejectReason = reason ?? null;
      audit('rejected', r, { by, ...(reason ? { reason } : {}) });
      return r;
    },
    list: () => [...records.values()].reverse(),
    mode: () => mode,
    stats: () => ({ ...queue.stats(), proposedTotal, auditWriteErrorsTotal }),
    async idle() {
      await queue.idle();
      await auditChain;
    },
    async stop(deadlineMs) {
      await queue.stop(deadlineMs);
      await auditChain;
    },
  };
}
