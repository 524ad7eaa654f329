/**
 * The public HTTP API. Routes decode the request, call a receiver or the query service, and wrap
 * the answer in the envelope; errors become statuses only here (errors.ts).
 */
import { Hono } from 'hono';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { Histogram } from 'prom-client';
import { InferlensError } from '../schema/index.ts';
import type { IngestReply } from '../schema/index.ts';
import { handleOtlp, ingestEvents, ingestFeedback, ingestResources, readBody } from '../ingest/index.ts';
import type { Sink } from '../pipeline/index.ts';
import type { Queries } from '../query/index.ts';
import { toErrorResponse } from './errors.ts';
import { readJson } from './json-body.ts';

export interface ApiOptions {
  /** The write path; without it (roles query, alerting) the ingest routes are not served. */
  sink?: Sink;
  /** The reads; without it (roles ingest, alerting) the query routes are not served. */
  queries?: Queries;
  logger: Logger;
  registry: Registry;
  /** Largest accepted body, before and after decompression. */
  maxBodyBytes: number;
  /** When non-empty, every /v1 route needs `Authorization: Bearer <key>`. */
  apiKeys: readonly string[];
  /** Whether the server is ready to take traffic (store open, pipeline started). */
  ready: () => boolean;
  /** Why the server cannot take writes now (e.g. the disk is full), or undefined: `/readyz` answers 503 with it. */
  notReadyReason?: () => Promise<string | undefined>;
  /** Extra route groups mounted by other components (OTLP, UI, …). */
  mounts?: ((app: Hono) => void)[];
}

/** Sends an ingest reply: 200 when any row was stored, 400 (same body plus the envelope) when none. */
function ingestReply(c: Context, reply: IngestReply, what: string) {
  if (reply.accepted > 0) return c.json(reply, 200);
  return c.json(
    { status: 'error', error_type: 'invalid_argument', error: `no valid ${what} in the batch: every row was rejected (see rejected)`, ...reply },
    400,
  );
}

export function createApi(o: ApiOptions): Hono {
  const app = new Hono();
  const duration = new Histogram({
    name: 'inferlens_http_request_duration_seconds',
    help: 'HTTP request duration by route and status.',
    labelNames: ['route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [o.registry],
  });

  app.onError((e, c) => {
    const { status, body, headers } = toErrorResponse(e);
    if (status >= 500 && status !== 503) o.logger.error({ err: e, path: c.req.path }, 'request failed');
    return c.json(body, status as 400, headers);
  });
  app.notFound((c) => c.json({ status: 'error', error_type: 'not_found', error: `no route ${c.req.method} ${c.req.path}` }, 404));

  app.use('*', async (c, next) => {
    const t0 = performance.now();
    await next();
    const route = c.req.routePath || 'unmatched';
    duration.observe({ route, status: String(c.res.status) }, (performance.now() - t0) / 1000);
  });

  app.use('/v1/*', async (c, next) => {
    if (o.apiKeys.length > 0) {
      const auth = c.req.header('authorization') ?? '';
      const key = auth.startsWith('Bearer ') ? auth.slice(7) : '';
      if (!o.apiKeys.includes(key)) throw new InferlensError('unauthenticated', 'missing or wrong API key: send Authorization: Bearer <key>');
    }
    await next();
  });

  const body = (c: Context) => readBody(c.req.raw.body, c.req.header('content-encoding'), o.maxBodyBytes);
  // Write routes: refused before the body is read when the write queue is behind (cheap shedding).
  const writeBody = (c: Context, sink: Sink) => {
    sink.admit();
    return body(c);
  };
  const jsonBody = (c: Context) => readJson(c, o.maxBodyBytes);

  app.get('/healthz', (c) => c.text('ok'));
  app.get('/readyz', async (c) => {
    if (!o.ready()) return c.text('not ready', 503);
    const why = await o.notReadyReason?.();
    return why === undefined ? c.text('ready') : c.text(`not ready: ${why}`, 503);
  });
  app.get('/metrics', async (c) => c.body(await o.registry.metrics(), 200, { 'Content-Type': o.registry.contentType }));

  const sink = o.sink;
  if (sink) {
    app.post('/v1/events', async (c) => ingestReply(c, await ingestEvents(await writeBody(c, sink), c.req.header('content-type'), sink), 'event'));
    app.post('/v1/feedback', async (c) => ingestReply(c, await ingestFeedback(await writeBody(c, sink), c.req.header('content-type'), sink), 'feedback'));
    app.post('/v1/resources', async (c) => ingestReply(c, await ingestResources(await writeBody(c, sink), c.req.header('content-type'), sink), 'resource sample'));

    // OTLP/HTTP: the reply is the OTLP partial-success message in the request's encoding.
    for (const signal of ['traces', 'metrics'] as const) {
      app.post(`/v1/${signal}`, async (c) => {
        const reply = await handleOtlp(signal, await writeBody(c, sink), c.req.header('content-type') ?? '', sink);
        return c.body(reply.body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': reply.contentType });
      });
    }
  }

  const queries = o.queries;
  if (queries) {
    app.get('/v1/requests/:id', async (c) => c.json({ status: 'success', data: await queries.request(c.req.param('id')) }));
    app.get('/v1/labels/:dimension', async (c) => {
      const to = c.req.query('to') ? Date.parse(c.req.query('to')!) : Date.now();
      const from = c.req.query('from') ? Date.parse(c.req.query('from')!) : to - 86_400_000;
      if (!Number.isFinite(from) || !Number.isFinite(to)) throw new InferlensError('invalid_argument', 'from/to must be RFC 3339 timestamps');
      const limit = Number(c.req.query('limit') ?? 200);
      return c.json({ status: 'success', data: await queries.labels(c.req.param('dimension'), from, to, limit) });
    });

    const post = (path: string, fn: (input: unknown) => Promise<unknown>) => app.post(path, async (c) => c.json({ status: 'success', data: await fn(await jsonBody(c)) }));
    post('/v1/query', queries.query);
    post('/v1/events/search', queries.searchEvents);
    post('/v1/histogram', queries.histogram);
    post('/v1/analysis/errors', queries.errorSlices);
    post('/v1/analysis/stages', queries.stageAttribution);
    post('/v1/analysis/saturation', queries.saturation);
    post('/v1/resources/query', queries.resources);
    post('/v1/analysis/capacity', queries.capacity);
  }

  for (const mount of o.mounts ?? []) mount(app);
  return app;
}
