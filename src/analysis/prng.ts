/**
 * Seeded pseudo-random numbers for deterministic subsampling (same input, same seed → same
 * sample, so a verdict can be reproduced). mulberry32: 32-bit state, period 2³², fine for
 * choosing samples, not for cryptography.
 */

/** A generator of floats in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `size` values drawn without replacement (partial Fisher–Yates); the input itself when it is not larger. */
export function sampleWithoutReplacement<T>(values: readonly T[], size: number, random: () => number): T[] {
  if (values.length <= size) return [...values];
  const pool = [...values];
  for (let i = 0; i < size; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    const tmp = pool[i] as T;
    pool[i] = pool[j] as T;
    pool[j] = tmp;
  }
  return pool.slice(0, size);
}
