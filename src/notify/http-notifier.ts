/** A Notifier that turns each batch into one HTTP POST, delivered through a bounded retrying queue. */
import type { Logger } from 'pino';
import { createDeliveryQueue } from './delivery-queue.ts';
import type { DeliveryQueueOptions } from './delivery-queue.ts';
import { expectSuccess, postJson } from './http.ts';
import type { NotificationBatch, Notifier } from './types.ts';

/** Queue and retry settings shared by every HTTP receiver: the queue's own, plus a request timeout. */
export type DeliveryOptions = Pick<DeliveryQueueOptions<unknown>, 'maxQueue' | 'maxAttempts' | 'initialBackoffMs' | 'maxBackoffMs' | 'timers' | 'random'> & {
  timeoutMs?: number;
  logger?: Logger;
};

/** The queue settings a receiver's options carry (those given). */
export function queueSettings(
  o: DeliveryOptions,
): Partial<Pick<DeliveryQueueOptions<unknown>, 'maxQueue' | 'maxAttempts' | 'initialBackoffMs' | 'maxBackoffMs' | 'timers' | 'random'>> {
  return {
    ...(o.maxQueue !== undefined && { maxQueue: o.maxQueue }),
    ...(o.maxAttempts !== undefined && { maxAttempts: o.maxAttempts }),
    ...(o.initialBackoffMs !== undefined && { initialBackoffMs: o.initialBackoffMs }),
    ...(o.maxBackoffMs !== undefined && { maxBackoffMs: o.maxBackoffMs }),
    ...(o.timers && { timers: o.timers }),
    ...(o.random && { random: o.random }),
  };
}

export interface HttpRequestParts {
  url: string;
  body: string;
  headers?: Record<string, string>;
}

export function createHttpNotifier(
  name: string,
  accepts: NotificationBatch['kind'],
  toRequest: (batch: NotificationBatch) => HttpRequestParts,
  o: DeliveryOptions,
): Notifier & { idle(): Promise<void> } {
  const timeoutMs = o.timeoutMs ?? 10_000;
  // One warn line per run of failures, not per batch: reset by the next success.
  let warned = false;
  const queue = createDeliveryQueue<NotificationBatch>({
    deliver: async (batch, signal) => {
      const req = toRequest(batch);
      expectSuccess(req.url, await postJson(req.url, req.body, { timeoutMs, signal, ...(req.headers ? { headers: req.headers } : {}) }));
      warned = false;
    },
    ...queueSettings(o),
    onGiveUp: (err) => {
      if (warned) return;
      warned = true;
      o.logger?.warn({ receiver: name, err: (err as Error).message }, 'notification dropped after retries; further failures are only counted');
    },
  });
  return {
    name,
    accepts,
    send(batch) {
      queue.push(batch);
    },
    // Nothing to start: the queue delivers as soon as a batch is pushed.
    start() {},
    stop: (deadlineMs = 5_000) => queue.stop(deadlineMs),
    stats: () => ({ name, ...queue.stats() }),
    idle: () => queue.idle(),
  };
}
