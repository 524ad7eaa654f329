/** Feedback and business events, keyed by request_id; they may arrive hours after the request. */
import { z } from 'zod';

export const FEEDBACK_KINDS = ['thumbs', 'rating', 'label', 'correct', 'conversion', 'click'] as const;
export type FeedbackKind = (typeof FEEDBACK_KINDS)[number];

export const FeedbackSchema = z.object({
  ts: z.union([z.string(), z.number().positive()]),
  request_id: z.string().min(1).max(128),
  kind: z.enum(FEEDBACK_KINDS),
  /** thumbs/correct/conversion/click: boolean or 0/1; rating: number; label: the true label. */
  value: z.union([z.boolean(), z.number().refine(Number.isFinite), z.string().max(256)]),
  source: z.string().max(128).nullish(),
});
export type Feedback = z.infer<typeof FeedbackSchema>;
