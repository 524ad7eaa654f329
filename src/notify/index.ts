/** Notifications: receivers behind the Notifier seam, each with a bounded retrying queue. */
export type { AlertNotification, NotificationBatch, Notifier, NotifierStats, Tier } from './types.ts';
/** Webhook receiver: Alertmanager-shaped JSON per incident, HMAC-SHA256 signed when given a secret. */
export { createWebhookNotifier, webhookPayload } from './webhook.ts';
export type { WebhookOptions } from './webhook.ts';
/** Alertmanager API v2 receiver (`POST /api/v2/alerts`). */
export { createAlertmanagerNotifier, postableAlert } from './alertmanager.ts';
export type { AlertmanagerOptions } from './alertmanager.ts';
/** Queue and retry settings of the HTTP receivers. */
export type { DeliveryOptions } from './http-notifier.ts';
/** `sha256=<hex>` body signature, its header name, and a constant-time check for receivers. */
export { signBody, verifySignature, SIGNATURE_HEADER } from './signature.ts';
/** Bounded FIFO with one delivery in flight, exponential back-off and counters (also used for actions). */
export { createDeliveryQueue, REAL_TIMERS } from './delivery-queue.ts';
export type { DeliveryQueue, DeliveryQueueOptions, DeliveryQueueStats, DeliveryTimers } from './delivery-queue.ts';
/** One JSON POST with a timeout; DeliveryError says whether to retry. */
export { postJson, expectSuccess, DeliveryError, BODY_EXCERPT_CHARS } from './http.ts';
export type { HttpReply, PostOptions } from './http.ts';
/** The scheduled review through a webhook receiver: Markdown as `text`, the same queue, retries and signature. */
export { createReportWebhook, reportPayload } from './report-webhook.ts';
export type { ReportMessage, ReportWebhook } from './report-webhook.ts';
