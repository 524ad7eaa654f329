/**
 * Sequential evidence of a change, for detectors that look at a stream every minute and must not
 * cry wolf: likelihood ratios that are (super)martingales under "no change", so Ville's inequality
 * bounds the chance that they EVER cross 1/a by a, however often they are read.
 *
 * Rates (errors, timeouts, empty results, the share of requests above a reference quantile):
 * Bernoulli outcomes, "normal" is a rate of at most p0, "changed" a mixture of alternatives
 * p1 ∈ {pMin, 2·pMin, 4·pMin, …} with equal weights (a mixture of likelihood ratios is itself a
 * likelihood ratio: Robbins 1970; the same device as Lindon, Sanden & Shirikian, "Rapid regression
 * detection in software deployments through sequential testing", KDD 2022). Read over the last w
 * minutes for several w, the maximum over w is Page's CUSUM (1954) with the change point unknown.
 *
 * Distributions (labels, binned confidence): the Dirichlet–multinomial Bayes factor of "the
 * current counts come from their own distribution" against "from the reference's" (Lindon & Malek,
 * "Anytime-valid inference for multinomial count data", NeurIPS 2022), a martingale under the
 * null's predictive distribution.
 *
 * Turning evidence into a p-value: for one change point, P(LR ever ≥ 1/a) ≤ a (Ville 1939). A
 * detector that tries every minute of a day as a change point takes the union bound over them:
 * p = min(1, startPoints · e^{−log LR}). Those p-values can then go through Benjamini–Hochberg
 * across the slices of one evaluation.
 */
import betainc from '@stdlib/math-base-special-betainc';
import gammaln from '@stdlib/math-base-special-gammaln';

/**
 * ln of the mixture likelihood ratio for k bad outcomes in n trials, alternatives `p1s` against
 * rate p0 (equal weights): ln( (1/J) Σ_j (p1/p0)^k ((1−p1)/(1−p0))^(n−k) ).
 * Worked: 4 of 20 bad, p0 = 0.015, alternatives {0.06, 0.24}: the terms are
 * 4·ln 4 + 16·ln(0.94/0.985) = 4.7970 and 4·ln 16 + 16·ln(0.76/0.985) = 6.9412, so
 * ln((e^4.7970 + e^6.9412)/2) = 6.3588.
 */
export function bernoulliMixtureLogLR(n: number, k: number, p0: number, p1s: readonly number[]): number {
  if (!(n > 0) || p1s.length === 0) return 0;
  const terms = p1s.map((p1) => k * Math.log(p1 / p0) + (n - k) * Math.log((1 - p1) / (1 - p0)));
  return logMeanExp(terms);
}

/** ln((1/J) Σ e^{x_j}) without overflow. */
export function logMeanExp(xs: readonly number[]): number {
  let max = -Infinity;
  for (const x of xs) if (x > max) max = x;
  if (max === -Infinity) return -Infinity;
  let s = 0;
  for (const x of xs) s += Math.exp(x - max);
  return max + Math.log(s / xs.length);
}

/** Largest alternative rate considered: a rate of 1 would make one good outcome infinitely damning. */
export const MAX_ALTERNATIVE_RATE = 0.95;

/**
 * The alternatives for a rate that is normal up to p0 and matters from pMin (> p0): pMin, 2·pMin,
 * 4·pMin, … below 0.95, and 0.95 itself. Worked: p0 = 0.015, pMin = 0.03 → 0.03, 0.06, 0.12, 0.24,
 * 0.48, 0.95.
 */
export function rateAlternatives(p0: number, pMin: number): number[] {
  const start = Math.min(MAX_ALTERNATIVE_RATE, Math.max(pMin, p0 * 1.01));
  const out: number[] = [];
  for (let p = start; p < MAX_ALTERNATIVE_RATE; p *= 2) out.push(p);
  out.push(MAX_ALTERNATIVE_RATE);
  return out.filter((p) => p > p0);
}

/** One window ending now: its trials, bad outcomes, and the reference rate it is judged against. */
export interface RateWindow {
  /** Trials (requests) in the window. */
  n: number;
  /** Bad outcomes in the window. */
  k: number;
  /** The normal rate for this window (from the slice's past or its peers); NaN when unknown. */
  pRef: number;
  /** Trials behind pRef (for its upper confidence bound); Infinity when it is exact. */
  nRef: number;
}

export interface RateShiftOptions {
  /** Up to tolerance × the reference (its upper bound) is still normal: overdispersion, mix changes. */
  tolerance: number;
  /** The change that matters: at least minRatio × pRef … */
  minRatio: number;
  /** … and at least pRef + minDelta. */
  minDelta: number;
  /** Fewest bad outcomes in the window for a verdict. */
  minBad: number;
  /** z of the one-sided upper bound put on the reference rate (1.645: 95 %). */
  refZ?: number;
  /**
   * Judge a window against its reference's counts (`ratioMixtureLogLR`) where the reference was
   * measured (nRef finite), instead of against tolerance × its Wilson upper bound.
   */
  conditional?: boolean;
  /**
   * Overdispersion φ ≥ 1 of the slice's bad counts (see `dispersion`): the log likelihood ratios
   * are divided by it, as a quasi-likelihood divides the deviance (Wedderburn 1974), so a rate that
   * normally wobbles minute to minute more than a binomial needs that much more evidence.
   */
  dispersion?: number;
}

export interface RateShift {
  /** ln of the mixture likelihood ratio of the best window. */
  logLR: number;
  /** Index of that window in the input. */
  window: number;
  n: number;
  k: number;
  /** k / n of that window. */
  rate: number;
  /** The reference rate it was judged against. */
  pRef: number;
  /** The largest rate still taken as normal (tolerance × the reference's upper bound). */
  p0: number;
  /** The smallest rate that matters (the first alternative). */
  pMin: number;
}

/**
 * The strongest evidence, over the given windows, that a rate rose to a level that matters. Each
 * window is tested against "rate ≤ p0 = tolerance × (Wilson upper bound of pRef)" with the
 * alternatives from max(minRatio·pRef, pRef + minDelta) up; a window counts only when its own
 * rate reaches that floor and it has minBad bad outcomes. Null when no window qualifies.
 * Worked: pRef = 0.01 exact, tolerance 1.5 → p0 = 0.015; minRatio 3, minDelta 0.02 → pMin 0.03;
 * a window of 20 trials with 4 bad (rate 0.2): the six alternatives 0.03, 0.06, 0.12, 0.24, 0.48,
 * 0.95 give 2.527, 4.797, 6.514, 6.941, 3.642 and −31.10, so ln LR = ln(mean e^term) = 5.7475.
 */
export function rateShift(windows: readonly RateWindow[], o: RateShiftOptions): RateShift | null {
  const z = o.refZ ?? 1.645;
  let best: RateShift | null = null;
  windows.forEach((w, i) => {
    if (!(w.n > 0) || w.k < o.minBad || !Number.isFinite(w.pRef)) return;
    const pRef = Math.max(0, Math.min(1, w.pRef));
    const upper = Number.isFinite(w.nRef) ? wilsonUpper(pRef, w.nRef, z) : pRef;
    const p0 = Math.max(1e-6, Math.min(0.9, upper * o.tolerance));
    const pMin = Math.max(pRef * o.minRatio, pRef + o.minDelta, p0 * 1.01);
    const rate = w.k / w.n;
    if (rate < pMin || pMin >= MAX_ALTERNATIVE_RATE) return;
    const alternatives = rateAlternatives(p0, pMin);
    const lr =
      o.conditional && Number.isFinite(w.nRef)
        ? ratioMixtureLogLR(w.n, w.k, w.nRef, pRef * w.nRef, o.tolerance, alternatives)
        : bernoulliMixtureLogLR(w.n, w.k, p0, alternatives);
    const logLR = lr / Math.max(1, o.dispersion ?? 1);
    if (!best || logLR > best.logLR) best = { logLR, window: i, n: w.n, k: w.k, rate, pRef, p0, pMin };
  });
  return best;
}

/**
 * ln of the mixture likelihood ratio that a window's rate rose above `tolerance` × its reference's,
 * given both counts: k bad of n in the window, kRef of nRef in the reference (a pseudo-count for a
 * shrunk reference need not be whole). Bad outcomes are rare, so each count is close to Poisson, and
 * given their total K = k + kRef the window's share is Binomial(K, π) with π = p·n / (p·n + q·nRef)
 * for rates p (window) and q (reference): "p ≤ tolerance·q" is "π ≤ π0 = t·n / (t·n + nRef)" whatever
 * q is, so the reference's unknown rate drops out instead of being replaced by a worst case (the
 * conditional test for the ratio of two Poisson rates: Przyborowski & Wilenski 1940; Lehmann &
 * Romano, Testing Statistical Hypotheses, §4.6). The alternatives are rates p1 (`rateAlternatives`)
 * read at the reference's rate: π1 = p1·n / (p1·n + kRef); with no bad reference outcome, π0·1.01,
 * 2·π0·1.01, … A thick reference gives the Poisson test at tolerance × its rate (an exact one the
 * binomial); a thin one keeps its own uncertainty in the test, where tolerance × its one-sided 95 % Wilson
 * bound stacked the two allowances.
 * Worked: 8 of 40 against 1 of 100, t = 1.5: π0 = 60 / 160 = 0.375; alternatives 0.24 and 0.95 →
 * π1 = 9.6 / 10.6 = 0.90566 and 38 / 39 = 0.97436 over K = 9: terms 8·ln(0.90566/0.375) +
 * ln(0.09434/0.625) = 5.16306 and 8·ln(0.97436/0.375) + ln(0.02564/0.625) = 4.44527 → ln LR 4.86723.
 */
export function ratioMixtureLogLR(n: number, k: number, nRef: number, kRef: number, tolerance: number, alternatives: readonly number[]): number {
  if (!(n > 0) || !(nRef > 0)) return 0;
  const pi0 = (tolerance * n) / (tolerance * n + nRef);
  const pis = kRef > 0 ? alternatives.map((p) => (p * n) / (p * n + kRef)) : rateAlternatives(pi0, pi0 * 1.01);
  return bernoulliMixtureLogLR(
    k + kRef,
    k,
    pi0,
    pis.filter((pi) => pi > pi0),
  );
}

/** Fewest bad requests `dispersion` measures overdispersion on. */
export const MIN_DISPERSION_BAD = 10;

/** A baseline minute whose bad count is this improbable at the slice's rate is an incident, not the rate wandering. */
export const OUTLIER_MINUTE_TAIL = 1e-6;

/**
 * Overdispersion of per-minute bad counts (k_j of n_j): Pearson's χ² about the pooled rate over its
 * degrees of freedom, Σ (k_j − n_j·p)² / (n_j·p·(1 − p)) / (m − 1), clamped to [1, 20]; NaN with
 * fewer than 10 minutes that carry requests, or fewer than `MIN_DISPERSION_BAD` bad requests (too
 * few to measure it on: with one bad request among N, the minute that holds it adds about N / n_j
 * to χ² — 120 for a minute of one request in a thin slice's 120, φ 2.2 over 56 minutes, 1 had it
 * landed in a minute of four — so the statistic says which minute it fell in, not how the rate
 * wanders). Worked: minutes of 100 requests with 1, 1, 1, 1, 6, 1, 1, 1, 1, 1 bad (p = 0.015): χ² =
 * (9·0.5² + 4.5²)/1.4775 = 15.23 over 9 → 1.69.
 *
 * A minute whose bad count lies beyond `OUTLIER_MINUTE_TAIL` of the binomial at the pooled rate is
 * left out (and the rate pooled again without it): a past incident in the baseline — 30 errors in two
 * minutes of a canary that fails 1 % — is not how the rate wanders, and read as such it divided the
 * evidence of the next incident by 6 for two hours (seed 867). Under the binomial a minute is left
 * out once in a million; a rate that wanders e^{σZ} keeps all of its minutes by σ = 0.3 at 200
 * requests a minute, and loses its widest ones by σ = 0.8 (φ 4.5–7.8 → 2.7–3.8). Worked: the
 * ten minutes above and an eleventh of 100 with 40 bad (pooled p = 0.05, where its tail is 6e-26):
 * φ is the ten's 1.69, not the 28.8 (clamped to 20) that minute would make it.
 */
export function dispersion(n: ArrayLike<number>, k: ArrayLike<number>): number {
  const pooled = (skip: Set<number> | null) => {
    let N = 0;
    let K = 0;
    let m = 0;
    for (let j = 0; j < n.length; j++) {
      if (!(n[j]! > 0) || skip?.has(j)) continue;
      N += n[j]!;
      K += k[j]!;
      m++;
    }
    return m < 10 || K < MIN_DISPERSION_BAD || K >= N ? null : { p: K / N, m };
  };
  let at = pooled(null);
  if (!at) return NaN;
  let outliers: Set<number> | null = null;
  for (let j = 0; j < n.length; j++) {
    const e = n[j]! * at.p;
    // Only a count well above its expectation can be that improbable (the tail is not computed for the rest).
    if (!(n[j]! > 0) || k[j]! <= e + 4 * Math.sqrt(e) + 1) continue;
    if (binomialUpperTail(Math.round(k[j]!), n[j]!, at.p) < OUTLIER_MINUTE_TAIL) (outliers ??= new Set()).add(j);
  }
  if (outliers) {
    at = pooled(outliers);
    if (!at) return NaN;
  }
  const p = at.p;
  let chi2 = 0;
  for (let j = 0; j < n.length; j++) {
    if (!(n[j]! > 0) || outliers?.has(j)) continue;
    const e = n[j]! * p;
    chi2 += (k[j]! - e) ** 2 / (e * (1 - p));
  }
  return Math.min(20, Math.max(1, chi2 / (at.m - 1)));
}

/** One-sided Wilson upper bound of a rate p measured on n trials. */
export function wilsonUpper(p: number, n: number, z: number): number {
  if (!(n > 0)) return 1;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return Math.min(1, centre + half);
}

/**
 * How many trials of its group a member's own rate is worth shrinking with: the prior strength
 * κ = a + b of the beta-binomial that the members' rates k_i / n_i are drawn from, by the method of
 * moments (Kleinman 1973). With m = K / N, the spread S = Σ n_i (k_i/n_i − m)² is (g − 1)·m(1 − m)
 * for g members that share one rate; what is left over is the members' own variance
 * τ² = (S − (g − 1)·m(1 − m)) / (N − Σ n_i² / N), and κ = m(1 − m) / τ² − 1. Infinity when the
 * members differ no more than their counts do (pool them all), NaN with fewer than two members or no
 * trials. Worked: 0 of 100, 1 of 100, 9 of 100 (m = 1/30, S = 0.48667, 2·m(1 − m) = 0.06444,
 * τ² = 0.42222 / 200 = 0.0021111) → κ = 0.032222 / 0.0021111 − 1 = 14.263: a member's own 100 trials
 * outweigh the group's; 1 of 100 three times → Infinity.
 */
export function betaBinomialStrength(members: readonly { n: number; k: number }[]): number {
  let N = 0;
  let K = 0;
  let g = 0;
  let sumSq = 0;
  for (const x of members) {
    if (!(x.n > 0)) continue;
    N += x.n;
    K += x.k;
    sumSq += x.n * x.n;
    g++;
  }
  if (g < 2) return NaN;
  const m = K / N;
  let S = 0;
  for (const x of members) if (x.n > 0) S += x.n * (x.k / x.n - m) ** 2;
  const tau2 = (S - (g - 1) * m * (1 - m)) / (N - sumSq / N);
  return tau2 > 0 ? Math.max(0, (m * (1 - m)) / tau2 - 1) : Infinity;
}

/** ln of the multivariate Beta function B(v) = Π Γ(v_i) / Γ(Σ v_i). */
function logBeta(v: readonly number[]): number {
  let s = 0;
  let sum = 0;
  for (const x of v) {
    s += gammaln(x);
    sum += x;
  }
  return s - gammaln(sum);
}

/**
 * ln of the Dirichlet–multinomial Bayes factor that `cur` (category counts) was drawn from a
 * distribution of its own rather than the one that produced `ref`, with a symmetric Dirichlet(α)
 * prior on each: ln B(α+cur) + ln B(α+ref) − ln B(α) − ln B(α+ref+cur). It is the ratio of the two
 * predictive probabilities of the current counts, so under "same distribution" it is a martingale
 * as counts arrive. Worked (α = 1, two categories): ref (8, 2), cur (1, 4):
 * ln B(2,5) + ln B(9,3) − ln B(1,1) − ln B(10,7) = −3.4012 − 6.2046 − 0 + 11.2908 = 1.6850: the
 * current 1-in-5 against the reference's 8-in-10 is only 5:1 evidence after five counts.
 */
export function multinomialShiftLogBF(ref: readonly number[], cur: readonly number[], alpha = 1): number {
  if (ref.length !== cur.length) throw new Error('ref and cur must have the same categories');
  const a = ref.map(() => alpha);
  const aRef = ref.map((x) => x + alpha);
  const aCur = cur.map((x) => x + alpha);
  const aAll = ref.map((x, i) => x + (cur[i] as number) + alpha);
  return logBeta(aCur) + logBeta(aRef) - logBeta(a) - logBeta(aAll);
}

/** Change points a detector tries in a day (one a minute): the union bound behind `evidencePValue`. */
export const START_POINTS_PER_DAY = 1440;

/**
 * A p-value from sequential evidence: every change point tried has P(LR ever ≥ 1/a) ≤ a, so over
 * `startPoints` of them p = min(1, startPoints · e^{−ln LR}). Worked: ln LR = 18 over a day of
 * minutes → 1440 · e^{−18} = 2.2e−5.
 */
export function evidencePValue(logLR: number, startPoints = START_POINTS_PER_DAY): number {
  if (!(logLR > 0)) return 1;
  return Math.min(1, Math.exp(Math.log(startPoints) - logLR));
}

/**
 * P(X ≥ k) for X ~ Binomial(n, p): the regularized incomplete beta I_p(k, n − k + 1). Counts need
 * not be whole (an overdispersed count divided by its dispersion). Worked: 5 or more of 20 at
 * p = 0.1 is 1 − 0.9568 = 0.0432.
 */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (!(k > 0)) return 1;
  if (k > n || !(p > 0)) return 0;
  if (p >= 1) return 1;
  return Math.min(1, Math.max(0, betainc(p, k, n - k + 1, true, false)));
}

/**
 * Whether an excess is spread in time, or bursts: the p-value of the bad outcomes OUTSIDE the
 * `bursts` densest runs of `span` consecutive bins (each the run, among bins not yet removed, whose
 * excess k − n·p0 sums highest) against rate p0, with counts divided by the dispersion φ. Bursts
 * shorter than the span leave only normal traffic outside them (a large p-value however strong they
 * are); a change that lasts leaves most of its excess outside. Worked: twelve 10-s bins of 60
 * requests with 1, 0, 20, 25, 1, 0, 1, 1, 0, 1, 0, 1 bad, p0 = 0.02: the densest three are bins 2–4
 * (46 − 3.6), outside 5 of 540 against 10.8 expected → p = 0.98; with 5 bad in each of the other
 * bins (a change that stays, with the same burst in it), 45 of 540 outside → p = 2.3e−15. A
 * second burst (30 bad in bin 9): with `bursts` 2, bins 2–4 and then 7–9 are removed, outside 3 of
 * 360 → p = 0.98; with `bursts` 1 it stays outside, 34 of 540 → p < 1e−7.
 *
 * Then up to `extra` more runs, each taken out only if it is a burst on its own: its bad outcomes
 * beyond `extraTail` at p0 (binomial tail, counts divided by φ). A blip of a busy slice is (49
 * errors of ~170 requests against 0.3 %: 2e−81); the densest 30 s of a tenant failing a few
 * requests a minute are not (2 of 2 at 5 %: 0.0025), and stay as its evidence. In the two-burst
 * example, bins 7–9 (31 of 180 at 2 %, tail 7e−20) go as an extra run at 1e−6; a run of 15 of 180
 * (tail 4e−6) would not.
 */
export function spreadPValue(n: ArrayLike<number>, k: ArrayLike<number>, p0: number, span: number, phi = 1, bursts = 1, extra = 0, extraTail = 0): number {
  const m = n.length;
  const removed = new Uint8Array(m);
  const f = Math.max(1, phi);
  for (let b = 0; b < bursts + extra; b++) {
    let best = -Infinity;
    let at = -1;
    for (let i = 0; i + span <= Math.max(m, span); i++) {
      let e = 0;
      for (let j = i; j < Math.min(m, i + span); j++) if (!removed[j]) e += k[j]! - n[j]! * p0;
      if (e > best) {
        best = e;
        at = i;
      }
    }
    if (at < 0) break;
    if (b >= bursts) {
      let nr = 0;
      let kr = 0;
      for (let j = at; j < Math.min(m, at + span); j++)
        if (!removed[j]) {
          nr += n[j]!;
          kr += k[j]!;
        }
      if (!(binomialUpperTail(kr / f, nr / f, p0) < extraTail)) break;
    }
    for (let j = at; j < Math.min(m, at + span); j++) removed[j] = 1;
  }
  let nOut = 0;
  let kOut = 0;
  for (let j = 0; j < m; j++) {
    if (removed[j]) continue;
    nOut += n[j]!;
    kOut += k[j]!;
  }
  return binomialUpperTail(kOut / f, nOut / f, p0);
}
