/**
 * Warnings that reach the host's logger at most once per problem: the SDK runs on a hot path and
 * must never turn a recurring condition (a full buffer, a rejected field) into a log line per event.
 */

/** Where the SDK reports degraded operation. `console.warn` when not given. */
export interface SdkLogger {
  warn(msg: string, obj?: Record<string, unknown>): void;
}

/** Logs `msg` the first time `key` is seen; later calls with the same key are counted only. */
export type WarnOnce = (key: string, msg: string, obj?: Record<string, unknown>) => void;

/** Distinct problem keys remembered; past this, new problems are not logged (bounded memory). */
const MAX_KEYS = 256;

export const consoleLogger: SdkLogger = {
  warn(msg, obj) {
    if (obj === undefined) console.warn(msg);
    else console.warn(msg, obj);
  },
};

export function createWarnOnce(logger: SdkLogger): WarnOnce {
  const seen = new Set<string>();
  return (key, msg, obj) => {
    if (seen.has(key) || seen.size >= MAX_KEYS) return;
    seen.add(key);
    try {
      logger.warn(`inferlens sdk: ${msg}`, obj);
    } catch {
      // A throwing logger must not break the host: the warning is lost, nothing else.
    }
  };
}
