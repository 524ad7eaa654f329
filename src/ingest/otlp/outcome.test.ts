// The outcome table of docs/otlp-mapping.md, row by row. The first rows are what the real
// `openai` client's errors put on spans through @opentelemetry/instrumentation-openai (class in
// error.type, "<status> <message>" in the status message), as test/llm-clients/ records them.
import { describe, expect, it } from 'vitest';
import { httpStatusInMessage, spanOutcome } from './outcome.ts';
import type { Outcome, OutcomeInput } from './outcome.ts';

const failed = (errorClass: string | undefined, message: string | undefined, extra: Partial<OutcomeInput> = {}): OutcomeInput => ({
  spanError: true,
  errorClass,
  message,
  ...extra,
});

describe('spanOutcome', () => {
  it('maps what the openai client records for each HTTP outcome', () => {
    const cases: [OutcomeInput, Outcome][] = [
      [failed('RateLimitError', '429 Rate limit reached for requests. Please try again in 1s.'), { status: 'rate_limited', http_status: 429 }],
      [
        failed('InternalServerError', '500 The server had an error while processing your request. Sorry about that!'),
        { status: 'error', error_type: 'internal', http_status: 500 },
      ],
      [failed('InternalServerError', '503 The engine is currently overloaded, please try again later'), { status: 'rejected', http_status: 503 }],
      [failed('AuthenticationError', '401 Incorrect API key provided: sk-test.'), { status: 'error', error_type: 'bad_input', http_status: 401 }],
      [failed('PermissionDeniedError', '403 You are not allowed to use this model'), { status: 'error', error_type: 'bad_input', http_status: 403 }],
      [
        failed('NotFoundError', '404 The model `gpt-9` does not exist or you do not have access to it.'),
        { status: 'error', error_type: 'bad_input', http_status: 404 },
      ],
      [failed('UnprocessableEntityError', '422 Unprocessable Entity'), { status: 'error', error_type: 'bad_input', http_status: 422 }],
      [failed('BadRequestError', "400 This model's maximum context length is 128000 tokens."), { status: 'error', error_type: 'bad_input', http_status: 400 }],
      [failed('APIUserAbortError', 'Request was aborted.'), { status: 'cancelled' }],
      [failed('APIConnectionTimeoutError', 'Request timed out.'), { status: 'timeout' }],
      [failed('APIConnectionError', 'Connection error.'), { status: 'error', error_type: 'replica_fault' }],
    ];
    expect(cases.map(([input]) => spanOutcome(input))).toEqual(cases.map(([, want]) => want));
  });

  it('reads the HTTP status as the Python clients and gateways write it, and the other families’ classes', () => {
    const cases: [OutcomeInput, Outcome][] = [
      // openai-python (OpenInference / OpenLLMetry record the exception message)
      [failed('openai.RateLimitError', "Error code: 429 - {'error': {'code': 'rate_limit_exceeded'}}"), { status: 'rate_limited', http_status: 429 }],
      [failed('openai.InternalServerError', "Error code: 502 - {'error': 'bad gateway'}"), { status: 'error', error_type: 'replica_fault', http_status: 502 }],
      // Anthropic's overload answer
      [failed('OverloadedError', "529 {'type': 'error', 'error': {'type': 'overloaded_error'}}"), { status: 'rejected', http_status: 529 }],
      // a plain 503 is an unavailable replica, not load shedding
      [failed(undefined, undefined, { httpStatus: 503 }), { status: 'error', error_type: 'replica_fault', http_status: 503 }],
      [failed(undefined, undefined, { httpStatus: 504 }), { status: 'timeout', http_status: 504 }],
      [failed(undefined, undefined, { httpStatus: 507 }), { status: 'error', error_type: 'resource_exhausted', http_status: 507 }],
      [failed('grpc.StatusCode.DEADLINE_EXCEEDED', undefined), { status: 'timeout' }],
      [failed('asyncio.CancelledError', undefined), { status: 'cancelled' }],
      [failed('Error', 'Request was aborted.'), { status: 'cancelled' }],
      [failed('DOMException', 'This operation was aborted', { errorClass: 'AbortError' }), { status: 'cancelled' }],
      [failed(undefined, undefined, { httpStatus: 499 }), { status: 'cancelled', http_status: 499 }],
      // the server stopped the request: an engine abort or a preemption
      [failed('EngineError', 'request aborted by the engine: KV cache preempted'), { status: 'aborted' }],
      [failed('torch.OutOfMemoryError', 'CUDA out of memory. Tried to allocate 2.00 GiB'), { status: 'error', error_type: 'resource_exhausted' }],
      [failed('ModelLoadError', undefined), { status: 'error', error_type: 'model_load' }],
      [failed(undefined, undefined), { status: 'error', error_type: 'other' }],
      // an HTTP 4xx/5xx is a failure even when the span status is unset (server spans leave 4xx unset)
      [
        { spanError: false, httpStatus: 429 },
        { status: 'rate_limited', http_status: 429 },
      ],
      [
        { spanError: false, httpStatus: 400 },
        { status: 'error', error_type: 'bad_input', http_status: 400 },
      ],
      [
        { spanError: false, httpStatus: 200 },
        { status: 'ok', http_status: 200 },
      ],
      [{ spanError: false }, { status: 'ok' }],
    ];
    expect(cases.map(([input]) => spanOutcome(input))).toEqual(cases.map(([, want]) => want));
  });

  it('lets inferlens.status and inferlens.error_type win when they are valid values', () => {
    expect(spanOutcome({ ...failed('RateLimitError', '429 slow down'), explicitStatus: 'error', explicitErrorType: 'dependency_timeout' })).toEqual({
      status: 'error',
      error_type: 'dependency_timeout',
      http_status: 429,
    });
    expect(spanOutcome({ ...failed('Whatever', undefined), explicitStatus: 'aborted' })).toEqual({ status: 'aborted' });
    expect(spanOutcome({ ...failed('Whatever', undefined), explicitStatus: 'cancelled' })).toEqual({ status: 'cancelled' });
    // an explicit error keeps the mapped type when none is given; invalid values are ignored
    expect(spanOutcome({ ...failed('SocketTimeoutException', undefined), explicitStatus: 'error' })).toEqual({
      status: 'error',
      error_type: 'dependency_timeout',
    });
    expect(spanOutcome({ ...failed('BadRequestError', '400 nope'), explicitStatus: 'broken', explicitErrorType: 'nonsense' })).toEqual({
      status: 'error',
      error_type: 'bad_input',
      http_status: 400,
    });
  });

  it('finds an HTTP error status only where clients write one', () => {
    expect(['429 Rate limit', 'Error code: 503 - {}', 'upstream returned status code 502', 'HTTP status: 504'].map(httpStatusInMessage)).toEqual([
      429, 503, 502, 504,
    ]);
    // not an error status, or not a status at all
    expect(['200 OK', '1234 things', 'took 500 ms', 'model v404', undefined].map(httpStatusInMessage)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
