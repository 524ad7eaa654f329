/**
 * Client options: validated once with zod, field by field. A bad value becomes one warning and that
 * field's default, never a throw: an observability SDK must not stop the service it observes.
 */
import { z } from 'zod';
import { DIMENSIONS } from '../schema/index.ts';
import type { Dimension, EventInput } from '../schema/index.ts';
import { REAL_TIMERS } from './timers.ts';
import type { SdkTimers } from './timers.ts';
import { consoleLogger, createWarnOnce } from './warn-once.ts';
import type { SdkLogger, WarnOnce } from './warn-once.ts';

/** Values stamped on every event unless the request sets its own: dimensions and attributes. */
export type EventDefaults = Partial<Record<Dimension, string>> & { attributes?: Record<string, string> };

/** What the capture hook decides: keep the payload as given, drop it, or replace (e.g. redact) it. */
export type CaptureDecision = boolean | { input?: unknown; output?: unknown; risk_tags?: string[] };

/**
 * Called once per finished request when set, with the payload given to `t.capture()` (undefined
 * when none) and the event without payload fields. Runs on the request path: keep it cheap.
 */
export type CaptureHook = (input: unknown, output: unknown, event: Readonly<EventInput>) => CaptureDecision;

/** Options of `createClient`. Only `endpoint` is required. */
export interface ClientOptions {
  /** Base URL of the inferlens server, e.g. `http://127.0.0.1:8080`; `/v1/events` is appended. */
  endpoint: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Dimensions (and attributes) stamped on every event; `model` should be set here or per request. */
  defaults?: EventDefaults;
  /** Buffered rows are sent at least this often. Default 1000 ms. */
  flushIntervalMs?: number;
  /** Rows per HTTP request; a full batch is sent without waiting for the interval. Default 500. */
  maxBatchSize?: number;
  /** Rows kept while the server is slow or down; past this the oldest are dropped. Default 10 000. */
  maxBufferSize?: number;
  /** Retries of one batch on 429/503/network errors before it is dropped. Default 5. */
  maxRetries?: number;
  /** Back-off cap of the first retry (full jitter). Default 100 ms. */
  initialBackoffMs?: number;
  /** Back-off cap of any retry. Default 10 000 ms. */
  maxBackoffMs?: number;
  /** Per HTTP request. Default 10 000 ms. */
  timeoutMs?: number;
  /** Payload capture policy; see `CaptureHook`. */
  capture?: CaptureHook;
  /** Where warnings go (once per problem). Default `console.warn`. */
  logger?: SdkLogger;
  /** Monotonic clock in milliseconds for stage timing. Default `performance.now`. Tests inject one. */
  now?: () => number;
  /** Timers for back-off waits, request timeouts and the shutdown deadline. Default the global ones. Tests inject their own. */
  timers?: SdkTimers;
}

/** Options after validation: every field has a usable value. */
export interface ResolvedOptions {
  /** Without trailing slash; undefined when the given one was unusable (the client then sends nothing). */
  endpoint: string | undefined;
  apiKey: string | undefined;
  defaults: EventDefaults;
  flushIntervalMs: number;
  maxBatchSize: number;
  maxBufferSize: number;
  maxRetries: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  timeoutMs: number;
  capture: CaptureHook | undefined;
  now: () => number;
  timers: SdkTimers;
  warn: WarnOnce;
}

const fn = <T>(what: string) => z.custom<T>((v) => typeof v === 'function', { error: `expected ${what}` });
const intIn = (min: number, max: number) => z.number().int().min(min).max(max);

/** Each option: its schema and its default. The defaults are the documented ones above. */
const FIELDS = {
  endpoint: { schema: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }), fallback: undefined },
  apiKey: { schema: z.string().min(1), fallback: undefined },
  flushIntervalMs: { schema: intIn(1, 3_600_000), fallback: 1000 },
  maxBatchSize: { schema: intIn(1, 100_000), fallback: 500 },
  maxBufferSize: { schema: intIn(1, 10_000_000), fallback: 10_000 },
  maxRetries: { schema: intIn(0, 100), fallback: 5 },
  initialBackoffMs: { schema: z.number().min(0).max(600_000), fallback: 100 },
  maxBackoffMs: { schema: z.number().min(0).max(600_000), fallback: 10_000 },
  timeoutMs: { schema: intIn(1, 600_000), fallback: 10_000 },
  capture: { schema: fn<CaptureHook>('a function (input, output, event) => boolean | object'), fallback: undefined },
  now: { schema: fn<() => number>('a function returning milliseconds'), fallback: undefined },
  timers: {
    schema: z.custom<SdkTimers>(
      (v) => typeof v === 'object' && v !== null && typeof (v as SdkTimers).setTimeout === 'function' && typeof (v as SdkTimers).clearTimeout === 'function',
      { error: 'expected an object with setTimeout(fn, ms) and clearTimeout(handle)' },
    ),
    fallback: undefined,
  },
} as const;
type FieldName = keyof typeof FIELDS;

const dimSchema = z.string().min(1).max(256);
const attributesSchema = z.record(z.string().max(64), z.string().max(256)).refine((o) => Object.keys(o).length <= 16, 'at most 16 entries');
const DIMENSION_SET: ReadonlySet<string> = new Set(DIMENSIONS);
const loggerSchema = z.custom<SdkLogger>((v) => typeof v === 'object' && v !== null && typeof (v as { warn?: unknown }).warn === 'function', {
  error: 'expected an object with a warn(msg, obj?) method',
});

const defaultNow = (): number => performance.now();

function describeValue(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s.length > 80 ? s.slice(0, 77) + '...' : s;
  } catch {
    return typeof v;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function resolveDefaults(raw: unknown, warn: WarnOnce): EventDefaults {
  const out: EventDefaults = {};
  if (raw === undefined) return out;
  if (!isRecord(raw)) {
    warn('option:defaults', `option defaults: expected an object of event dimensions, got ${describeValue(raw)}; using {}`);
    return out;
  }
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (value === undefined) continue;
    if (key === 'attributes') {
      const r = attributesSchema.safeParse(value);
      if (r.success) out.attributes = r.data;
      else warn('option:defaults.attributes', `option defaults.attributes: ${r.error.issues[0]?.message ?? 'invalid'}; ignored`);
    } else if (DIMENSION_SET.has(key)) {
      const r = dimSchema.safeParse(value);
      if (r.success) out[key as Dimension] = r.data;
      else warn(`option:defaults.${key}`, `option defaults.${key}: expected a string of 1–256 characters, got ${describeValue(value)}; ignored`);
    } else {
      warn(`option:defaults.${key}`, `option defaults.${key}: not an event dimension (one of ${DIMENSIONS.join(', ')}, attributes); ignored`);
    }
  }
  return out;
}

/** Validates raw options (any value: JavaScript callers exist). Never throws. */
export function resolveOptions(raw: unknown): ResolvedOptions {
  const input = isRecord(raw) ? raw : {};
  const loggerResult = loggerSchema.safeParse(input.logger);
  const warn = createWarnOnce(input.logger !== undefined && loggerResult.success ? loggerResult.data : consoleLogger);
  if (input.logger !== undefined && !loggerResult.success)
    warn('option:logger', 'option logger: expected an object with a warn(msg, obj?) method; using console.warn');
  if (!isRecord(raw)) warn('options', `createClient: expected an options object, got ${describeValue(raw)}; nothing will be sent`);

  const field = <K extends FieldName>(name: K): z.infer<(typeof FIELDS)[K]['schema']> | (typeof FIELDS)[K]['fallback'] => {
    const { schema, fallback } = FIELDS[name];
    const value = input[name];
    if (value === undefined) return fallback;
    const r = schema.safeParse(value);
    if (r.success) return r.data as z.infer<(typeof FIELDS)[K]['schema']>;
    warn(
      `option:${name}`,
      `option ${name}: ${r.error.issues[0]?.message ?? 'invalid'}, got ${describeValue(value)}; using ${fallback === undefined ? 'none' : String(fallback)}`,
    );
    return fallback;
  };
  const known = new Set<string>([...Object.keys(FIELDS), 'defaults', 'logger']);
  for (const key of Object.keys(input)) if (!known.has(key)) warn(`option:${key}`, `unknown option ${key}; ignored`);

  const endpointUrl = field('endpoint');
  const endpoint = endpointUrl === undefined ? undefined : endpointUrl.replace(/\/+$/, '');
  if (endpoint === undefined && isRecord(raw) && input.endpoint === undefined) {
    warn('option:endpoint', 'option endpoint is required (the inferlens server URL); nothing will be sent');
  }
  let initialBackoffMs = field('initialBackoffMs');
  const maxBackoffMs = field('maxBackoffMs');
  if (maxBackoffMs < initialBackoffMs) {
    warn('option:maxBackoffMs', `option maxBackoffMs (${maxBackoffMs}) is below initialBackoffMs (${initialBackoffMs}); using ${maxBackoffMs} for both`);
    initialBackoffMs = maxBackoffMs;
  }
  const defaults = resolveDefaults(input.defaults, warn);
  if (defaults.model === undefined) {
    warn('option:defaults.model', 'defaults.model is not set: pass model to every startRequest()/record(), or the server rejects the events');
  }
  return {
    endpoint,
    apiKey: field('apiKey'),
    defaults,
    flushIntervalMs: field('flushIntervalMs'),
    maxBatchSize: field('maxBatchSize'),
    maxBufferSize: field('maxBufferSize'),
    maxRetries: field('maxRetries'),
    initialBackoffMs,
    maxBackoffMs,
    timeoutMs: field('timeoutMs'),
    capture: field('capture'),
    now: field('now') ?? defaultNow,
    timers: field('timers') ?? REAL_TIMERS,
    warn,
  };
}
