/**
 * Decodes OTLP/HTTP request bodies (ExportTraceServiceRequest, ExportMetricsServiceRequest) from
 * OTLP/JSON or protobuf into the normalised model of model.ts.
 *
 * Both wire formats go through one reader: a protobuf body is decoded with protobufjs and turned
 * into a plain object whose keys are the OTLP/JSON names (see proto/otlp-descriptor.ts), then read
 * like a JSON body. The reader is tolerant the way the OTLP/JSON spec asks receivers to be: int64
 * as strings or numbers, enums as numbers or names, snake_case keys as well as lowerCamelCase,
 * trace and span ids as hex (and base64, which some older senders use).
 *
 * A body that does not decode at all throws `invalid_argument`; one malformed span or data point
 * inside a readable body is reported in `malformed` and the rest is kept.
 */
import protobuf from 'protobufjs';
import { InferlensError } from '../../schema/index.ts';
import type {
  AttrValue,
  Attrs,
  ExponentialBuckets,
  ExponentialHistogramPoint,
  HistogramPoint,
  MalformedItem,
  MetricData,
  MetricsRequest,
  NumberPoint,
  OtlpMetric,
  OtlpSpan,
  OtlpSpanEvent,
  SummaryPoint,
  TraceRequest,
} from './model.ts';
import { OTLP_DESCRIPTOR } from './proto/otlp-descriptor.ts';

/** The two OTLP/HTTP encodings. */
export type OtlpEncoding = 'json' | 'protobuf';

/**
 * The encoding named by a Content-Type header (parameters such as `charset` are ignored).
 * Throws `invalid_argument` for anything else.
 */
export function encodingOf(contentType: string): OtlpEncoding {
  const mime = contentType.split(';')[0]!.trim().toLowerCase();
  if (mime === 'application/json') return 'json';
  if (mime === 'application/x-protobuf' || mime === 'application/protobuf') return 'protobuf';
  throw new InferlensError('invalid_argument', `unsupported content type "${contentType}": send OTLP as application/json or application/x-protobuf`);
}

let root: protobuf.Root | undefined;
/** The protobufjs type of an OTLP message, built once from the descriptor. */
export function otlpType(name: string): protobuf.Type {
  root ??= protobuf.Root.fromJSON(OTLP_DESCRIPTOR);
  return root.lookupType(`otlp.${name}`);
}

/** Options for `toObject`: int64 as decimal strings, enums as numbers, bytes left as Uint8Array. */
const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: Number, arrays: false, defaults: false };

function bodyToObject(body: Uint8Array, contentType: string, message: string): unknown {
  if (encodingOf(contentType) === 'json') {
    const text = new TextDecoder('utf-8', { fatal: false }).decode(body);
    try {
      return JSON.parse(text) as unknown;
    } catch (e) {
      throw new InferlensError('invalid_argument', `body is not JSON (${(e as Error).message}): send an OTLP/JSON ${message}`, { cause: e });
    }
  }
  const type = otlpType(message);
  try {
    return type.toObject(type.decode(body), TO_OBJECT);
  } catch (e) {
    throw new InferlensError(
      'invalid_argument',
      `body does not decode as a protobuf ${message} (${(e as Error).message}): send OTLP protobuf, or application/json for OTLP/JSON`,
      { cause: e },
    );
  }
}

// ---------- readers shared by both encodings ----------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

const snakeCache = new Map<string, string>();
/** A field by its lowerCamelCase name, or by its proto (snake_case) name. */
function get(o: Obj, camel: string): unknown {
  const v = o[camel];
  if (v !== undefined) return v;
  let snake = snakeCache.get(camel);
  if (snake === undefined) {
    snake = camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    snakeCache.set(camel, snake);
  }
  return snake === camel ? undefined : o[snake];
}

function list(o: Obj, camel: string): unknown[] {
  const v = get(o, camel);
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A number from a JSON number, a decimal string ("5", "1.5", "NaN", "Infinity") or a Long-like. */
function num(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isNaN(n) && v !== 'NaN' ? null : n;
  }
  if (typeof v === 'bigint') return Number(v);
  return null;
}

const UINT64_DIGITS = /^\d{1,20}$/;
/** A nanosecond timestamp (fixed64) from a decimal string or a number; 0 when absent or unreadable. */
function nanos(v: unknown): bigint {
  if (typeof v === 'string' && UINT64_DIGITS.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return BigInt(Math.round(v));
  return 0n;
}

/** An enum from its number or its name, e.g. `2` or `"STATUS_CODE_ERROR"`. */
function enumValue(v: unknown, names: Readonly<Record<string, number>>): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return names[v] ?? num(v) ?? 0;
  return 0;
}

const SPAN_KINDS = {
  SPAN_KIND_UNSPECIFIED: 0,
  SPAN_KIND_INTERNAL: 1,
  SPAN_KIND_SERVER: 2,
  SPAN_KIND_CLIENT: 3,
  SPAN_KIND_PRODUCER: 4,
  SPAN_KIND_CONSUMER: 5,
};
const STATUS_CODES = { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 };
const TEMPORALITIES = {
  AGGREGATION_TEMPORALITY_UNSPECIFIED: 0,
  AGGREGATION_TEMPORALITY_DELTA: 1,
  AGGREGATION_TEMPORALITY_CUMULATIVE: 2,
};

const HEX_ID = /^(?:[0-9a-fA-F]{2})*$/;
/**
 * A trace or span id as lowercase hex: from bytes (protobuf), hex (OTLP/JSON) or base64 (proto3
 * JSON, which some senders use). An all-zero id is invalid per the spec and becomes ''.
 */
function id(v: unknown): string {
  let hex = '';
  if (v instanceof Uint8Array) hex = Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  else if (typeof v === 'string') hex = HEX_ID.test(v) ? v.toLowerCase() : Buffer.from(v, 'base64').toString('hex');
  return /^0*$/.test(hex) ? '' : hex;
}

/** AnyValue nesting deeper than this is cut (the value becomes null): a bound on recursion. */
const MAX_VALUE_DEPTH = 8;

function anyValue(v: unknown, depth = 0): AttrValue {
  if (!isObj(v) || depth > MAX_VALUE_DEPTH) return null;
  const s = get(v, 'stringValue');
  if (typeof s === 'string') return s;
  const b = get(v, 'boolValue');
  if (typeof b === 'boolean') return b;
  const i = get(v, 'intValue');
  if (i !== undefined) return num(i);
  const d = get(v, 'doubleValue');
  if (d !== undefined) return num(d);
  const a = get(v, 'arrayValue');
  if (isObj(a)) return list(a, 'values').map((x) => anyValue(x, depth + 1));
  const kv = get(v, 'kvlistValue');
  if (isObj(kv)) return Object.fromEntries(attrs(list(kv, 'values'), depth + 1));
  const bytes = get(v, 'bytesValue');
  if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
  if (typeof bytes === 'string') return bytes; // OTLP/JSON sends bytes as base64 already
  return null;
}

function attrs(kvs: readonly unknown[], depth = 0): Map<string, AttrValue> {
  const out = new Map<string, AttrValue>();
  for (const kv of kvs) {
    if (!isObj(kv)) continue;
    const key = get(kv, 'key');
    if (typeof key === 'string' && key !== '') out.set(key, anyValue(get(kv, 'value'), depth));
  }
  return out;
}

function resourceAttrs(o: Obj): Attrs {
  const r = get(o, 'resource');
  return isObj(r) ? attrs(list(r, 'attributes')) : new Map();
}

// ---------- traces ----------

function readSpan(s: Obj, index: number, resource: Attrs): OtlpSpan {
  const status = get(s, 'status');
  const events: OtlpSpanEvent[] = [];
  for (const e of list(s, 'events')) {
    if (isObj(e)) events.push({ timeUnixNano: nanos(get(e, 'timeUnixNano')), name: str(get(e, 'name')), attributes: attrs(list(e, 'attributes')) });
  }
  return {
    index,
    traceId: id(get(s, 'traceId')),
    spanId: id(get(s, 'spanId')),
    parentSpanId: id(get(s, 'parentSpanId')),
    name: str(get(s, 'name')),
    kind: enumValue(get(s, 'kind'), SPAN_KINDS),
    startTimeUnixNano: nanos(get(s, 'startTimeUnixNano')),
    endTimeUnixNano: nanos(get(s, 'endTimeUnixNano')),
    attributes: attrs(list(s, 'attributes')),
    events,
    statusCode: isObj(status) ? enumValue(get(status, 'code'), STATUS_CODES) : 0,
    statusMessage: isObj(status) ? str(get(status, 'message')) : '',
    resource,
  };
}

/**
 * Decodes an ExportTraceServiceRequest body. `contentType` picks the encoding (see `encodingOf`).
 * Throws `invalid_argument` when the body does not decode.
 */
export function decodeTraceRequest(body: Uint8Array, contentType: string): TraceRequest {
  const req = bodyToObject(body, contentType, 'ExportTraceServiceRequest');
  if (!isObj(req)) throw new InferlensError('invalid_argument', 'expected a JSON object with "resourceSpans" (an OTLP ExportTraceServiceRequest)');
  const resourceSpans = get(req, 'resourceSpans') ?? [];
  if (!Array.isArray(resourceSpans)) throw new InferlensError('invalid_argument', '"resourceSpans" must be an array of ResourceSpans');
  const spans: OtlpSpan[] = [];
  const malformed: MalformedItem[] = [];
  let index = 0;
  for (const rs of resourceSpans) {
    if (!isObj(rs)) continue;
    const resource = resourceAttrs(rs);
    for (const ss of list(rs, 'scopeSpans')) {
      if (!isObj(ss)) continue;
      for (const s of list(ss, 'spans')) {
        if (isObj(s)) spans.push(readSpan(s, index, resource));
        else malformed.push({ index, reason: 'not a Span object' });
        index++;
      }
    }
  }
  return { spans, malformed };
}

// ---------- metrics ----------

function pointBase(p: Obj, index: number) {
  return {
    index,
    attributes: attrs(list(p, 'attributes')),
    startTimeUnixNano: nanos(get(p, 'startTimeUnixNano')),
    timeUnixNano: nanos(get(p, 'timeUnixNano')),
    flags: num(get(p, 'flags')) ?? 0,
  };
}

const counts = (v: unknown[]): number[] => v.map((c) => num(c) ?? 0);
const optNum = (v: unknown): number | null => (v === undefined || v === null ? null : num(v));

function numberPoint(p: Obj, index: number): NumberPoint {
  const d = get(p, 'asDouble');
  const i = get(p, 'asInt');
  return { ...pointBase(p, index), value: d !== undefined ? num(d) : i !== undefined ? num(i) : null };
}

function histogramPoint(p: Obj, index: number): HistogramPoint {
  return {
    ...pointBase(p, index),
    count: num(get(p, 'count')) ?? 0,
    sum: optNum(get(p, 'sum')),
    bucketCounts: counts(list(p, 'bucketCounts')),
    explicitBounds: counts(list(p, 'explicitBounds')),
    min: optNum(get(p, 'min')),
    max: optNum(get(p, 'max')),
  };
}

function buckets(v: unknown): ExponentialBuckets {
  return isObj(v) ? { offset: num(get(v, 'offset')) ?? 0, bucketCounts: counts(list(v, 'bucketCounts')) } : { offset: 0, bucketCounts: [] };
}

function exponentialPoint(p: Obj, index: number): ExponentialHistogramPoint {
  return {
    ...pointBase(p, index),
    count: num(get(p, 'count')) ?? 0,
    sum: optNum(get(p, 'sum')),
    scale: num(get(p, 'scale')) ?? 0,
    zeroCount: num(get(p, 'zeroCount')) ?? 0,
    zeroThreshold: num(get(p, 'zeroThreshold')) ?? 0,
    positive: buckets(get(p, 'positive')),
    negative: buckets(get(p, 'negative')),
    min: optNum(get(p, 'min')),
    max: optNum(get(p, 'max')),
  };
}

function summaryPoint(p: Obj, index: number): SummaryPoint {
  const quantileValues: SummaryPoint['quantileValues'] = [];
  for (const q of list(p, 'quantileValues')) {
    if (isObj(q)) quantileValues.push({ quantile: num(get(q, 'quantile')) ?? 0, value: num(get(q, 'value')) ?? 0 });
  }
  return { ...pointBase(p, index), count: num(get(p, 'count')) ?? 0, sum: num(get(p, 'sum')) ?? 0, quantileValues };
}

/**
 * Decodes an ExportMetricsServiceRequest body. `contentType` picks the encoding (see `encodingOf`).
 * Throws `invalid_argument` when the body does not decode.
 */
export function decodeMetricsRequest(body: Uint8Array, contentType: string): MetricsRequest {
  const req = bodyToObject(body, contentType, 'ExportMetricsServiceRequest');
  if (!isObj(req)) throw new InferlensError('invalid_argument', 'expected a JSON object with "resourceMetrics" (an OTLP ExportMetricsServiceRequest)');
  const resourceMetrics = get(req, 'resourceMetrics') ?? [];
  if (!Array.isArray(resourceMetrics)) throw new InferlensError('invalid_argument', '"resourceMetrics" must be an array of ResourceMetrics');
  const metrics: OtlpMetric[] = [];
  const malformed: MalformedItem[] = [];
  let index = 0;
  // Reads the data points of one metric kind, numbering them across the whole request.
  const points = <T>(o: Obj, read: (p: Obj, i: number) => T): T[] => {
    const out: T[] = [];
    for (const p of list(o, 'dataPoints')) {
      if (isObj(p)) out.push(read(p, index));
      else malformed.push({ index, reason: 'not a data point object' });
      index++;
    }
    return out;
  };
  for (const rm of resourceMetrics) {
    if (!isObj(rm)) continue;
    const resource = resourceAttrs(rm);
    for (const sm of list(rm, 'scopeMetrics')) {
      if (!isObj(sm)) continue;
      for (const m of list(sm, 'metrics')) {
        if (!isObj(m)) continue;
        let data: MetricData | undefined;
        const gauge = get(m, 'gauge');
        const sum = get(m, 'sum');
        const histogram = get(m, 'histogram');
        const expHistogram = get(m, 'exponentialHistogram');
        const summary = get(m, 'summary');
        if (isObj(gauge)) data = { type: 'gauge', points: points(gauge, numberPoint) };
        else if (isObj(sum)) {
          data = {
            type: 'sum',
            temporality: enumValue(get(sum, 'aggregationTemporality'), TEMPORALITIES),
            monotonic: get(sum, 'isMonotonic') === true,
            points: points(sum, numberPoint),
          };
        } else if (isObj(histogram)) {
          data = {
            type: 'histogram',
            temporality: enumValue(get(histogram, 'aggregationTemporality'), TEMPORALITIES),
            points: points(histogram, histogramPoint),
          };
        } else if (isObj(expHistogram)) {
          data = {
            type: 'exponential_histogram',
            temporality: enumValue(get(expHistogram, 'aggregationTemporality'), TEMPORALITIES),
            points: points(expHistogram, exponentialPoint),
          };
        } else if (isObj(summary)) data = { type: 'summary', points: points(summary, summaryPoint) };
        // A metric with no (known) data carries no data points: nothing to map, nothing to reject.
        if (data) metrics.push({ name: str(get(m, 'name')), unit: str(get(m, 'unit')), description: str(get(m, 'description')), data, resource });
      }
    }
  }
  return { metrics, pointCount: index, malformed };
}
