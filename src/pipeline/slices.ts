/**
 * Big inputs are worked on in slices with a turn of the event loop between them, so that one
 * request never holds the loop for long (a 16 MiB body is up to ~300,000 rows): other requests,
 * health checks and timers run in between. The slice sizes are counts, not clock readings, so the
 * work done is the same on every run.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Rows validated between two turns of the event loop: ~2–5 ms of work on this machine. */
export const ROWS_PER_SLICE = 2000;

/** Characters of a body parsed between two turns of the event loop (1 Mi: ~5–10 ms of JSON.parse). */
export const CHARS_PER_SLICE = 1 << 20;

/** Lets the event loop run other work, then resumes. */
export function yieldToLoop(): Promise<void> {
  return nextTurn();
}
