import { describe, expect, it } from 'vitest';
import { InferlensError } from '../schema/index.ts';
import { appendIsolating } from './isolate.ts';

/** A store that refuses any append holding one of `bad`, and records what it stored. */
function refusing(bad: ReadonlySet<number>) {
  const stored: number[] = [];
  let appends = 0;
  const append = async (idx: readonly number[]) => {
    appends++;
    const hit = idx.find((i) => bad.has(i));
    if (hit !== undefined) throw new InferlensError('invalid_argument', `the store cannot hold this row: row ${hit}`);
    stored.push(...idx);
  };
  return { append, stored, appends: () => appends };
}

describe('appendIsolating', () => {
  it('stores everything in one append when nothing is refused', async () => {
    const s = refusing(new Set());
    expect(await appendIsolating(5000, s.append)).toEqual([]);
    expect(s.stored).toHaveLength(5000);
    expect(s.appends()).toBe(1);
  });

  it('finds the refused rows by halving and stores every other row', async () => {
    const s = refusing(new Set([17, 4321]));
    const refused = await appendIsolating(5000, s.append);
    expect(refused.map((r) => r.index)).toEqual([17, 4321]);
    expect(refused[0]!.message).toMatch(/row 17/);
    expect(s.stored.sort((a, b) => a - b)).toEqual(Array.from({ length: 5000 }, (_, i) => i).filter((i) => i !== 17 && i !== 4321));
    // Two refused rows among 5,000: 1 + 2 per level for 13 levels, once per row, at most.
    expect(s.appends()).toBeLessThanOrEqual(1 + 2 * 2 * Math.ceil(Math.log2(5000)));
  });

  it('past its budget, rejects the rows it did not try instead of looping', async () => {
    const s = refusing(new Set(Array.from({ length: 100 }, (_, i) => i * 3)));
    const refused = await appendIsolating(300, s.append, 20);
    expect(s.appends()).toBe(20);
    // Every row is either stored or rejected, never both, never lost.
    const rejected = new Set(refused.map((r) => r.index));
    expect(rejected.size + s.stored.length).toBe(300);
    for (const i of s.stored) expect(rejected.has(i)).toBe(false);
    for (let i = 0; i < 300; i += 3) expect(rejected.has(i)).toBe(true);
  });

  it('throws a storage failure at once (it is retryable, not a row problem)', async () => {
    let n = 0;
    const failing = async () => {
      n++;
      throw new InferlensError('unavailable', 'disk full');
    };
    await expect(appendIsolating(1000, failing)).rejects.toMatchObject({ code: 'unavailable' });
    expect(n).toBe(1);
  });
});
