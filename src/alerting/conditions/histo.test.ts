// A slice's own reference bucket, and a child's shrunk toward its parent, read from its columns against the histograms latency_shift builds.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../analysis/index.ts';
import type { SliceSeries } from '../series.ts';
import { emptyHisto, histoTotal, ownReferenceBucket, peersReferenceBucket, referenceBucket, shrunkReferenceBucket } from './histo.ts';
import type { Histo } from './histo.ts';
import { SHRINK_REQUESTS } from './shift.ts';

const MIN = 60_000;

/** A slice's per-minute rows per bucket index, answering as the series cache does. */
function series(rows: Map<number, number[]>): SliceSeries {
  const indices = [...rows.keys()].sort((a, b) => a - b);
  const over = (i: number, a: number, b: number) =>
    rows
      .get(i)!
      .slice(a / MIN, b / MIN)
      .reduce((t, v) => t + v, 0);
  return {
    labels: {},
    sum: () => 0,
    sumOf: () => () => 0,
    indices: () => indices,
    count: (i, a, b) => over(i, a, b),
    countsOver: (a, b) => (x) => over(indices[x]!, a, b),
    total: (a, b) => indices.reduce((t, i) => t + over(i, a, b), 0),
  };
}

/** The histogram latency_shift builds of a slice's rows over [a, b): (mirrored) indices ascending, zeros left out. */
function histogram(s: SliceSeries, sign: 1 | -1, a: number, b: number): Histo {
  const h = emptyHisto();
  if (b <= a) return h;
  for (const i of s.indices()) {
    const v = s.count(i, a, b);
    if (v !== 0) {
      h.keys.push(sign * i + 0);
      h.vals.push(v);
    }
  }
  return h;
}

/** The reference construction: adds `scale` × each of `src`'s rows into `into`, new keys appended in `src`'s order (as a Map would). */
function merge(into: Histo, src: Histo, scale = 1, divide = 1): void {
  let pos: Map<number, number> | null = null;
  for (let x = 0; x < src.keys.length; x++) {
    const k = src.keys[x]!;
    const v = divide === 1 ? scale * src.vals[x]! : (scale * src.vals[x]!) / divide;
    pos ??= new Map(into.keys.map((key, j) => [key, j]));
    const j = pos.get(k);
    if (j === undefined) {
      pos.set(k, into.keys.length);
      into.keys.push(k);
      into.vals.push(0 + v);
    } else into.vals[j]! += v;
  }
}

function randomSeries(random: () => number, c: number): SliceSeries {
  const rows = new Map<number, number[]>();
  const low = c % 7 === 0 ? -32768 : Math.floor(random() * 20);
  for (let i = low; i < low + 1 + Math.floor(random() * 60); i = i === -32768 ? 5 : i + 1)
    rows.set(
      i,
      Array.from({ length: 30 }, () => (random() < 0.7 ? 0 : Math.floor(random() * (random() < 0.02 ? 5000 : 6)))),
    );
  return series(rows);
}

describe('referenceBucket far', () => {
  it('counts the rows above the bucket `far` indices over the threshold, worked by hand', () => {
    // 100 rows: the P90 bucket is index 3 (50 + 30 + 10 rows at or below it), 10 above it; 6 indices
    // higher, 9, leaves the 5 + 5 at 10 and 11 above it; 8 higher, 11, none.
    const h: Histo = { keys: [11, 1, 10, 2, 3], vals: [5, 50, 5, 30, 10] };
    expect(referenceBucket(h, 0.9)).toEqual({ index: 3, total: 100, above: 10, q: 0.9 });
    expect(referenceBucket(h, 0.9, 6)).toEqual({ index: 3, total: 100, above: 10, q: 0.9, farAbove: 10 });
    expect(referenceBucket(h, 0.9, 7)!.farAbove).toBe(5);
    expect(referenceBucket(h, 0.9, 8)!.farAbove).toBe(0);
  });
});

describe('shrunkReferenceBucket', () => {
  it("gives referenceBucket of the child's histogram merged with its parent's past, to the last bit", () => {
    const random = mulberry32(9);
    let compared = 0;
    let found = 0;
    for (let c = 0; c < 400; c++) {
      const child = randomSeries(random, c);
      const parent = randomSeries(random, c + 3);
      for (const sign of [1, -1] as const)
        for (const q of [0.5, 0.9, 0.95, 0.99]) {
          const a = Math.floor(random() * 30) * MIN;
          const b = a + Math.floor(random() * 12) * MIN;
          const p = histogram(parent, sign, Math.floor(random() * 10) * MIN, 30 * MIN);
          const pt = histoTotal(p);
          if (pt <= 0) continue;
          const m = histogram(child, sign, a, b);
          merge(m, p, SHRINK_REQUESTS, pt);
          for (const far of [0, 6]) {
            const want = referenceBucket(m, q, far);
            expect(shrunkReferenceBucket(child, sign, a, b, p, pt, SHRINK_REQUESTS, q, far)).toEqual(want);
            compared++;
            if (want && want.total % 1 !== 0) found++;
          }
        }
    }
    expect(compared).toBeGreaterThan(5000);
    expect(found).toBeGreaterThan(1000);
  });
});

describe('ownReferenceBucket', () => {
  it('gives referenceBucket of the histogram of the same rows: every q, both directions, thin and empty ranges', () => {
    const random = mulberry32(5);
    let compared = 0;
    let found = 0;
    for (let c = 0; c < 300; c++) {
      const s = randomSeries(random, c);
      for (const sign of [1, -1] as const)
        for (const q of [0.5, 0.9, 0.95, 0.99, 0.999]) {
          const a = Math.floor(random() * 30) * MIN;
          const b = a + Math.floor(random() * 12) * MIN;
          for (const far of [0, 6]) {
            const want = referenceBucket(histogram(s, sign, a, b), q, far);
            expect(ownReferenceBucket(s, sign, a, b, q, far)).toEqual(want);
            compared++;
            if (want) found++;
          }
        }
    }
    expect(compared).toBe(6000);
    expect(found).toBeGreaterThan(3000);
  });
});

describe('peersReferenceBucket', () => {
  it("gives referenceBucket of the merged histograms of a slice's peers: groups of 1 to 9, every q, both directions, thin ranges", () => {
    const random = mulberry32(13);
    let compared = 0;
    let found = 0;
    for (let c = 0; c < 200; c++) {
      const members = Array.from({ length: 1 + Math.floor(random() * 9) }, (_, j) => randomSeries(random, c + j));
      const skip = members[Math.floor(random() * members.length)]!;
      for (const sign of [1, -1] as const)
        for (const q of [0.5, 0.9, 0.95, 0.99]) {
          const a = Math.floor(random() * 30) * MIN;
          const b = a + Math.floor(random() * 12) * MIN;
          const minCount = [1, 30, 200][Math.floor(random() * 3)]!;
          const m = emptyHisto();
          for (const s of members) if (s !== skip) merge(m, histogram(s, sign, a, b));
          for (const far of [0, 6]) {
            const want = histoTotal(m) >= minCount ? referenceBucket(m, q, far) : null;
            expect(peersReferenceBucket(members, skip, sign, a, b, q, minCount, far)).toEqual(want);
            compared++;
            if (want) found++;
          }
        }
    }
    expect(compared).toBe(3200);
    expect(found).toBeGreaterThan(1200);
  });
});
