/**
 * One HTTP POST of one encoded batch, classified into what the exporter does next. Uses Node's
 * global fetch; never throws (a network error is an outcome like any other).
 */
import { z } from 'zod';
import type { RowIssue } from '../schema/index.ts';
import { parseRetryAfterMs } from './backoff.ts';
import type { SdkTimers } from './timers.ts';
import { unrefTimer } from './timers.ts';

/** What the exporter does with a batch after one attempt. */
export type SendOutcome =
  /**
   * 2xx: `accepted` rows stored, `rejected` rows permanently refused (never retried). `reply` is
   * undefined when the body was not the documented JSON: the status said success, so all rows count.
   */
  | { kind: 'ok'; reply: { accepted: number; rejected: RowIssue[] } | undefined }
  /** 400 and other non-retryable statuses: every row of the batch is refused. */
  | { kind: 'permanent'; status: number; message: string }
  /** 413: split the batch and try each half. */
  | { kind: 'too_large' }
  /** 429/502/503/504, timeouts and network errors: try again later. */
  | { kind: 'retry'; reason: string; retryAfterMs: number | undefined }
  /** The caller's signal fired (shutdown deadline): stop. */
  | { kind: 'aborted' };

export interface PostRequest {
  url: string;
  body: string | Uint8Array<ArrayBuffer>;
  contentType: string;
  gzip: boolean;
  apiKey: string | undefined;
  timeoutMs: number;
  /** Where the timeout is set. */
  timers: SdkTimers;
  /** Aborts the request for good (shutdown), as opposed to the per-request timeout. */
  signal: AbortSignal;
}

const ReplySchema = z.object({
  accepted: z.number().int().min(0),
  rejected: z.array(z.object({ index: z.number(), path: z.string(), message: z.string() })).default([]),
});

/** Statuses worth retrying: overload and gateway trouble (as OTLP/HTTP defines them). */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
/** Reply bodies above this are not read into memory. */
const MAX_REPLY_CHARS = 1_000_000;

function errorReason(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? `: ${e.cause.message}` : '';
  return `${e.name}: ${e.message}${cause}`;
}

export async function postBatch(req: PostRequest): Promise<SendOutcome> {
  if (req.signal.aborted) return { kind: 'aborted' };
  const headers: Record<string, string> = { 'content-type': req.contentType };
  if (req.gzip) headers['content-encoding'] = 'gzip';
  if (req.apiKey !== undefined) headers.authorization = `Bearer ${req.apiKey}`;
  // One controller per request, fired by the timeout or the caller's signal. (Not AbortSignal.any:
  // on Node 20 it can keep every derived signal reachable from the long-lived shutdown signal.)
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  const timer = req.timers.setTimeout(abort, req.timeoutMs);
  unrefTimer(timer);
  req.signal.addEventListener('abort', abort, { once: true });
  let res: Response;
  let text: string;
  try {
    res = await fetch(req.url, { method: 'POST', headers, body: req.body, signal: controller.signal });
    text = await res.text();
  } catch (e) {
    if (req.signal.aborted) return { kind: 'aborted' };
    const reason = controller.signal.aborted ? `no reply within ${req.timeoutMs} ms` : errorReason(e);
    return { kind: 'retry', reason, retryAfterMs: undefined };
  } finally {
    req.timers.clearTimeout(timer);
    req.signal.removeEventListener('abort', abort);
  }
  const status = res.status;
  if (status >= 200 && status < 300) {
    let parsed: unknown;
    try {
      parsed = text.length > MAX_REPLY_CHARS ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const reply = ReplySchema.safeParse(parsed);
    return { kind: 'ok', reply: reply.success ? reply.data : undefined };
  }
  if (status === 413) return { kind: 'too_large' };
  if (RETRYABLE_STATUSES.has(status)) {
    return { kind: 'retry', reason: `HTTP ${status}`, retryAfterMs: parseRetryAfterMs(res.headers.get('retry-after')) };
  }
  return { kind: 'permanent', status, message: text.slice(0, 200) };
}
