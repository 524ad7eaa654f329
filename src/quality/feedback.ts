/**
 * `POST /v1/quality/feedback`: hit rate / accuracy, thumbs, rating, conversion and click rate per
 * group and request-time bucket, from feedback joined to requests at query time, plus the count of
 * orphan feedback (rows whose request is not stored yet; they match once it arrives).
 */
import type { FeedbackQualityRequest, Filters } from '../schema/index.ts';
import type { FeedbackStatsQuery, FeedbackStatsRow, QualityReads } from './reads.ts';
import { isoBucket } from './reads.ts';


/** One group of the answer: the store row with the bucket as RFC 3339 and the group flattened. */
export type FeedbackReplyRow = Omit<FeedbackStatsRow, 'bucketMs' | 'group'> & { bucket?: string } & Record<string, unknown>;

export interface FeedbackReply {
  rows: FeedbackReplyRow[];
  /** Feedback rows in [from, to) whose request_id has no stored event (yet). */
  orphans: number;
}

/** Runs the join and flattens each group for the API. */
export async function feedbackQuality(reads: QualityReads, o: FeedbackQualityRequest): Promise<FeedbackReply> {
  const { fromMs, toMs, stepMs } = o;
  const spec: FeedbackStatsQuery = { fromMs, toMs, filters: o.filters as Filters, groupBy: o.group_by, limit: o.limit };
  if (stepMs !== undefined) spec.stepMs = stepMs;
  const { rows, orphans } = await reads.feedbackStats(spec);
  return { rows: rows.map(flattenFeedbackRow), orphans };
}

/** `{ bucketMs, group: { model_version }, … }` → `{ bucket, model_version, … }`. */
export function flattenFeedbackRow(r: FeedbackStatsRow): FeedbackReplyRow {
  const { bucketMs, group, ...rest } = r;
  return { ...isoBucket(bucketMs), ...group, ...rest };
}
