/**
 * Time for the alerting components: `now()` and one-shot timers. The real clock unrefs its
 * timers; the manual clock runs due timers in time order when a test advances it, so state
 * machines, group_wait and repeat intervals are tested without sleeping.
 */

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Wall-clock time; timers are unref'd so they never keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.max(0, ms)).unref(),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface ManualClock extends Clock {
  /** Moves time forward by ms, running every timer that falls due, in order, at its due time. */
  advance(ms: number): void;
  /** Timers not yet run. */
  pending(): number;
}

export function createManualClock(startMs: number): ManualClock {
  let nowMs = startMs;
  let seq = 0;
  const timers = new Map<number, { atMs: number; fn: () => void }>();
  return {
    now: () => nowMs,
    setTimeout(fn, ms) {
      const id = ++seq;
      timers.set(id, { atMs: nowMs + Math.max(0, ms), fn });
      return id;
    },
    clearTimeout(h) {
      timers.delete(h as number);
    },
    advance(ms) {
      const endMs = nowMs + ms;
      for (;;) {
        let next: [number, { atMs: number; fn: () => void }] | undefined;
        for (const e of timers) if (e[1].atMs <= endMs && (!next || e[1].atMs < next[1].atMs || (e[1].atMs === next[1].atMs && e[0] < next[0]))) next = e;
        if (!next) break;
        timers.delete(next[0]);
        nowMs = next[1].atMs;
        next[1].fn();
      }
      nowMs = endMs;
    },
    pending: () => timers.size,
  };
}
