/**
 * The analysis folder: pure statistics over numbers already fetched by the query layer. No I/O,
 * no SQL, no clock; every function is deterministic (subsampling uses a seeded generator).
 * Imports only the error class from src/schema.
 */

// Distributions
/** Type-7 quantile (numpy default, DuckDB quantile_cont) of values sorted ascending; NaN when empty. */
export { quantile } from './quantile.ts';
/** Sorts once and returns { n, values } for many q (NaN dropped). */
export { quantiles } from './quantile.ts';
/** Type-7 median of unsorted values. */
export { median } from './quantile.ts';
/** Log-spaced upper bucket edges in ms, minMs·10^(i/perDecade) up to the first ≥ maxMs. */
export { logBuckets } from './log-buckets.ts';
/** Prometheus-style (le) bucket index of a value; bounds.length for overflow, −1 for NaN. */
export { bucketIndex } from './log-buckets.ts';
export type { QuantilesResult } from './quantile.ts';
/** Prometheus's histogram_quantile: a quantile interpolated inside cumulative buckets. */
export { histogramQuantile, parseLe } from './histogram-quantile.ts';
export type { CumulativeBucket } from './histogram-quantile.ts';

// Rates and where bad events concentrate
/** Wilson score interval { rate, lo, hi } of k in n; n = 0 → { NaN, 0, 1 }. */
export { wilson } from './wilson.ts';
/** Pooled two-sided two-proportion z-test { z, pValue }; degenerate input → { 0, 1 }. */
export { twoProportionZ } from './two-proportion-z.ts';
/** Two-sided Fisher exact test on [[k1, n1−k1], [k2, n2−k2]] { pValue }. */
export { fisherExact } from './fisher-exact.ts';
/** Two-proportion test choosing Fisher when an expected count is below 5, else z. */
export { proportionTest } from './proportion-test.ts';
/** Benjamini–Hochberg q-values, input order, NaN kept out of m (R p.adjust "BH"). */
export { benjaminiHochberg } from './p-adjust.ts';
/** Holm step-down adjusted p-values, input order (R p.adjust "holm"). */
export { holm } from './p-adjust.ts';
/** Slice finder: each slice vs the rest, BH across slices, parent rule for pairs, ranked by confident lift. */
export { rankSlices } from './rank-slices.ts';
export type { RateInterval } from './wilson.ts';
export type { ZTestResult } from './two-proportion-z.ts';
export type { FisherResult } from './fisher-exact.ts';
export type { ProportionMethod, ProportionTestResult } from './proportion-test.ts';
export type { RankSlicesInput, RankedSlice, SliceCount, SliceVerdict } from './rank-slices.ts';

// Latency changes
/** Per-stage q-quantile now vs before; names the stage that grew most in ms among those that grew significantly and ≥ ×1.1. */
export { attributeStages } from './stage-attribution.ts';
/** The same judgement on quantiles and counts above the baseline's quantile computed elsewhere (SQL). */
export { judgeStageShifts } from './stage-attribution.ts';
/** The replica whose stage quantile stands ≥ 1.5× above its peers' median, or null. */
export { compareReplicas } from './stage-attribution.ts';
/** Mean stage shares of the requests at or above the total's q-quantile, from per-request rows. */
export { tailComposition } from './tail-composition.ts';
/** Tail composition now vs before, naming the stage whose share of the tail grew most. */
export { compareTailComposition } from './tail-composition.ts';
/** Mann–Kendall trend test { n, s, varS, z, pValue } with tie correction. */
export { mannKendall } from './mann-kendall.ts';
/** Theil–Sen slope with Sen's confidence interval (as scipy.stats.theilslopes). */
export { theilSen } from './theil-sen.ts';
/** Saturation: throughput not rising while queue time and P99 trend up significantly. */
export { detectSaturation } from './saturation.ts';
export type {
  ReplicaComparisonOptions,
  ReplicaStages,
  SlowReplica,
  StageAttribution,
  StageAttributionOptions,
  StageJudgeOptions,
  StageSamples,
  StageShift,
  StageShiftInput,
} from './stage-attribution.ts';
export type { StageRow, StageShare, TailComposition, TailCompositionComparison, TailCompositionOptions, TailShareShift } from './tail-composition.ts';
export type { MannKendallResult } from './mann-kendall.ts';
export type { TheilSenResult } from './theil-sen.ts';
export type { SaturationOptions, SaturationPoint, SaturationResult, SaturationVerdict, TrendDirection, TrendEvidence } from './saturation.ts';

// Drift
/** PSI over aligned bins with floored proportions; drift at ≥ 0.1, level stable/moderate/significant. */
export { psi } from './psi.ts';
/** PSI of numeric samples on bins cut at the reference's deciles (or `bins` quantiles). */
export { psiNumeric } from './psi.ts';
/** Jensen–Shannon distance (base 2, in [0, 1]) of counts; drift at ≥ 0.1. */
export { jensenShannonDistance } from './jensen-shannon.ts';
/** Two-sample KS: D and its p-value, exact up to 10,000 per side (scipy's default), else Stephens-corrected asymptotic; drift at p < 0.05. */
export { ksTwoSample } from './ks-two-sample.ts';
/** Kolmogorov survival function Q_KS(λ) = 2Σ(−1)^{j−1}e^{−2j²λ²}. */
export { kolmogorovQ } from './ks-two-sample.ts';
/** Chi-square homogeneity test of two count vectors; verdict only when every expected count ≥ 5. */
export { chiSquareTest } from './chi-square-test.ts';
/** 1-D Wasserstein distance between two samples. */
export { wassersteinDistance } from './wasserstein.ts';
/** Wasserstein distance / reference population sd (Evidently); drift at ≥ 0.1. */
export { wassersteinNormed } from './wasserstein.ts';
/** Drift test chosen as Evidently: ≤ 1000 reference rows → KS / chi-square / z, else Wasserstein / JS. */
export { driftTest } from './drift-test.ts';
export type { Counts } from './align-counts.ts';
export type { DriftMethod, DriftResult, DriftVerdict } from './drift-result.ts';
export type { PsiLevel, PsiNumericResult, PsiResult } from './psi.ts';
export type { ChiSquareResult } from './chi-square-test.ts';
export type { DriftKind, DriftTestOptions } from './drift-test.ts';

// Release comparison
/** Mann–Whitney U test, normal approximation with tie and continuity corrections (scipy 'asymptotic'). */
export { mannWhitneyU } from './mann-whitney.ts';
/** Hodges–Lehmann shift (median of y − x) with its order-statistic confidence interval; sides capped at 2000 by seeded subsampling. */
export { hodgesLehmann } from './hodges-lehmann.ts';
/** Seeded PRNG (mulberry32) returning floats in [0, 1). */
export { mulberry32 } from './prng.ts';
export type { MannWhitneyResult } from './mann-whitney.ts';
export type { HodgesLehmannOptions, HodgesLehmannResult } from './hodges-lehmann.ts';
/** Pearson and Spearman correlation with two-sided p-values (t distribution, n − 2 df). */
export { pearson, spearman, averageRanks } from './correlation.ts';
export type { Correlation } from './correlation.ts';

// Sequential change detection (the alerting detectors)
/** Mixture likelihood ratio of Bernoulli outcomes, its alternatives, and the best window of a rate shift. */
export {
  bernoulliMixtureLogLR,
  rateAlternatives,
  rateShift,
  wilsonUpper,
  betaBinomialStrength,
  logMeanExp,
  dispersion,
  MIN_DISPERSION_BAD,
} from './sequential.ts';
/** Dirichlet–multinomial Bayes factor of "the current counts follow their own distribution". */
export { multinomialShiftLogBF } from './sequential.ts';
/** A p-value from sequential evidence by Ville's inequality and a union bound over change points. */
export { evidencePValue, START_POINTS_PER_DAY } from './sequential.ts';
/** Binomial upper tail, and whether an excess is spread in time or one burst (the blip check of the sequential detectors). */
export { binomialUpperTail, spreadPValue } from './sequential.ts';
export type { RateWindow, RateShift, RateShiftOptions } from './sequential.ts';
