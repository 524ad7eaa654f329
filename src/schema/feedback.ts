/** Feedback and business events, keyed by request_id; they may arrive hours after the request. */
import { z } from 'zod';
import type { Dimension, Filters } from './vocabulary.ts';
import { TimestampSchema, textSchema } from './fields.ts';

export const FEEDBACK_KINDS = ['thumbs', 'rating', 'label', 'correct', 'conversion', 'click'] as const;

/** A feedback row: `ts` is when the feedback was given (RFC 3339 or epoch ms, the same window as events). */
export const FeedbackSchema = z.object({
  ts: TimestampSchema,
  request_id: textSchema(1, 128),
  kind: z.enum(FEEDBACK_KINDS),
  /** thumbs/correct/conversion/click: boolean or 0/1; rating: number; label: the true label. */
  value: z.union([z.boolean(), z.number().refine(Number.isFinite, { error: 'expected a finite number' }), textSchema(0, 256)], {
    error: 'expected true/false, a finite number or a string of at most 256 characters',
  }),
  source: textSchema(0, 128).nullish(),
});
export type Feedback = z.infer<typeof FeedbackSchema>;

/** Feedback joined to requests: the range and filters apply to the request time; probes are excluded. */
export interface FeedbackStatsSpec {
  fromMs: number;
  toMs: number;
  filters: Filters;
  groupBy: readonly (Dimension | 'label')[];
  stepMs?: number;
  limit: number;
}

/**
 * One group. Rates are over the requests that got that kind of feedback, except conversion and
 * click rates, which are over all requests in the group (no conversion event = no conversion).
 */
export interface FeedbackStatsRow {
  /** Start of the request-time bucket (epoch ms), when stepMs is set. */
  bucketMs?: number;
  group: Partial<Record<Dimension | 'label', string | null>>;
  /** Requests (stored events with a request_id) in the group. */
  requests: number;
  /** Requests with at least one feedback row of any kind. */
  withFeedback: number;
  correctN: number;
  /** Share of `correct` feedback that is true. */
  correctRate: number | null;
  labelN: number;
  /** Share of `label` feedback equal to the event's predicted label. */
  labelAccuracy: number | null;
  thumbsN: number;
  thumbsUpRate: number | null;
  ratingN: number;
  ratingMean: number | null;
  conversions: number;
  conversionRate: number | null;
  clicks: number;
  clickRate: number | null;
}

export interface FeedbackStats {
  rows: FeedbackStatsRow[];
  /** Feedback rows in the range whose request_id has no stored event (matched once it arrives). */
  orphans: number;
}
