/**
 * The shared bucket query: one bucketed `POST /v1/query` with every measure the bucket panels need
 * (`BUCKET_MEASURES`, within the 40 one query allows), read once onto the window's grid.
 */
import { queryApprox } from '../../api.ts';
import { onGrid } from '../../charts/timeseries.ts';
import type { ViewContext } from '../../view.ts';
import { BUCKET_MEASURES } from './measures.ts';
import { col } from './shared.ts';
import type { Buckets } from './shared.ts';

export async function queryBuckets(ctx: ViewContext): Promise<Buckets> {
  const { win, filters, signal } = ctx;
  const answer = await queryApprox({ from: win.from, to: win.to, filters, step: win.step, measures: BUCKET_MEASURES }, signal);
  const grid = onGrid(win.buckets, answer.rows);
  return { ctx, grid, xs: win.buckets, xRange: [win.fromMs, win.toMs], count: col(grid, 'count'), relativeError: answer.relativeError };
}
