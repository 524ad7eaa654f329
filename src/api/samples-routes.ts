/**
 * `POST /v1/samples/search`: the captured samples behind a chart point (src/query/samples.ts).
 * Mounted by main.ts through `ApiOptions.mounts`; errors thrown here are turned into statuses by
 * the app's one error table.
 */
import type { Hono } from 'hono';
import { InferlensError } from '../schema/index.ts';
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
      const text = await c.req.text();
      if (text.length > MAX_BODY_BYTES) throw new InferlensError('payload_too_large', `sample search body over ${MAX_BODY_BYTES} bytes: send the filters and the time range only`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (e) {
        throw new InferlensError('invalid_argument', `body is not valid JSON: ${(e as Error).message}`);
      }
      return c.json({ status: 'success', data: await o.queries.samples(body) });
    });
  };
}
