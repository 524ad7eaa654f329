/**
 * The one error class of inferlens. Every failure that crosses a folder carries a code from this
 * closed union; only the API edge (src/api) turns codes into HTTP statuses.
 */
export type ErrorCode =
  | 'invalid_argument'
  | 'not_found'
  | 'unauthenticated'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unavailable'
  | 'deadline_exceeded'
  | 'internal';

/** One problem with one field of the input, e.g. `{ path: "queue_ms", message: "expected a number ≥ 0" }`. */
export interface FieldIssue {
  path: string;
  message: string;
}

export interface InferlensErrorOptions {
  cause?: unknown;
  /** Field-level problems behind an `invalid_argument`. */
  issues?: FieldIssue[];
  /** For retryable codes: how long the caller should wait, in seconds. */
  retryAfterS?: number;
}

export class InferlensError extends Error {
  readonly code: ErrorCode;
  readonly issues: FieldIssue[];
  readonly retryAfterS: number | undefined;

  constructor(code: ErrorCode, message: string, options: InferlensErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'InferlensError';
    this.code = code;
    this.issues = options.issues ?? [];
    this.retryAfterS = options.retryAfterS;
  }
}

export function isInferlensError(e: unknown): e is InferlensError {
  return e instanceof InferlensError;
}
