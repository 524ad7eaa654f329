/**
 * Release comparison: a baseline against a candidate over aligned windows, judged Kayenta-style
 * into promote / hold / rollback / not_enough_data with the evidence table behind it.
 * Rules and worked numbers: src/release/README.md.
 */
/** Builds the comparer over the query service (`compare(request)` takes a decoded CompareRequest). */
export { createComparer } from './comparer.ts';
export type { Comparer, ComparerOptions, CompareResult, ReleaseReads, SideSummary } from './comparer.ts';
/** A decoded compare request → its plan (the checks its schema cannot say). */
export { toComparePlan } from './input.ts';
export type { ComparePlan, SideWindow } from './input.ts';
/** Per-metric classification and the verdict from a list of measurements. */
export { judge, classify } from './judge.ts';
export type { Classification, Direction, EvidenceRow, Judgement, Verdict } from './judge.ts';
/** The metric catalog: names, families, weights, critical metrics, default tolerance bands. */
export { DEFAULT_TOLERANCE, METRIC_FAMILIES, metricDef } from './metrics.ts';
export type { MetricDef, MetricFamily, Tolerance } from './metrics.ts';
/** Where feedback hit rates come from: `feedbackFromStats(store.feedbackStats)` (correct / label feedback). */
export { feedbackFromStats } from './side-data.ts';
export type { FeedbackSource } from './side-data.ts';
/** Warns when baseline and candidate serve different tenant mixes (Jensen–Shannon distance ≥ 0.1). */
export { mixWarnings } from './comparer.ts';
