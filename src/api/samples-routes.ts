/**
 * `POST /v1/samples/search`: the captured samples behind a chart point (src/query/samples.ts),
 * from the caller's scoped reads. Errors thrown here are turned into statuses by the app's one
 * error table.
 */
import { SampleSearchRequestSchema, decode } from '../schema/index.ts';
import { readJson } from './json-body.ts';
import type { Route } from './routes.ts';

/** Largest search body (a small JSON object; anything bigger is a mistake). */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * `POST /v1/samples/search` with `{ from, to, filters, reasons?, tags?, request_id?, limit }`
 * → `{ status: 'success', data: { samples } }`, newest first.
 */
export function samplesRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/samples/search',
      access: 'read',
      handler: async (c) =>
        c.json({
          status: 'success',
          data: await c.var.reads.queries.samples(decode(SampleSearchRequestSchema, await readJson(c, MAX_BODY_BYTES), 'sample search')),
        }),
    },
  ];
}
