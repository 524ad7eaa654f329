/** Checks on time ranges that specs built in code (not decoded from a request) still need. */
import { InferlensError } from '../schema/index.ts';

/** Throws invalid_argument unless from < to (both epoch ms). */
export function checkRange(fromMs: number, toMs: number, path = 'to'): void {
  if (!(toMs > fromMs)) throw new InferlensError('invalid_argument', `${path}: must be after from`, { issues: [{ path, message: 'must be after from' }] });
}
