import { describe, expect, it } from 'vitest';
import { logChoose, logFactorial } from './log-factorial.ts';

describe('logFactorial', () => {
  it('is exact on small values', () => {
    expect(logFactorial(0)).toBe(0);
    expect(logFactorial(1)).toBe(0);
    expect(Math.exp(logFactorial(5))).toBeCloseTo(120, 10);
  });

  it('joins the table and the Stirling series smoothly at 256', () => {
    // ln 256! − ln 255! = ln 256
    expect(logFactorial(256) - logFactorial(255)).toBeCloseTo(Math.log(256), 11);
    // scipy.special.gammaln(1001) = 5912.128178488164
    expect(logFactorial(1000)).toBeCloseTo(5912.128178488164, 9);
  });

  it('gives binomial coefficients', () => {
    expect(Math.exp(logChoose(10, 3))).toBeCloseTo(120, 9);
    expect(logChoose(3, 4)).toBe(-Infinity);
  });
});
