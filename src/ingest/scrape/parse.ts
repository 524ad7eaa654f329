/**
 * Parser for the Prometheus text exposition format 0.0.4 and OpenMetrics 1.0.
 *
 * Contract: never throws on input. A line that cannot be parsed is skipped and reported as a
 * warning with its 1-based line number and a reason; every other line still counts. What real
 * exporters do and strict parsers reject is accepted on purpose: trailing commas in label sets
 * (TorchServe), `# HELP` with no text and `# TYPE` with no `# HELP` (DCGM, TGI), free-text comment
 * lines, `_sum`/`_count` before `_bucket`, a missing final newline, and a family declared twice
 * (merged, counted as a warning).
 *
 * Timestamps are returned in milliseconds: 0.0.4 writes integer milliseconds, OpenMetrics writes
 * seconds (possibly fractional), so `1520879607.789` in OpenMetrics becomes 1520879607789 ms.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped' | 'info' | 'stateset' | 'gaugehistogram';

export type ExpositionFormat = 'prometheus' | 'openmetrics';

export interface Exemplar {
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
}

export interface Sample {
  /** The name as written on the line, e.g. `vllm:e2e_request_latency_seconds_bucket`. */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestampMs?: number;
  exemplar?: Exemplar;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help: string;
  /** OpenMetrics `# UNIT`, when given. */
  unit?: string;
  /** In exposition order. Histogram `_bucket`/`_sum`/`_count` and summary quantiles stay here. */
  samples: Sample[];
}

export type ParseWarningReason =
  | 'bad_metric_name'
  | 'bad_labels'
  | 'bad_value'
  | 'bad_timestamp'
  | 'bad_exemplar'
  | 'bad_type'
  | 'bad_metadata'
  | 'duplicate_family'
  | 'content_after_eof'
  | 'too_many_samples';

export interface ParseWarning {
  /** 1-based line number in the input. */
  line: number;
  reason: ParseWarningReason;
  message: string;
}

export interface ParseResult {
  format: ExpositionFormat;
  families: MetricFamily[];
  warnings: ParseWarning[];
  /** Warnings beyond `maxWarnings`, counted but not kept. */
  warningsDropped: number;
  /** Samples kept across all families. */
  sampleCount: number;
  /** Lines that were skipped because they could not be parsed (each also a warning). */
  badLines: number;
  /** True when the input ended with `# EOF` (OpenMetrics). */
  sawEof: boolean;
}

export interface ParseOptions {
  /** 'auto' (default) picks OpenMetrics when a `# EOF` line is present or the content type says so. */
  format?: ExpositionFormat | 'auto';
  /** The HTTP Content-Type, used by 'auto'. */
  contentType?: string;
  /** Bound on samples kept; the rest are counted in a `too_many_samples` warning. Default 500,000. */
  maxSamples?: number;
  /** Bound on warnings kept; the rest are counted in `warningsDropped`. Default 100. */
  maxWarnings?: number;
}

const METRIC_NAME_RE = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const FLOAT_RE = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan)$/i;
const TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped', 'unknown', 'info', 'stateset', 'gaugehistogram']);

/** Which sample-name suffixes belong to a family of each type (besides the bare family name). */
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: ['_total', '_created'],
  histogram: ['_bucket', '_count', '_sum', '_created'],
  gaugehistogram: ['_bucket', '_gcount', '_gsum'],
  summary: ['_count', '_sum', '_created'],
  info: ['_info'],
  gauge: [],
  untyped: [],
  stateset: [],
};

/** Parses a number as written in the exposition formats: `1.5e+09`, `NaN`, `+Inf`, `-Inf`. */
export function parseFloatStrict(text: string): number | undefined {
  if (!FLOAT_RE.test(text)) return undefined;
  const lower = text.toLowerCase();
  if (lower.endsWith('nan')) return Number.NaN;
  if (lower.includes('inf')) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

export function parseExposition(text: string, options: ParseOptions = {}): ParseResult {
  const maxSamples = options.maxSamples ?? 500_000;
  const maxWarnings = options.maxWarnings ?? 100;
  const format: ExpositionFormat =
    options.format === 'prometheus' || options.format === 'openmetrics'
      ? options.format
      : (options.contentType ?? '').includes('application/openmetrics-text') || /^# EOF[ \t]*\r?$/m.test(text)
        ? 'openmetrics'
        : 'prometheus';
  const families: MetricFamily[] = [];
  const byName = new Map<string, MetricFamily>();
  /** Families that already received a `# TYPE` (or samples): a second TYPE is a duplicate. */
  const typed = new Set<string>();
  const helped = new Set<string>();
  /** The family whose re-declaration was just reported, so its HELP+TYPE pair counts once. */
  let lastRedeclared: string | undefined;
  const result: ParseResult = { format, families, warnings: [], warningsDropped: 0, sampleCount: 0, badLines: 0, sawEof: false };
  let truncated = false;

  const warn = (line: number, reason: ParseWarningReason, message: string, bad = true): void => {
    if (bad) result.badLines++;
    if (result.warnings.length < maxWarnings) result.warnings.push({ line, reason, message });
    else result.warningsDropped++;
  };
  const family = (name: string, type: MetricType = 'untyped'): MetricFamily => {
    let f = byName.get(name);
    if (!f) {
      f = { name, type, help: '', samples: [] };
      byName.set(name, f);
      families.push(f);
    }
    return f;
  };

  const lines = text.split('\n');
  // A final newline yields one empty trailing element, which is simply a blank line.
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    let line = lines[i]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (line.trim() === '') continue;
    if (result.sawEof) {
      warn(lineNo, 'content_after_eof', 'content after # EOF is ignored');
      continue;
    }
    if (line.startsWith('#')) {
      const m = /^#[ \t]+(HELP|TYPE|UNIT|EOF)(?:[ \t]+(.*))?$/.exec(line);
      if (!m) continue; // a free-text comment: allowed, ignored
      const keyword = m[1]!;
      const rest = m[2] ?? '';
      if (keyword === 'EOF') {
        if (rest.trim() === '') result.sawEof = true;
        continue;
      }
      const nameMatch = METRIC_NAME_RE.exec(rest);
      if (!nameMatch || (rest.length > nameMatch[0].length && !/[ \t]/.test(rest[nameMatch[0].length]!))) {
        warn(lineNo, 'bad_metadata', `# ${keyword} without a valid metric name`);
        continue;
      }
      const name = nameMatch[0];
      const arg = rest.slice(name.length).replace(/^[ \t]+/, '');
      if (keyword === 'HELP') {
        const f = family(name);
        if (helped.has(name) && lastRedeclared !== name) {
          warn(lineNo, 'duplicate_family', `family ${name} declared twice; its samples are merged and the last HELP is kept`, false);
          lastRedeclared = name;
        }
        helped.add(name);
        f.help = unescapeHelp(arg, format);
      } else if (keyword === 'TYPE') {
        const t = arg.trim().toLowerCase();
        if (!TYPES.has(t)) {
          warn(lineNo, 'bad_type', `unknown metric type "${arg.trim()}" for ${name}`);
          continue;
        }
        const f = family(name);
        if (typed.has(name) && lastRedeclared !== name) {
          warn(lineNo, 'duplicate_family', `family ${name} declared twice; its samples are merged`, false);
          lastRedeclared = name;
        }
        typed.add(name);
        f.type = t === 'unknown' ? 'untyped' : (t as MetricType);
      } else {
        family(name).unit = arg.trim();
      }
      continue;
    }
    lastRedeclared = undefined;
    if (truncated) continue;
    const parsed = parseSampleLine(line, format);
    if (typeof parsed === 'string') {
      const reason: ParseWarningReason = parsed.startsWith('name')
        ? 'bad_metric_name'
        : parsed.startsWith('labels')
          ? 'bad_labels'
          : parsed.startsWith('timestamp')
            ? 'bad_timestamp'
            : parsed.startsWith('exemplar')
              ? 'bad_exemplar'
              : 'bad_value';
      warn(lineNo, reason, parsed);
      continue;
    }
    if (result.sampleCount >= maxSamples) {
      truncated = true;
      warn(lineNo, 'too_many_samples', `more than ${maxSamples} samples; the rest of the body is ignored`, false);
      continue;
    }
    const f = familyFor(parsed.name, byName) ?? family(parsed.name);
    f.samples.push(parsed);
    result.sampleCount++;
  }
  return result;
}

/** The family a sample belongs to: its exact name, or a declared base name plus a type-specific suffix. */
function familyFor(sampleName: string, byName: Map<string, MetricFamily>): MetricFamily | undefined {
  const exact = byName.get(sampleName);
  if (exact) return exact;
  const us = sampleName.lastIndexOf('_');
  if (us <= 0) return undefined;
  const suffix = sampleName.slice(us);
  const base = byName.get(sampleName.slice(0, us));
  if (base && SUFFIXES[base.type].includes(suffix)) return base;
  return undefined;
}

function unescapeHelp(text: string, format: ExpositionFormat): string {
  return text.replace(/\\(.)/g, (whole, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && format === 'openmetrics') return '"';
    return whole;
  });
}

/** Parses one sample line; returns an error message (starting with the part that failed) instead of throwing. */
function parseSampleLine(line: string, format: ExpositionFormat): Sample | string {
  const nameMatch = METRIC_NAME_RE.exec(line);
  if (!nameMatch) return `name: a sample line must start with a metric name, got "${clip(line)}"`;
  const name = nameMatch[0];
  let pos = name.length;
  let labels: Record<string, string> = {};
  if (line[pos] === '{') {
    const parsed = parseLabels(line, pos);
    if (typeof parsed === 'string') return `labels: ${parsed}`;
    labels = parsed.labels;
    pos = parsed.end;
  }
  if (pos < line.length && line[pos] !== ' ' && line[pos] !== '\t') return `name: unexpected "${line[pos]}" after the metric name ${name}`;
  let rest = line.slice(pos).trim();
  let exemplar: Exemplar | undefined;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    const ex = parseExemplar(rest.slice(hash + 1).trim(), format);
    if (typeof ex === 'string') return `exemplar: ${ex}`;
    exemplar = ex;
    rest = rest.slice(0, hash).trim();
  }
  const parts = rest.split(/[ \t]+/).filter((p) => p !== '');
  if (parts.length === 0) return `value: no value after ${name}`;
  if (parts.length > 2) return `value: expected "value [timestamp]" after ${name}, got "${clip(rest)}"`;
  const value = parseFloatStrict(parts[0]!);
  if (value === undefined) return `value: "${clip(parts[0]!)}" is not a number`;
  const sample: Sample = { name, labels, value };
  if (parts[1] !== undefined) {
    const ts = parseTimestampMs(parts[1], format);
    if (ts === undefined) return `timestamp: "${clip(parts[1])}" is not a valid timestamp`;
    sample.timestampMs = ts;
  }
  if (exemplar) sample.exemplar = exemplar;
  return sample;
}

function parseTimestampMs(text: string, format: ExpositionFormat): number | undefined {
  if (format === 'prometheus') return /^-?\d+$/.test(text) ? Number(text) : undefined;
  const s = parseFloatStrict(text);
  return s === undefined || !Number.isFinite(s) ? undefined : Math.round(s * 1000);
}

/** `{trace_id="abc"} 1.0 123` → exemplar. */
function parseExemplar(text: string, format: ExpositionFormat): Exemplar | string {
  if (text[0] !== '{') return 'an exemplar starts with a label set';
  const parsed = parseLabels(text, 0);
  if (typeof parsed === 'string') return parsed;
  const parts = text
    .slice(parsed.end)
    .trim()
    .split(/[ \t]+/)
    .filter((p) => p !== '');
  if (parts.length < 1 || parts.length > 2) return 'expected "{labels} value [timestamp]"';
  const value = parseFloatStrict(parts[0]!);
  if (value === undefined) return `"${clip(parts[0]!)}" is not a number`;
  const ex: Exemplar = { labels: parsed.labels, value };
  if (parts[1] !== undefined) {
    // Exemplar timestamps are seconds in OpenMetrics, whatever the body's format.
    const ts = parseTimestampMs(parts[1], format === 'prometheus' ? 'openmetrics' : format);
    if (ts === undefined) return `"${clip(parts[1])}" is not a valid timestamp`;
    ex.timestampMs = ts;
  }
  return ex;
}

/** Parses `{a="1",b="x\"y",}` starting at `start` (the `{`). Tolerates spaces and a trailing comma. */
function parseLabels(line: string, start: number): { labels: Record<string, string>; end: number } | string {
  const labels: Record<string, string> = {};
  let pos = start + 1;
  const skipSpace = (): void => {
    while (line[pos] === ' ' || line[pos] === '\t') pos++;
  };
  for (;;) {
    skipSpace();
    if (pos >= line.length) return 'unterminated label set';
    if (line[pos] === '}') return { labels, end: pos + 1 };
    const nm = LABEL_NAME_RE.exec(line.slice(pos));
    if (!nm) return `bad label name at column ${pos + 1}`;
    const label = nm[0];
    pos += label.length;
    skipSpace();
    if (line[pos] !== '=') return `expected = after label ${label}`;
    pos++;
    skipSpace();
    if (line[pos] !== '"') return `expected a quoted value for label ${label}`;
    pos++;
    let value = '';
    let closed = false;
    while (pos < line.length) {
      const c = line[pos]!;
      if (c === '\\') {
        const n = line[pos + 1];
        if (n === undefined) break;
        value += n === 'n' ? '\n' : n === '\\' ? '\\' : n === '"' ? '"' : '\\' + n;
        pos += 2;
        continue;
      }
      if (c === '"') {
        closed = true;
        pos++;
        break;
      }
      value += c;
      pos++;
    }
    if (!closed) return `unterminated value for label ${label}`;
    if (Object.hasOwn(labels, label)) return `label ${label} given twice`;
    labels[label] = value;
    skipSpace();
    if (line[pos] === ',') {
      pos++;
      continue;
    }
    if (line[pos] === '}') return { labels, end: pos + 1 };
    return `expected , or } after label ${label}`;
  }
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

/** One histogram or summary series: the samples of a family that share labels (without `le` / `quantile`). */
export interface SeriesGroup {
  labels: Record<string, string>;
  /** Histogram buckets in exposition order, cumulative counts; `le` parsed (`+Inf` → Infinity). */
  buckets: { le: number; count: number }[];
  /** Summary quantiles. */
  quantiles: { quantile: number; value: number }[];
  count?: number;
  sum?: number;
}

/**
 * Groups a histogram or summary family into series. `_sum`/`_count` may come before the buckets.
 * A sample named exactly like a histogram family with an `le` label counts as a bucket (Triton's
 * documented `nv_inference_first_response_histogram_ms{le="100"}` form).
 */
export function groupSeries(family: MetricFamily): SeriesGroup[] {
  const groups = new Map<string, SeriesGroup>();
  for (const s of family.samples) {
    const { le, quantile, ...rest } = s.labels;
    const key = labelKey(rest);
    let g = groups.get(key);
    if (!g) {
      g = { labels: rest, buckets: [], quantiles: [] };
      groups.set(key, g);
    }
    const suffix = s.name.slice(family.name.length);
    if (suffix === '_count' || suffix === '_gcount') g.count = s.value;
    else if (suffix === '_sum' || suffix === '_gsum') g.sum = s.value;
    else if (le !== undefined && (suffix === '_bucket' || suffix === '')) {
      const bound = parseFloatStrict(le);
      if (bound !== undefined) g.buckets.push({ le: bound, count: s.value });
    } else if (quantile !== undefined && suffix === '') {
      const q = parseFloatStrict(quantile);
      if (q !== undefined) g.quantiles.push({ quantile: q, value: s.value });
    }
  }
  return [...groups.values()];
}

/** A stable key for a label set: sorted `k=v` pairs joined by a separator that cannot occur unescaped. */
export function labelKey(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}\u0000${labels[k]}`)
    .join('\u0001');
}
