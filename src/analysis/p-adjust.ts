/**
 * Multiple-comparison adjustments of p-values, as R's `p.adjust`: results in the input's order,
 * NaN entries stay NaN and are not counted in the number of tests m.
 *
 * Benjamini–Hochberg (false discovery rate): with p₍₁₎ ≤ … ≤ p₍ₘ₎,
 *   q₍ᵢ₎ = min_{j ≥ i} min(1, m·p₍ⱼ₎/j).
 * Holm (family-wise error): adj₍ᵢ₎ = max_{j ≤ i} min(1, (m − j + 1)·p₍ⱼ₎).
 * Worked (p = [0.01, 0.04, 0.03, 0.005], m = 4): sorted 0.005, 0.01, 0.03, 0.04;
 *   BH raw m·p/j = 0.02, 0.02, 0.04, 0.04 → q = [0.02, 0.04, 0.04, 0.02];
 *   Holm raw (m−j+1)·p = 0.02, 0.03, 0.06, 0.04 → running max → [0.03, 0.06, 0.06, 0.02].
 */

function rankOrder(pValues: readonly number[]): number[] {
  const idx: number[] = [];
  pValues.forEach((p, i) => {
    if (!Number.isNaN(p)) idx.push(i);
  });
  return idx.sort((a, b) => (pValues[a] as number) - (pValues[b] as number));
}

/** Benjamini–Hochberg q-values, same order as the input, monotone in p. */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const out = pValues.map(() => NaN);
  const order = rankOrder(pValues);
  const m = order.length;
  let running = 1;
  for (let r = m - 1; r >= 0; r--) {
    const i = order[r] as number;
    running = Math.min(running, (m * (pValues[i] as number)) / (r + 1));
    out[i] = running;
  }
  return out;
}

/** Holm step-down adjusted p-values, same order as the input. */
export function holm(pValues: readonly number[]): number[] {
  const out = pValues.map(() => NaN);
  const order = rankOrder(pValues);
  const m = order.length;
  let running = 0;
  order.forEach((i, r) => {
    running = Math.max(running, Math.min(1, (m - r) * (pValues[i] as number)));
    out[i] = running;
  });
  return out;
}
