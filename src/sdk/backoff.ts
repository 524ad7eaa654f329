/**
 * Retry timing: exponential back-off with full jitter (AWS architecture blog, "Exponential Backoff
 * and Jitter"), and the server's `Retry-After`, which wins when present.
 */

/** A `Retry-After` above this is treated as this: a bad header must not park the exporter for hours. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * The wait before retry number `attempt` (0 = the first retry): uniform in [0, cap) where
 * cap = min(maxMs, initialMs · 2^attempt). With initial 100 ms, max 10 s: caps 100, 200, 400, 800,
 * 1600 ms …, reaching 10 s at the 8th retry.
 */
export function backoffDelayMs(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const capMs = Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
  return random() * capMs;
}

/**
 * Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date. Returns milliseconds,
 * clamped to [0, MAX_RETRY_AFTER_MS], or undefined when absent or unreadable. Fractional seconds
 * are accepted (some proxies send them).
 */
export function parseRetryAfterMs(header: string | null, nowMs: number = Date.now()): number | undefined {
  if (header == null) return undefined;
  const text = header.trim();
  if (text === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) ms = Number(text) * 1000;
  else {
    // An HTTP-date starts with the day name ("Thu, 01 Jan 2026 …"); Date.parse alone reads "-3" as a year.
    const at = /^[A-Za-z]{3},/.test(text) ? Date.parse(text) : Number.NaN;
    if (!Number.isFinite(at)) return undefined;
    ms = at - nowMs;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
