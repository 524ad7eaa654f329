/**
 * The client of the public HTTP API (same origin). Every answer is the envelope
 * `{ status: 'success', data }` or `{ status: 'error', error_type, error }`; this file unwraps it.
 * `data` is read as the reply type the server declares for the route (src/schema/replies/, shared
 * with the server and free of dependencies, so no schema library reaches the bundle): `post<T>`,
 * `get<T>`. The small guards below (`num`, `str`) read the cells of query rows, whose keys are
 * the measures a view asked for.
 */
import type { Cell, EventSearchReply, QueryReply, RequestReply, Row, SampleReply, SamplesReply } from '../../src/schema/replies.ts';
import { SAMPLE_FILTER_KEYS } from '../../src/schema/vocabulary.ts';
import type { Dimension, ErrorType, Filters, Status } from '../../src/schema/vocabulary.ts';

export type { Cell, Dimension, ErrorType, Filters, Row, Status };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errorType: string,
    message: string,
  ) {
    super(message);
  }
  /** The route itself is not there yet (the server's fallback says `no route …`). */
  get missingEndpoint(): boolean {
    return this.status === 404 && this.message.startsWith('no route');
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Called with every 401 (the session ended or was never there): the shell shows the sign-in form. */
let onUnauthenticated: (() => void) | null = null;
export function whenUnauthenticated(fn: () => void): void {
  onUnauthenticated = fn;
}

/** Where the session's CSRF token comes from (session.ts); kept as a hook to avoid an import cycle. */
let csrfOf: () => string | null = () => null;
export function useCsrfToken(fn: () => string | null): void {
  csrfOf = fn;
}

/**
 * One API call. Every change (POST, DELETE) goes as JSON with the session's CSRF token: the
 * server refuses changes in any body a page on another origin could send (text/plain, forms).
 */
export async function call(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json' };
  const init: RequestInit = { method, headers, credentials: 'same-origin' };
  if (signal) init.signal = signal;
  if (method !== 'GET') {
    const token = csrfOf();
    if (token) headers['x-csrf-token'] = token;
  }
  if (body !== undefined || method === 'POST') {
    init.body = JSON.stringify(body ?? {});
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(path, init);
  if (res.status === 401 && path !== '/v1/session') onUnauthenticated?.();
  let json: unknown;
  try {
    json = await res.json();
  } catch {
    throw new ApiError(res.status, 'internal', `${method} ${path}: HTTP ${res.status}, not JSON`);
  }
  if (isRecord(json) && json['status'] === 'success') return json['data'];
  if (isRecord(json) && json['status'] === 'error') {
    throw new ApiError(res.status, String(json['error_type'] ?? 'internal'), String(json['error'] ?? `HTTP ${res.status}`));
  }
  if (!res.ok) throw new ApiError(res.status, 'internal', `${method} ${path}: HTTP ${res.status}`);
  return json;
}

/**
 * A read whose reply is declared in src/schema/replies.ts: the server's query functions return
 * that type and this one binary serves both, so the reply is taken as that type (a field renamed
 * on the server fails `npm run typecheck:web`).
 */
export async function post<T>(path: string, body: unknown, signal?: AbortSignal): Promise<T> {
  return (await call('POST', path, body, signal)) as T;
}

/** `post` for GET routes. */
export async function get<T>(path: string, signal?: AbortSignal): Promise<T> {
  return (await call('GET', path, undefined, signal)) as T;
}

export function field(v: unknown, key: string): unknown {
  return isRecord(v) ? v[key] : undefined;
}

export function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

export function records(v: unknown): Record<string, unknown>[] {
  return Array.isArray(v) ? v.filter(isRecord) : [];
}

export { isRecord };

export interface Window {
  from: string;
  to: string;
}

export interface QueryBody extends Window {
  filters: Filters;
  group_by?: Dimension[];
  step?: string;
  measures: string[];
  limit?: number;
  /** Allow quantiles from the per-minute rollup (within the reply's relative error). */
  approx?: boolean;
}

export async function query(body: QueryBody, signal?: AbortSignal): Promise<Row[]> {
  return (await post<QueryReply>('/v1/query', body, signal)).rows;
}

/** The rollup's relative error when a reply says it answered (`approx`), else null (exact). */
export function approxError(data: { approx?: { relative_error: number } | null }): number | null {
  return data.approx?.relative_error ?? null;
}

/** `query` with the reply's approximation: rows, and the relative error of its quantiles (null: exact). */
export async function queryApprox(body: QueryBody, signal?: AbortSignal): Promise<{ rows: Row[]; relativeError: number | null }> {
  const data = await post<QueryReply>('/v1/query', { ...body, approx: true }, signal);
  return { rows: data.rows, relativeError: approxError(data) };
}

export async function labels(dimension: Dimension, w: Window, signal?: AbortSignal): Promise<string[]> {
  const q = new URLSearchParams({ from: w.from, to: w.to });
  const data = await call('GET', `/v1/labels/${dimension}?${q}`, undefined, signal);
  return Array.isArray(data) ? data.filter((x): x is string => typeof x === 'string') : [];
}

export interface SearchBody extends Window {
  filters: Filters;
  limit: number;
  columns?: string[];
  min?: { column: string; value: number };
}

export async function searchEvents(body: SearchBody, signal?: AbortSignal): Promise<Record<string, unknown>[]> {
  return (await post<EventSearchReply>('/v1/events/search', body, signal)).events;
}

export async function request(id: string, signal?: AbortSignal): Promise<RequestReply> {
  return get<RequestReply>(`/v1/requests/${encodeURIComponent(id)}`, signal);
}

/** A captured sample as the API returns it: redacted, bounded text. */
export type Sample = SampleReply;

/** Only the filters the samples search understands (the others would be refused). */
export function sampleFilters(f: Filters): Filters {
  const out: Filters = {};
  for (const k of SAMPLE_FILTER_KEYS) {
    const v = (f as Record<string, string | string[] | undefined>)[k];
    if (v !== undefined) (out as Record<string, string | string[]>)[k] = v;
  }
  return out;
}

export interface SampleSearch extends Window {
  filters: Filters;
  reasons?: string[];
  tags?: string[];
  request_id?: string;
  limit: number;
}

export async function searchSamples(body: SampleSearch, signal?: AbortSignal): Promise<Sample[]> {
  return (await post<SamplesReply>('/v1/samples/search', { ...body, filters: sampleFilters(body.filters) }, signal)).samples;
}
