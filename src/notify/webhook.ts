/**
 * Webhook receiver: one JSON POST per incident notification, in the Alertmanager webhook shape
 * (version "4": groupKey, status, receiver, groupLabels, commonLabels, commonAnnotations,
 * externalURL, alerts) plus an `inferlens` block (incident id, tier, reason). With a secret, the
 * body is signed: `X-Inferlens-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 */
import { createHttpNotifier } from './http-notifier.ts';
import type { DeliveryOptions } from './http-notifier.ts';
import { SIGNATURE_HEADER, signBody } from './signature.ts';
import type { AlertNotification, NotificationBatch, Notifier, Tier } from './types.ts';

export interface WebhookOptions extends DeliveryOptions {
  name?: string;
  url: string;
  /** HMAC key; without one the body is sent unsigned. */
  secret?: string;
  /** Which tiers this receiver takes (default both). */
  tiers?: readonly Tier[];
  /** Link back to inferlens, e.g. http://127.0.0.1:7070 */
  externalUrl?: string;
  /** Most alerts per message; the rest are counted in truncatedAlerts (0 = all). */
  maxAlerts?: number;
}

/** Labels (or annotations) with the same value in every alert. */
function common(alerts: readonly AlertNotification[], key: 'labels' | 'annotations'): Record<string, string> {
  const [first, ...rest] = alerts;
  if (!first) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(first[key])) if (rest.every((a) => a[key][k] === v)) out[k] = v;
  return out;
}

/** The webhook body of an incident batch. */
export function webhookPayload(batch: Extract<NotificationBatch, { kind: 'incident' }>, receiver: string, externalUrl: string, maxAlerts = 0) {
  const alerts = maxAlerts > 0 ? batch.alerts.slice(0, maxAlerts) : batch.alerts;
  return {
    version: '4',
    groupKey: batch.groupKey,
    truncatedAlerts: batch.alerts.length - alerts.length,
    status: batch.status,
    receiver,
    groupLabels: batch.groupLabels,
    commonLabels: common(batch.alerts, 'labels'),
    commonAnnotations: common(batch.alerts, 'annotations'),
    externalURL: externalUrl,
    alerts,
    inferlens: { incidentId: batch.incidentId, tier: batch.tier, reason: batch.reason },
  };
}

export function createWebhookNotifier(o: WebhookOptions): Notifier & { idle(): Promise<void> } {
  const name = o.name ?? 'webhook';
  const tiers = new Set(o.tiers ?? ['page', 'ticket']);
  const inner = createHttpNotifier(
    name,
    'incident',
    (batch) => {
      if (batch.kind !== 'incident') throw new Error('webhook takes incident batches');
      const body = JSON.stringify(webhookPayload(batch, name, o.externalUrl ?? '', o.maxAlerts));
      return { url: o.url, body, ...(o.secret ? { headers: { [SIGNATURE_HEADER]: signBody(o.secret, body) } } : {}) };
    },
    o,
  );
  return {
    ...inner,
    send(batch) {
      if (batch.kind === 'incident' && tiers.has(batch.tier)) inner.send(batch);
    },
  };
}
