/**
 * What the scraper and the collectors share with the composition root: a lifecycle and a logger.
 * The logger is structurally a subset of pino's, so a pino child logger can be passed as is.
 */

/** `info` is lifecycle, `warn` is degraded or data dropped, `error` needs a human. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A background component: `start()` begins its timers; `stop()` is idempotent and resolves once in-flight work is done. */
export interface Component {
  start(): void;
  /** Resolves when in-flight work has finished or `deadlineMs` (epoch ms) has passed, whichever is first. */
  stop(deadlineMs?: number): Promise<void>;
}

/** A logger that drops everything: the default when none is given. */
export const silentLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
};
