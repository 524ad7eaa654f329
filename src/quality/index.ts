/** Result quality: per-model-type measures, drift, the feedback join, golden sets and probes. */
/** The read functions the quality folder needs (query aggregate, raw events, the store's feedback join). */
export type { QualityReads, EventListSpec, FeedbackStatsQuery, FeedbackStatsRow } from './reads.ts';
/** Model types and their inference from the result fields present. */
export { MODEL_TYPES, inferModelType, detectModelTypes } from './model-type.ts';
export type { ModelType, ModelTypeInfo } from './model-type.ts';
/** `POST /v1/quality/summary`: model type and the measures that fit it, per group and time bucket. */
export { qualitySummary, measuresFor, CONFIDENCE_EDGES } from './summary.ts';
export type { SummaryOptions } from './summary.ts';
/** `POST /v1/quality/drift`: driftTest and PSI per field against a previous window, a pinned window or a version. */
export { driftQuery } from './drift.ts';
/** `POST /v1/quality/feedback`: hit rate, accuracy, rating, conversion and click rate, plus orphan feedback. */
export { feedbackQuality } from './feedback.ts';
/** Golden sets: schema, checkers, YAML parsing and the in-memory registry persisted to a YAML file. */
export {
  GoldenSetSchema,
  CHECKER_KINDS,
  GOLDEN_LIMITS,
  checkGoldenBounds,
  compileChecker,
  compileGoldenSet,
  parseGoldenYaml,
  goldenYamlDocs,
  goldenDocs,
  createGoldenRegistry,
} from './golden.ts';
export type { GoldenSet, GoldenSetInput, Checker, CheckResult, CompiledSet, CompiledSample, GoldenRegistry, GoldenRegistryOptions } from './golden.ts';
/** The scheduled probe runner that records golden checks as probe events. */
export { createProbeRunner, ProbeTargetSchema, ProbeScheduleSchema } from './probe-runner.ts';
export type { ProbeRunner, ProbeRunnerOptions, ProbeRunSummary, ProbeTarget, ProbeEventSink } from './probe-runner.ts';
/** `GET /v1/golden/results`: pass rate per version over time and the failing samples. */
export { goldenResults } from './golden-results.ts';
