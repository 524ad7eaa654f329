/**
 * Finding the rows a store refuses. Validation accepts only what the columns hold, so a store that
 * refuses rows (`invalid_argument` from an append) means a bug or a new edge case: the rows it
 * refuses get a per-row reject, and every other row is still stored.
 *
 * The rows are split in halves; a half that the store takes is stored, a half it refuses is split
 * again, down to single rows. k refused rows among n cost about 2·k·log2(n) appends (one refused
 * row in 5,000: ~26 small transactions), bounded by `maxAppends`: past it, the rows not tried yet
 * are rejected too (the caller may re-send them once the refused rows are fixed).
 */
import { InferlensError } from '../schema/index.ts';

/** A row the store did not take: its position in the input, and why. */
export interface RefusedRow {
  index: number;
  message: string;
}

/** Whether an append failed because of the rows themselves (retrying them cannot help). */
export function isRowRefusal(e: unknown): e is InferlensError {
  return e instanceof InferlensError && e.code === 'invalid_argument';
}

/** Most appends spent isolating refused rows of one request. */
export const MAX_ISOLATION_APPENDS = 128;

/**
 * Appends `count` rows (by index) with `append`, isolating the refused ones. `append` receives
 * the indexes of the rows to store. A storage failure (not a refusal) is thrown: the caller
 * answers it as retryable, and rows stored before it stay stored (appends are idempotent).
 */
export async function appendIsolating(
  count: number,
  append: (indexes: readonly number[]) => Promise<void>,
  maxAppends = MAX_ISOLATION_APPENDS,
): Promise<RefusedRow[]> {
  const refused: RefusedRow[] = [];
  let appends = 0;
  const all = Array.from({ length: count }, (_, i) => i);
  // Ranges known to hold a refused row; each is split and its halves tried.
  const failing: { rows: number[]; message: string }[] = [];
  try {
    appends++;
    await append(all);
    return refused;
  } catch (e) {
    if (!isRowRefusal(e)) throw e;
    failing.push({ rows: all, message: e.message });
  }
  while (failing.length > 0) {
    const { rows, message } = failing.pop()!;
    if (rows.length === 1) {
      refused.push({ index: rows[0]!, message });
      continue;
    }
    const mid = rows.length >> 1;
    for (const half of [rows.slice(0, mid), rows.slice(mid)]) {
      if (appends >= maxAppends) {
        for (const index of half)
          refused.push({ index, message: 'not stored: the store refused several rows of this batch; fix the other rejected rows and send it again' });
        continue;
      }
      appends++;
      try {
        await append(half);
      } catch (e) {
        if (!isRowRefusal(e)) throw e;
        failing.push({ rows: half, message: e.message });
      }
    }
  }
  return refused.sort((a, b) => a.index - b.index);
}
