/**
 * Per-dimension cardinality cap. The first `cap` distinct values of each dimension are kept;
 * later new values map to `__other__` (and are counted by the caller). Known values are seeded
 * from the store at start so the cap holds across restarts.
 */
import type { Dimension } from '../schema/index.ts';

export const OVERFLOW_VALUE = '__other__';

export class CardinalityLimiter {
  private readonly known = new Map<Dimension, Set<string>>();
  constructor(private readonly cap: number) {}

  private set(d: Dimension): Set<string> {
    let s = this.known.get(d);
    if (!s) this.known.set(d, (s = new Set()));
    return s;
  }

  seed(d: Dimension, values: readonly string[]): void {
    const s = this.set(d);
    for (const v of values) if (s.size < this.cap || s.has(v)) s.add(v);
  }

  /** True when the value is kept as is; false when it overflows the cap. */
  admit(d: Dimension, v: string): boolean {
    if (v === OVERFLOW_VALUE) return true;
    const s = this.set(d);
    if (s.has(v)) return true;
    if (s.size < this.cap) {
      s.add(v);
      return true;
    }
    return false;
  }

  /** The value to store: itself when known, else `__other__`. */
  map(d: Dimension, v: string): string {
    return this.set(d).has(v) ? v : OVERFLOW_VALUE;
  }

  size(d: Dimension): number {
    return this.known.get(d)?.size ?? 0;
  }
}
