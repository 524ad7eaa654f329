/**
 * ln(n!) for hypergeometric probabilities without overflow. Exact sums of logs below 256 (cached),
 * Stirling's series above: ln n! = n ln n − n + ½ ln(2πn) + 1/12n − 1/360n³ + 1/1260n⁵, whose
 * truncation error at n = 256 is below 1/1680n⁷ ≈ 8e−21.
 */
const TABLE_SIZE = 256;
const table: number[] = [0];
for (let i = 1; i < TABLE_SIZE; i++) table.push((table[i - 1] as number) + Math.log(i));

/** ln(n!) for a non-negative integer n (fractional n is floored). */
export function logFactorial(n: number): number {
  const m = Math.floor(n);
  if (m < TABLE_SIZE) return table[m] as number;
  const inv = 1 / m;
  const inv2 = inv * inv;
  return m * Math.log(m) - m + 0.5 * Math.log(2 * Math.PI * m) + inv * (1 / 12 - inv2 * (1 / 360 - inv2 / 1260));
}

/** ln C(n, k), the log binomial coefficient; −Infinity outside 0 ≤ k ≤ n. */
export function logChoose(n: number, k: number): number {
  if (k < 0 || k > n) return -Infinity;
  return logFactorial(n) - logFactorial(k) - logFactorial(n - k);
}
