/**
 * A bounded queue with a dynamic batcher in front of a pool of executors (one per model version).
 *
 * A batch starts forming when the queue is non-empty and an executor can be reserved
 * (`acquire`). It closes when it holds `maxBatchSize` items or `maxWaitMs` after it started,
 * whichever comes first, and is handed to `onBatch` with the reserved executor.
 *
 * Stage split for one item (all on one monotonic clock):
 *   queue_ms = time in the queue before its batch started forming (waiting for an executor)
 *   batch_ms = time from max(enqueued, formation start) to close (waiting for the batch to fill)
 * Example: a batch starts forming at t = 10 with item A (enqueued t = 4); B arrives at t = 12;
 * the wait window (5 ms) closes it at t = 15. A: queue 6, batch 5. B: queue 0, batch 3.
 *
 * The queue bound counts every item not yet in a closed batch; `offer` refuses when it is full.
 */
export interface Clock {
  nowMs(): number;
  /** Calls `fn` after `ms`; returns a cancel function. */
  setTimer(fn: () => void, ms: number): () => void;
}

export const realClock: Clock = {
  nowMs: () => performance.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface BatchEntry<T> {
  item: T;
  queueMs: number;
  batchMs: number;
}

export interface Batch<T> {
  entries: BatchEntry<T>[];
  closedBy: 'size' | 'wait';
}

export interface BatchSettings {
  maxBatchSize: number;
  maxWaitMs: number;
}

export interface BatcherOptions<T, S> extends BatchSettings {
  /** Items allowed in the queue (not yet in a closed batch). */
  capacity: number;
  /** Reserves an executor for a batch about to form; undefined when none is free. */
  acquire: () => S | undefined;
  onBatch: (batch: Batch<T>, slot: S) => void;
  clock?: Clock;
}

export interface Batcher<T> {
  /** Enqueues an item; false when the queue is full (the caller rejects the request). */
  offer(item: T): boolean;
  /** Tries to start a batch; call it when an executor becomes free. */
  pump(): void;
  configure(settings: Partial<BatchSettings>): void;
  settings(): BatchSettings;
  /** Items waiting (not yet in a closed batch). */
  readonly depth: number;
  /** Stops batching and returns the items that never made it into a batch. */
  drain(): T[];
}

interface Queued<T> {
  item: T;
  enqueuedMs: number;
}

export function createBatcher<T, S>(options: BatcherOptions<T, S>): Batcher<T> {
  const clock = options.clock ?? realClock;
  const settings: BatchSettings = { maxBatchSize: options.maxBatchSize, maxWaitMs: options.maxWaitMs };
  const queue: Queued<T>[] = [];
  let forming: { startMs: number; slot: S; cancel: () => void } | undefined;
  let stopped = false;

  const close = (closedBy: Batch<T>['closedBy']): void => {
    const f = forming;
    if (!f) return;
    forming = undefined;
    f.cancel();
    const closeMs = clock.nowMs();
    const taken = queue.splice(0, settings.maxBatchSize);
    const entries = taken.map((q) => ({
      item: q.item,
      queueMs: Math.max(0, f.startMs - q.enqueuedMs),
      batchMs: Math.max(0, closeMs - Math.max(q.enqueuedMs, f.startMs)),
    }));
    options.onBatch({ entries, closedBy }, f.slot);
    pump();
  };

  const pump = (): void => {
    if (stopped) return;
    if (forming) {
      if (queue.length >= settings.maxBatchSize) close('size');
      return;
    }
    if (queue.length === 0) return;
    const slot = options.acquire();
    if (slot === undefined) return;
    forming = { startMs: clock.nowMs(), slot, cancel: () => undefined };
    if (queue.length >= settings.maxBatchSize || settings.maxWaitMs <= 0) {
      close(queue.length >= settings.maxBatchSize ? 'size' : 'wait');
      return;
    }
    forming.cancel = clock.setTimer(() => close('wait'), settings.maxWaitMs);
  };

  return {
    offer(item) {
      if (stopped || queue.length >= options.capacity) return false;
      queue.push({ item, enqueuedMs: clock.nowMs() });
      pump();
      return true;
    },
    pump,
    configure(next) {
      if (next.maxBatchSize !== undefined) settings.maxBatchSize = Math.max(1, Math.floor(next.maxBatchSize));
      if (next.maxWaitMs !== undefined) settings.maxWaitMs = Math.max(0, next.maxWaitMs);
      pump();
    },
    settings: () => ({ ...settings }),
    get depth() {
      return queue.length;
    },
    drain() {
      stopped = true;
      forming?.cancel();
      forming = undefined;
      return queue.splice(0).map((q) => q.item);
    },
  };
}
