/** Delayed, partial feedback for the demo's requests: reviews (`correct`) and business `conversion`. */
/** The feedback policy (shares, delays, conversion probabilities) and the pure planner shared with the backfill. */
export { DEFAULT_FEEDBACK_POLICY, planFeedback } from './policy.ts';
export type { FeedbackPolicy } from './policy.ts';
/** Holds planned feedback until it is due and sends it through the SDK. */
export { createFeedbackSender } from './feedback.ts';
export type { FeedbackOptions, FeedbackSender, FeedbackStats, ObservedRequest } from './feedback.ts';
