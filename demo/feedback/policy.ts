/**
 * How feedback arrives for the demo's requests, the way it does in production: late, and for a
 * share of the requests only. The ground truth of every message is known, so the feedback is true.
 *
 * - `correct` (a reviewer checked the answer): for 25 % of answered requests, after a log-normal
 *   delay with median 20 s and σ 0.8 (90 % within ≈ 56 s), capped at 5 min.
 * - `conversion` (a business outcome, e.g. the user acted on the delivered mail): for 40 % of
 *   answered requests, after a log-normal delay with median 60 s and σ 0.6, capped at 10 min;
 *   it converts with probability 12 % when the answer was right and 3 % when it was wrong.
 *   Worked numbers: at 99 % accuracy the conversion rate is 0.99 × 12 + 0.01 × 3 = 11.9 %; a
 *   regression flipping 20 % of labels (accuracy ≈ 79 %) brings it to 0.79 × 12 + 0.21 × 3 = 10.1 %.
 *
 * `timeScale` shrinks the delays for compressed runs (0.05: a 20 s median becomes 1 s).
 */
import type { Feedback } from '../../src/schema/index.ts';

export interface FeedbackPolicy {
  reviewShare: number;
  reviewMedianMs: number;
  reviewSigma: number;
  reviewMaxMs: number;
  conversionShare: number;
  conversionMedianMs: number;
  conversionSigma: number;
  conversionMaxMs: number;
  /** P(conversion | answer correct) and P(conversion | answer wrong). */
  conversionIfCorrect: number;
  conversionIfWrong: number;
}

export const DEFAULT_FEEDBACK_POLICY: FeedbackPolicy = {
  reviewShare: 0.25,
  reviewMedianMs: 20_000,
  reviewSigma: 0.8,
  reviewMaxMs: 300_000,
  conversionShare: 0.4,
  conversionMedianMs: 60_000,
  conversionSigma: 0.6,
  conversionMaxMs: 600_000,
  conversionIfCorrect: 0.12,
  conversionIfWrong: 0.03,
};

function logNormalMs(medianMs: number, sigma: number, maxMs: number, random: () => number): number {
  const u1 = Math.max(random(), 1e-12);
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * random());
  return Math.min(maxMs, medianMs * Math.exp(sigma * z));
}

/**
 * The feedback rows one answered request will produce, each stamped with the time it arrives
 * (`ts` = request time + delay × timeScale). Pure given `random`: live and backfill share it.
 */
export function planFeedback(
  requestId: string,
  requestTsMs: number,
  correct: boolean,
  random: () => number,
  policy: FeedbackPolicy = DEFAULT_FEEDBACK_POLICY,
  timeScale = 1,
): Feedback[] {
  const rows: Feedback[] = [];
  if (random() < policy.reviewShare) {
    const delay = logNormalMs(policy.reviewMedianMs, policy.reviewSigma, policy.reviewMaxMs, random) * timeScale;
    rows.push({ ts: Math.round(requestTsMs + delay), request_id: requestId, kind: 'correct', value: correct, source: 'demo-review' });
  }
  if (random() < policy.conversionShare) {
    const delay = logNormalMs(policy.conversionMedianMs, policy.conversionSigma, policy.conversionMaxMs, random) * timeScale;
    const converted = random() < (correct ? policy.conversionIfCorrect : policy.conversionIfWrong);
    rows.push({ ts: Math.round(requestTsMs + delay), request_id: requestId, kind: 'conversion', value: converted, source: 'demo-business' });
  }
  return rows;
}
