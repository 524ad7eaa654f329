import { describe, expect, it } from 'vitest';
import { benjaminiHochberg, holm } from './p-adjust.ts';

const close = (a: number[], b: number[]): void => a.forEach((v, i) => expect(v).toBeCloseTo(b[i] as number, 12));

describe('benjaminiHochberg', () => {
  it('matches the worked example (R p.adjust "BH")', () => {
    // sorted 0.005, 0.01, 0.03, 0.04 → 4p/j = 0.02, 0.02, 0.04, 0.04
    close(benjaminiHochberg([0.01, 0.04, 0.03, 0.005]), [0.02, 0.04, 0.04, 0.02]);
  });

  it('enforces monotonicity from the top and caps at 1', () => {
    // R: p.adjust(c(0.5, 0.2, 0.9), "BH") = 0.75 0.60 0.90
    // sorted 0.2, 0.5, 0.9: 3·0.2/1 = 0.6, 3·0.5/2 = 0.75, 3·0.9/3 = 0.9
    close(benjaminiHochberg([0.5, 0.2, 0.9]), [0.75, 0.6, 0.9]);
    close(benjaminiHochberg([0.6, 0.7]), [0.7, 0.7]);
  });

  it('keeps NaN out of m', () => {
    const q = benjaminiHochberg([0.01, NaN, 0.04]);
    expect(q[1]).toBeNaN();
    close([q[0] as number, q[2] as number], [0.02, 0.04]);
  });

  it('never lowers a p-value and orders q like p', () => {
    const p = Array.from({ length: 50 }, (_, i) => ((i * 37) % 50) / 60 + 0.0001);
    const q = benjaminiHochberg(p);
    p.forEach((pi, i) => expect(q[i] as number).toBeGreaterThanOrEqual(pi));
    for (let i = 0; i < p.length; i++)
      for (let j = 0; j < p.length; j++) if ((p[i] as number) < (p[j] as number)) expect(q[i] as number).toBeLessThanOrEqual(q[j] as number);
  });
});

describe('holm', () => {
  it('matches the worked example (R p.adjust "holm")', () => {
    // sorted 0.005, 0.01, 0.03, 0.04 → (4, 3, 2, 1)·p = 0.02, 0.03, 0.06, 0.04 → running max
    close(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02]);
  });

  it('caps at 1 and is at least as strict as BH', () => {
    const p = [0.3, 0.02, 0.8, 0.011];
    const h = holm(p);
    const q = benjaminiHochberg(p);
    h.forEach((v, i) => {
      expect(v).toBeLessThanOrEqual(1);
      expect(v).toBeGreaterThanOrEqual(q[i] as number);
    });
  });
});
