/** The one table from error code to HTTP status. Retryable codes carry Retry-After. */
import { InferlensError } from '../schema/index.ts';
import type { ErrorCode, ErrorEnvelope } from '../schema/index.ts';

export const HTTP_STATUS: Record<ErrorCode, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  payload_too_large: 413,
  unsupported_media_type: 415,
  resource_exhausted: 429,
  internal: 500,
  unavailable: 503,
  deadline_exceeded: 504,
};

/** Default Retry-After (seconds) for retryable codes without one. */
const RETRY_AFTER_S: Partial<Record<ErrorCode, number>> = { resource_exhausted: 1, unavailable: 5 };

export function toErrorResponse(e: unknown): { status: number; body: ErrorEnvelope; headers: Record<string, string> } {
  const err = e instanceof InferlensError ? e : new InferlensError('internal', 'internal error; the server log has the details', { cause: e });
  const headers: Record<string, string> = {};
  const retry = err.retryAfterS ?? RETRY_AFTER_S[err.code];
  if (retry !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(retry)));
  const body: ErrorEnvelope = { status: 'error', error_type: err.code, error: err.message };
  if (err.issues.length) body.issues = err.issues;
  return { status: HTTP_STATUS[err.code], body, headers };
}
