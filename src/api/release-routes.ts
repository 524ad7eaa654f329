/**
 * `POST /v1/compare`: a release comparison (src/release). Mounted by main.ts through
 * `ApiOptions.mounts`; errors thrown here are turned into statuses by the app's one error table.
 */
import type { Hono } from 'hono';
import { readJson } from './json-body.ts';
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
      return c.json({ status: 'success', data: await o.comparer.compare(await readJson(c, MAX_BODY_BYTES)) });
    });
  };
}
