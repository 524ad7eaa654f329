/**
 * The outcome of an inference span — `status`, `error_type`, `http_status` — from what the three
 * instrumentation families record when a model call fails. docs/otlp-mapping.md ("Outcome") is
 * this file written out as one table; change both together.
 *
 * What the families record, measured with the real packages (test/llm-clients/):
 * - OTel GenAI (`@opentelemetry/instrumentation-openai`): span status ERROR, `error.type` = the
 *   client's error class (`RateLimitError`, `APIUserAbortError`, `APIConnectionTimeoutError`,
 *   `InternalServerError` for every 5xx), the HTTP status only at the start of the status message
 *   (`429 Rate limit reached…`), no `http.response.status_code`.
 * - OpenInference (`@arizeai/openinference-core`): span status ERROR with the error's message, an
 *   `exception` event with `exception.type` (the class) and `exception.message`.
 * - OpenLLMetry / Traceloop (Python): `error.type` and an `exception` event, like GenAI.
 *
 * So the HTTP status is read from the attribute, else from the message the way the OpenAI and
 * Anthropic clients write it (`429 …` in JavaScript, `Error code: 429 - …` in Python), and the
 * class name is matched by words (`RateLimitError` → rate limited).
 */
import { ERROR_TYPES, STATUSES } from '../../schema/index.ts';
import type { ErrorType, Status } from '../../schema/index.ts';

const STATUS_SET: ReadonlySet<string> = new Set(STATUSES);
const ERROR_TYPE_SET: ReadonlySet<string> = new Set(ERROR_TYPES);

/** What a span says about how its call ended. */
export interface OutcomeInput {
  /** `inferlens.status` / `inferlens.error_type`: win when they are valid values. */
  explicitStatus?: string | undefined;
  explicitErrorType?: string | undefined;
  /** Span status code is ERROR. */
  spanError: boolean;
  /** `error.type`, else the `exception` event's `exception.type`. */
  errorClass?: string | undefined;
  /** The span status message, else the `exception` event's `exception.message`. */
  message?: string | undefined;
  /** `http.response.status_code` (or the legacy `http.status_code`). */
  httpStatus?: number | undefined;
}

export interface Outcome {
  status: Status;
  /** Only for status `error`. */
  error_type?: ErrorType;
  /** The HTTP status the call got, when the span says it (attribute or message). */
  http_status?: number;
}

/** An HTTP error status written into an error message: `429 Rate limit…`, `Error code: 503 - {…}`, `status code 502`. */
export function httpStatusInMessage(message: string | undefined): number | undefined {
  if (message === undefined) return undefined;
  const m = /^(\d{3})\b/.exec(message.trim()) ?? /\berror code:?\s*(\d{3})\b/i.exec(message) ?? /\bstatus(?:[ _]code)?[\s:=]+(\d{3})\b/i.exec(message);
  const code = m ? Number(m[1]) : NaN;
  return code >= 400 && code <= 599 ? code : undefined;
}

/** Splits `RateLimitError` / `openai.APIConnectionTimeoutError` / `rate_limit_exceeded` into lowercase words. */
function words(s: string): string {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/[^a-zA-Z0-9]+/g, ' ')
    .toLowerCase()
    .trim();
}

/**
 * The statuses other than `error` that a failed call can have, from its HTTP status and class or
 * message words. Order matters: a 429 is rate limited whatever its class says.
 */
function failureStatus(http: number | undefined, w: string): Exclude<Status, 'ok' | 'error'> | undefined {
  if (http === 429 || /\brate ?limit|\btoo many requests\b|\bthrottl/.test(w)) return 'rate_limited';
  // The caller gave up (event contract: `cancelled`): HTTP 499, gRPC CANCELLED, asyncio's
  // CancelledError, the fetch AbortError and the openai client's APIUserAbortError ("Request was
  // aborted."), a client that closed the connection.
  if (http === 499 || /\bcancel|\buser ?abort|\babort ?error\b|\brequest was aborted\b|\bclient (?:closed|disconnected)\b/.test(w)) return 'cancelled';
  // The server stopped it (`aborted`): an engine abort, a preemption, a shutdown.
  if (/\babort|\bpreempt/.test(w)) return 'aborted';
  if (http === 408 || http === 504 || /\btime ?out|\btimed out\b|\bdeadline/.test(w)) return 'timeout';
  // Load shedding: Anthropic's 529, or a 503 that says the engine is overloaded (vLLM, OpenAI).
  if (http === 529 || /\boverloaded\b/.test(w) || (http === 503 && /\bcapacity\b|\bbusy\b/.test(w))) return 'rejected';
  return undefined;
}

/**
 * The error type of a failed call (status `error`). The HTTP status decides when there is one;
 * otherwise the class and message words, in the order of the table in docs/otlp-mapping.md.
 * (Timeouts reach it only when a span says `inferlens.status = error` itself: a failed call that
 * timed out is status `timeout` otherwise.)
 */
export function errorTypeOf(raw: string | undefined, httpStatus: number | undefined): ErrorType {
  const exact = (raw ?? '').toLowerCase();
  if (ERROR_TYPE_SET.has(exact)) return exact as ErrorType;
  const code = /^\d{3}$/.test(exact) ? Number(exact) : httpStatus !== undefined && httpStatus >= 400 ? httpStatus : undefined;
  if (code !== undefined) {
    if (code === 408 || code === 504) return 'dependency_timeout';
    if (code === 507) return 'resource_exhausted';
    if (code === 502 || code === 503) return 'replica_fault';
    if (code >= 400 && code < 500) return 'bad_input';
    return 'internal';
  }
  const w = words(raw ?? '');
  if (/\btime ?out|\btimed out\b|\bdeadline/.test(w)) return 'dependency_timeout';
  if (/\bout of memory\b|\boom\b|\boom ?kill|\bresource ?exhausted\b|\bmemory\b/.test(w)) return 'resource_exhausted';
  if (/\bmodel ?load|\bload ?model|\bloading\b|\bmodel ?not ?found\b/.test(w)) return 'model_load';
  if (/\bunavailable\b|\bconnect|\brefused\b|\breset\b|\bunreachable\b|\bunknown ?host\b|\bcertificate\b|\breplica\b|\bworker\b|\bcrash|\beconn/.test(w))
    return 'replica_fault';
  // The caller's request was refused: malformed, too long, not allowed, or asks for what does not exist.
  if (
    /\binvalid\b|\bbad ?request\b|\bbad ?input\b|\bvalidation\b|\bmalformed\b|\btoo ?long\b|\bcontext ?length\b|\bparse\b|\bunprocessable\b|\bauthentication\b|\bunauthori[sz]ed\b|\bpermission ?denied\b|\bforbidden\b|\bnot ?found\b|\bconflict\b/.test(
      w,
    )
  )
    return 'bad_input';
  if (/\binternal\b|\bserver ?error\b|\bassert|\bpanic\b/.test(w)) return 'internal';
  return 'other';
}

/**
 * Status, error type and HTTP status of one span. A span failed when its status is ERROR, it has
 * an `error.type`, or its HTTP status is 4xx/5xx; a failure is rate limited, aborted, timed out or
 * turned away (rejected) when its HTTP status or its class/message words say so, else an `error`
 * with a type. `inferlens.status` and `inferlens.error_type` win when valid.
 */
export function spanOutcome(o: OutcomeInput): Outcome {
  const http = o.httpStatus ?? httpStatusInMessage(o.message) ?? httpStatusInMessage(o.errorClass);
  const withHttp = (out: Outcome): Outcome => (http !== undefined ? { ...out, http_status: http } : out);
  const explicitType = o.explicitErrorType !== undefined && ERROR_TYPE_SET.has(o.explicitErrorType) ? (o.explicitErrorType as ErrorType) : undefined;
  const raw = o.errorClass ?? o.message;
  if (o.explicitStatus !== undefined && STATUS_SET.has(o.explicitStatus)) {
    const status = o.explicitStatus as Status;
    return withHttp(status === 'error' ? { status, error_type: explicitType ?? errorTypeOf(raw, http) } : { status });
  }
  const failed = o.spanError || o.errorClass !== undefined || (http !== undefined && http >= 400);
  if (!failed) return withHttp({ status: 'ok' });
  const special = failureStatus(http, words(`${o.errorClass ?? ''} ${o.message ?? ''}`));
  if (special) return withHttp({ status: special });
  return withHttp({ status: 'error', error_type: explicitType ?? errorTypeOf(raw, http) });
}
