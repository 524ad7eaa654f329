/**
 * k-th smallest value in O(n) expected time (Hoare's quickselect with median-of-three pivot, as
 * Numerical Recipes `select`). Reorders the array in place: afterwards a[k] holds the answer, the
 * values before it are ≤ and the values after it are ≥. Cheaper than a full sort when only a few
 * order statistics of millions of values are needed (Hodges–Lehmann).
 */
import { InferlensError } from '../schema/index.ts';

/** The k-th smallest (0-based) of a, partially reordering a. */
export function selectInPlace(a: Float64Array, k: number): number {
  const n = a.length;
  if (!(Number.isInteger(k) && k >= 0 && k < n)) {
    throw new InferlensError('invalid_argument', `selectInPlace: k = ${k} is outside 0…${n - 1}`);
  }
  const at = (i: number): number => a[i] as number;
  const swap = (i: number, j: number): void => {
    const t = at(i);
    a[i] = at(j);
    a[j] = t;
  };
  let l = 0;
  let ir = n - 1;
  for (;;) {
    if (ir <= l + 1) {
      if (ir === l + 1 && at(ir) < at(l)) swap(l, ir);
      return at(k);
    }
    swap((l + ir) >>> 1, l + 1);
    if (at(l) > at(ir)) swap(l, ir);
    if (at(l + 1) > at(ir)) swap(l + 1, ir);
    if (at(l) > at(l + 1)) swap(l, l + 1);
    let i = l + 1;
    let j = ir;
    const pivot = at(l + 1);
    for (;;) {
      do i++;
      while (at(i) < pivot);
      do j--;
      while (at(j) > pivot);
      if (j < i) break;
      swap(i, j);
    }
    a[l + 1] = at(j);
    a[j] = pivot;
    if (j >= k) ir = j - 1;
    if (j <= k) l = i;
  }
}
