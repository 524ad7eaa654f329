/** The HTTP API envelopes (Prometheus-style) and the ingest reply. */
import type { ErrorCode, FieldIssue } from './errors.ts';

export interface ErrorEnvelope {
  status: 'error';
  error_type: ErrorCode;
  error: string;
  /** Field problems, when the error is about the request body. */
  issues?: FieldIssue[];
}

/** One rejected row of an ingest batch: its 0-based index, the field path and what was expected. */
export interface RowIssue {
  index: number;
  path: string;
  message: string;
}

/** Reply of `POST /v1/events` (and other batch ingest endpoints). */
export interface IngestReply {
  /** Rows now durably stored (including re-sent rows that were already stored). */
  accepted: number;
  rejected: RowIssue[];
  /** Unknown fields that were ignored (the row itself was stored). */
  warnings?: RowIssue[];
}
