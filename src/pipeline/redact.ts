/**
 * PII redaction of captured text, applied to every kept sample before it is stored.
 *
 * What is replaced, in this order (earlier kinds win where two overlap):
 * - `[EMAIL]`: local@domain.tld (local part ≤ 64 characters as RFC 5321 allows, ≤ 8 dotted labels in
 *   the domain).
 * - `[CARD]`: 13–19 digits, optionally grouped by single spaces or dashes, that pass the Luhn check
 *   AND start like a card of a major network (2 = Mastercard 2221–2720, 3 = Amex / Diners / JCB,
 *   4 = Visa, 5 = Mastercard / Maestro, 6 = Discover / UnionPay / Maestro). Epoch-ms timestamps
 *   (they start with 1) and order numbers that fail Luhn stay.
 * - `[IP]`: IPv6 (checked group by group, so times such as 10:30:00 and MAC addresses stay) and
 *   dotted-quad IPv4 with octets 0–255; a run of five or more numbers (1.2.3.4.5) stays.
 *   A four-part version number written like an address (1.2.3.4) is redacted: it cannot be told
 *   apart, and a false hit costs less than a leaked address.
 * - `[PHONE]`: what libphonenumber (Google's metadata, through libphonenumber-js) finds to be a
 *   valid number: every international form (+44 20 7946 0958, 0031-623-787-971 and 011 44 …
 *   dialled from abroad) and the national forms of `phoneRegions` (default US, GB, FR, IN:
 *   1-888-406-4246, (415) 555-2671, 020 7946 0958, 01 23 45 67 89, 080-6721-8000). Numbers that
 *   are not valid in the metadata (dates such as 2024-01-15, order numbers) stay.
 *
 * Bounded cost: the regexes have bounded quantifiers (linear in the text, ≤ 64 KiB per field).
 * libphonenumber's own scan is not linear (64 KiB of "1 1 1 …" took 7 s), so it only looks at
 * short candidate stretches (a digit run of 8–26 characters with separators, 7–17 digits, mostly
 * in groups of two or more digits: no phone number is written "1 1 1 1 1 1 1"), and at most
 * `MAX_PHONE_LOOKUPS` times per text; past that, the remaining candidates of 7–15 digits are
 * redacted without a look-up (a false hit costs less than a leaked number).
 */
import { findNumbers, isSupportedCountry } from 'libphonenumber-js/max';
import type { CountryCode } from 'libphonenumber-js/max';

/** The kinds of PII found, each replaced by its `[KIND]` marker. */
export const PII_KINDS = ['email', 'card', 'ip', 'phone'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

export interface RedactResult {
  text: string;
  /** Replacements made, per kind. */
  counts: Record<PiiKind, number>;
}

const EMAIL =
  /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;
// A candidate: hex digits and colons (a colon within the first 5 characters), an optional trailing
// dotted quad (::ffff:10.0.0.1); checked by isIPv6.
const IPV6 = /(?<![\w:.])(?=[0-9A-Fa-f]{0,4}:)[0-9A-Fa-f:]{2,39}(?:\.\d{1,3}){0,3}(?![\w:]|\.\d)/g;
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`(?<![\\w.])${OCTET}(?:\\.${OCTET}){3}(?!\\w|\\.\\d)`, 'g');
// A stretch that may hold a phone number: '+', '(' or a digit, then digits and separators, ending
// in a digit; 8–26 characters (E.164 numbers have at most 15 digits, plus an IDD prefix and separators).
const PHONE_CANDIDATE = /(?<![\w+])[+(]?\d[\d ()./-]{6,24}\d(?!\w)/g;

/** National phone formats recognised by default (every international form is, whatever the list). */
export const DEFAULT_PHONE_REGIONS: readonly CountryCode[] = ['US', 'GB', 'FR', 'IN'];
/** Whether libphonenumber knows this region code (ISO 3166 alpha-2). */
export const isPhoneRegion = (r: string): r is CountryCode => isSupportedCountry(r);
/**
 * Most libphonenumber look-ups per text: one costs ~10–130 µs on this machine, up to ~0.5 ms
 * on pathological candidates, so a text costs at most ~30 ms.
 */
export const MAX_PHONE_LOOKUPS = 64;

/** Whether most digit groups of a candidate are single digits ("1 1 1 1 1 1 1", "(1) (1) (1)"). */
function singleDigitGroups(s: string): boolean {
  const groups = s.split(/\D+/).filter((g) => g !== '');
  return groups.filter((g) => g.length === 1).length * 2 > groups.length;
}

const digitCount = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) n++;
  }
  return n;
};

/** The Luhn check: 4111 1111 1111 1111 passes; 4111 1111 1111 1112 does not. */
export function luhnOk(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Whether the digits start like a card number of a major network (see the file comment). */
function cardPrefixOk(d: string): boolean {
  const c = d[0];
  if (c === '4' || c === '5' || c === '6') return true;
  if (c === '3') return /^3[0-8]/.test(d);
  if (c === '2') {
    const four = Number(d.slice(0, 4));
    return four >= 2221 && four <= 2720;
  }
  return false;
}

/** Whether these 13–19 digits are a card number: a network's prefix and the Luhn check. */
function isCardDigits(d: string): boolean {
  return d.length >= 13 && d.length <= 19 && cardPrefixOk(d) && luhnOk(d);
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;
/** Characters a card number may not be glued to on its left: letters, digits, '_', '.', '-'. */
const GLUED = /[\w.-]/;

/**
 * Replaces card numbers with `[CARD]`. A scan, not a regex, so that it stays linear and finds a
 * card inside a longer run of digit groups ("12 4111 1111 1111 1111 25", two cards in a row): a
 * run is digits joined by single spaces or dashes; within it every span that starts and ends at
 * group boundaries and holds 13–19 digits is tried, longest first.
 */
function replaceCards(text: string, counts: Record<PiiKind, number>): string {
  let out = '';
  let copied = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i)) || (i > 0 && GLUED.test(text[i - 1]!))) {
      i++;
      continue;
    }
    // The run [i, j) as groups of [start, end) offsets.
    const groups: [number, number][] = [];
    let j = i;
    for (;;) {
      const start = j;
      while (j < n && isDigit(text.charCodeAt(j))) j++;
      groups.push([start, j]);
      if (j + 1 < n && (text[j] === ' ' || text[j] === '-') && isDigit(text.charCodeAt(j + 1))) j++;
      else break;
    }
    // A decimal fraction after the run (4111111111111111.25) makes it a number, not a card.
    const decimal = j + 1 < n && text[j] === '.' && isDigit(text.charCodeAt(j + 1));
    let g = 0;
    while (!decimal && g < groups.length) {
      const end = longestCard(text, groups, g);
      if (end < 0) {
        g++;
        continue;
      }
      out += text.slice(copied, groups[g]![0]) + '[CARD]';
      copied = groups[end]![1];
      counts.card++;
      g = end + 1;
    }
    i = j;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The last group of the longest card that starts at group `g`, or -1. */
function longestCard(text: string, groups: readonly [number, number][], g: number): number {
  const first = text[groups[g]![0]]!;
  if (first < '2' || first > '6') return -1;
  let digits = '';
  let seps = '';
  let best = -1;
  for (let e = g; e < groups.length; e++) {
    const [a, b] = groups[e]!;
    digits += text.slice(a, b);
    if (e > g) seps += text[a - 1];
    if (digits.length > 19) break;
    // Separators, when used, must be one kind (4111-1111 1111-1111 is not how cards are written).
    if (digits.length >= 13 && !(seps.includes(' ') && seps.includes('-')) && isCardDigits(digits)) best = e;
  }
  return best;
}

/** A strict IPv6 check (RFC 4291 text forms, with an optional embedded IPv4). */
function isIPv6(s: string): boolean {
  let head = s;
  let groupsForV4 = 0;
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (!new RegExp(`^${OCTET}(?:\\.${OCTET}){3}$`).test(tail)) return false;
    head = s.slice(0, lastColon + 1) + '0';
    groupsForV4 = 1; // the dotted quad fills two groups; '0' stands in for one of them
  }
  const dbl = head.indexOf('::');
  if (dbl !== head.lastIndexOf('::')) return false;
  const group = /^[0-9A-Fa-f]{1,4}$/;
  if (dbl === -1) {
    const parts = head.split(':');
    return parts.length + groupsForV4 === 8 && parts.every((p) => group.test(p));
  }
  const left = head.slice(0, dbl);
  const right = head.slice(dbl + 2);
  const l = left === '' ? [] : left.split(':');
  const r = right === '' ? [] : right.split(':');
  if (![...l, ...r].every((p) => group.test(p))) return false;
  // '::' alone (or with one group) is too short to be an address worth hiding and too likely to
  // be something else (C++ / Rust paths); require at least two groups around it.
  return l.length + r.length + groupsForV4 <= 7 && l.length + r.length >= 2;
}

/** Replaces phone numbers in `text` (see the file comment). */
function replacePhones(text: string, regions: readonly CountryCode[], counts: Record<PiiKind, number>): string {
  let lookups = 0;
  return text.replace(PHONE_CANDIDATE, (cand) => {
    const digits = digitCount(cand);
    if (digits < 7 || digits > 17 || singleDigitGroups(cand)) return cand;
    // An international form names its country: one look-up, whatever the region.
    const tryRegions = cand.startsWith('+') ? regions.slice(0, 1) : regions;
    for (const region of tryRegions) {
      if (lookups >= MAX_PHONE_LOOKUPS) {
        if (digits > 15) return cand;
        counts.phone++;
        return '[PHONE]';
      }
      lookups++;
      const found = findNumbers(cand, { defaultCountry: region, v2: true }) as unknown as { startsAt: number; endsAt: number }[];
      if (found.length === 0) continue;
      let out = '';
      let at = 0;
      for (const f of found) {
        out += `${cand.slice(at, f.startsAt)}[PHONE]`;
        at = f.endsAt;
        counts.phone++;
      }
      return out + cand.slice(at);
    }
    return cand;
  });
}

export interface RedactOptions {
  /** Regions whose national phone formats are recognised (default DEFAULT_PHONE_REGIONS). */
  phoneRegions?: readonly string[];
}

/** Replaces PII in `text` with `[EMAIL]`, `[CARD]`, `[IP]` and `[PHONE]`; counts what it replaced. */
export function redact(text: string, options: RedactOptions = {}): RedactResult {
  const counts: Record<PiiKind, number> = { email: 0, card: 0, ip: 0, phone: 0 };
  // Fast path: every kind needs a digit or an '@'.
  if (!/[\d@]/.test(text)) return { text, counts };
  let out = text;
  if (out.includes('@')) {
    out = out.replace(EMAIL, () => {
      counts.email++;
      return '[EMAIL]';
    });
  }
  out = replaceCards(out, counts);
  if (out.includes(':')) {
    out = out.replace(IPV6, (m) => {
      if (!isIPv6(m)) return m;
      counts.ip++;
      return '[IP]';
    });
  }
  out = out.replace(IPV4, () => {
    counts.ip++;
    return '[IP]';
  });
  const regions = (options.phoneRegions ?? DEFAULT_PHONE_REGIONS).filter(isPhoneRegion);
  out = replacePhones(out, regions.length > 0 ? regions : DEFAULT_PHONE_REGIONS, counts);
  return { text: out, counts };
}
