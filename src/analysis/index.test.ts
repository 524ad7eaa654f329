import { describe, expect, it } from 'vitest';
import * as analysis from './index.ts';

describe('analysis index', () => {
  it('exports the public functions', () => {
    for (const name of [
      'quantile',
      'quantiles',
      'wilson',
      'twoProportionZ',
      'fisherExact',
      'proportionTest',
      'benjaminiHochberg',
      'holm',
      'rankSlices',
      'attributeStages',
      'tailComposition',
      'compareTailComposition',
      'mannKendall',
      'theilSen',
      'detectSaturation',
      'logBuckets',
      'bucketIndex',
      'psi',
      'psiNumeric',
      'jensenShannonDistance',
      'ksTwoSample',
      'chiSquareTest',
      'wassersteinNormed',
      'driftTest',
      'mannWhitneyU',
      'hodgesLehmann',
    ]) {
      expect(typeof (analysis as Record<string, unknown>)[name], name).toBe('function');
    }
  });
});
