/**
 * `POST /v1/compare`: a release comparison (src/release). Mounted by main.ts through
 * `ApiOptions.mounts`; errors thrown here are turned into statuses by the app's one error table.
 */
import type { Hono } from 'hono';
import { InferlensError } from '../schema/index.ts';
import type { Comparer } from '../release/index.ts';

export interface ReleaseRoutesOptions {
  comparer: Comparer;
}

/** Largest compare body (it is a small JSON object; anything bigger is a mistake). */
const MAX_BODY_BYTES = 64 * 1024;

/** Mounts `POST /v1/compare` → `{ status: 'success', data: CompareResult }`. */
export function releaseRoutes(o: ReleaseRoutesOptions): (app: Hono) => void {
  return (app) => {
    app.post('/v1/compare', async (c) => {
      const text = await c.req.text();
      if (text.length > MAX_BODY_BYTES) throw new InferlensError('payload_too_large', `compare body over ${MAX_BODY_BYTES} bytes: send the filters and windows only`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (e) {
        throw new InferlensError('invalid_argument', `body is not valid JSON: ${(e as Error).message}`);
      }
      return c.json({ status: 'success', data: await o.comparer.compare(body) });
    });
  };
}
