/**
 * A bounded FIFO with one delivery in flight, retries with exponential back-off and counters.
 * `push` never waits: when the queue is full the oldest item is dropped (the newest state of an
 * alert matters more than an old one) and counted. Back-off before attempt a (a ≥ 2) is
 *   min(maxBackoffMs, initialBackoffMs · 2^(a−2)) · (0.5 + 0.5·random())
 * so with 500 ms and 5 attempts: ~0.25–0.5, 0.5–1, 1–2, 2–4 s between tries.
 */
import { DeliveryError } from './http.ts';

export interface DeliveryTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Real timers, unref'd so a pending retry never keeps the process alive. */
export const REAL_TIMERS: DeliveryTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface DeliveryQueueOptions<T> {
  /** Delivers one item; a DeliveryError with retryable = false (or any other error) is not retried. */
  deliver(item: T, signal: AbortSignal): Promise<void>;
  maxQueue?: number;
  /** Attempts per item including the first (1 = no retries). */
  maxAttempts?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  timers?: DeliveryTimers;
  random?: () => number;
  /** Called once per item given up (for one warn line per failure burst, not per item). */
  onGiveUp?(error: unknown, item: T): void;
}

export interface DeliveryQueueStats {
  sentTotal: number;
  retriesTotal: number;
  failedTotal: number;
  droppedTotal: number;
  queued: number;
}

export interface DeliveryQueue<T> {
  push(item: T): void;
  /** Resolves when the queue is empty and nothing is in flight (tests, flush at stop). */
  idle(): Promise<void>;
  stop(deadlineMs: number): Promise<void>;
  stats(): DeliveryQueueStats;
}

export function createDeliveryQueue<T>(o: DeliveryQueueOptions<T>): DeliveryQueue<T> {
  const maxQueue = o.maxQueue ?? 1000;
  const maxAttempts = o.maxAttempts ?? 5;
  const initialBackoffMs = o.initialBackoffMs ?? 500;
  const maxBackoffMs = o.maxBackoffMs ?? 30_000;
  const timers = o.timers ?? REAL_TIMERS;
  const random = o.random ?? Math.random;
  const queue: T[] = [];
  const stats = { sentTotal: 0, retriesTotal: 0, failedTotal: 0, droppedTotal: 0 };
  const abort = new AbortController();
  let running = false;
  let stopped = false;
  let waiters: (() => void)[] = [];
  let sleeping: { handle: unknown; wake: () => void } | undefined;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const wake = () => {
        sleeping = undefined;
        resolve();
      };
      sleeping = { handle: timers.setTimeout(wake, ms), wake };
    });

  async function deliverWithRetry(item: T): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await o.deliver(item, abort.signal);
        stats.sentTotal++;
        return;
      } catch (e) {
        const retryable = e instanceof DeliveryError && e.retryable;
        if (!retryable || attempt >= maxAttempts || abort.signal.aborted) {
          stats.failedTotal++;
          o.onGiveUp?.(e, item);
          return;
        }
        stats.retriesTotal++;
        const backoffMs = Math.min(maxBackoffMs, initialBackoffMs * 2 ** (attempt - 1)) * (0.5 + 0.5 * random());
        await sleep(backoffMs);
        if (abort.signal.aborted) {
          stats.failedTotal++;
          return;
        }
      }
    }
  }

  async function drain(): Promise<void> {
    running = true;
    try {
      while (queue.length > 0 && !abort.signal.aborted) await deliverWithRetry(queue.shift() as T);
    } finally {
      running = false;
      if (queue.length === 0 || abort.signal.aborted) {
        const w = waiters;
        waiters = [];
        for (const r of w) r();
      }
    }
  }

  return {
    push(item) {
      if (stopped) {
        stats.droppedTotal++;
        return;
      }
      if (queue.length >= maxQueue) {
        queue.shift();
        stats.droppedTotal++;
      }
      queue.push(item);
      if (!running) void drain();
    },
    idle() {
      if (!running && queue.length === 0) return Promise.resolve();
      return new Promise<void>((r) => waiters.push(r));
    },
    async stop(deadlineMs) {
      if (stopped) return this.idle();
      stopped = true;
      // Give what is queued until the deadline, then abort the request in flight and drop the rest.
      let timer: unknown;
      const deadline = new Promise<void>((r) => (timer = timers.setTimeout(r, deadlineMs)));
      await Promise.race([this.idle(), deadline]);
      timers.clearTimeout(timer);
      if (running || queue.length > 0) {
        stats.droppedTotal += queue.length;
        queue.length = 0;
        abort.abort();
        if (sleeping) {
          timers.clearTimeout(sleeping.handle);
          sleeping.wake();
        }
        await this.idle();
      }
    },
    stats: () => ({ ...stats, queued: queue.length }),
  };
}
