/** What the runtime view's panels share: the bucket grid they draw from and small chart helpers. */
import { num } from '../../api.ts';
import type { Row } from '../../api.ts';
import { h, replace } from '../../dom.ts';
import { fmtPct } from '../../format.ts';
import type { Panel } from '../../panel.ts';
import type { ViewContext } from '../../view.ts';

/** Charts of the runtime view move their cursors together. */
export const SYNC = 'runtime';

/** One value per time bucket of the window (null: no data in that bucket). */
export type Col = (number | null)[];

/**
 * The shared bucket query's answer (`BUCKET_MEASURES` per time bucket of the window), on the
 * window's grid: what every bucket panel draws from, so the seven charts cost one request.
 */
export interface Buckets {
  ctx: ViewContext;
  grid: (Row | undefined)[];
  xs: number[];
  xRange: [number, number];
  /** Requests per bucket (weighted by sample_weight). */
  count: Col;
  /** The rollup's relative error when it answered, else null (exact). */
  relativeError: number | null;
}

export function col(grid: (Row | undefined)[], key: string): Col {
  return grid.map((r) => num(r?.[key]));
}

export function hasAny(c: Col): boolean {
  return c.some((v) => v != null);
}

export function times(a: Col, b: Col): Col {
  return a.map((v, i) => (v == null || b[i] == null ? null : v * b[i]!));
}

/** The requests of one bucket, for the drawer. */
export function sliceAt(ctx: ViewContext, idx: number): { fromMs: number; toMs: number } {
  const t = ctx.win.buckets[idx]!;
  return { fromMs: t, toMs: t + ctx.win.stepMs };
}

/** ` · quantiles ±0.96 %` when the rollup answered (the numbers are never silently approximate). */
export function approxNote(relativeError: number | null): string {
  return relativeError == null ? '' : ` · quantiles ±${fmtPct(relativeError, 2)}`;
}

/** The panel's one `.chart` element, made on first use, so uPlot can update in place on refresh. */
export function chartBox(panel: Panel): HTMLElement {
  if (!panel.body.querySelector(':scope > .chart')) replace(panel.body, h('div', { class: 'chart' }));
  return panel.body.querySelector<HTMLElement>(':scope > .chart')!;
}
