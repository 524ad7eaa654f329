/**
 * Live feedback: answered requests of the traffic generator are planned with `planFeedback` and
 * held until their arrival time, then sent through the SDK (`client.feedback` → `POST /v1/feedback`).
 * Pending rows are bounded (`maxPending`, excess counted in `dropped`); what is still pending at
 * `stop()` never arrives, as feedback of a switched-off product would not.
 */
import type { Feedback } from '../../src/schema/index.ts';
import type { InferlensClient } from '../../src/sdk/index.ts';
import { createRandom } from '../model/index.ts';
import type { Label } from '../model/index.ts';
import { DEFAULT_FEEDBACK_POLICY, planFeedback } from './policy.ts';
import type { FeedbackPolicy } from './policy.ts';

/** A finished request, as the feedback sender observes it (the traffic generator's result). */
export interface ObservedRequest {
  requestId: string;
  tsMs: number;
  tenant: string;
  entry: string;
  truth: Label;
  drift: boolean;
  /** 0 when the request failed before a reply (connection error, timeout). */
  httpStatus: number;
  label?: Label;
  modelVersion?: string;
  latencyMs: number;
}

export interface FeedbackOptions {
  client: Pick<InferlensClient, 'feedback'>;
  policy?: FeedbackPolicy;
  /** Multiplies every delay (compressed runs). Default 1. */
  timeScale?: number;
  maxPending?: number;
  tickMs?: number;
  seed?: number;
  now?: () => number;
}

export interface FeedbackStats {
  planned: number;
  sent: number;
  pending: number;
  dropped: number;
  /** Sent rows by kind and value, e.g. `correct:false`. */
  byKindValue: Record<string, number>;
}

export interface FeedbackSender {
  /** Plans the feedback of a finished request (only answered ones get any). */
  observe(result: ObservedRequest): void;
  start(): void;
  stop(): void;
  stats(): FeedbackStats;
}

export function createFeedbackSender(options: FeedbackOptions): FeedbackSender {
  const random = createRandom(options.seed ?? 23);
  const policy = options.policy ?? DEFAULT_FEEDBACK_POLICY;
  const timeScale = options.timeScale ?? 1;
  const maxPending = options.maxPending ?? 100_000;
  const now = options.now ?? Date.now;
  // Rows by arrival time; kept sorted by insertion (delays are short, so appends dominate).
  let pending: Feedback[] = [];
  let timer: NodeJS.Timeout | undefined;
  let planned = 0;
  let sent = 0;
  let dropped = 0;
  const byKindValue: Record<string, number> = {};

  const due = (): void => {
    const t = now();
    let i = 0;
    while (i < pending.length && (pending[i]?.ts as number) <= t) {
      const row = pending[i] as Feedback;
      options.client.feedback(row);
      const key = `${row.kind}:${String(row.value)}`;
      byKindValue[key] = (byKindValue[key] ?? 0) + 1;
      sent++;
      i++;
    }
    if (i > 0) pending = pending.slice(i);
  };

  return {
    observe(r) {
      if (r.httpStatus !== 200 || !r.label) return;
      for (const row of planFeedback(r.requestId, r.tsMs, r.label === r.truth, random, policy, timeScale)) {
        planned++;
        if (pending.length >= maxPending) {
          dropped++;
          continue;
        }
        // insert keeping `pending` sorted by ts (binary search from the end's side)
        let lo = 0;
        let hi = pending.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if ((pending[mid]?.ts as number) <= (row.ts as number)) lo = mid + 1;
          else hi = mid;
        }
        pending.splice(lo, 0, row);
      }
    },
    start() {
      if (timer) return;
      timer = setInterval(due, options.tickMs ?? 250);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
    stats: () => ({ planned, sent, pending: pending.length, dropped, byKindValue: { ...byKindValue } }),
  };
}
