/**
 * The scheduled review through a webhook receiver: the same receiver entry (url, secret, timeout,
 * queue and retry settings), the same bounded retrying queue and body signature as incident
 * notifications, one POST per review. Its `text` is the review's Markdown — the field Slack-,
 * Mattermost- and Rocket.Chat-style incoming webhooks post as the message — and an `inferlens`
 * block says which schedule and period it is.
 */
import { createDeliveryQueue } from './delivery-queue.ts';
import type { DeliveryQueueStats } from './delivery-queue.ts';
import { queueSettings } from './http-notifier.ts';
import type { DeliveryOptions } from './http-notifier.ts';
import { expectSuccess, postJson } from './http.ts';
import { SIGNATURE_HEADER, signBody } from './signature.ts';

/** One scheduled review. */
export interface ReportMessage {
  schedule: string;
  period: { from: string; to: string };
  markdown: string;
}

export interface ReportWebhook {
  readonly name: string;
  /** Enqueues; never throws, never waits (a full queue drops the oldest, counted). */
  send(m: ReportMessage): void;
  stop(deadlineMs?: number): Promise<void>;
  idle(): Promise<void>;
  stats(): DeliveryQueueStats & { name: string };
}

/** The body of one review. */
export function reportPayload(m: ReportMessage, receiver: string) {
  return { text: m.markdown, receiver, inferlens: { kind: 'report', schedule: m.schedule, period_from: m.period.from, period_to: m.period.to } };
}

export function createReportWebhook(o: DeliveryOptions & { name: string; url: string; secret?: string }): ReportWebhook {
  const timeoutMs = o.timeoutMs ?? 10_000;
  const queue = createDeliveryQueue<ReportMessage>({
    deliver: async (m, signal) => {
      const body = JSON.stringify(reportPayload(m, o.name));
      expectSuccess(
        o.url,
        await postJson(o.url, body, { timeoutMs, signal, ...(o.secret ? { headers: { [SIGNATURE_HEADER]: signBody(o.secret, body) } } : {}) }),
      );
    },
    ...queueSettings(o),
    onGiveUp: (err) => o.logger?.warn({ receiver: o.name, err: (err as Error).message }, 'scheduled review dropped after retries'),
  });
  return {
    name: o.name,
    send: (m) => queue.push(m),
    stop: (deadlineMs = 5_000) => queue.stop(deadlineMs),
    idle: () => queue.idle(),
    stats: () => ({ name: o.name, ...queue.stats() }),
  };
}
