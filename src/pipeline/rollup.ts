/**
 * Keeps the store's per-minute rollup (src/store/rollup.ts) up to date: every `intervalMs` it rolls
 * up the minutes that closed more than `lagMs` ago. The lag lets slightly late rows (SDK batches,
 * clock skew) land before their minute is rolled up; rows later than that still count, at the
 * price of rebuilding their minute when they are written. The first run after start backfills
 * a store that has none (ten minutes per transaction, each after reads pause), in the background: until then reads take the
 * missing minutes from raw rows.
 */
import type { Logger } from 'pino';
import type { RollupProgress, Store } from '../store/index.ts';

export interface RollupMaintainerOptions {
  store: Store;
  logger: Logger;
  intervalMs: number;
  lagMs: number;
  now?: () => number;
}

export interface RollupMaintainer {
  /** Rolls up what has closed; one run at a time (a call during a run waits for it). */
  runOnce(): Promise<RollupProgress>;
  /** Runs now in the background, then on the interval. */
  start(): void;
  /** Stops the timer and waits for a run in progress. */
  stop(): Promise<void>;
}

export function createRollupMaintainer(o: RollupMaintainerOptions): RollupMaintainer {
  const now = o.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<RollupProgress> | undefined;
  const tick = () =>
    void m.runOnce().catch((e: unknown) => {
      o.logger.warn({ err: e }, 'rollup run failed; reads use raw rows for the minutes it did not reach');
    });
  const m: RollupMaintainer = {
    runOnce() {
      running ??= (async () => {
        const t0 = Date.now();
        try {
          const r = await o.store.maintainRollup(now() - o.lagMs);
          if (r.minutes > 10)
            o.logger.info(
              { minutes: r.minutes, watermark: r.watermarkMs === null ? null : new Date(r.watermarkMs).toISOString(), ms: Date.now() - t0 },
              'rollup caught up',
            );
          return r;
        } finally {
          running = undefined;
        }
      })();
      return running;
    },
    start() {
      if (timer) return;
      tick();
      timer = setInterval(tick, o.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
  return m;
}
