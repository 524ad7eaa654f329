/**
 * The timers the exporter waits with: back-off before a retry, each request's timeout, the
 * shutdown deadline. The `timers` option replaces them (tests inject timers they run themselves, so
 * they assert the wait the exporter asked for instead of measuring it); by default the global ones.
 */

/** A `setTimeout`/`clearTimeout` pair; the handle is whatever `setTimeout` returns. */
export interface SdkTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The global timers. */
export const REAL_TIMERS: SdkTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Lets a timer not keep the process alive, when its handle can (a Node timer); other handles are left alone. */
export function unrefTimer(handle: unknown): void {
  if (typeof handle === 'object' && handle !== null && typeof (handle as { unref?: unknown }).unref === 'function') (handle as { unref(): void }).unref();
}
