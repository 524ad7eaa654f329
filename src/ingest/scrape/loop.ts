/**
 * A self-rescheduling timer: runs `task`, waits what is left of the interval, runs it again. Runs
 * never overlap, a failing task never stops the loop (the task records its own errors), and
 * `stop()` is idempotent and waits for the run in flight.
 */
export interface Loop {
  start(): void;
  stop(): Promise<void>;
  /** Runs the task now (or joins the run in flight). */
  runOnce(): Promise<void>;
}

export function createLoop(task: () => Promise<void>, intervalMs: number): Loop {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<void> | undefined;
  let started = false;
  let stopping: Promise<void> | undefined;

  const runOnce = (): Promise<void> => {
    if (running) return running;
    running = task()
      .catch(() => {})
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const tick = (): void => {
    if (stopping) return;
    const begin = performance.now();
    void runOnce().then(() => {
      if (stopping) return;
      timer = setTimeout(tick, Math.max(0, intervalMs - (performance.now() - begin)));
      timer.unref?.();
    });
  };
  return {
    start() {
      if (started || stopping) return;
      started = true;
      tick();
    },
    stop() {
      stopping ??= (async () => {
        if (timer) clearTimeout(timer);
        timer = undefined;
        if (running) await running;
      })();
      return stopping;
    },
    runOnce,
  };
}
