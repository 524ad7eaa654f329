/**
 * The P² streaming quantile estimator (Jain & Chlamtac, "The P² algorithm for dynamic calculation
 * of quantiles and histograms without storing observations", CACM 28(10), 1985): five markers,
 * O(1) memory and time per observation. Used by the capture policy to find input-length outliers
 * per model without keeping the lengths.
 *
 * Until five values are seen the estimate is the exact type-7 quantile of what was seen.
 */
export class P2Quantile {
  private readonly p: number;
  /** Marker heights q[0..4] and positions n[0..4] (1-based, as in the paper). */
  private readonly q: number[] = [];
  private readonly n = [1, 2, 3, 4, 5];
  /** Desired positions and their increments. */
  private readonly want: number[];
  private readonly dWant: number[];
  private count = 0;

  constructor(p: number) {
    if (!(p > 0 && p < 1)) throw new RangeError(`quantile must be in (0, 1), got ${p}`);
    this.p = p;
    this.want = [1, 1 + 2 * p, 1 + 4 * p, 3 + 2 * p, 5];
    this.dWant = [0, p / 2, p, (1 + p) / 2, 1];
  }

  /** Values observed so far. */
  get seen(): number {
    return this.count;
  }

  add(x: number): void {
    const q = this.q;
    const n = this.n;
    this.count++;
    if (this.count <= 5) {
      q.push(x);
      q.sort((a, b) => a - b);
      return;
    }
    // Find the cell k with q[k] ≤ x < q[k+1], widening the extremes.
    let k: number;
    if (x < q[0]!) {
      q[0] = x;
      k = 0;
    } else if (x >= q[4]!) {
      q[4] = x;
      k = 3;
    } else {
      k = 0;
      while (k < 3 && x >= q[k + 1]!) k++;
    }
    for (let i = k + 1; i < 5; i++) n[i]!++;
    for (let i = 0; i < 5; i++) this.want[i]! += this.dWant[i]!;
    // Adjust the three middle markers if they drifted from their desired positions.
    for (let i = 1; i <= 3; i++) {
      const d = this.want[i]! - n[i]!;
      if ((d >= 1 && n[i + 1]! - n[i]! > 1) || (d <= -1 && n[i - 1]! - n[i]! < -1)) {
        const s = Math.sign(d);
        const parabolic =
          q[i]! +
          (s / (n[i + 1]! - n[i - 1]!)) *
            ((n[i]! - n[i - 1]! + s) * ((q[i + 1]! - q[i]!) / (n[i + 1]! - n[i]!)) + (n[i + 1]! - n[i]! - s) * ((q[i]! - q[i - 1]!) / (n[i]! - n[i - 1]!)));
        if (q[i - 1]! < parabolic && parabolic < q[i + 1]!) q[i] = parabolic;
        else q[i] = q[i]! + (s * (q[i + s]! - q[i]!)) / (n[i + s]! - n[i]!);
        n[i]! += s;
      }
    }
  }

  /** The current estimate; NaN before the first value. */
  value(): number {
    if (this.count === 0) return NaN;
    if (this.count <= 5) {
      // Exact type 7 over the sorted values: h = (n − 1)·p.
      const h = (this.q.length - 1) * this.p;
      const lo = Math.floor(h);
      return this.q[lo]! + (h - lo) * ((this.q[Math.min(lo + 1, this.q.length - 1)] ?? 0) - this.q[lo]!);
    }
    return this.q[2]!;
  }
}
