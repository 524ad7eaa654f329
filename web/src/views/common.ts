/** Helpers the role views share: a guarded panel load and a generic table of records. */
import { ApiError } from '../api.ts';
import { h } from '../dom.ts';
import type { Panel } from '../panel.ts';

/** Runs a panel's load; a 404 route becomes "this needs <endpoint>", an abort is ignored. */
export async function guard(panel: Panel, signal: AbortSignal, endpoint: string, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (signal.aborted) return;
    if (e instanceof ApiError && e.missingEndpoint) panel.missingApi(endpoint, what);
    else panel.error((e as Error).message);
  }
}

function cell(v: unknown): string {
  if (v == null) return '–';
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : v.toFixed(4);
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** A table of whatever records an endpoint returns: columns are the union of their keys. */
export function recordTable(rows: Record<string, unknown>[], columns?: string[]): HTMLElement {
  const cols = columns ?? [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'compact' },
      h('thead', null, h('tr', null, ...cols.map((c) => h('th', null, c)))),
      h('tbody', null, ...rows.map((r) => h('tr', null, ...cols.map((c) => h('td', null, cell(r[c])))))),
    ),
  );
}
