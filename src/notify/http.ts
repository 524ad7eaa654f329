/** One JSON POST with a timeout, classified as delivered, retryable or permanent. */

/** Longest part of a receiver's answer kept (for the audit log and error messages). */
export const BODY_EXCERPT_CHARS = 512;

export interface HttpReply {
  status: number;
  /** The first BODY_EXCERPT_CHARS characters of the answer. */
  bodyExcerpt: string;
}

/** A failed delivery: `retryable` for network errors, timeouts, 408, 429 and 5xx; 4xx is permanent. */
export class DeliveryError extends Error {
  readonly retryable: boolean;
  readonly reply: HttpReply | undefined;
  constructor(message: string, retryable: boolean, reply?: HttpReply, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'DeliveryError';
    this.retryable = retryable;
    this.reply = reply;
  }
}

export interface PostOptions {
  headers?: Record<string, string>;
  timeoutMs: number;
  /** Aborts the request (stop deadline). */
  signal?: AbortSignal;
}

/** POSTs `body` (already serialised JSON); resolves with any HTTP answer, rejects only when none came. */
export async function postJson(url: string, body: string, o: PostOptions): Promise<HttpReply> {
  const signals = [AbortSignal.timeout(o.timeoutMs)];
  if (o.signal) signals.push(o.signal);
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...o.headers }, body, signal: AbortSignal.any(signals) });
    const text = await res.text();
    return { status: res.status, bodyExcerpt: text.slice(0, BODY_EXCERPT_CHARS) };
  } catch (e) {
    throw new DeliveryError(`POST ${url} failed: ${(e as Error).message}`, true, undefined, e);
  }
}

/** Throws a DeliveryError unless the reply is 2xx. */
export function expectSuccess(url: string, reply: HttpReply): HttpReply {
  if (reply.status >= 200 && reply.status < 300) return reply;
  const retryable = reply.status === 408 || reply.status === 429 || reply.status >= 500;
  throw new DeliveryError(`POST ${url} answered ${reply.status}: ${reply.bodyExcerpt.slice(0, 200)}`, retryable, reply);
}
