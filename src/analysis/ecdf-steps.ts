/**
 * Walks the pooled distinct values of two sorted samples, giving both empirical CDFs just after
 * each value (every copy of a tied value passed). KS takes the largest gap; Wasserstein
 * integrates the gap between consecutive values.
 * Worked: x = [1, 3], y = [2] → (1, ½, 0), (2, ½, 1), (3, 1, 1).
 */

export interface EcdfStep {
  value: number;
  /** F_x(value) and F_y(value). */
  fx: number;
  fy: number;
}

/** ECDF steps of two ascending, NaN-free samples. */
export function ecdfSteps(sortedX: readonly number[], sortedY: readonly number[]): EcdfStep[] {
  const steps: EcdfStep[] = [];
  let i = 0;
  let j = 0;
  while (i < sortedX.length || j < sortedY.length) {
    const value = Math.min(sortedX[i] ?? Infinity, sortedY[j] ?? Infinity);
    while (i < sortedX.length && (sortedX[i] as number) <= value) i++;
    while (j < sortedY.length && (sortedY[j] as number) <= value) j++;
    steps.push({ value, fx: i / sortedX.length, fy: j / sortedY.length });
  }
  return steps;
}
