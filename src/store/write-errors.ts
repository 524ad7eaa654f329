/**
 * What a failed write means for the caller, as the Store contract states it (store.ts):
 * - `invalid_argument`: the rows themselves cannot be stored (a value the store's reader or a cast
 *   refuses). Retrying the same rows cannot help; the pipeline finds the row and rejects only it.
 * - `unavailable` with a specific message and a longer Retry-After when the disk is full.
 * - `unavailable` for everything else (I/O, memory): retry later.
 *
 * Backends pass their driver's error through `storeWriteError` with their own row-error test.
 */
import { InferlensError } from '../schema/index.ts';

/** The message of a write that failed because the disk is full: what happened and what to do. */
export const DISK_FULL_MESSAGE =
  'the disk that holds the inferlens data directory is full (no space left on device): free space there; writes resume by themselves, and /readyz says not ready until then';

const DISK_FULL = /no space left on device|ENOSPC|disk is full|disk full/i;

/** Whether an error (from Node's fs or a database driver) says the disk is full. */
export function isDiskFull(e: unknown): boolean {
  return (e as { code?: unknown } | null)?.code === 'ENOSPC' || DISK_FULL.test(String((e as Error | null)?.message ?? e));
}

/** The first line of a driver message, without file paths (they are the server's business), at most 200 characters. */
export function driverMessage(e: unknown): string {
  const first = String((e as Error | null)?.message ?? e).split('\n')[0]!;
  return first
    .replace(/\bin file "[^"]*"/g, '')
    .replace(/"\/[^"]*"/g, '"…"')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}

/**
 * The coded error for a failed write. `isRowError` says whether the driver refused the data itself.
 */
export function storeWriteError(e: unknown, isRowError: (e: unknown) => boolean): InferlensError {
  if (e instanceof InferlensError) return e;
  if (isDiskFull(e)) return new InferlensError('unavailable', DISK_FULL_MESSAGE, { cause: e, retryAfterS: 30 });
  if (isRowError(e)) return new InferlensError('invalid_argument', `the store cannot hold this row: ${driverMessage(e)}`, { cause: e });
  return new InferlensError('unavailable', 'the store could not write this batch; retry later', { cause: e, retryAfterS: 2 });
}
