/**
 * Label sets and Alertmanager matchers. A matcher is `name="v"`, `name!="v"`, `name=~"re"` or
 * `name!~"re"`; regexes are anchored (`^(?:re)$`) as in Alertmanager, and a missing label reads
 * as the empty string.
 */
import { InferlensError } from '../schema/index.ts';

export type Labels = Record<string, string>;

/** Stable identity of a label set: its sorted `name=value` pairs. */
export function fingerprint(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`)
    .join(',');
}

export interface Matcher {
  name: string;
  value: string;
  isRegex: boolean;
  isEqual: boolean;
}

export const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const MATCHER_RE = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*(?:"((?:[^"\\]|\\.)*)"|([^"\s]*))\s*$/;

/** Parses `name="value"` (or =~, !=, !~; quotes optional); throws invalid_argument saying what is accepted. */
export function parseMatcher(s: string): Matcher {
  const m = MATCHER_RE.exec(s);
  if (!m) throw new InferlensError('invalid_argument', `matcher "${s}": expected name="value", name!="value", name=~"regex" or name!~"regex"`);
  const op = m[2]!;
  const value = m[3] !== undefined ? (JSON.parse(`"${m[3]}"`) as string) : (m[4] ?? '');
  const matcher = { name: m[1]!, value, isRegex: op === '=~' || op === '!~', isEqual: op === '=' || op === '=~' };
  compileMatcher(matcher);
  return matcher;
}

/** The matcher as text, e.g. `replica=~"r-.*"`. */
export function formatMatcher(m: Matcher): string {
  return `${m.name}${m.isEqual ? (m.isRegex ? '=~' : '=') : m.isRegex ? '!~' : '!='}${JSON.stringify(m.value)}`;
}

/** A compiled matcher: a predicate on label sets. */
export type LabelPredicate = (labels: Labels) => boolean;

export function compileMatcher(m: Matcher): LabelPredicate {
  let test: (v: string) => boolean;
  if (m.isRegex) {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${m.value})$`);
    } catch (e) {
      throw new InferlensError('invalid_argument', `matcher ${m.name}: bad regex ${JSON.stringify(m.value)}: ${(e as Error).message}`);
    }
    test = (v) => re.test(v);
  } else test = (v) => v === m.value;
  return m.isEqual ? (l) => test(l[m.name] ?? '') : (l) => !test(l[m.name] ?? '');
}

/** All matchers hold. */
export function compileMatchers(ms: readonly Matcher[]): LabelPredicate {
  const ps = ms.map(compileMatcher);
  return (l) => ps.every((p) => p(l));
}
