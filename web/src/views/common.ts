/** Helpers the role views share: a guarded panel load and tables. */
import { ApiError } from '../api.ts';
import { h } from '../dom.ts';
import type { Child } from '../dom.ts';
import type { Panel } from '../panel.ts';

/** Runs a panel's load; an abort is ignored, a 404 route says "this needs <endpoint>" (only the alert routes can be absent: a server with alerting off). */
export async function guard(panel: Panel, signal: AbortSignal, endpoint: string, what: string, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    if (signal.aborted) return;
    if (e instanceof ApiError && e.missingEndpoint) panel.missingApi(endpoint, what);
    else panel.error((e as Error).message);
  }
}

/**
 * A scroll box for a long table that says what it hides: a line under the box, "↓ 12 more rows
 * below (32 in all)" while rows are out of view, kept current on scroll and resize (a box that
 * hides rows without a cue reads as the whole list). `data-hidden` holds the count (tests).
 */
export function scrollBox(table: HTMLTableElement): HTMLElement {
  const wrap = h('div', { class: 'table-wrap' }, table);
  const cue = h('div', { class: 'scroll-cue', data: { hidden: '0' } });
  const box = h('div', { class: 'table-box' }, wrap, cue);
  const update = () => {
    const rows = table.tBodies[0]?.rows ?? [];
    const bottom = wrap.scrollTop + wrap.clientHeight;
    let below = 0;
    for (const r of rows) if (r.offsetTop + r.offsetHeight / 2 > bottom) below++;
    const right = wrap.scrollWidth - wrap.clientWidth - wrap.scrollLeft > 4;
    cue.dataset['hidden'] = String(below);
    cue.dataset['right'] = String(right);
    cue.textContent = [
      below > 0 ? `↓ ${below} more row${below === 1 ? '' : 's'} below (${rows.length} in all): scroll the table` : '',
      right ? '→ more columns to the right' : '',
    ]
      .filter(Boolean)
      .join(' · ');
  };
  wrap.addEventListener('scroll', update, { passive: true });
  new ResizeObserver(update).observe(wrap);
  return box;
}

/** A table from header labels and rows of cells; `rowData` sets data-* on each row (test hooks). */
export function table(head: string[], rows: Child[][], rowData?: (i: number) => Record<string, string>, rowClass?: (i: number) => string): HTMLElement {
  return scrollBox(
    h(
      'table',
      { class: 'compact' },
      h('thead', null, h('tr', null, ...head.map((c) => h('th', null, c)))),
      h('tbody', null, ...rows.map((cells, i) => h('tr', { data: rowData?.(i) ?? {}, class: rowClass?.(i) ?? '' }, ...cells.map((c) => h('td', null, c))))),
    ),
  );
}

/** A share (0–1) as a bar with its percentage (width set through the style property, never markup). */
export function shareBar(share: number | null, color = '#3d85c6'): HTMLElement {
  const fill = h('span', { class: 'bar-fill' });
  fill.style.width = `${Math.max(0, Math.min(1, share ?? 0)) * 100}%`;
  fill.style.background = color;
  return h(
    'span',
    { class: 'bar' },
    h('span', { class: 'bar-track' }, fill),
    h('span', { class: 'bar-text' }, share == null ? '–' : `${(share * 100).toFixed(1)} %`),
  );
}

/** A coloured word for a state (verdict, severity, health): class `tag tag-<value>`. */
export function tag(value: string, data?: Record<string, string>): HTMLElement {
  return h('span', { class: `tag tag-${value.replace(/\W+/g, '_')}`, data: data ?? {} }, value.replace(/_/g, ' '));
}

/** p- and q-values: scientific below 0.001. */
export function fmtP(v: number | null | undefined): string {
  if (v == null || !Number.isFinite(v)) return '–';
  if (v === 0) return '0';
  return v < 0.001 ? v.toExponential(1) : v.toFixed(3);
}

/** Versions in the window, most requests first (the release and drift pickers' defaults). */
export function byFrequency(rows: Record<string, unknown>[], key: string): string[] {
  return rows
    .filter((r) => typeof r[key] === 'string')
    .sort((a, b) => (Number(b['n']) || 0) - (Number(a['n']) || 0))
    .map((r) => r[key] as string);
}
