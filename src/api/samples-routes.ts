/**
 * `POST /v1/samples/search`: the captured samples behind a chart point (src/query/samples.ts).
 * Mounted by main.ts through `ApiOptions.mounts`; errors thrown here are turned into statuses by
 * the app's one error table.
 */
import type { Hono } from 'hono';
import { readJson } from './json-body.ts';
import type { Queries } from '../query/index.ts';

export interface SamplesRoutesOptions {
  queries: Pick<Queries, 'samples'>;
}

/** Largest search body (a small JSON object; anything bigger is a mistake). */
const MAX_BODY_BYTES = 256 * 1024;

/**
 * Mounts `POST /v1/samples/search` with `{ from, to, filters, reasons?, tags?, request_id?, limit }`
 * → `{ status: 'success', data: { samples } }`, newest first.
 */
export function samplesRoutes(o: SamplesRoutesOptions): (app: Hono) => void {
  return (app) => {
    app.post('/v1/samples/search', async (c) => {
      return c.json({ status: 'success', data: await o.queries.samples(await readJson(c, MAX_BODY_BYTES)) });
    });
  };
}
