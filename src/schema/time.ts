/**
 * The one RFC 3339 timestamp parser and the one duration (step) parser of request bodies and query
 * strings. Both are strict on purpose: `Date.parse` accepts "2026-11-31" (as Dec 1), "Jan 1",
 * "+275760-09-13T00:00:00Z" and more, and a step of "99999999999999999999d" is a finite number
 * of milliseconds that no store can bucket by.
 */

/**
 * `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` (RFC 3339 §5.6; `t`/`z` in lower case too). Years
 * 0000–9999, a day that exists in its month (leap years included), hours 00–23 (a leap second
 * `:60` is refused: JavaScript time has none).
 */
const RFC3339_RE = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Days in a month (1–12) of a year, Gregorian: 2024-02 has 29, 2100-02 has 28. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Epoch milliseconds of a strict RFC 3339 timestamp, or undefined (sub-millisecond digits are cut). */
export function parseRfc3339(s: string): number | undefined {
  const m = RFC3339_RE.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMin = 0;
  if (!m[8]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offsetMin = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const ms = m[7] ? Number(m[7].slice(0, 3).padEnd(3, '0')) : 0;
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, ms);
  return d.getTime() - offsetMin * 60_000;
}

const DURATION_RE = /^(\d{1,15})(ms|s|m|h|d)$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses `30s`, `1m`, `6h`, `7d`, `250ms` into milliseconds; undefined when malformed or when the
 * value is not a safe integer of milliseconds (at most 15 digits: "99999999999999999999d" is not).
 */
export function parseDurationMs(s: string): number | undefined {
  const m = DURATION_RE.exec(s);
  if (!m) return undefined;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** Smallest and largest time bucket a request may ask for: 1 s and 366 days. */
export const MIN_STEP_MS = 1000;
export const MAX_STEP_MS = 366 * 86_400_000;
