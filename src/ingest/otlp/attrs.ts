/** Small readers for OTLP attribute values, shared by the span and metric mappers. */
import type { AttrValue, Attrs } from './model.ts';

/** A non-empty string attribute (numbers and booleans are written as text), else undefined. */
export function attrString(v: AttrValue | undefined): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A finite number attribute (a numeric string is accepted), else undefined. */
export function attrNumber(v: AttrValue | undefined): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

/** A boolean attribute ("true" / "false" strings are accepted), else undefined. */
export function attrBool(v: AttrValue | undefined): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false') return false;
  return undefined;
}

/** The first attribute present among `keys`, looked up in each map in order (span before resource). */
export function firstOf(maps: readonly Attrs[], keys: readonly string[]): AttrValue | undefined {
  for (const m of maps) {
    for (const k of keys) {
      const v = m.get(k);
      if (v !== undefined && v !== null) return v;
    }
  }
  return undefined;
}

/** Nanoseconds to milliseconds, kept to the microsecond: 1_234_567 ns → 1.234 ms. */
export function nanosToMs(ns: bigint): number {
  return Number(ns / 1000n) / 1000;
}

/** Rounds milliseconds to the microsecond, to hide float noise (0.123 s × 1000 = 123.00000000000001). */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
