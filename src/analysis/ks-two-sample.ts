/**
 * Two-sample Kolmogorov–Smirnov test. D = max |F_a(x) − F_b(x)| over the pooled values (ties
 * handled by stepping past every copy of a value before comparing).
 *
 * p-value, as scipy.stats.ks_2samp's default `method='auto'`:
 * - both sizes ≤ 10,000: exact, P(D ≥ d) under H₀ = the share of the C(m+n, m) equally likely
 *   interleavings of the two samples whose ECDF-difference path leaves the band |i/m − j/n| < d
 *   (Hodges 1958, "inside" method), computed as that share directly by Viehmann's recursion
 *   (arXiv:2102.08037) so the far tail keeps its digits. Ties are ignored in the null
 *   distribution, as in scipy.
 * - larger: the asymptotic Kolmogorov distribution with Stephens' (1970) small-sample correction,
 *   with nₑ = n·m/(n + m): p = Q_KS((√nₑ + 0.12 + 0.11/√nₑ)·D), Q_KS(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²}.
 *   (scipy's `asymp` uses kstwo(round(nₑ)); at these sizes the two agree to about 1 %.)
 * The asymptotic form is anti-conservative for a handful of values: x = [4, 2, 7, 7, 4] against
 * y = [3, 9, 12, 12, 12] gives 0.036 there, exact 5/63 = 0.079.
 * Worked: a = [1, 2, 3, 4, 5], b = [3.5, 6, 7, 8]: at x = 5, F_a = 1, F_b = ¼ → D = 0.75; 18 of the
 * 126 interleavings reach it → p = 1/7 = 0.142857.
 */
import { byPValue, notEnoughData } from './drift-result.ts';
import { ecdfSteps } from './ecdf-steps.ts';
import type { DriftResult } from './drift-result.ts';
import { sortedFinite } from './quantile.ts';

/**
 * Q_KS(λ) = P(K > λ) of the Kolmogorov distribution. For λ < 1.18 the alternating series converges
 * slowly, so the equivalent form 1 − (√(2π)/λ) Σ_{j≥1} e^{−(2j−1)²π²/(8λ²)} is used there.
 * Q_KS(1) = 0.2700, Q_KS(1.5) = 0.02222, Q_KS(2) = 0.000671.
 */
export function kolmogorovQ(lambda: number): number {
  if (!(lambda > 0)) return 1;
  if (lambda < 1.18) {
    const k = (Math.PI * Math.PI) / (8 * lambda * lambda);
    let s = 0;
    for (let j = 1; j <= 20; j++) {
      const term = Math.exp(-(2 * j - 1) * (2 * j - 1) * k);
      s += term;
      if (term < 1e-17 * s) break;
    }
    return Math.min(1, Math.max(0, 1 - (Math.sqrt(2 * Math.PI) / lambda) * s));
  }
  let s = 0;
  for (let j = 1; j <= 100; j++) {
    const term = Math.exp(-2 * j * j * lambda * lambda);
    s += j % 2 === 1 ? term : -term;
    if (term < 1e-17 * s) break;
  }
  return Math.min(1, Math.max(0, 2 * s));
}

/** KS D statistic of two samples (NaN dropped). */
export function ksStatistic(a: readonly number[], b: readonly number[]): number {
  const x = sortedFinite(a);
  const y = sortedFinite(b);
  if (x.length === 0 || y.length === 0) return NaN;
  let d = 0;
  for (const { fx, fy } of ecdfSteps(x, y)) d = Math.max(d, Math.abs(fx - fy));
  return d;
}

/** Largest sample size for the exact p-value (scipy's MAX_AUTO_N); the loop is O(m·band). */
const MAX_EXACT_N = 10_000;

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/**
 * Exact P(D ≥ d) for samples of sizes m and n under H₀. In units of 1/lcm(m, n) a path point
 * (i, j) (i values of one sample and j of the other taken) sits at i·n/g − j·m/g; it is inside
 * while that is below h = round(d·lcm) in absolute value. Q(i, j), the share of paths to (i, j)
 * that have left the band, is 1 outside it and (i·Q(i−1, j) + j·Q(i, j−1))/(i + j) inside
 * (the path counts' recursion divided by C(i+j, i)); Q(m, n) is the p-value.
 */
export function ksExactP(m: number, n: number, d: number): number {
  const big = Math.max(m, n);
  const small = Math.min(m, n);
  const g = gcd(big, small);
  const bigStep = small / g; // i·n/g for the larger sample's index i
  const smallStep = big / g;
  const h = Math.round(d * bigStep * big);
  if (h <= 0) return 1;
  const q = new Float64Array(small + 1);
  for (let j = 0; j <= small; j++) q[j] = j * smallStep < h ? 0 : 1;
  let previousLo = 0;
  for (let i = 1; i <= big; i++) {
    // inside ⇔ (i·bigStep − h)/smallStep < j < (i·bigStep + h)/smallStep
    const lo = Math.max(0, Math.floor((i * bigStep - h) / smallStep) + 1);
    const hi = Math.min(small, Math.ceil((i * bigStep + h) / smallStep) - 1);
    if (lo > hi) return 1;
    for (let j = previousLo; j < lo; j++) q[j] = 1;
    previousLo = lo;
    for (let j = lo; j <= hi; j++) q[j] = j === 0 ? (q[0] as number) : (i * (q[j] as number) + j * (q[j - 1] as number)) / (i + j);
  }
  return Math.min(1, Math.max(0, q[small] as number));
}

/** Two-sample KS test; drift when p < alpha (default 0.05). */
export function ksTwoSample(a: readonly number[], b: readonly number[], alpha = 0.05): DriftResult {
  const nRef = a.filter((v) => !Number.isNaN(v)).length;
  const nCur = b.filter((v) => !Number.isNaN(v)).length;
  if (nRef === 0 || nCur === 0) return notEnoughData('ks', alpha, nRef, nCur);
  const d = ksStatistic(a, b);
  if (Math.max(nRef, nCur) <= MAX_EXACT_N) return byPValue('ks', d, ksExactP(nRef, nCur, d), alpha, nRef, nCur);
  const en = Math.sqrt((nRef * nCur) / (nRef + nCur));
  return byPValue('ks', d, kolmogorovQ((en + 0.12 + 0.11 / en) * d), alpha, nRef, nCur);
}
