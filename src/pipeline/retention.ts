/** Deletes data older than the retention window on an interval. Never keeps data forever by accident. */
import type { Logger } from 'pino';
import type { Store } from '../store/index.ts';

export interface RetentionOptions {
  store: Store;
  logger: Logger;
  days: number;
  intervalMs: number;
  now?: () => number;
}

export interface Retention {
  /** Runs once now; returns what was deleted. */
  runOnce(): Promise<{ events: number; resources: number; feedback: number }>;
  start(): void;
  stop(): void;
}

export function createRetention(o: RetentionOptions): Retention {
  const now = o.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  const r: Retention = {
    async runOnce() {
      const deleted = await o.store.deleteBefore(now() - o.days * 86_400_000);
      if (deleted.events + deleted.resources + deleted.feedback > 0) o.logger.info({ deleted, days: o.days }, 'retention deleted old data');
      return deleted;
    },
    start() {
      if (timer) return;
      timer = setInterval(() => void r.runOnce().catch((e) => o.logger.warn({ err: e }, 'retention run failed')), o.intervalMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
  return r;
}
