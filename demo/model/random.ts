/** Seeded randomness and string hashing, so that splits, training and injected faults repeat exactly. */
import { mulberry32 } from '../../src/analysis/index.ts';

/** A seeded PRNG (mulberry32, shared with src/analysis): numbers uniform in [0, 1). */
export const createRandom: (seed: number) => () => number = mulberry32;

/** Fisher–Yates shuffle of a copy, driven by `random`. */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const tmp = out[i] as T;
    out[i] = out[j] as T;
    out[j] = tmp;
  }
  return out;
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units (unsigned). */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
