/**
 * `POST /v1/cost`: money per model, tenant, 1,000 requests and 1,000 tokens, with the trend
 * (src/query/cost.ts), over the caller's scoped reads and the configured prices. A tenant-scoped
 * key sees no resource samples, so its reply holds token cost only: GPU time is shared across
 * tenants and its attribution needs every tenant's execution time.
 */
import { CostRequestSchema, decode } from '../schema/index.ts';
import type { CostPrices } from '../query/index.ts';
import { readJson } from './json-body.ts';
import type { Route } from './routes.ts';

/** Largest cost request body (a small JSON object). */
const MAX_BODY_BYTES = 64 * 1024;

export function costRoutes(prices: CostPrices): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/cost',
      access: 'read',
      handler: async (c) =>
        c.json({
          status: 'success',
          data: await c.var.reads.queries.cost(decode(CostRequestSchema, await readJson(c, MAX_BODY_BYTES), 'cost request'), prices),
        }),
    },
  ];
}
