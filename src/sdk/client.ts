/**
 * The client: options → timers and the exporter. Every public method is wrapped so that nothing
 * throws into the host service; what goes wrong is counted in `stats()` and warned once.
 */
import { FeedbackSchema } from '../schema/index.ts';
import type { EventInput, Feedback } from '../schema/index.ts';
import { createExporter } from './exporter.ts';
import type { ClientStats } from './exporter.ts';
import { resolveOptions } from './options.ts';
import { RecordedEvent } from './recorded-event.ts';
import type { ClientOptions } from './options.ts';
import { startTimer } from './request-timer.ts';
import type { RequestStart, RequestTimer, TimerHost } from './request-timer.ts';

/** A ready-made event for `record()`: `ts` defaults to now, `model` and dimensions to the client's defaults. */
export type RecordInput = Omit<EventInput, 'ts' | 'model'> & { ts?: EventInput['ts']; model?: string };

/** Feedback for `feedback()`: `ts` defaults to now. */
export type FeedbackInput = Omit<Feedback, 'ts'> & { ts?: Feedback['ts'] };

/** Options of `shutdown()`. */
export interface ShutdownOptions {
  /** Time allowed to send what is buffered; rows still unsent then are dropped. Default 5000 ms. */
  timeoutMs?: number;
}

/** The SDK client. */
export interface InferlensClient {
  /** Starts timing one request; the returned timer emits one event at `end()`. */
  startRequest(init?: RequestStart): RequestTimer;
  /** Buffers a ready-made event (defaults filled in at send time; do not mutate it after). Synchronous, O(1). */
  record(event: RecordInput): void;
  /** Buffers one feedback row for `/v1/feedback`; an invalid one is warned about and counted as rejected. */
  feedback(feedback: FeedbackInput): void;
  /** Sends what is buffered now; resolves when those rows are settled (sent, retried out, or dropped). */
  flush(): Promise<void>;
  /** Counters: sent, dropped by reason, retries, rows in flight and buffered. */
  stats(): ClientStats;
  /** Stops accepting rows, sends what is buffered within the deadline, drops the rest. Idempotent. */
  shutdown(options?: ShutdownOptions): Promise<ClientStats>;
}

const DEFAULT_SHUTDOWN_TIMEOUT_MS = 5000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Creates a client. Never throws: bad options are warned about and replaced by defaults. */
export function createClient(options: ClientOptions): InferlensClient {
  const opts = resolveOptions(options);
  const { defaults, warn } = opts;
  const exporter = createExporter(opts);
  const host: TimerHost = {
    now: opts.now,
    defaults,
    capture: opts.capture,
    warn,
    emit: (row) => exporter.pushEvent(row),
  };

  return {
    startRequest: (init) => startTimer(host, init),

    record(event) {
      try {
        if (!isObject(event)) {
          warn('record:type', 'record() expects an event object; ignored (counted as dropped.rejected)');
          exporter.drop('rejected', 1);
          return;
        }
        exporter.pushEvent(new RecordedEvent(defaults, event));
      } catch (e) {
        warn('record:internal', 'internal error in record() (please report it)', { error: String(e) });
      }
    },

    feedback(feedback) {
      try {
        const parsed = FeedbackSchema.safeParse(isObject(feedback) ? { ts: Date.now(), ...feedback } : feedback);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          const path = issue?.path.map(String).join('.') ?? '';
          warn(`feedback:${path}`, `feedback() got an invalid row: ${path || 'row'}: ${issue?.message ?? 'invalid'}; dropped (counted as dropped.rejected)`);
          exporter.drop('rejected', 1);
          return;
        }
        exporter.pushFeedback(parsed.data);
      } catch (e) {
        warn('feedback:internal', 'internal error in feedback() (please report it)', { error: String(e) });
      }
    },

    flush: () => exporter.flush().catch(() => undefined),

    stats: () => exporter.stats(),

    shutdown(shutdownOptions) {
      const t = shutdownOptions?.timeoutMs;
      const timeoutMs = typeof t === 'number' && Number.isFinite(t) && t >= 0 ? t : DEFAULT_SHUTDOWN_TIMEOUT_MS;
      return exporter.shutdown(timeoutMs).catch(() => exporter.stats());
    },
  };
}
