// Timers that run only when a test fires them, for components that take an injected
// `setTimeout`/`clearTimeout` pair (notify queues, the scraper, the SDK exporter). A test then
// asserts the delay a component asked for and what it does when that delay has passed, instead of
// sleeping and measuring the wall clock.

export interface HeldTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** Delays of the timers set and neither run nor cleared, in the order they were set. */
  pending(): number[];
  /** Delays of every timer ever set, in order (cleared and run ones too). */
  requested(): number[];
  /** Runs every pending timer set with this delay, in the order set; returns how many ran. */
  fire(ms: number): number;
}

export function heldTimers(): HeldTimers {
  const pending = new Map<number, { ms: number; fn: () => void }>();
  const requested: number[] = [];
  let seq = 0;
  return {
    setTimeout(fn, ms) {
      pending.set(++seq, { ms, fn });
      requested.push(ms);
      return seq;
    },
    clearTimeout(handle) {
      pending.delete(handle as number);
    },
    pending: () => [...pending.values()].map((t) => t.ms),
    requested: () => [...requested],
    fire(ms) {
      let ran = 0;
      for (const [id, t] of [...pending]) {
        if (t.ms !== ms) continue;
        pending.delete(id);
        t.fn();
        ran++;
      }
      return ran;
    },
  };
}
