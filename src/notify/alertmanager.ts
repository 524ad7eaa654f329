/**
 * Alertmanager API v2 receiver: `POST <url>/api/v2/alerts` with a JSON array of postable alerts
 * (labels, annotations, startsAt, endsAt, generatorURL), as in the v2 OpenAPI spec. Alertmanager
 * expects clients to re-send firing alerts before their endsAt and resolved ones for a while after;
 * alerting does that with its resend delay (batches of kind `alerts`). Alertmanager then does its own
 * grouping, inhibition and routing.
 */
import { createHttpNotifier } from './http-notifier.ts';
import type { DeliveryOptions } from './http-notifier.ts';
import type { AlertNotification, Notifier } from './types.ts';

export interface AlertmanagerOptions extends DeliveryOptions {
  name?: string;
  /** Base URL, e.g. http://127.0.0.1:9093 (a trailing slash is fine). */
  url: string;
}

/** The postable alert of the v2 API. */
export function postableAlert(a: AlertNotification) {
  return { labels: a.labels, annotations: a.annotations, startsAt: a.startsAt, endsAt: a.endsAt, generatorURL: a.generatorURL };
}

export function createAlertmanagerNotifier(o: AlertmanagerOptions): Notifier & { idle(): Promise<void> } {
  const url = o.url.replace(/\/+$/, '') + '/api/v2/alerts';
  return createHttpNotifier(o.name ?? 'alertmanager', 'alerts', (batch) => ({ url, body: JSON.stringify(batch.alerts.map(postableAlert)) }), o);
}
