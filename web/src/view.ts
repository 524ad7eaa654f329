/** What a view gets from the shell, and what it gives back. */
import type { Filters } from './api.ts';
import type { SampleQuery } from './samples.ts';
import type { FilterDim, State, TimeWindow } from './state.ts';

export interface ViewContext {
  state: State;
  win: TimeWindow;
  /** The global filters in API form. */
  filters: Filters;
  /** Aborted when the view is refreshed or left. */
  signal: AbortSignal;
  openSamples(q: SampleQuery): void;
  openRequest(id: string): void;
  setFilters(patch: Partial<Record<FilterDim, string | null>>): void;
  /** Sets view-specific URL parameters (`null` removes). */
  setExtra(patch: Record<string, string | null>): void;
}

export interface ViewHandle {
  /** Loads (or reloads) every panel for this context. */
  update(ctx: ViewContext): Promise<void>;
  destroy(): void;
}

export type ViewFactory = (root: HTMLElement) => ViewHandle;
