/**
 * The inference event: one row per inference request. This file is the single source of truth for
 * its fields. The field table below drives the zod schema (types, SDK, API docs), the hot-path
 * validator used at ingest, and the storage DDL of every backend.
 *
 * Only `ts`, `model` and one of `total_ms` / `status` are required, so a team can start with
 * phase-1 data and add more later.
 */
import { z } from 'zod';
import type { FieldIssue } from './errors.ts';
import { EXPECTED_TIMESTAMP, ILL_FORMED_TEXT, TimestampSchema, isWellFormed, outsideWindow, timestampMs } from './fields.ts';
import { DIMENSIONS, ERROR_TYPES, LATENCY_FIELDS, STATUSES } from './vocabulary.ts';

/**
 * The one low-confidence cut-off: an answer with confidence below it is "low confidence" for the
 * capture policy (kept as a sample), the quality table and the default alert rules. A deployment
 * sets it once (`quality.low_confidence`); a confident classifier such as the demo's uses 0.9.
 */
export const DEFAULT_LOW_CONFIDENCE = 0.6;

export type FieldKind =
  | 'ts' // RFC 3339 string (a real calendar date) or epoch milliseconds
  | 'id' // opaque identifier, ≤ 128 characters
  | 'dim' // dimension, 1–256 characters
  | 'string' // free label, ≤ 256 characters
  | 'text' // captured payload, ≤ 64 KiB
  | 'ms' // latency in milliseconds, finite, ≥ 0
  | 'count' // integer 0 ≤ x ≤ 2^31 − 1 (a 32-bit column)
  | 'unit' // number in [0, 1]
  | 'number' // any finite number
  | 'positive' // finite number, 0 < x ≤ MAX_SAMPLE_WEIGHT (the sample weight)
  | 'http_status' // integer 100–599
  | 'bool'
  | 'status'
  | 'error_type'
  | 'attributes' // string → string map, ≤ 16 entries
  | 'features' // string → number map, ≤ 32 entries
  | 'tags'; // list of ≤ 16 short strings

export interface FieldSpec {
  name: string;
  kind: FieldKind;
  doc: string;
}

export const MAX_DIM_CHARS = 256;
export const MAX_ID_CHARS = 128;
export const MAX_TEXT_CHARS = 65_536;
export const MAX_ATTRIBUTES = 16;
export const MAX_FEATURES = 32;
export const MAX_TAGS = 16;
/** Latencies above a day are a unit mistake, not a slow request. */
export const MAX_LATENCY_MS = 86_400_000;
/** Largest count (`batch_size`, tokens, `output_length`): the stores keep counts in 32-bit integers. */
export const MAX_COUNT = 2_147_483_647;
/**
 * Largest `sample_weight`: one row stands for at most a million requests (a client sampling 1 in
 * 1,000,000). Sums of weights stay exact and finite: 2^53 / 10^6 ≈ 9 × 10^9 rows of the largest
 * weight still add up exactly in a double, where two rows of 1e308 overflowed to Infinity and
 * turned `count` and `qps` into null and `error_rate` into 0.
 */
export const MAX_SAMPLE_WEIGHT = 1_000_000;
/** Longest key of an `attributes` or `features` map, and longest tag. */
const MAX_KEY_CHARS = 64;

export const EVENT_FIELDS = [
  { name: 'ts', kind: 'ts', doc: 'when the request arrived: RFC 3339 or epoch milliseconds' },
  { name: 'request_id', kind: 'id', doc: 'unique per request; re-sent events with the same request_id and ts are stored once' },
  { name: 'trace_id', kind: 'id', doc: 'W3C trace id, to jump to a trace' },
  ...DIMENSIONS.map((name) => ({ name, kind: 'dim' as const, doc: `dimension ${name}` })),
  { name: 'attributes', kind: 'attributes', doc: 'a small bounded map of extra string attributes' },
  ...LATENCY_FIELDS.map((name) => ({ name, kind: 'ms' as const, doc: `latency ${name} in milliseconds` })),
  { name: 'batch_size', kind: 'count', doc: 'requests in the batch this request ran in' },
  { name: 'batch_tokens', kind: 'count', doc: 'tokens in that batch' },
  { name: 'status', kind: 'status', doc: STATUSES.join(' | ') },
  { name: 'error_type', kind: 'error_type', doc: ERROR_TYPES.join(' | ') },
  { name: 'http_status', kind: 'http_status', doc: 'HTTP status returned to the caller' },
  { name: 'input_tokens', kind: 'count', doc: 'prompt / input tokens' },
  { name: 'output_tokens', kind: 'count', doc: 'generated tokens' },
  { name: 'cached_tokens', kind: 'count', doc: 'input tokens served from the prefix / KV cache (part of input_tokens)' },
  { name: 'label', kind: 'string', doc: 'predicted class (classifiers)' },
  { name: 'confidence', kind: 'unit', doc: 'confidence of the prediction, 0–1' },
  { name: 'score', kind: 'number', doc: 'ranker score or any model score' },
  { name: 'output_length', kind: 'count', doc: 'length of the output (characters or items)' },
  { name: 'finish_reason', kind: 'string', doc: 'generative: why generation stopped (stop, length, content_filter, …)' },
  { name: 'empty', kind: 'bool', doc: 'the result was empty' },
  { name: 'refused', kind: 'bool', doc: 'the model refused to answer' },
  { name: 'format_ok', kind: 'bool', doc: 'the output passed its format check' },
  { name: 'features', kind: 'features', doc: 'numeric input features for drift' },
  { name: 'probe', kind: 'bool', doc: 'a golden-sample probe, excluded from user traffic statistics by default' },
  { name: 'sample_weight', kind: 'positive', doc: 'how many requests this row stands for (client-side sampling)' },
  { name: 'input', kind: 'text', doc: 'captured input payload (kept by the capture policy)' },
  { name: 'output', kind: 'text', doc: 'captured output payload' },
  { name: 'risk_tags', kind: 'tags', doc: 'risk tags that make this request worth keeping' },
] as const satisfies readonly FieldSpec[];

export const EVENT_FIELD_NAMES: ReadonlySet<string> = new Set(EVENT_FIELDS.map((f) => f.name));
const FIELD_BY_NAME: ReadonlyMap<string, FieldSpec> = new Map(EVENT_FIELDS.map((f) => [f.name, f]));

// The string form a store parses as is: UTC with 'Z' and at most microseconds (once it is a valid
// RFC 3339 timestamp, so a real calendar date).
const CANONICAL_TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

/** The message for a field of a kind that failed its check: says what was expected. */
export function expectedFor(kind: FieldKind): string {
  switch (kind) {
    case 'ts':
      return EXPECTED_TIMESTAMP;
    case 'id':
      return `expected a string of 1–${MAX_ID_CHARS} characters`;
    case 'dim':
      return `expected a non-empty string of at most ${MAX_DIM_CHARS} characters`;
    case 'string':
      return `expected a string of at most ${MAX_DIM_CHARS} characters`;
    case 'text':
      return `expected a string of at most ${MAX_TEXT_CHARS} characters`;
    case 'ms':
      return `expected a finite number of milliseconds, 0 ≤ x ≤ ${MAX_LATENCY_MS}`;
    case 'count':
      return `expected an integer 0 ≤ x ≤ ${MAX_COUNT}`;
    case 'unit':
      return 'expected a number between 0 and 1';
    case 'number':
      return 'expected a finite number';
    case 'positive':
      return `expected a number 0 < x ≤ ${MAX_SAMPLE_WEIGHT}`;
    case 'http_status':
      return 'expected an integer HTTP status 100–599';
    case 'bool':
      return 'expected true or false';
    case 'status':
      return `expected one of ${STATUSES.join(', ')}`;
    case 'error_type':
      return `expected one of ${ERROR_TYPES.join(', ')}`;
    case 'attributes':
      return `expected an object of at most ${MAX_ATTRIBUTES} string values (keys ≤ ${MAX_KEY_CHARS}, values ≤ ${MAX_DIM_CHARS} characters)`;
    case 'features':
      return `expected an object of at most ${MAX_FEATURES} finite numbers (keys ≤ ${MAX_KEY_CHARS} characters)`;
    case 'tags':
      return `expected a list of at most ${MAX_TAGS} strings of 1–${MAX_KEY_CHARS} characters`;
  }
}

const isStr = (v: unknown, min: number, max: number): boolean => typeof v === 'string' && v.length >= min && v.length <= max && isWellFormed(v);
const isKey = (k: string): boolean => k.length <= MAX_KEY_CHARS && isWellFormed(k);
const isFiniteNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isCount = (v: unknown): boolean => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= MAX_COUNT;
const STATUS_SET: ReadonlySet<unknown> = new Set(STATUSES);
const ERROR_TYPE_SET: ReadonlySet<unknown> = new Set(ERROR_TYPES);

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether a value is valid for a field of this kind (the hot-path check; `null` means absent). */
export function valueOk(kind: FieldKind, v: unknown): boolean {
  switch (kind) {
    case 'ts':
      return timestampMs(v) !== undefined;
    case 'id':
      return isStr(v, 1, MAX_ID_CHARS);
    case 'dim':
      return isStr(v, 1, MAX_DIM_CHARS);
    case 'string':
      return isStr(v, 0, MAX_DIM_CHARS);
    case 'text':
      return isStr(v, 0, MAX_TEXT_CHARS);
    case 'ms':
      return isFiniteNum(v) && v >= 0 && v <= MAX_LATENCY_MS;
    case 'count':
      return isCount(v);
    case 'unit':
      return isFiniteNum(v) && v >= 0 && v <= 1;
    case 'number':
      return isFiniteNum(v);
    case 'positive':
      return isFiniteNum(v) && v > 0 && v <= MAX_SAMPLE_WEIGHT;
    case 'http_status':
      return Number.isInteger(v) && (v as number) >= 100 && (v as number) <= 599;
    case 'bool':
      return typeof v === 'boolean';
    case 'status':
      return STATUS_SET.has(v);
    case 'error_type':
      return ERROR_TYPE_SET.has(v);
    case 'attributes': {
      if (!isPlainObject(v)) return false;
      let n = 0;
      for (const k in v) if (++n > MAX_ATTRIBUTES || !isKey(k) || !isStr(v[k], 0, MAX_DIM_CHARS)) return false;
      return true;
    }
    case 'features': {
      if (!isPlainObject(v)) return false;
      let n = 0;
      for (const k in v) if (++n > MAX_FEATURES || !isKey(k) || !isFiniteNum(v[k])) return false;
      return true;
    }
    case 'tags':
      return Array.isArray(v) && v.length <= MAX_TAGS && v.every((t) => isStr(t, 1, MAX_KEY_CHARS));
  }
}

/** A string that is not well-formed Unicode anywhere in `v` (a value, a map key or value, a tag): its path below `path`. */
function illFormedAt(v: unknown, path: string): string | undefined {
  if (typeof v === 'string') return isWellFormed(v) ? undefined : path;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && i <= MAX_TAGS; i++) if (typeof v[i] === 'string' && !isWellFormed(v[i] as string)) return `${path}.${i}`;
    return undefined;
  }
  if (isPlainObject(v)) {
    let n = 0;
    for (const k in v) {
      if (++n > MAX_FEATURES) break;
      if (!isWellFormed(k) || (typeof v[k] === 'string' && !isWellFormed(v[k] as string))) return `${path}.${k}`;
    }
  }
  return undefined;
}

/** The issue for a value that failed `valueOk`: a lone surrogate is named with its path, the rest say what was expected. */
function fieldIssue(kind: FieldKind, v: unknown, path: string): FieldIssue {
  const at = illFormedAt(v, path);
  return at === undefined ? { path, message: expectedFor(kind) } : { path: at, message: ILL_FORMED_TEXT };
}

/** The outcome of checking one incoming row. */
export interface CheckResult {
  /** Field problems; empty when the row is valid. */
  issues: FieldIssue[];
  /** Top-level keys that are not event fields (ignored, reported as warnings). */
  unknown: string[];
  /** The row in canonical flat form (nested `stages` lifted); undefined when it has issues. */
  event?: EventInput;
  /** Whether the row was already canonical (so its original JSON text can be stored as is). */
  canonical: boolean;
}

/**
 * Validates one incoming row against the field table. `nowMs` bounds the future; `minTsMs` is the
 * oldest accepted timestamp (the retention horizon). Accepts the stage latencies either flat
 * (`queue_ms`) or nested (`stages.queue_ms`); issue paths name the place the value was given.
 */
export function checkEvent(row: unknown, nowMs: number, minTsMs = 0): CheckResult {
  if (!isPlainObject(row)) {
    return { issues: [{ path: '', message: 'expected a JSON object (one event)' }], unknown: [], canonical: false };
  }
  const issues: FieldIssue[] = [];
  const unknown: string[] = [];
  let canonical = true;
  let flat: Record<string, unknown> = row;
  if ('stages' in row) {
    canonical = false;
    const stages = row.stages;
    flat = { ...row };
    delete flat.stages;
    if (!isPlainObject(stages)) {
      issues.push({ path: 'stages', message: 'expected an object of stage latencies in milliseconds' });
    } else {
      for (const k in stages) {
        const spec = FIELD_BY_NAME.get(k);
        if (!spec || spec.kind !== 'ms') {
          unknown.push(`stages.${k}`);
          continue;
        }
        if (k in row) issues.push({ path: `stages.${k}`, message: `given twice: also as top-level ${k}` });
        if (stages[k] == null) continue;
        if (!valueOk('ms', stages[k])) issues.push(fieldIssue('ms', stages[k], `stages.${k}`));
        else flat[k] = stages[k];
      }
    }
  }
  for (const k in flat) {
    const spec = FIELD_BY_NAME.get(k);
    const v = flat[k];
    if (!spec) {
      unknown.push(k);
      continue;
    }
    if (v === null) {
      canonical = false;
      continue;
    }
    if (!valueOk(spec.kind, v)) {
      issues.push(fieldIssue(spec.kind, v, k));
    }
  }
  if (flat.ts == null) issues.push({ path: 'ts', message: 'required: ' + expectedFor('ts') });
  else {
    const tsMs = timestampMs(flat.ts);
    if (tsMs !== undefined) {
      // Stores read numbers as epoch ms and UTC 'Z' strings directly; other forms are rewritten.
      if (typeof flat.ts === 'string' && !CANONICAL_TS.test(flat.ts)) canonical = false;
      const outside = outsideWindow(tsMs, nowMs, minTsMs);
      if (outside) issues.push({ path: 'ts', message: outside });
    }
  }
  if (flat.model == null) issues.push({ path: 'model', message: 'required: ' + expectedFor('dim') });
  if (flat.total_ms == null && flat.status == null && !issues.some((i) => i.path === 'total_ms' || i.path === 'status' || i.path === 'stages.total_ms')) {
    issues.push({ path: 'total_ms', message: 'required: total_ms or status (or both)' });
  }
  if (issues.length > 0) return { issues, unknown, canonical: false };
  return { issues, unknown, event: flat as unknown as EventInput, canonical: canonical && unknown.length === 0 };
}

// ---------- zod: the same contract, for types, the SDK and documentation ----------

const wf = { error: ILL_FORMED_TEXT };
const msg = (kind: FieldKind) => ({ error: expectedFor(kind) });
const key = z.string().max(MAX_KEY_CHARS).refine(isWellFormed, wf);
/** The zod schema of each field kind (the same rules as `valueOk`). */
const KIND_SCHEMAS = {
  ts: TimestampSchema,
  id: z.string(msg('id')).min(1, msg('id')).max(MAX_ID_CHARS, msg('id')).refine(isWellFormed, wf),
  dim: z.string(msg('dim')).min(1, msg('dim')).max(MAX_DIM_CHARS, msg('dim')).refine(isWellFormed, wf),
  string: z.string(msg('string')).max(MAX_DIM_CHARS, msg('string')).refine(isWellFormed, wf),
  text: z.string(msg('text')).max(MAX_TEXT_CHARS, msg('text')).refine(isWellFormed, wf),
  ms: z.number(msg('ms')).min(0, msg('ms')).max(MAX_LATENCY_MS, msg('ms')),
  count: z.number(msg('count')).int(msg('count')).min(0, msg('count')).max(MAX_COUNT, msg('count')),
  unit: z.number(msg('unit')).min(0, msg('unit')).max(1, msg('unit')),
  number: z.number(msg('number')),
  positive: z.number(msg('positive')).positive(msg('positive')).max(MAX_SAMPLE_WEIGHT, msg('positive')),
  http_status: z.number(msg('http_status')).int(msg('http_status')).min(100, msg('http_status')).max(599, msg('http_status')),
  bool: z.boolean(msg('bool')),
  status: z.enum(STATUSES, msg('status')),
  error_type: z.enum(ERROR_TYPES, msg('error_type')),
  attributes: z
    .record(key, z.string().max(MAX_DIM_CHARS).refine(isWellFormed, wf), msg('attributes'))
    .refine((o) => Object.keys(o).length <= MAX_ATTRIBUTES, msg('attributes')),
  features: z.record(key, z.number(), msg('features')).refine((o) => Object.keys(o).length <= MAX_FEATURES, msg('features')),
  tags: z.array(z.string().min(1).max(MAX_KEY_CHARS).refine(isWellFormed, wf), msg('tags')).max(MAX_TAGS, msg('tags')),
} satisfies Record<FieldKind, z.ZodType>;
type KindSchemas = typeof KIND_SCHEMAS;

type Field = (typeof EVENT_FIELDS)[number];
/** The kind of the field named K (a dimension's entry in the table names all of them at once). */
type KindOf<K extends string> = Field extends infer F
  ? F extends { name: infer N; kind: infer Kd extends FieldKind }
    ? K extends N
      ? Kd
      : never
    : never
  : never;
/** `ts` and `model` are required; every other field may be absent or null. */
type EventShape = {
  [K in Field['name']]: K extends 'ts' | 'model' ? KindSchemas[KindOf<K>] : z.ZodOptional<z.ZodNullable<KindSchemas[KindOf<K>]>>;
};

const shape: Record<string, z.ZodType> = {};
for (const f of EVENT_FIELDS) {
  const base = KIND_SCHEMAS[f.kind].describe(f.doc);
  shape[f.name] = f.name === 'ts' || f.name === 'model' ? base : base.nullish();
}

/**
 * The event as sent by clients (flat form). Types are inferred from this schema; the ingest hot
 * path applies the same rules through `checkEvent` (a test keeps the two in agreement).
 */
export const EventInputSchema = z
  .object(shape as EventShape)
  .refine((e) => e.total_ms != null || e.status != null, { message: 'required: total_ms or status (or both)', path: ['total_ms'] });

/** An inference event as clients send it (flat form), inferred from the field table's schema. */
export type EventInput = z.output<typeof EventInputSchema>;

/** A stored event as read back: `ts` is RFC 3339 UTC; absent fields are null. */
export type StoredEvent = Omit<EventInput, 'ts'> & { ts: string };

/** Turns zod issues into field issues with dotted paths. */
export function zodIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

/** The epoch milliseconds of a valid `ts` value. */
export function tsMillis(ts: string | number): number {
  return timestampMs(ts) ?? Number.NaN;
}
