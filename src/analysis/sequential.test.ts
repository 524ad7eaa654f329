import { describe, expect, it } from 'vitest';
import { mulberry32 } from './prng.ts';
import {
  START_POINTS_PER_DAY,
  bernoulliMixtureLogLR,
  betaBinomialStrength,
  binomialUpperTail,
  dispersion,
  OUTLIER_MINUTE_TAIL,
  evidencePValue,
  logMeanExp,
  multinomialShiftLogBF,
  rateAlternatives,
  rateShift,
  ratioMixtureLogLR,
  spreadPValue,
  wilsonUpper,
} from './sequential.ts';

describe('bernoulliMixtureLogLR', () => {
  it('matches the hand-computed mixture of two alternatives', () => {
    // 4·ln(0.06/0.015) + 16·ln(0.94/0.985) = 4.796989; 4·ln(0.24/0.015) + 16·ln(0.76/0.985) = 6.941184
    const t1 = 4 * Math.log(4) + 16 * Math.log(0.94 / 0.985);
    const t2 = 4 * Math.log(16) + 16 * Math.log(0.76 / 0.985);
    expect(t1).toBeCloseTo(4.796989, 6);
    expect(t2).toBeCloseTo(6.941184, 6);
    expect(bernoulliMixtureLogLR(20, 4, 0.015, [0.06, 0.24])).toBeCloseTo(Math.log((Math.exp(t1) + Math.exp(t2)) / 2), 12);
    expect(bernoulliMixtureLogLR(20, 4, 0.015, [0.06, 0.24])).toBeCloseTo(6.358828, 6);
  });
  it('is 0 without trials and negative when the outcomes favour p0', () => {
    expect(bernoulliMixtureLogLR(0, 0, 0.01, [0.1])).toBe(0);
    expect(bernoulliMixtureLogLR(100, 0, 0.01, [0.1])).toBeCloseTo(100 * Math.log(0.9 / 0.99), 12);
  });
  it('logMeanExp does not overflow', () => {
    expect(logMeanExp([1000, 1000])).toBeCloseTo(1000, 12);
    expect(logMeanExp([-Infinity])).toBe(-Infinity);
  });
});

describe('rateAlternatives', () => {
  it('doubles from pMin and ends at 0.95', () => {
    expect(rateAlternatives(0.015, 0.03)).toEqual([0.03, 0.06, 0.12, 0.24, 0.48, 0.95]);
    // pMin at or below p0 starts just above p0
    expect(rateAlternatives(0.5, 0.4)[0]).toBeCloseTo(0.505, 12);
  });
});

describe('rateShift', () => {
  const o = { tolerance: 1.5, minRatio: 3, minDelta: 0.02, minBad: 3 };
  it('matches the worked example: 4 bad of 20 against an exact 1 %', () => {
    const r = rateShift([{ n: 20, k: 4, pRef: 0.01, nRef: Infinity }], o)!;
    // alternatives 0.03 … 0.95: terms 2.52706, 4.79699, 6.51425, 6.94118, 3.64194, −31.0963
    expect(r.p0).toBeCloseTo(0.015, 12);
    expect(r.pMin).toBeCloseTo(0.03, 12);
    expect(r.logLR).toBeCloseTo(5.747538, 5);
    expect(r.rate).toBe(0.2);
  });
  it('takes the window with the strongest evidence, and skips windows below the floor or minBad', () => {
    const r = rateShift(
      [
        { n: 10, k: 2, pRef: 0.01, nRef: Infinity }, // minBad 3 not met
        { n: 40, k: 8, pRef: 0.01, nRef: Infinity },
        { n: 400, k: 9, pRef: 0.01, nRef: Infinity }, // 2.25 % < pMin 3 %
      ],
      o,
    )!;
    expect(r.window).toBe(1);
    expect(rateShift([{ n: 400, k: 9, pRef: 0.01, nRef: Infinity }], o)).toBeNull();
  });
  it('puts a Wilson upper bound on a reference measured on few trials', () => {
    // 1 % on 100 trials, z = 1.645: centre (0.01 + 2.706/200)/1.02706 = 0.022909, half-width
    // 1.645·√(0.000099 + 0.0000677)/1.02706 = 0.020678 → upper 4.359 %: 8 of 40 is weaker evidence.
    expect(wilsonUpper(0.01, 100, 1.645)).toBeCloseTo(0.043587, 5);
    const exact = rateShift([{ n: 40, k: 8, pRef: 0.01, nRef: Infinity }], o)!;
    const thin = rateShift([{ n: 40, k: 8, pRef: 0.01, nRef: 100 }], o)!;
    expect(thin.logLR).toBeLessThan(exact.logLR);
    expect(thin.p0).toBeCloseTo(1.5 * wilsonUpper(0.01, 100, 1.645), 12);
  });
  it('shrinks a member toward its group by as many trials as the members share a rate', () => {
    const strength = (...members: [number, number][]) => betaBinomialStrength(members.map(([n, k]) => ({ n, k })));
    // m = 1/30; S = 100·(1/30)² + 100·(0.01 − 1/30)² + 100·(0.09 − 1/30)² = 0.48667; chance alone
    // 2·m(1 − m) = 0.064444; τ² = 0.42222 / (300 − 30,000/300) = 0.0021111; κ = 0.032222 / τ² − 1 = 14.263.
    expect(strength([100, 0], [100, 1], [100, 9])).toBeCloseTo(14.263158, 5);
    // Members no more apart than their counts: pool them all; too few members to say: NaN.
    expect(strength([100, 1], [100, 1], [100, 1])).toBe(Infinity);
    expect(strength([200, 2], [100, 1], [0, 0])).toBe(Infinity);
    expect(strength([100, 1], [0, 0])).toBeNaN();
  });
  it('under "no change" crosses a day\'s evidence bar far less often than Ville allows', () => {
    // 2,000 slices × 60 minutes of Bernoulli(1 %) traffic at 30 requests a minute, every window
    // ending at every minute tried: Ville bounds P(ever ≥ ln(1440/0.01)) per change point by
    // 0.01/1440, so across 2,000 × 60 change points the expected count of crossings is ≤ 0.83.
    const rnd = mulberry32(11);
    const windows = [1, 2, 3, 5, 8, 13, 21, 30, 45, 60];
    const bar = Math.log(START_POINTS_PER_DAY / 0.01);
    let crossings = 0;
    let maxSeen = 0;
    for (let s = 0; s < 2000; s++) {
      const k: number[] = [];
      for (let m = 0; m < 60; m++) {
        let bad = 0;
        for (let i = 0; i < 30; i++) if (rnd() < 0.01) bad++;
        k.push(bad);
        const ws = windows
          .filter((w) => w <= k.length)
          .map((w) => {
            let kk = 0;
            for (let j = k.length - w; j < k.length; j++) kk += k[j]!;
            return { n: 30 * w, k: kk, pRef: 0.01, nRef: Infinity };
          });
        const r = rateShift(ws, o);
        if (r) maxSeen = Math.max(maxSeen, r.logLR);
        if (r && r.logLR >= bar) crossings++;
      }
    }
    expect(crossings).toBe(0);
    expect(maxSeen).toBeLessThan(bar - 3);
  });
});

describe('ratioMixtureLogLR', () => {
  const o = { tolerance: 1.5, minRatio: 3, minDelta: 0.02, minBad: 3 };
  it('matches the worked example: 8 of 40 against 1 of 100', () => {
    // π0 = 60/160; p1 0.24 and 0.95 → π1 = 9.6/10.6 and 38/39 over K = 9: 8·ln(0.90566/0.375) +
    // ln(0.09434/0.625) = 5.16306 and 8·ln(0.97436/0.375) + ln(0.02564/0.625) = 4.44527 → 4.86723.
    expect(ratioMixtureLogLR(40, 8, 100, 1, 1.5, [0.24, 0.95])).toBeCloseTo(4.86723, 5);
    // No bad reference outcome: π1 = 0.37875, 0.7575 and 0.95, every one of the K = 8 in the window.
    expect(ratioMixtureLogLR(40, 8, 100, 0, 1.5, [0.24, 0.95])).toBeCloseTo(logMeanExp([1.01, 2.02, 0.95 / 0.375].map((r) => 8 * Math.log(r))), 10);
  });
  it("keeps the reference's uncertainty in the test instead of stacking the tolerance on its upper bound", () => {
    // 12 of 300 against 47 of 7,800: null 1.5 × Wilson 0.767 % = 1.15 % → ln LR 4.60; given both counts 5.94.
    const w = [{ n: 300, k: 12, pRef: 47 / 7800, nRef: 7800 }];
    const bound = rateShift(w, o)!;
    const given = rateShift(w, { ...o, conditional: true })!;
    expect(bound.p0).toBeCloseTo(0.0115, 4);
    expect(bound.logLR).toBeCloseTo(4.597, 3);
    expect(given.logLR).toBeCloseTo(5.942, 3);
    // The gates are the same: p0, pMin and the window chosen do not change.
    expect({ ...given, logLR: 0 }).toEqual({ ...bound, logLR: 0 });
    // An exact reference is judged as before; a very thick one converges to the Poisson test at 1.5 × its rate.
    const exact = [{ n: 300, k: 12, pRef: 0.006, nRef: Infinity }];
    expect(rateShift(exact, { ...o, conditional: true })!.logLR).toBe(rateShift(exact, o)!.logLR);
    const thick = rateShift([{ n: 300, k: 12, pRef: 0.006, nRef: 1e9 }], { ...o, conditional: true })!.logLR;
    const poisson = rateAlternatives(0.009, 0.026).map((p) => 12 * Math.log(p / 0.009) - 300 * (p - 0.009));
    expect(thick).toBeCloseTo(logMeanExp(poisson), 3);
  });
  it('under "no change" with a thin measured reference crosses the bar far less often than Ville allows', () => {
    // 1,000 slices, each with a past of 300 requests at 1 % (its bad count drawn: 0–9) and an hour
    // of 30 requests a minute at the same 1 %, every window tried at every minute.
    const rnd = mulberry32(23);
    const draw = (n: number) => {
      let bad = 0;
      for (let i = 0; i < n; i++) if (rnd() < 0.01) bad++;
      return bad;
    };
    const windows = [1, 2, 3, 5, 8, 13, 21, 30, 45, 60];
    const bar = Math.log(START_POINTS_PER_DAY / 0.01);
    let crossings = 0;
    let maxSeen = 0;
    for (let s = 0; s < 1000; s++) {
      const kRef = draw(300);
      const k: number[] = [];
      for (let m = 0; m < 60; m++) {
        k.push(draw(30));
        const ws = windows
          .filter((w) => w <= k.length)
          .map((w) => ({ n: 30 * w, k: k.slice(k.length - w).reduce((a, b) => a + b, 0), pRef: kRef / 300, nRef: 300 }));
        const r = rateShift(ws, { ...o, conditional: true });
        if (r) maxSeen = Math.max(maxSeen, r.logLR);
        if (r && r.logLR >= bar) crossings++;
      }
    }
    expect(crossings).toBe(0);
    expect(maxSeen).toBeLessThan(bar - 3);
  });
});

describe('dispersion', () => {
  it('matches the worked example and is 1 for binomial-looking counts', () => {
    const n = Array(10).fill(100);
    // p = 15/1000; χ² = (9·0.5² + 4.5²) / (100·0.015·0.985) = 22.5/1.4775 = 15.228 over 9 dof → 1.692
    expect(dispersion(n, [1, 1, 1, 1, 6, 1, 1, 1, 1, 1])).toBeCloseTo(22.5 / 1.4775 / 9, 9);
    expect(dispersion(n, [1, 2, 1, 2, 1, 2, 1, 2, 1, 2])).toBe(1);
    expect(dispersion(n.slice(0, 9), [1, 1, 1, 1, 1, 1, 1, 1, 1])).toBeNaN();
    expect(dispersion(n, Array(10).fill(0))).toBeNaN();
  });
  it('does not measure it on a few bad requests', () => {
    // A thin slice: 56 minutes, one bad request in a minute of one request among N = 121. Measured,
    // χ² = (1 − 1/121)²/((1/121)(120/121)) + Σ_others n_j·p/(1 − p) = 120 + 120/120 = 121 over
    // 55 dof → 2.2; in the minute of 12 it would add 121/12 − 1 and read 1: which minute, not how the rate wanders.
    const n = [1, ...Array(54).fill(2), 12];
    const k = [1, ...Array(55).fill(0)];
    expect(dispersion(n, k)).toBeNaN();
    // Ten bad requests are enough: spread one per minute over minutes of equal size it is 1.
    expect(dispersion(Array(20).fill(10), [...Array(10).fill(1), ...Array(10).fill(0)])).toBe(1);
  });
  it('leaves out a minute too improbable for the rate (a past incident), and nothing of a rate that wanders', () => {
    // The worked example and an eleventh minute of 100 with 40 bad: at the pooled 0.05 its tail is
    // 6e-26; kept, it would make φ 28.8 (clamped to 20).
    const n = Array(11).fill(100);
    expect(dispersion(n, [1, 1, 1, 1, 6, 1, 1, 1, 1, 1, 40])).toBeCloseTo(22.5 / 1.4775 / 9, 9);
    expect(dispersion(n, [1, 1, 1, 1, 6, 1, 1, 1, 1, 1, 9])).toBeGreaterThan(2);
    // A rate that wanders log-normally around 2 % over 120 minutes of 200: by σ = 0.3 no minute is
    // left out (φ is Pearson's over all of them); by σ = 0.8 the widest minutes are (φ 4.5–7.8 → 2.7–3.8
    // on these draws), a heavy-tailed wander read as a narrower one.
    const random = mulberry32(3);
    const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    for (const sigma of [0.3, 0.8])
      for (let r = 0; r < 20; r++) {
        const m = Array(120).fill(200);
        const k = m.map((x) => {
          const p = Math.min(0.5, 0.02 * Math.exp(sigma * gauss()));
          let bad = 0;
          for (let i = 0; i < x; i++) if (random() < p) bad++;
          return bad;
        });
        const p = k.reduce((a, b) => a + b, 0) / (120 * 200);
        const pearson = Math.min(20, Math.max(1, k.reduce((t, kj) => t + (kj - 200 * p) ** 2 / (200 * p * (1 - p)), 0) / 119));
        const phi = dispersion(m, k);
        const kept = k.every((kj) => binomialUpperTail(kj, 200, p) >= OUTLIER_MINUTE_TAIL);
        if (sigma === 0.3) expect(kept).toBe(true);
        if (kept) expect(phi).toBeCloseTo(pearson, 12);
        else expect(phi).toBeLessThan(pearson);
        expect(phi).toBeGreaterThan(sigma === 0.3 ? 1 : 2.5);
      }
  });
  it('divides the evidence', () => {
    const w = [{ n: 200, k: 20, pRef: 0.01, nRef: Infinity }];
    const o = { tolerance: 1.5, minRatio: 3, minDelta: 0.02, minBad: 3 };
    expect(rateShift(w, { ...o, dispersion: 2 })!.logLR).toBeCloseTo(rateShift(w, o)!.logLR / 2, 12);
  });
});

describe('multinomialShiftLogBF', () => {
  it('matches the hand-computed Dirichlet–multinomial Bayes factor', () => {
    // ln B(2,5) + ln B(9,3) − ln B(1,1) − ln B(10,7); ln B(a,b) = lnΓa + lnΓb − lnΓ(a+b):
    // ln B(2,5) = ln(1!·4!/6!) = ln(1/30) = −3.401197; ln B(9,3) = ln(8!·2!/11!) = ln(1/495) = −6.204558
    // ln B(10,7) = ln(9!·6!/16!) = ln(1/80080) = −11.290782 → 1.685026
    expect(multinomialShiftLogBF([8, 2], [1, 4])).toBeCloseTo(-Math.log(30) - Math.log(495) + Math.log(80080), 9);
    expect(multinomialShiftLogBF([8, 2], [1, 4])).toBeCloseTo(1.685026, 6);
  });
  it('grows with a real shift and stays low without one', () => {
    const same = multinomialShiftLogBF([500, 300, 200], [50, 30, 20]);
    const moved = multinomialShiftLogBF([500, 300, 200], [20, 30, 50]);
    expect(same).toBeLessThan(0);
    expect(moved).toBeGreaterThan(15);
  });
  it('rejects mismatched categories', () => {
    expect(() => multinomialShiftLogBF([1, 2], [1])).toThrow();
  });
});

describe('evidencePValue', () => {
  it('is the union bound over a day of change points', () => {
    expect(evidencePValue(18)).toBeCloseTo(1440 * Math.exp(-18), 15);
    expect(evidencePValue(0)).toBe(1);
    expect(evidencePValue(2)).toBe(1);
    expect(evidencePValue(10, 1)).toBeCloseTo(Math.exp(-10), 15);
  });
});

/** P(X ≥ k) by summing the pmf from k to n (an independent route to the same number). */
function tailBySum(k: number, n: number, p: number): number {
  let logC = 0; // ln C(n, j), built up term by term
  let sum = 0;
  for (let j = 0; j <= n; j++) {
    if (j > 0) logC += Math.log((n - j + 1) / j);
    if (j >= k) sum += Math.exp(logC + j * Math.log(p) + (n - j) * Math.log(1 - p));
  }
  return sum;
}

describe('binomialUpperTail', () => {
  it('matches the reference value and a direct sum of the pmf', () => {
    // R: pbinom(4, 20, 0.1, lower.tail = FALSE) = 0.04317450
    expect(binomialUpperTail(5, 20, 0.1)).toBeCloseTo(0.0431745, 6);
    for (const [k, n, p] of [
      [5, 540, 0.02],
      [17, 540, 0.02],
      [1, 3, 0.5],
      [30, 100, 0.2],
    ] as const)
      expect(binomialUpperTail(k, n, p)).toBeCloseTo(tailBySum(k, n, p), 9);
    expect(binomialUpperTail(0, 10, 0.1)).toBe(1);
    expect(binomialUpperTail(11, 10, 0.1)).toBe(0);
  });
});

describe('spreadPValue', () => {
  const n = Array<number>(12).fill(60);
  it('takes the densest bins out: a burst leaves normal traffic outside', () => {
    // Densest three: bins 2–4 (46 bad against 3.6 expected); outside, 5 of 540.
    expect(spreadPValue(n, [1, 0, 20, 25, 1, 0, 1, 1, 0, 1, 0, 1], 0.02, 3)).toBeCloseTo(tailBySum(5, 540, 0.02), 9);
    expect(spreadPValue(n, [1, 0, 20, 25, 1, 0, 1, 1, 0, 1, 0, 1], 0.02, 3)).toBeGreaterThan(0.9);
  });
  it('a change that lasts keeps its evidence outside the burst', () => {
    const p = spreadPValue(n, [5, 5, 20, 25, 5, 5, 5, 5, 5, 5, 5, 5], 0.02, 3);
    expect(p / tailBySum(45, 540, 0.02)).toBeCloseTo(1, 9);
    expect(p).toBeLessThan(1e-14);
  });
  it('divides counts by the dispersion', () => {
    expect(spreadPValue(n, [5, 5, 20, 25, 5, 5, 5, 5, 5, 5, 5, 5], 0.02, 3, 4)).toBeCloseTo(binomialUpperTail(45 / 4, 540 / 4, 0.02), 12);
  });
  it('takes out as many bursts as it is told, the densest first', () => {
    const two = [1, 0, 20, 25, 1, 0, 1, 1, 0, 30, 0, 1];
    // Bins 2–4, then 7–9 (the first of the densest runs left): outside, 3 of 360.
    expect(spreadPValue(n, two, 0.02, 3, 1, 2)).toBeCloseTo(tailBySum(3, 360, 0.02), 9);
    expect(spreadPValue(n, two, 0.02, 3, 1, 2)).toBeGreaterThan(0.9);
    // One burst out, the other left: 34 of 540.
    expect(spreadPValue(n, two, 0.02, 3, 1, 1) / tailBySum(34, 540, 0.02)).toBeCloseTo(1, 9);
    expect(spreadPValue(n, two, 0.02, 3, 1, 1)).toBeLessThan(1e-7);
  });
  it('an extra run is taken out only if it is a burst on its own', () => {
    const two = [1, 0, 20, 25, 1, 0, 1, 1, 0, 30, 0, 1];
    // Bins 7–9 hold 31 of 180 (tail 7e−20 at 2 %): a burst, out as with two runs.
    expect(spreadPValue(n, two, 0.02, 3, 1, 1, 1, 1e-6)).toBeCloseTo(tailBySum(3, 360, 0.02), 9);
    // A change spread over every bin (5 a bin): the second densest run, 15 of 180 (tail 4e−6), stays.
    const spread = [5, 5, 20, 25, 5, 5, 5, 5, 5, 5, 5, 5];
    expect(spreadPValue(n, spread, 0.02, 3, 1, 1, 1, 1e-6) / tailBySum(45, 540, 0.02)).toBeCloseTo(1, 9);
    expect(spreadPValue(n, spread, 0.02, 3, 1, 2) / tailBySum(30, 360, 0.02)).toBeCloseTo(1, 9);
  });
  it('fewer bins than the span: nothing is left outside', () => {
    expect(spreadPValue([60, 60], [30, 30], 0.02, 3)).toBe(1);
  });
});
