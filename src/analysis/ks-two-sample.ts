/**
 * Two-sample Kolmogorov–Smirnov test. D = max |F_a(x) − F_b(x)| over the pooled values (ties
 * handled by stepping past every copy of a value before comparing).
 *
 * p-value: the asymptotic Kolmogorov distribution with Stephens' (1970) small-sample correction,
 * as Numerical Recipes (§14.3, `kstwo`) and scipy < 1.5 `ks_2samp`: with nₑ = n·m/(n + m),
 *   p = Q_KS((√nₑ + 0.12 + 0.11/√nₑ)·D), Q_KS(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²}.
 * (scipy ≥ 1.5 `method='asymp'` instead uses the one-sample exact distribution kstwo(round(nₑ)),
 * which differs slightly; Evidently's default `auto` is exact for small samples.)
 * Worked: a = [1, 2, 3, 4, 5], b = [3.5, 6, 7, 8]: at x = 5, F_a = 1, F_b = ¼ → D = 0.75;
 * √nₑ = √(20/9) = 1.490712, λ = (1.490712 + 0.12 + 0.073790)·0.75 = 1.263376, p = 0.082154.
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

/** Two-sample KS test; drift when p < alpha (default 0.05). */
export function ksTwoSample(a: readonly number[], b: readonly number[], alpha = 0.05): DriftResult {
  const nRef = a.filter((v) => !Number.isNaN(v)).length;
  const nCur = b.filter((v) => !Number.isNaN(v)).length;
  if (nRef === 0 || nCur === 0) return notEnoughData('ks', alpha, nRef, nCur);
  const d = ksStatistic(a, b);
  const en = Math.sqrt((nRef * nCur) / (nRef + nCur));
  return byPValue('ks', d, kolmogorovQ((en + 0.12 + 0.11 / en) * d), alpha, nRef, nCur);
}
