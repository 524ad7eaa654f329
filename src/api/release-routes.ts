/**
 * `POST /v1/compare`: a release comparison (src/release) over the caller's scoped reads, so a
 * tenant-scoped key judges only its tenants' traffic. Errors thrown here are turned into statuses
 * by the app's one error table.
 */
import { CompareRequestSchema, decode } from '../schema/index.ts';
import { readJson } from './json-body.ts';
import type { Route } from './routes.ts';

/** Largest compare body (it is a small JSON object; anything bigger is a mistake). */
const MAX_BODY_BYTES = 64 * 1024;

/** `POST /v1/compare` → `{ status: 'success', data: CompareResult }`. */
export function releaseRoutes(): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/compare',
      access: 'read',
      handler: async (c) =>
        c.json({
          status: 'success',
          data: await c.var.reads.comparer.compare(decode(CompareRequestSchema, await readJson(c, MAX_BODY_BYTES), 'compare request')),
        }),
    },
  ];
}
