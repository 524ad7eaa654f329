/**
 * ln P(X = x) of the hypergeometric distribution (x bad among n drawn from N with K bad) by
 * Loader's saddle-point method ("Fast and accurate computation of binomial probabilities", 2000),
 * as R's dhyper and scipy's hypergeom: the pmf is a ratio of three binomial terms, each written as
 * Stirling-error differences and the deviance bd0(x, np) = x·ln(x/np) + np − x, quantities of the
 * size of the answer. The textbook ln C(K, x) + ln C(N−K, n−x) − ln C(N, n) subtracts
 * log-factorials near 1.7e9 at N = 10⁸ and keeps only ~7 digits of the result.
 * Worked: N = 8, K = 4, n = 4, x = 3 → C(4,3)·C(4,1)/C(8,4) = 16/70, ln = −1.475907.
 */
const HALF_LN_2PI = 0.5 * Math.log(2 * Math.PI);
/** ln n! for n = 0…15 as exact sums of logs. */
const SMALL_LOG_FACTORIAL: number[] = [0];
for (let i = 1; i < 16; i++) SMALL_LOG_FACTORIAL.push((SMALL_LOG_FACTORIAL[i - 1] as number) + Math.log(i));

/** δ(n) = ln n! − [(n + ½)ln n − n + ½ln 2π], the error of Stirling's formula, for integers n ≥ 1. */
function stirlingError(n: number): number {
  if (n < 16) return (SMALL_LOG_FACTORIAL[n] as number) - (n + 0.5) * Math.log(n) + n - HALF_LN_2PI;
  const n2 = n * n;
  // 1/12n − 1/360n³ + 1/1260n⁵ − 1/1680n⁷: at n = 16 the next term, 1/1188n⁹, is 1.2e−14.
  return (1 / 12 - (1 / 360 - (1 / 1260 - 1 / (1680 * n2)) / n2) / n2) / n;
}

/** bd0(x, m) = x·ln(x/m) + m − x ≥ 0, by its series in v = (x − m)/(x + m) when x is near m. */
function deviance(x: number, m: number): number {
  if (Math.abs(x - m) < 0.1 * (x + m)) {
    const v = (x - m) / (x + m);
    const v2 = v * v;
    let s = (x - m) * v;
    let term = 2 * x * v;
    for (let j = 1; j < 1000; j++) {
      term *= v2;
      const next = s + term / (2 * j + 1);
      if (next === s) return next;
      s = next;
    }
    return s;
  }
  return x * Math.log(x / m) + m - x;
}

/** ln of the binomial probability of x successes in n trials with success probability p (q = 1 − p). */
function logBinomialTerm(x: number, n: number, p: number, q: number): number {
  if (x === 0) return n === 0 ? 0 : p < 0.1 ? -deviance(n, n * q) - n * p : n * Math.log(q);
  if (x === n) return q < 0.1 ? -deviance(n, n * p) - n * q : n * Math.log(p);
  const lc = stirlingError(n) - stirlingError(x) - stirlingError(n - x) - deviance(x, n * p) - deviance(n - x, n * q);
  return lc - 0.5 * (Math.log(2 * Math.PI) + Math.log(x) + Math.log1p(-x / n));
}

/** ln P(X = x), X hypergeometric: n drawn from `total` of which `bad` are bad; −Infinity off the support. */
export function logHypergeometricPmf(x: number, total: number, bad: number, n: number): number {
  if (x < Math.max(0, n - (total - bad)) || x > Math.min(bad, n)) return -Infinity;
  if (n === 0 || n === total) return 0;
  const p = n / total;
  const q = (total - n) / total;
  return logBinomialTerm(x, bad, p, q) + logBinomialTerm(n - x, total - bad, p, q) - logBinomialTerm(n, total, p, q);
}
