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

/**
 * The one low-confidence cut-off: an answer with confidence below it is "low confidence" for the
 * capture policy (kept as a sample), the quality table and the default alert rules. A deployment
 * sets it once (`quality.lowConfidence`); a confident classifier such as the demo's uses 0.9.
 */
export const DEFAULT_LOW_CONFIDENCE = 0.6;

/**
 * Append only: a status is stored as text in events and as a rollup column (`w_<status>`), so a new
 * one needs a migration in every store backend (see src/store/duckdb/migrations.ts). `aborted`: the
 * server stopped the request (engine abort, shutdown, preemption); `cancelled`: the caller did
 * (disconnected or cancelled, HTTP 499; gRPC CANCELLED).
 */
export const STATUSES = ['ok', 'error', 'rejected', 'rate_limited', 'timeout', 'aborted', 'cancelled'] as const;
export type Status = (typeof STATUSES)[number];

/**
 * Append only, like STATUSES. `dependency_timeout`: a dependency (feature store, vector DB, upstream
 * model API) did not answer in time; `dependency_error`: it answered with a failure.
 */
export const ERROR_TYPES = [
  'model_load',
  'bad_input',
  'resource_exhausted',
  'dependency_timeout',
  'dependency_error',
  'replica_fault',
  'internal',
  'other',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

/** Dimensions: low-cardinality strings an event is sliced by. Each has a cardinality cap at ingest. */
export const DIMENSIONS = [
  'model',
  'model_version',
  'service_version',
  'route_rule',
  'tenant',
  'entry',
  'node',
  'replica',
  'service_tier',
  'pool',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

/** Latency stages in milliseconds, in request order; `total_ms` is end to end. */
export const STAGES = ['ingress_ms', 'queue_ms', 'batch_ms', 'exec_ms', 'post_ms'] as const;
export type Stage = (typeof STAGES)[number];
/**
 * Every latency field. Generative models add time to first token, time per output token and the
 * prompt's prefill time (a part of `exec_ms`, so not a stage of its own: stages add up to the total).
 */
export const LATENCY_FIELDS = [...STAGES, 'total_ms', 'ttft_ms', 'tpot_ms', 'prefill_ms'] as const;
export type LatencyField = (typeof LATENCY_FIELDS)[number];

/** Numeric fields a query may aggregate (quantiles, mean, max, sum). */
export const NUMERIC_FIELDS = [
  ...LATENCY_FIELDS,
  'batch_size',
  'batch_tokens',
  'input_tokens',
  'output_tokens',
  'cached_tokens',
  'confidence',
  'score',
  'output_length',
  'http_status',
  'sample_weight',
] as const;
export type NumericField = (typeof NUMERIC_FIELDS)[number];

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

export const EVENT_FIELDS: readonly FieldSpec[] = [
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
];

export const EVENT_FIELD_NAMES: ReadonlySet<string> = new Set(EVENT_FIELDS.map((f) => f.name));
const FIELD_BY_NAME = new Map(EVENT_FIELDS.map((f) => [f.name, f]));

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

const isStr = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'string' && v.length >= min && v.length <= max && isWellFormed(v);
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

function zodFor(kind: FieldKind): z.ZodType {
  const msg = { error: expectedFor(kind) };
  const wf = { error: ILL_FORMED_TEXT };
  const key = z.string().max(MAX_KEY_CHARS).refine(isWellFormed, wf);
  switch (kind) {
    case 'ts':
      return TimestampSchema;
    case 'id':
      return z.string(msg).min(1, msg).max(MAX_ID_CHARS, msg).refine(isWellFormed, wf);
    case 'dim':
      return z.string(msg).min(1, msg).max(MAX_DIM_CHARS, msg).refine(isWellFormed, wf);
    case 'string':
      return z.string(msg).max(MAX_DIM_CHARS, msg).refine(isWellFormed, wf);
    case 'text':
      return z.string(msg).max(MAX_TEXT_CHARS, msg).refine(isWellFormed, wf);
    case 'ms':
      return z.number(msg).min(0, msg).max(MAX_LATENCY_MS, msg);
    case 'count':
      return z.number(msg).int(msg).min(0, msg).max(MAX_COUNT, msg);
    case 'unit':
      return z.number(msg).min(0, msg).max(1, msg);
    case 'number':
      return z.number(msg);
    case 'positive':
      return z.number(msg).positive(msg).max(MAX_SAMPLE_WEIGHT, msg);
    case 'http_status':
      return z.number(msg).int(msg).min(100, msg).max(599, msg);
    case 'bool':
      return z.boolean(msg);
    case 'status':
      return z.enum(STATUSES, msg);
    case 'error_type':
      return z.enum(ERROR_TYPES, msg);
    case 'attributes':
      return z.record(key, z.string().max(MAX_DIM_CHARS).refine(isWellFormed, wf), msg).refine((o) => Object.keys(o).length <= MAX_ATTRIBUTES, msg);
    case 'features':
      return z.record(key, z.number(), msg).refine((o) => Object.keys(o).length <= MAX_FEATURES, msg);
    case 'tags':
      return z.array(z.string().min(1).max(MAX_KEY_CHARS).refine(isWellFormed, wf), msg).max(MAX_TAGS, msg);
  }
}

const shape: Record<string, z.ZodType> = {};
for (const f of EVENT_FIELDS) {
  const base = zodFor(f.kind).describe(f.doc);
  shape[f.name] = f.name === 'ts' || f.name === 'model' ? base : base.nullish();
}

/**
 * The event as sent by clients (flat form). Types are inferred from this schema; the ingest hot
 * path applies the same rules through `checkEvent` (a test keeps the two in agreement).
 */
export const EventInputSchema = z
  .object(shape)
  .refine((e) => e.total_ms != null || e.status != null, { message: 'required: total_ms or status (or both)', path: ['total_ms'] });

type Opt<T> = T | null | undefined;
/** An inference event as clients send it (flat form). */
export interface EventInput {
  ts: string | number;
  request_id?: Opt<string>;
  trace_id?: Opt<string>;
  model: string;
  model_version?: Opt<string>;
  service_version?: Opt<string>;
  route_rule?: Opt<string>;
  tenant?: Opt<string>;
  entry?: Opt<string>;
  node?: Opt<string>;
  replica?: Opt<string>;
  service_tier?: Opt<string>;
  pool?: Opt<string>;
  attributes?: Opt<Record<string, string>>;
  ingress_ms?: Opt<number>;
  queue_ms?: Opt<number>;
  batch_ms?: Opt<number>;
  exec_ms?: Opt<number>;
  post_ms?: Opt<number>;
  total_ms?: Opt<number>;
  ttft_ms?: Opt<number>;
  tpot_ms?: Opt<number>;
  prefill_ms?: Opt<number>;
  batch_size?: Opt<number>;
  batch_tokens?: Opt<number>;
  status?: Opt<Status>;
  error_type?: Opt<ErrorType>;
  http_status?: Opt<number>;
  input_tokens?: Opt<number>;
  output_tokens?: Opt<number>;
  cached_tokens?: Opt<number>;
  label?: Opt<string>;
  confidence?: Opt<number>;
  score?: Opt<number>;
  output_length?: Opt<number>;
  finish_reason?: Opt<string>;
  empty?: Opt<boolean>;
  refused?: Opt<boolean>;
  format_ok?: Opt<boolean>;
  features?: Opt<Record<string, number>>;
  probe?: Opt<boolean>;
  sample_weight?: Opt<number>;
  input?: Opt<string>;
  output?: Opt<string>;
  risk_tags?: Opt<string[]>;
}

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
