/** Relative and absolute times for the CLI: `now`, `-15m`, `-2h`, `-7d`, or RFC 3339. */
import { parseDurationMs } from '../schema/index.ts';

export function parseTime(s: string, nowMs: number): number {
  if (s === 'now') return nowMs;
  if (s.startsWith('-') || s.startsWith('now-')) {
    const d = parseDurationMs(s.replace(/^now/, '').slice(1));
    if (d === undefined) throw new Error(`bad relative time "${s}": use e.g. -15m, -2h, -7d`);
    return nowMs - d;
  }
  const t = Date.parse(s);
  if (!Number.isFinite(t)) throw new Error(`bad time "${s}": use now, -1h or RFC 3339`);
  return t;
}

/**
 * The range widened to whole steps: from down, to up (epoch ms). Query buckets start at `from`, so
 * an aligned `from` gives buckets on whole minutes for `-s 1m`.
 * Worked: 10:17:42.318 → 11:17:42.318 with 1m → 10:17:00.000 → 11:18:00.000.
 */
export function alignToStep(fromMs: number, toMs: number, stepMs: number): { fromMs: number; toMs: number } {
  return { fromMs: Math.floor(fromMs / stepMs) * stepMs, toMs: Math.ceil(toMs / stepMs) * stepMs };
}
