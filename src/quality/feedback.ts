/**
 * `POST /v1/quality/feedback`: hit rate / accuracy, thumbs, rating, conversion and click rate per
 * group and request-time bucket, from feedback joined to requests at query time, plus the count of
 * orphan feedback (rows whose request is not stored yet; they match once it arrives).
 */
import { snakeKeys } from '../schema/index.ts';
import type { FeedbackQualityRequest, FeedbackReply, FeedbackRowReply, Filters } from '../schema/index.ts';
import type { FeedbackStatsQuery, FeedbackStatsRow, QualityReads } from './reads.ts';
import { isoBucket } from './reads.ts';

/** Runs the join and flattens each group for the API. */
export async function feedbackQuality(reads: QualityReads, o: FeedbackQualityRequest): Promise<FeedbackReply> {
  const { fromMs, toMs, stepMs } = o;
  const spec: FeedbackStatsQuery = { fromMs, toMs, filters: o.filters as Filters, groupBy: o.group_by, limit: o.limit };
  if (stepMs !== undefined) spec.stepMs = stepMs;
  const { rows, orphans } = await reads.feedbackStats(spec);
  return { rows: rows.map(flattenFeedbackRow), orphans };
}

/** `{ bucketMs, group: { model_version }, withFeedback, … }` → `{ bucket, model_version, with_feedback, … }`. */
export function flattenFeedbackRow(r: FeedbackStatsRow): FeedbackRowReply {
  const { bucketMs, group, ...rest } = r;
  return { ...isoBucket(bucketMs), ...group, ...snakeKeys(rest) };
}
