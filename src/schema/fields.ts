/**
 * Value checks shared by every write route (events, feedback, resource samples, OTLP): what a store
 * can hold, so that validation and storage agree.
 *
 * - Text must be well-formed Unicode. JSON allows `"\ud800"`, a lone UTF-16 surrogate that has no
 *   UTF-8 form; a store refuses it (DuckDB's JSON reader: "no low surrogate in string"), so it is
 *   refused here with its field path instead.
 * - Timestamps are RFC 3339 (checked against the calendar: `2026-11-31` and `2026-02-29` do not
 *   exist; `Date.parse` rolls them into the next month) or epoch milliseconds.
 */
import { z } from 'zod';
import { parseRfc3339 } from './time.ts';

/** Why a string with a lone surrogate is refused. */
export const ILL_FORMED_TEXT = 'expected well-formed Unicode text: it holds a lone UTF-16 surrogate (such as \\ud800 without its pair), which cannot be stored';

/**
 * Whether a string is well-formed UTF-16 (every surrogate paired), so it has a UTF-8 form.
 * `String.prototype.isWellFormed` (ES2024; Node 20, current browsers) runs at memory speed; the
 * cast keeps this file within the ES2023 library the dashboard's build targets.
 */
export const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** A string of `min`–`max` UTF-16 code units that is well-formed Unicode. */
export function textSchema(min: number, max: number): z.ZodString {
  const range = `expected a string of ${min === 0 ? `at most ${max}` : `${min}–${max}`} characters`;
  return z.string({ error: range }).min(min, { error: range }).max(max, { error: range }).refine(isWellFormed, { error: ILL_FORMED_TEXT });
}

/**
 * Epoch milliseconds of a `ts` value: an RFC 3339 string (a space in place of the `T` is accepted,
 * as RFC 3339 allows by agreement; at most 40 characters) or a positive finite number of epoch
 * milliseconds. Undefined when it is neither.
 */
export function timestampMs(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? v : undefined;
  if (typeof v !== 'string' || v.length > 40) return undefined;
  return parseRfc3339(v.length > 10 && v[10] === ' ' ? `${v.slice(0, 10)}T${v.slice(11)}` : v);
}

/** What a `ts` value must be. */
export const EXPECTED_TIMESTAMP = 'expected an RFC 3339 timestamp that exists in the calendar (e.g. 2026-11-30T10:00:00Z) or epoch milliseconds';

/** A `ts` field: an RFC 3339 string or epoch milliseconds (see `timestampMs`). */
export const TimestampSchema = z.union([z.string(), z.number()]).refine((v) => timestampMs(v) !== undefined, { error: EXPECTED_TIMESTAMP });

/**
 * The accepted time window of written rows, the same for events, feedback and resource samples:
 * not before `minTsMs` (the retention horizon: older rows would be deleted at the next retention
 * run) and at most 10 minutes after `nowMs` (a sender's clock ahead by more is a clock problem).
 * Returns the problem, or undefined when `tsMs` is inside.
 */
export function outsideWindow(tsMs: number, nowMs: number, minTsMs: number): string | undefined {
  if (tsMs > nowMs + MAX_FUTURE_MS) return 'more than 10 minutes in the future: check the sender clock';
  if (tsMs < minTsMs) return `older than the retention window (${new Date(minTsMs).toISOString()})`;
  return undefined;
}

/** How far ahead of the server's clock a written row may be. */
export const MAX_FUTURE_MS = 10 * 60_000;

/**
 * The first `max` UTF-16 code units of `s`, one fewer when the cut would split a surrogate pair
 * (a cut emoji would leave a lone surrogate that no store can keep).
 */
export function truncate(s: string, max: number): string {
  if (s.length <= max) return s;
  const c = s.charCodeAt(max - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}
